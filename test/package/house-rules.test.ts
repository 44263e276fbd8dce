/**
 * #26: the dependency rules `npm run lint` (part of `npm run check`) applies fail when broken.
 * Each case is a small tree of its own, laid out as `src/` is, cruised with the project's own
 * `.dependency-cruiser.cjs`: a rule that no longer matched its paths would pass every tree here.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The rules a tree of `files` (path → source) breaks, by name; the exit code says the same. */
function broken(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'house-rules-'));
  made.push(dir);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', strict: true } }));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  // The output `npm run lint` gives: one `error <rule>: <path> → …` per violation, and exit 1.
  const run = spawnSync(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG], { cwd: dir, encoding: 'utf8' });
  const names = [...new Set([...run.stdout.matchAll(/^\s*error ([\w-]+):/gm)].map((m) => m[1]!))].sort();
  expect(run.status, run.stdout + run.stderr).toBe(names.length === 0 ? 0 : 1);
  return names;
}

const exporting = (name: string) => `export const ${name} = 1;\n`;

describe('the dependency rules of npm run check', () => {
  test('a tree that keeps the rules passes', () => {
    expect(
      broken({
        'src/contract/routes.ts': exporting('routes'),
        'src/internal/guards.ts': exporting('guard'),
        'src/client/client.ts': `import { routes } from '../contract/routes.js';\nimport { guard } from '../internal/guards.js';\nexport const client = routes + guard;\n`,
        'src/testing/service.ts': `import { routes } from '../contract/routes.js';\nexport const fake = routes;\n`,
      }),
    ).toEqual([]);
  });

  test('a cycle fails', () => {
    expect(
      broken({
        'src/client/a.ts': `import { b } from './b.js';\nexport const a = () => b;\n`,
        'src/client/b.ts': `import { a } from './a.js';\nexport const b = () => a;\n`,
      }),
    ).toEqual(['no-cycles']);
  });

  test('a cycle through type-only imports fails too', () => {
    expect(
      broken({
        'src/client/a.ts': `import type { B } from './b.js';\nexport interface A { b?: B }\n`,
        'src/client/b.ts': `import type { A } from './a.js';\nexport interface B { a?: A }\n`,
      }),
    ).toEqual(['no-cycles']);
  });

  test.each([
    ['the SDK importing the fake', 'src/client/client.ts', '../testing/service.js', 'src-never-imports-testing'],
    ['a verifier importing the client', 'src/sd-jwt/verify.ts', '../client/client.js', 'verifiers-never-import-the-client'],
    ['the webhooks importing the Redis stores', 'src/webhooks/verify.ts', '../redis/store.js', 'verifiers-never-import-the-client'],
    ['the contract importing anything', 'src/contract/openapi.ts', '../internal/guards.js', 'contract-imports-nothing'],
    ['internal/ importing a room above it', 'src/internal/guards.ts', '../errors/index.js', 'internal-is-the-floor'],
    ["the fake importing the SDK's errors", 'src/testing/service.ts', '../errors/index.js', 'testing-uses-internal-only'],
  ])('%s fails', (_name, from, target, rule) => {
    const to = join(dirname(from), target).replace(/\.js$/, '.ts');
    expect(broken({ [from]: `import { x } from '${target}';\nexport const y = x;\n`, [to]: exporting('x') })).toEqual([rule]);
  });

  test("the inbox may import the client's types, never its code", () => {
    const client = { 'src/client/client.ts': 'export class Client {}\n' };
    expect(
      broken({ ...client, 'src/inbox/inbox.ts': `import type { Client } from '../client/client.js';\nexport type C = Client;\n` }),
    ).toEqual([]);
    expect(
      broken({ ...client, 'src/inbox/inbox.ts': `import { Client } from '../client/client.js';\nexport const c = new Client();\n` }),
    ).toEqual(['inbox-takes-the-client-it-is-given']);
  });

  test('an import that resolves to nothing fails', () => {
    expect(broken({ 'src/client/a.ts': `import { gone } from './gone.js';\nexport const a = gone;\n` })).toEqual(['not-to-unresolvable']);
  });
});
