/**
 * A benchmark run in fresh processes (#44): the script that calls `benchmark()` runs itself again
 * in `BENCH_PROCESSES` child processes (3 unless told), one after the other; each child measures
 * every contender once (interleaved in shuffled runs: `compare` in stats.ts) and hands back its
 * medians. Each figure is a ratio computed inside one process, where the contenders shared the
 * machine's state; the parent prints its median over the processes and its range (lowest–highest),
 * and whether its goal is met by the median. A process started fresh pays for its own JIT warm-up
 * and heap layout, so one process's luck is never the figure.
 *
 * A bench result is never a test's pass condition: this prints, and exits 0 unless a child fails.
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { median } from './stats.js';

/** A time in µs, with a decimal below 100 µs. */
const micros = (ms: number) => `${(ms * 1000).toFixed(ms < 0.1 ? 1 : 0)} µs`;

/** What one process measured: each contender's median time per call, in ms (or a count, named `count: …`). */
export type Medians = Record<string, number>;

/** A figure to print: a ratio of two medians from one process (or any number derived from them), with its goal. */
export interface Figure {
  readonly label: string;
  readonly value: (medians: Medians) => number;
  /** The goal: the figure must stay at or below `atMost` (a cost ratio). */
  readonly atMost?: number;
}

const CHILD = 'BENCH_CHILD';
/** The start of a measured name that is a count, not a time per call. */
export const COUNT = 'count: ';
const MARK = 'bench-medians:';

/**
 * In a child: measures and hands the medians back. In the parent: runs the children, then prints
 * each contender's median time and each figure as median (range) with its goal.
 */
export async function benchmark(title: string, measure: () => Promise<Medians>, figures: readonly Figure[]): Promise<void> {
  if (process.env[CHILD] === '1') {
    const medians = await measure();
    process.stdout.write(`${MARK}${JSON.stringify(medians)}\n`);
    return;
  }
  const processes = Math.max(1, Number(process.env['BENCH_PROCESSES'] ?? 3));
  console.log(`${title}`);
  console.log(`  ${processes} fresh processes; Node ${process.version}; ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}`);
  const runs: Medians[] = [];
  for (let i = 0; i < processes; i++) {
    const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1] ?? ''], {
      env: { ...process.env, [CHILD]: '1' },
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    const line = child.stdout.split('\n').find((l) => l.startsWith(MARK));
    if (child.status !== 0 || !line) {
      process.stderr.write(child.stderr);
      throw new Error(`bench process ${i + 1} failed (exit ${child.status})`);
    }
    runs.push(JSON.parse(line.slice(MARK.length)) as Medians);
  }
  const range = (values: number[], show: (n: number) => string) =>
    `${show(median(values))} (${show(Math.min(...values))}–${show(Math.max(...values))})`;
  for (const name of Object.keys(runs[0] ?? {})) {
    // A name starting `count: ` is a count (Redis commands a call), not a time.
    const show = name.startsWith(COUNT) ? (n: number) => String(Number(n.toFixed(3))) : micros;
    console.log(
      `  ${name.padEnd(50)} ${range(
        runs.map((run) => run[name] ?? Number.NaN),
        show,
      )}`,
    );
  }
  for (const figure of figures) {
    const values = runs.map(figure.value);
    // A contender this machine could not run (no redis-server) has no figure.
    if (values.every(Number.isNaN)) continue;
    let met = '';
    if (figure.atMost !== undefined) met = `  goal ≤ ${figure.atMost}×: ${median(values) <= figure.atMost ? 'met' : 'NOT met'}`;
    console.log(`  ${figure.label.padEnd(50)} ${range(values, (n) => `${n.toFixed(2)}×`)}${met}`);
  }
}

/**
 * An entry of the built package (`npm run build`'s dist/), as users load it, typed by its source:
 * `await built<typeof import('../../src/webhooks/index.js')>('webhooks/index.js')`. The source run
 * through tsx is not what users run (its transform wraps functions, about 5% of a webhook check).
 */
export async function built<T>(entry: string): Promise<T> {
  const url = new URL(`../../dist/${entry}`, import.meta.url);
  try {
    return (await import(url.href)) as T;
  } catch (cause) {
    throw new Error(`dist/${entry} could not be loaded: run npm run build first (npm run bench does)`, { cause });
  }
}

/** A figure: `ours` costs this many times `peer` (below 1: cheaper). */
export const ratio = (ours: string, peer: string, label: string, atMost?: number): Figure => ({
  label,
  value: (m) => (m[ours] ?? Number.NaN) / (m[peer] ?? Number.NaN),
  ...(atMost === undefined ? {} : { atMost }),
});
