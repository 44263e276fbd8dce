/**
 * Hand-written mutants (#45): the changes a reviewer tries on a security rule, beyond the small
 * operators StrykerJS applies (`scripts/mutation.ts`): a bound moved by one, a check dropped, a
 * clock rounded instead of floored, a variable swapped for its neighbour, both ends of a seal
 * changed at once, a Lua script's `PERSIST` left out (StrykerJS cannot mutate Lua). Each set is a
 * file of `scripts/hand-mutants/`, a JSON array of rows:
 *
 *   { "file": "src/webhooks/verify.ts", "from": "…", "to": "…", "tests": ["test/webhooks"],
 *     "equivalent": "why no input tells it apart (only for a mutant that survives)" }
 *
 * `from` is text found exactly once in the file and replaced by `to`; a list of each changes
 * several places together. Every mutant is applied in a scratch copy of the project
 * (`.tmp/hand-mutants/`, a git worktree with the working tree's sources and tests copied in), its
 * tests run with `vitest --bail=1`, and the copy restored: your working tree is never touched.
 *
 *   npx tsx scripts/hand-mutants.ts                   every set (hours on two cores)
 *   npx tsx scripts/hand-mutants.ts webhooks sd-jwt   the sets named
 *   npx tsx scripts/hand-mutants.ts --check           no run: every row still applies (in `npm run check`)
 *
 * Each mutant prints as killed (with the first test that failed), SURVIVED, equivalent (survived,
 * and its row says why that is expected), STALE (its `from` is no longer in the file exactly
 * once: the code moved on, so the row is rewritten or removed) or BROKEN: the mutated file does
 * not parse, the run exceeded 15 minutes, or vitest failed without a failing test (a test path
 * that names no file). A broken mutant is never counted as killed: only a failing test kills.
 * Exits 1 on a survivor not marked equivalent, an equivalent one that was killed (its reason is
 * wrong), a stale row or a broken one. The runs are not part of `npm test`: run the set of the
 * module you changed, as you would its StrykerJS group. `--check` is: it fails on a row that no
 * longer applies, or names a test path that is gone, so a refactor rewrites the rows it moved
 * past instead of leaving them to be found stale months later.
 */
import { spawnSync } from 'node:child_process';
import { transformSync } from 'esbuild';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Mutant {
  file: string;
  from: string | string[];
  to: string | string[];
  tests: string[];
  equivalent?: string;
}

type Verdict = 'killed' | 'SURVIVED' | 'equivalent' | 'KILLED, marked equivalent' | 'STALE' | 'BROKEN';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SETS = join(ROOT, 'scripts', 'hand-mutants');
const SCRATCH = join(ROOT, '.tmp', 'hand-mutants');
/** What a mutant's tests read besides node_modules: copied from the working tree before each set. */
const COPIED = ['src', 'test', 'scripts', 'generated', 'examples'];
const TIMEOUT_MS = 15 * 60_000;

const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });

function readSet(name: string): Mutant[] {
  const rows: unknown = JSON.parse(readFileSync(join(SETS, `${name}.json`), 'utf8'));
  if (!Array.isArray(rows)) throw new Error(`scripts/hand-mutants/${name}.json is not an array of mutants`);
  return rows as Mutant[];
}

