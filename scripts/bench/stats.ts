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
 * interleaved call by call, so drift in the machine's load affects them alike, and the order
 * rotates each time round, so none always follows the same one (and pays for what it left behind:
 * garbage to collect, a connection to put back).
 */
export async function compare<K extends string>(
  fns: Record<K, () => unknown>,
  iterations: number,
  warmup = Math.ceil(iterations / 10),
): Promise<Record<K, number>> {
  const names = Object.keys(fns) as K[];
  for (let i = 0; i < warmup; i++) for (const name of names) await fns[name]();
  const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as unknown as Record<K, number[]>;
  for (let i = 0; i < iterations; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length]!;
      samples[name].push(await time(fns[name]));
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(samples[n])])) as Record<K, number>;
}

export const micros = (ms: number): string => `${(ms * 1000).toFixed(0)} µs`;
