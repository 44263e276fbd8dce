/**
 * The one rule for the service's times (`internal/times.ts`) and booleans (`booleanOf`): every
 * form that names one instant or one truth value is read as it, and nothing else is.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { booleanOf } from '../../src/internal/guards.js';
import { numericDate, unixSeconds, unixTimeOf } from '../../src/internal/times.js';

/** Whole seconds from 1973 to 5000: the instants a service writes, in seconds or a finer unit. */
const instants = fc.integer({ min: 1e8, max: 95_617_584_000 });

describe('numericDate', () => {
  test('property: a JWT time is a number or its digits, in seconds, milliseconds, microseconds or nanoseconds; a date is not one', () => {
    fc.assert(
      fc.property(instants, fc.integer({ min: 0, max: 999 }), (t, ms) => {
        const us = BigInt(t) * 1_000_000n + BigInt(ms) * 1000n;
        // Nanoseconds as digits up to 19 of them (the year 2286): a longer text is no time.
        const ns = t < 1e10 ? [`${us * 1000n}`] : [];
        for (const form of [t, t * 1000 + ms, t + ms / 1000, `${t}`, ` ${t * 1000 + ms} `, Number(us), `${us}`, ...ns]) {
          expect(numericDate(form), JSON.stringify(form)).toBe(t);
          expect(unixTimeOf(form), JSON.stringify(form)).toBe(t);
        }
        const date = new Date(t * 1000);
        expect(numericDate(date.toISOString())).toBeUndefined();
        expect(numericDate(date.toUTCString())).toBeUndefined();
        expect(numericDate(date)).toBeUndefined();
      }),
    );
  });
});

describe('unixTimeOf', () => {
  test('property: a whole second in every form is itself', () => {
    fc.assert(
      fc.property(instants, fc.integer({ min: 0, max: 999 }), fc.constantFrom('', ' ', '\t'), (t, ms, pad) => {
        const date = new Date(t * 1000);
        for (const form of [
          t,
          t * 1000,
          t * 1000 + ms,
          t + ms / 1000,
          `${pad}${t}${pad}`,
          `${t * 1000 + ms}`,
          `${t}.${String(ms).padStart(3, '0')}`,
        ]) {
          expect(unixTimeOf(form), JSON.stringify(form)).toBe(t);
        }
        // Every instant drawn is before the year 10000, so both dates have four-digit years.
        expect(unixTimeOf(date.toISOString())).toBe(t);
        expect(unixTimeOf(date.toUTCString())).toBe(t);
      }),
    );
  });

  test('10^11 is the first number read as milliseconds (no date in seconds reaches it before the year 5138), 10^14 microseconds, 10^17 nanoseconds', () => {
    expect(unixSeconds(99_999_999_999)).toBe(99_999_999_999);
    expect(unixSeconds(100_000_000_000)).toBe(100_000_000);
    expect(unixSeconds(-100_000_000_000)).toBe(-100_000_000);
    expect(unixTimeOf(1e11)).toBe(1e8);
    expect(unixTimeOf('100000000000')).toBe(1e8);
    // Each finer unit starts where the coarser one's year 5138 is: every unit covers the same years.
    expect(unixSeconds(99_999_999_999_999)).toBeCloseTo(99_999_999_999.999, 2);
    expect(unixSeconds(1e14)).toBe(1e8);
    expect(unixSeconds(1e17 - 1e3)).toBeCloseTo(1e11 - 1e-3, 2);
    expect(unixSeconds(1e17)).toBe(1e8);
    expect(unixTimeOf('1700000000000000')).toBe(1_700_000_000);
    expect(unixTimeOf('1700000000000000000')).toBe(1_700_000_000);
  });

  test('what names no instant is undefined, never a guess', () => {
    for (const value of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '',
      ' ',
      '12a',
      '1e9',
      '0x10',
      '1.',
      '.5',
      '1,5',
      // Twenty digits: more than any unit a UNIX time is written in.
      '12345678901234567890',
      '2026-11-22T12:00:00',
      '2026-02-30T12:00:00Z',
      'tomorrow',
      true,
      null,
      undefined,
      {},
      [1_700_000_000],
      // Only a string is a date: a list or an object whose text would read as one is not.
      ['2026-11-22T12:00:00Z'],
      { toString: () => 'Sun, 22 Nov 2026 12:00:00 GMT' },
    ]) {
      expect(unixTimeOf(value), JSON.stringify(value)).toBeUndefined();
      expect(numericDate(value), JSON.stringify(value)).toBeUndefined();
    }
  });
});

describe('booleanOf', () => {
  test('property: the words and numbers that say one thing, in any case and with spaces around', () => {
    const cased = (word: string) =>
      fc
        .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
        .map((upper) => [...word].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
    const spaces = fc.constantFrom('', ' ', '\t', '\n ');
    const said = fc.oneof(
      ...['true', 'yes', '1'].map((word) => fc.tuple(cased(word), spaces).map(([w, s]) => [`${s}${w}${s}`, true] as const)),
      ...['false', 'no', '0'].map((word) => fc.tuple(cased(word), spaces).map(([w, s]) => [`${s}${w}${s}`, false] as const)),
      fc.constantFrom([true, true] as const, [false, false] as const, [1, true] as const, [0, false] as const),
    );
    fc.assert(
      fc.property(said, ([value, meaning]) => {
        expect(booleanOf(value)).toBe(meaning);
      }),
    );
  });

  test('property: any other string is no boolean', () => {
    const words = /^\s*(?:true|yes|1|false|no|0)\s*$/i;
    fc.assert(
      fc.property(
        fc.string().filter((text) => !words.test(text)),
        (text) => {
          expect(booleanOf(text)).toBeUndefined();
        },
      ),
    );
  });

  test('nor is anything else', () => {
    for (const value of [
      'y',
      'n',
      'on',
      'off',
      'truee',
      'no no',
      '01',
      '1.0',
      2,
      -1,
      0.5,
      Number.NaN,
      null,
      undefined,
      [true],
      { value: true },
    ]) {
      expect(booleanOf(value), JSON.stringify(value)).toBeUndefined();
    }
  });
});
