import { build } from 'esbuild'; import { gzipSync } from 'node:zlib';
const r = await build({ stdin: { contents: process.argv[2], resolveDir: process.cwd(), loader: 'ts' }, bundle: true, minify: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent' });
console.log(gzipSync(r.outputFiles[0].contents, { level: 9 }).length);
if (process.argv[3]) process.stdout.write(r.outputFiles[0].text);
