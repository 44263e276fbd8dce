/** The prose a reader follows: every relative link in the README, the docs and the guides names a file (and heading) that exists. */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  'ARCHITECTURE.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'examples/README.md',
  'examples/webhook-recipes/README.md',
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

const anchorsOf = (file: string) =>
  new Set([...readFileSync(file, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!.replace(/`/g, ''))));

describe('documentation links', () => {
  test.each(DOCS)('%s: every relative link names a file that exists, and a heading that exists', (doc) => {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:)/.test(target!)) continue;
      const [path, hash] = target!.split('#') as [string, string | undefined];
      const file = path === '' ? join(ROOT, doc) : join(ROOT, dirname(doc), path);
      if (!existsSync(file)) broken.push(`${target} (no ${relative(ROOT, file)})`);
      else if (hash && file.endsWith('.md') && !anchorsOf(file).has(hash)) broken.push(`${target} (no heading #${hash})`);
    }
    expect(broken).toEqual([]);
  });

  test('a link names a file, never a folder: the API docs (TypeDoc) copy files only, so a folder link breaks there', () => {
    const folders = DOCS.flatMap((doc) =>
      [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/\]\(([^)\s#]+)[^)\s]*\)/g)]
        .map((m) => m[1]!)
        .filter((target) => !/^(https?:|mailto:)/.test(target) && /\/$/.test(target))
        .map((target) => `${doc}: ${target}`),
    );
    expect(folders).toEqual([]);
  });

  test('the README stays a first read: under 30 KB, the reference in docs/', () => {
    expect(readFileSync(join(ROOT, 'README.md')).length).toBeLessThan(30_720);
  });
});
