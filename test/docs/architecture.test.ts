/**
 * ARCHITECTURE.md is the map of the tree, and a map that drifts misleads (#46): every room under
 * src/ is named in it and every room it names exists; every file it names exists where it says;
 * every source file opens with the paragraph that says what it is, and none is over 600 lines.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');
const text = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');

/** The rooms block: each room under src/ (an indented `name/`) with the text that describes it. */
function rooms(): Map<string, string> {
  const block = /## The rooms\n\n```\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
  const found = new Map<string, string>();
  let current: string | undefined;
  for (const line of block.split('\n')) {
    const room = /^ {2}([\w-]+)\/\s/.exec(line)?.[1];
    if (room) current = room;
    else if (!line.startsWith('  ')) current = undefined; // a folder beside src/ (generated/, docs/…)
    if (current) found.set(current, `${found.get(current) ?? ''}\n${line}`);
  }
  return found;
}

/** Every file under `dir`, as paths relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path).map((file) => `${name}/${file}`) : [name];
  });
}

describe('ARCHITECTURE.md matches the tree', () => {
  test('every room under src/ is on the map, and every room on the map is under src/', () => {
    const onDisk = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
    expect([...rooms().keys()].sort()).toEqual(onDisk.sort());
  });

  test("every file a room's description names is in that room (or, written with its room, in that one)", () => {
    const missing: string[] = [];
    for (const [room, description] of rooms()) {
      const inRoom = files(join(SRC, room));
      for (const [, path] of description.matchAll(/(?<![\w/.-])([\w-]+(?:\/[\w-]+)*\.ts)\b/g)) {
        const exists = path!.includes('/') ? existsSync(join(SRC, path!)) : inRoom.some((file) => file.split('/').pop() === path);
        if (!exists) missing.push(`${room}/: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test('every path it names in backticks exists (under src/, from the root, or as an entry of the package)', () => {
    const entries = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: object }).exports);
    const missing = [...text.matchAll(/`((?:src\/|test\/|scripts\/)?[\w-]+(?:\/[\w.-]+)+)`/g)]
      .map(([, path]) => path!.replace(/:.*$/, ''))
      .filter((path) => !existsSync(join(ROOT, path)) && !existsSync(join(SRC, path)) && !entries.includes(`./${path}`));
    expect(missing).toEqual([]);
  });
});

test('every source file opens with a paragraph saying what it is (after a shebang)', () => {
  const bare = files(SRC)
    .filter((file) => file.endsWith('.ts'))
    .filter((file) => !/^(#![^\n]*\n)?\/\*\*/.test(readFileSync(join(SRC, file), 'utf8')))
    .map((file) => relative(ROOT, join(SRC, file)));
  expect(bare).toEqual([]);
});

test('no source file is over 600 lines: a room that grows past it is split into named parts (#46)', () => {
  const long = files(SRC)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => [relative(ROOT, join(SRC, file)), readFileSync(join(SRC, file), 'utf8').split('\n').length] as const)
    .filter(([, lines]) => lines > 600);
  expect(long).toEqual([]);
});
