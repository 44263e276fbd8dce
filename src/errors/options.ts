/** The checks every entry makes of the options it is given, each failure a ConfigurationError naming the option. */
import { ConfigurationError } from './classes.js';

/** The unit an option's name ends with, in words: `ttlSeconds` is in seconds, `leaseMs` in milliseconds. */
function unitOf(name: string): string {
  if (name.endsWith('Seconds')) return ' of seconds';
  if (name.endsWith('Ms')) return ' of milliseconds';
  return '';
}

/**
 * An option that must be a number above 0: `value`, or `fallback` when it is not given.
 * @throws {ConfigurationError} naming the option and its unit ("ttlSeconds: must be a number of seconds above 0").
 * @example
 * ```ts
 * const leaseMs = positiveOption('leaseMs', options.leaseMs, 15_000);
 * ```
 */
export function positiveOption(name: string, value: unknown, fallback: number): number {
  const chosen = value ?? fallback;
  // Number.isFinite is false for anything that is not a number (it does not coerce).
  if (typeof chosen !== 'number' || !Number.isFinite(chosen) || chosen <= 0) {
    throw new ConfigurationError(name, `must be a number${unitOf(name)} above 0`);
  }
  return chosen;
}

/**
 * An option that must be a finite number, 0 or more (a tolerance, a margin, an age): `value`, or
 * `fallback` when it is not given. NaN is refused: nothing compares above it, so a tolerance of NaN
 * would let every timestamp through. So is Infinity: a tolerance without end is no check at all,
 * oauth4webapi reads one as its own 30 s, and a store given it as a time to live refuses it.
 * @throws {ConfigurationError} naming the option and its unit ("toleranceSeconds: must be a finite number of seconds, 0 or more").
 * @example
 * ```ts
 * const toleranceSeconds = nonNegativeOption('toleranceSeconds', options.toleranceSeconds, 300);
 * ```
 */
export function nonNegativeOption(name: string, value: unknown, fallback: number): number {
  const chosen = value ?? fallback;
  // Number.isFinite is false for anything that is not a number (it does not coerce).
  if (typeof chosen !== 'number' || !Number.isFinite(chosen) || chosen < 0) {
    throw new ConfigurationError(name, `must be a finite number${unitOf(name)}, 0 or more`);
  }
  return chosen;
}

/**
 * An option that counts something (attempts, workers, entries): a whole number, 1 or more, or
 * `fallback` when it is not given.
 * @throws {ConfigurationError} naming the option.
 * @example
 * ```ts
 * const concurrency = countOption('concurrency', options.concurrency, 4);
 * ```
 */
export function countOption(name: string, value: unknown, fallback: number): number {
  const chosen = value ?? fallback;
  if (typeof chosen !== 'number' || !Number.isInteger(chosen) || chosen < 1) {
    throw new ConfigurationError(name, 'must be a whole number, 1 or more');
  }
  return chosen;
}
