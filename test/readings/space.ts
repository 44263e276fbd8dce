/**
 * The space of readings a service may choose (#39): every choice the fake can make, combined.
 * `pairwise` covers every pair of values of every two choices in a few dozen services; the
 * arbitrary draws services from the whole space for fast-check. The choices the SDK must be told
 * (each refusal names its option) and those it refuses are left out: {@link SET_APART}.
 */
import fc from 'fast-check';
import { READING_CHOICES, type FakeReadings } from '../../src/testing/index.js';

type Choice = keyof FakeReadings;

/**
 * The choices the SDK cannot detect and must be told, its refusal naming the option: the
 * X-Request-Timestamp format (`timestampFormat`) and a service whose ID tokens leave out the nonce
 * (`nonce: false`).
 */
export const MUST_BE_TOLD: ReadonlySet<string> = new Set(['timestampFormat', 'idTokenNonce']);

/**
 * The choices the SDK refuses, with nothing to set: a service writing the request details'
 * `time_expires` as a duration (`requestExpiry`), whose details are refused naming the field. Run
 * alone and among every choice read otherwise rather than in pairs: the fake's `timeUnit` reading
 * writes every time field in its unit, and a duration in microseconds would be a date again.
 */
export const REFUSED: ReadonlySet<string> = new Set(['requestExpiry']);

/** The choices left out of the space combined: {@link MUST_BE_TOLD} and {@link REFUSED}. */
export const SET_APART: ReadonlySet<string> = new Set([...MUST_BE_TOLD, ...REFUSED]);

/** The choices a service reads in combination, each with every value it can take. */
export const AXES: readonly (readonly [Choice, readonly unknown[]])[] = Object.entries(READING_CHOICES)
  .filter(([name]) => !SET_APART.has(name))
  .map(([name, values]) => [name as Choice, values as readonly unknown[]] as const);

/** A pair of values of two choices, as one string: `i:a|j:b` (i < j, values by index). */
const pairKey = (i: number, a: number, j: number, b: number) => `${i}:${a}|${j}:${b}`;

/**
 * Services (one value per choice) covering every pair of values of every two choices, built
 * greedily and deterministically: each row starts from the first pair not yet covered and fills
 * each other choice with the value that covers most new pairs with the choices already set.
 */
export function pairwise(axes: readonly (readonly [Choice, readonly unknown[]])[] = AXES): FakeReadings[] {
  const uncovered = new Set<string>();
  axes.forEach(([, values], i) => {
    for (let j = i + 1; j < axes.length; j++) {
      for (let a = 0; a < values.length; a++) for (let b = 0; b < axes[j]![1].length; b++) uncovered.add(pairKey(i, a, j, b));
    }
  });
  const rows: number[][] = [];
  while (uncovered.size > 0) {
    const [first] = uncovered;
    const [left, right] = first!.split('|').map((part) => part.split(':').map(Number)) as [[number, number], [number, number]];
    const row: (number | undefined)[] = axes.map(() => undefined);
    row[left[0]] = left[1];
    row[right[0]] = right[1];
    for (let i = 0; i < axes.length; i++) {
      if (row[i] !== undefined) continue;
      let best = 0;
      let bestGain = -1;
      for (let value = 0; value < axes[i]![1].length; value++) {
        let gain = 0;
        row.forEach((other, j) => {
          if (other === undefined || j === i) return;
          if (uncovered.has(j < i ? pairKey(j, other, i, value) : pairKey(i, value, j, other))) gain += 1;
        });
        if (gain > bestGain) [best, bestGain] = [value, gain];
      }
      row[i] = best;
    }
    const filled = row as number[];
    for (let i = 0; i < axes.length; i++) for (let j = i + 1; j < axes.length; j++) uncovered.delete(pairKey(i, filled[i]!, j, filled[j]!));
    rows.push(filled);
  }
  return rows.map((row) => Object.fromEntries(row.map((value, i) => [axes[i]![0], axes[i]![1][value]])) as FakeReadings);
}

/** Any service of the space: a value for every choice. */
export const readingsArbitrary: fc.Arbitrary<FakeReadings> = fc.record(
  Object.fromEntries(AXES.map(([name, values]) => [name, fc.constantFrom(...values)])) as Record<Choice, fc.Arbitrary<unknown>>,
) as fc.Arbitrary<FakeReadings>;

/** A service's readings as one line, for a test's name: only the choices read otherwise than the fake's own. */
export function describeReadings(readings: FakeReadings): string {
  return (
    Object.entries(readings)
      .filter(([name, value]) => READING_CHOICES[name as Choice][0] !== value)
      .map(([name, value]) => `${name}=${String(value)}`)
      .join(' ') || 'the fake own readings'
  );
}
