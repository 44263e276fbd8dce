/**
 * Every property runs from a known seed (#45), so a CI run cannot go red by chance and a failure
 * can be replayed: fast-check prints the seed and the path of the failing case.
 *
 * - `FUZZ_SEED=<n>` runs every property from seed n (to replay a failure, or to try another);
 * - `FUZZ_SEED=random` draws a seed per test file, for a search beyond the cases CI runs
 *   (`FUZZ_SEED=random FUZZ_RUNS=20000 npx vitest run test/fuzz`).
 *
 * A property that names its own seed keeps it.
 */
import fc from 'fast-check';

/** The seed CI runs with; any fixed number would do. */
const DEFAULT_SEED = 45;

function seedFrom(setting: string | undefined): number {
  if (setting === undefined || setting === '') return DEFAULT_SEED;
  if (setting === 'random') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(setting);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED is ${JSON.stringify(setting)}: give an integer, or "random"`);
  return seed;
}

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: seedFrom(process.env['FUZZ_SEED']) });
