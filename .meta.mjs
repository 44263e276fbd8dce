import { build } from 'esbuild';
const r = await build({ stdin: { contents: process.argv[2], resolveDir: process.cwd(), loader: 'ts' }, bundle: true, minify: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent', metafile: true });
const out = Object.values(r.metafile.outputs)[0];
for (const [f, v] of Object.entries(out.inputs).sort((a,b)=>b[1].bytesInOutput-a[1].bytesInOutput)) console.log(v.bytesInOutput, f);
