/** A page's script bundled for the browser by esbuild, as an app's build would: one ES module, minified. */
import { build } from 'esbuild';

export async function bundleForBrowser(entry: string): Promise<string> {
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const [output] = bundle.outputFiles;
  if (!output) throw new Error(`esbuild wrote nothing for ${entry}`);
  return output.text;
}
