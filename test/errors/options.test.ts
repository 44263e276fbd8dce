/** The checks of a number option every entry makes (#46): in range, or a ConfigurationError naming the option and its unit. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ConfigurationError } from '../../src/errors/index.js';
import { countOption, nonNegativeOption, positiveOption } from '../../src/errors/options.js';

describe('positiveOption', () => {
  test('property: a finite number above 0 is taken, nothing given takes the default, anything else is refused naming the option', () => {
    fc.assert(
      fc.property(fc.constantFrom('leaseMs', 'ttlSeconds', 'concurrency'), fc.anything(), (name, value) => {
        const taken = typeof value === 'number' && Number.isFinite(value) && value > 0;
        if (value === undefined || value === null) expect(positiveOption(name, value, 7)).toBe(7);
        else if (taken) expect(positiveOption(name, value, 7)).toBe(value);
        else expect(() => positiveOption(name, value, 7)).toThrow(ConfigurationError);
      }),
    );
  });

  test.each([
    ['leaseMs', 'leaseMs: must be a number of milliseconds above 0'],
    ['ttlSeconds', 'ttlSeconds: must be a number of seconds above 0'],
    ['concurrency', 'concurrency: must be a number above 0'],
  ])('the refusal of %s says its unit', (name, message) => {
    for (const value of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5', true]) {
      let error: unknown;
      try {
        positiveOption(name, value, 1);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error).toMatchObject({ option: name, message });
    }
  });
});

describe('nonNegativeOption', () => {
  test('property: a finite number, 0 or more, is taken, nothing given takes the default, anything else (NaN, Infinity) is refused naming the option and its unit', () => {
    const edges = fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0);
    fc.assert(
      fc.property(fc.constantFrom('toleranceSeconds', 'maxAgeMs', 'margin'), fc.oneof(edges, fc.anything(), fc.double()), (name, value) => {
        if (value === undefined || value === null) expect(nonNegativeOption(name, value, 7)).toBe(7);
        else if (typeof value === 'number' && Number.isFinite(value) && value >= 0) expect(nonNegativeOption(name, value, 7)).toBe(value);
        else {
          const unit = { toleranceSeconds: ' of seconds', maxAgeMs: ' of milliseconds', margin: '' }[name];
          expect(() => nonNegativeOption(name, value, 7)).toThrow(
            expect.objectContaining({ option: name, message: `${name}: must be a finite number${unit}, 0 or more` }),
          );
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('countOption', () => {
  test('property: a whole number of 1 or more is taken, nothing given takes the default, anything else (0.5 too) is refused naming the option', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.double(), fc.integer({ min: -3, max: 50 })), (value) => {
        if (value === undefined || value === null) expect(countOption('concurrency', value, 4)).toBe(4);
        else if (Number.isInteger(value) && (value as number) >= 1) expect(countOption('concurrency', value, 4)).toBe(value);
        else expect(() => countOption('concurrency', value, 4)).toThrow(expect.objectContaining({ option: 'concurrency' }));
      }),
    );
  });
});