/** A fresh scratch copy: a worktree of HEAD, the working tree's sources and tests over it. */
function prepareScratch(): void {
  if (existsSync(SCRATCH)) git('worktree', 'remove', '--force', SCRATCH);
  rmSync(SCRATCH, { recursive: true, force: true });
  const added = git('worktree', 'add', '--detach', '--quiet', SCRATCH, 'HEAD');
  if (added.status !== 0) throw new Error(`git worktree add failed: ${added.stderr}`);
  for (const dir of COPIED) {
    rmSync(join(SCRATCH, dir), { recursive: true, force: true });
    if (existsSync(join(ROOT, dir))) cpSync(join(ROOT, dir), join(SCRATCH, dir), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(SCRATCH, 'node_modules'));
}

/** vitest's output without the terminal colours it writes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal colours vitest writes
const plain = (output: string) => output.replace(/\u001b\[[0-9;]*m/g, '');

/** The first failing test (or test file) in vitest's output, to show what killed a mutant; undefined when none failed. */
function firstFailure(output: string): string | undefined {
  return /FAIL\s+(\S+(?:\s*>\s*[^\n]{0,100})?)/.exec(plain(output))?.[1];
}

/** What keeps a mutated file from parsing as TypeScript, or undefined when it parses. */
function parseError(path: string, code: string): string | undefined {
  try {
    transformSync(code, { loader: 'ts', sourcefile: path });
    return undefined;
  } catch (error) {
    return `does not parse: ${(error as Error).message.split('\n')[1] ?? ''}`.trim();
  }
}

/** Why a row cannot be run on the sources as they are, or undefined when it can. */
function staleness(mutant: Mutant, source: string): string | undefined {
  const froms = [mutant.from].flat();
  const missing = froms.find((from) => source.split(from).length !== 2);
  if (missing !== undefined) return `not found exactly once: ${JSON.stringify(missing.slice(0, 60))}`;
  if (froms.length !== [mutant.to].flat().length) return 'from and to differ in length';
  // `tests` are vitest's arguments: its paths are the ones under test/ (a `-t` pattern is not).
  const gone = mutant.tests.find((test) => test.startsWith('test/') && !existsSync(join(ROOT, test)));
  return gone === undefined ? undefined : `names a test path that is gone: ${gone}`;
}

function run(mutant: Mutant): { verdict: Verdict; detail: string } {
  const path = join(SCRATCH, mutant.file);
  const original = readFileSync(path, 'utf8');
  const stale = staleness(mutant, original);
  if (stale !== undefined) return { verdict: 'STALE', detail: stale };
  const froms = [mutant.from].flat();
  const tos = [mutant.to].flat();
  let mutated = original;
  froms.forEach((from, i) => {
    mutated = mutated.replace(from, () => tos[i] ?? '');
  });
  const unparsed = parseError(mutant.file, mutated);
  if (unparsed !== undefined) return { verdict: 'BROKEN', detail: unparsed };
  writeFileSync(path, mutated);
  try {
    const result = spawnSync('npx', ['vitest', 'run', '--bail=1', ...mutant.tests], {
      cwd: SCRATCH,
      encoding: 'utf8',
      timeout: TIMEOUT_MS,
    });
    const output = `${result.stdout}${result.stderr}`;
    if (result.error) {
      const timedOut = (result.error as NodeJS.ErrnoException).code === 'ETIMEDOUT';
      return {
        verdict: 'BROKEN',
        detail: timedOut ? `not finished within ${TIMEOUT_MS / 60_000} minutes` : `vitest did not run: ${result.error.message}`,
      };
    }
    const failure = firstFailure(output);
    if (result.status !== 0 && failure === undefined) {
      return { verdict: 'BROKEN', detail: `vitest failed with no failing test: ${plain(output).trim().split('\n').at(-1)?.slice(0, 100)}` };
    }
    const killed = result.status !== 0;
    const detail = failure ?? mutant.equivalent ?? '';
    if (mutant.equivalent !== undefined) return { verdict: killed ? 'KILLED, marked equivalent' : 'equivalent', detail };
    return { verdict: killed ? 'killed' : 'SURVIVED', detail };
  } finally {
    writeFileSync(path, original);
  }
}

const args = process.argv.slice(2);
const names = args.filter((arg) => arg !== '--check');
const sets = names.length > 0 ? names : readdirSync(SETS).map((file) => file.replace(/\.json$/, ''));

/** `--check`: every row of every set named still applies to the working tree's sources; nothing is run. */
function check(): number {
  let rows = 0;
  let stale = 0;
  for (const set of sets) {
    for (const mutant of readSet(set)) {
      rows += 1;
      const why = staleness(mutant, readFileSync(join(ROOT, mutant.file), 'utf8'));
      if (why === undefined) continue;
      stale += 1;
      console.log(`STALE: ${set}: ${mutant.file}: ${why}`);
    }
  }
  console.log(
    stale === 0 ? `${rows} hand mutants, each still applies` : `${stale} of ${rows} hand mutants no longer apply: rewrite or remove them`,
  );
  return stale === 0 ? 0 : 1;
}

/** Every set named (all of them when none is): each mutant applied in the scratch copy, its tests run, its verdict printed. */
function runSets(): void {
  let failed = 0;
  try {
    prepareScratch();
    for (const set of sets) {
      const mutants = readSet(set);
      console.log(`▶ ${set}: ${mutants.length} mutants`);
      for (const mutant of mutants) {
        const { verdict, detail } = run(mutant);
        if (verdict !== 'killed' && verdict !== 'equivalent') failed += 1;
        const shown = JSON.stringify([mutant.from].flat()[0]?.trim().slice(0, 70));
        console.log(`${verdict}: ${mutant.file}: ${shown}${detail ? `  [${detail}]` : ''}`);
      }
    }
  } finally {
    git('worktree', 'remove', '--force', SCRATCH);
  }
  console.log(failed === 0 ? 'every mutant killed or shown equivalent' : `${failed} mutant(s) to look at`);
  process.exitCode = failed === 0 ? 0 : 1;
}

if (args.includes('--check')) process.exitCode = check();
else runSets();
