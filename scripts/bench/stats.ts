/** Timing helpers shared by the benchmarks. */

export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Milliseconds `fn` took. */
export async function time(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * Median time of each function in milliseconds, after `warmup` calls of each. The functions are
 * interleaved, so drift in the machine's load affects them alike, in a new order each time round
 * (a shuffle from a fixed seed, so runs are alike), so that each follows every other about as
 * often: what one leaves behind (garbage to collect, Web Crypto's threads winding down, a
 * connection to put back) falls on all of them, not always on the one after it. A fixed cyclic
 * order, even started at a different place each round, keeps each function behind the same one;
 * measured on the SD-JWT bench, that alone moved one function's median by 15%.
 *
 * `batch` calls of a function are made in a row each time round (1: call by call). Call by call,
 * every call pays for the caches the function before it left cold; in runs, only the first call
 * of each run does, as in a server doing one kind of work many times over.
 */
export async function compare<K extends string>(
  fns: Record<K, () => unknown>,
  iterations: number,
  warmup = Math.ceil(iterations / 10),
  batch = 1,
): Promise<Record<K, number>> {
  const names = Object.keys(fns) as K[];
  for (let i = 0; i < warmup; i++) for (const name of names) await fns[name]();
  const samples = {} as Record<K, number[]>;
  for (const name of names) samples[name] = [];
  const random = seeded(0x5eed);
  const order = [...names];
  for (let i = 0; i < iterations; i += batch) {
    shuffle(order, random);
    for (const name of order) for (let j = 0; j < batch; j++) samples[name].push(await time(fns[name]));
  }
  return Object.fromEntries(names.map((n) => [n, median(samples[n])])) as Record<K, number>;
}

/** A small deterministic generator (mulberry32): numbers in [0, 1). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher-Yates, in place. */
function shuffle<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}

export const micros = (ms: number): string => `${(ms * 1000).toFixed(0)} µs`;
