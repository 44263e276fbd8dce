/**
 * Regenerates `generated/` from the service's OpenAPI document at `{base_url}/docs/spec`.
 *
 *   tsx scripts/generate.ts                 from the contract (src/contract/openapi.ts), which the fake serves
 *   tsx scripts/generate.ts <base_url>      fetch {base_url}/docs/spec from any running service (the real one, the sandbox)
 *   tsx scripts/generate.ts --check         fail when generated/ differs from what would be written
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { parse as parseYaml } from 'yaml';
import { openApiDocument } from '../src/contract/openapi.js';

const HEADER =
  '/**\n * generated, do not edit: run `npm run generate`.\n * Source: the service OpenAPI document at {base_url}/docs/spec (snapshot: generated/openapi.json).\n */\n\n';

const args = process.argv.slice(2);
const check = args.includes('--check');
const baseUrl = args.find((a) => !a.startsWith('--'));
const outDir = fileURLToPath(new URL('../generated/', import.meta.url));

async function fetchDocument(): Promise<unknown> {
  if (baseUrl) {
    const response = await fetch(`${baseUrl.replace(/\/+$/, '')}/docs/spec`);
    if (!response.ok) throw new Error(`GET ${baseUrl}/docs/spec answered ${response.status}`);
    // JSON or YAML: the spec does not show which a service serves.
    const text = await response.text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return parseYaml(text) as unknown;
    }
  }
  // The document as the fake serves it: JSON, so exactly what /docs/spec answers.
  return JSON.parse(JSON.stringify(openApiDocument)) as unknown;
}

const document = await fetchDocument();
const files: Record<string, string> = {
  'openapi.json': `${JSON.stringify(document, null, 2)}\n`,
  'schema.ts': HEADER + astToString(await openapiTS(document as never, { alphabetize: false })),
};

let drifted = false;
for (const [name, content] of Object.entries(files)) {
  const path = `${outDir}${name}`;
  if (check) {
    const current = await readFile(path, 'utf8').catch(() => '');
    if (current !== content) {
      drifted = true;
      console.error(`generated/${name} has drifted from the OpenAPI document: run \`npm run generate\`.`);
    }
  } else {
    await mkdir(outDir, { recursive: true });
    await writeFile(path, content);
    console.log(`wrote generated/${name}`);
  }
}
if (drifted) process.exit(1);
if (check) console.log('generated/ matches the OpenAPI document.');
