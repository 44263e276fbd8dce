/**
 * Every entry the package exports is reachable by its name wherever the project compiles or runs
 * code as a user writes it: tsconfig's `paths` (the docs' snippets, the examples' types) and
 * vitest's aliases (the examples run against the sources). `@acme/identity/postgres` was missing
 * from `paths`, so a guide's snippet importing it could not compile.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import config from '../../vitest.config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');

/** The names a user imports: `@acme/identity` and each `./sub/path` of the exports map (package.json and the like left out). */
const exported = Object.keys(JSON.parse(read('package.json')).exports as Record<string, unknown>)
  .filter((key) => !key.endsWith('.json'))
  .map((key) => (key === '.' ? '@acme/identity' : `@acme/identity/${key.slice(2)}`));

test('the package exports the entries the tests expect (a guard against an empty list)', () => {
  expect(exported).toEqual(expect.arrayContaining(['@acme/identity', '@acme/identity/inbox', '@acme/identity/postgres']));
});

test.each(exported)('%s has a path in tsconfig.json and an alias in vitest.config.ts, to the same source', (name) => {
  // tsconfig.json is JSON with comments: the paths are read from its text.
  const paths = read('tsconfig.json').match(new RegExp(`"${name.replaceAll('/', '\\/')}": \\["\\./src/([^"]+)"\\]`));
  expect(paths, `tsconfig.json has no path for ${name}`).not.toBeNull();
  const aliases = (config.resolve?.alias ?? []) as { find: RegExp; replacement: string }[];
  const alias = aliases.find((entry) => entry.find.test(name));
  expect(alias, `vitest.config.ts has no alias for ${name}`).toBeDefined();
  expect(name.replace(alias!.find, alias!.replacement)).toBe(`${ROOT}src/${paths![1]}`);
});
