/**
 * The JSON guards every reader of the service's answers stands on (internal/guards.ts): what is an
 * object, when two JSON values are one, a field named `__proto__` kept as data, and the booleans a
 * service may write as words. Properties over generated JSON.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { booleanOf, isObject, sameJson, setOwn } from '../../src/internal/guards.js';

describe('isObject', () => {
  test('property: an object is one, whatever its keys or prototype; null, an array and every primitive are not', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue()), (object, array) => {
        expect(isObject(object)).toBe(true);
        expect(isObject(Object.assign(Object.create(null), object))).toBe(true);
        expect(isObject(array)).toBe(false);
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.bigInt(), fc.constant(null), fc.constant(undefined)), (primitive) => {
        expect(isObject(primitive)).toBe(false);
      }),
    );
    expect(isObject(() => ({}))).toBe(false);
  });
});

describe('sameJson', () => {
  /** The same value with every object's keys in reverse order. */
  const reordered = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(reordered);
    if (!isObject(value)) return value;
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, inner]) => [key, reordered(inner)]),
    );
  };

  /** Code-unit order, for sorting keys (localeCompare may call two different keys equal). */
  const byCodeUnits = (a: string, b: string) => Number(a > b) - Number(a < b);
  /** A JSON value's text with every object's keys sorted: one text per value, whatever order its keys were written in. */
  const canonical = (value: unknown): string =>
    JSON.stringify(value, (_key, inner: unknown) =>
      isObject(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => byCodeUnits(a, b))) : inner,
    );

  test('property: a JSON value is the same as its copy, and as itself with its objects written in another key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(sameJson(value, structuredClone(value))).toBe(true);
        expect(sameJson(value, reordered(value))).toBe(true);
        expect(sameJson(reordered(value), value)).toBe(true);
      }),
    );
  });

  test('property: a value changed anywhere, a key added or taken away, or an array in another order is another value, both ways', () => {
    const object = fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 });
    fc.assert(
      fc.property(object, fc.string(), fc.jsonValue(), (value, extra, added) => {
        const [key, inner] = Object.entries(value)[0]!;
        const changed = { ...value, [key]: { was: inner } };
        const bigger = Object.hasOwn(value, extra) ? value : { ...value, [extra]: added };
        const smaller = Object.fromEntries(Object.entries(value).slice(1));
        for (const other of [changed, smaller, ...(bigger === value ? [] : [bigger])]) {
          expect(sameJson(value, other)).toBe(false);
          expect(sameJson(other, value)).toBe(false);
          // One level down too: the rule holds inside arrays and objects.
          expect(sameJson([value], [other])).toBe(false);
          expect(sameJson({ in: value }, { in: other })).toBe(false);
        }
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { minLength: 2 }), (array) => {
        const reversed = [...array].reverse();
        // The same items in the same places, whatever order their keys: their JSON text with every key sorted is the oracle.
        expect(sameJson(array, reversed)).toBe(canonical(array) === canonical(reversed));
        expect(sameJson(array, array.slice(1))).toBe(false);
        expect(sameJson(array.slice(1), array)).toBe(false);
        // A prefix is not the whole, however alike its items.
        expect(sameJson(array, [...array, array.at(-1)])).toBe(false);
        expect(sameJson([...array, array.at(-1)], array)).toBe(false);
      }),
    );
  });

  test('an array is not the object with its indices as keys; a key set to undefined is not another key so set; NaN is no JSON', () => {
    expect(sameJson([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameJson({ 0: 1, 1: 2 }, [1, 2])).toBe(false);
    expect(sameJson({ a: undefined }, { b: undefined })).toBe(false);
    expect(sameJson({ a: 1 }, { a: '1' })).toBe(false);
    expect(sameJson(null, {})).toBe(false);
    expect(sameJson({}, null)).toBe(false);
    expect(sameJson([], [])).toBe(true);
    expect(sameJson({}, {})).toBe(true);
    expect(sameJson(Number.NaN, Number.NaN)).toBe(false);
  });
});

describe('setOwn', () => {
  test('property: every key becomes an own, enumerable, writable field holding the value; __proto__ too, and the prototype stays', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constant('__proto__'), fc.constant('constructor')), fc.jsonValue(), (key, value) => {
        const target: Record<string, unknown> = {};
        setOwn(target, key, value);
        expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
        expect(Object.getOwnPropertyDescriptor(target, key)).toEqual({ value, enumerable: true, writable: true, configurable: true });
        expect(Object.keys(target)).toEqual([key]);
        // What JSON.parse makes of the same text: the two agree.
        expect(sameJson(target, JSON.parse(JSON.stringify({ [key]: value })))).toBe(true);
      }),
    );
    const target: Record<string, unknown> = {};
    setOwn(target, '__proto__', { polluted: true });
    expect((target as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(target)).toBe('{"__proto__":{"polluted":true}}');
  });
});

describe('booleanOf', () => {
  /** Every case spelling of `text`, with spaces around. */
  const spelt = (text: string) =>
    fc
      .tuple(
        fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }),
        fc.stringMatching(/^\s{0,3}$/),
        fc.stringMatching(/^\s{0,3}$/),
      )
      .map(([upper, before, after]) => before + [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('') + after);

  test('property: true, yes and 1 say true, false, no and 0 say false, in any case and with spaces around; JSON booleans and 1 and 0 as numbers too', () => {
    fc.assert(
      fc.property(fc.oneof(spelt('true'), spelt('yes'), spelt('1')), fc.oneof(spelt('false'), spelt('no'), spelt('0')), (yes, no) => {
        expect(booleanOf(yes)).toBe(true);
        expect(booleanOf(no)).toBe(false);
      }),
    );
    expect([true, 1].map(booleanOf)).toEqual([true, true]);
    expect([false, 0].map(booleanOf)).toEqual([false, false]);
  });

  test('property: anything else says nothing: other words and numbers, a word with more around it, null, objects', () => {
    const words = /^\s*(?:true|yes|1|false|no|0)\s*$/i;
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue()), (value) => {
        fc.pre(typeof value !== 'boolean' && value !== 1 && value !== 0 && !(typeof value === 'string' && words.test(value)));
        expect(booleanOf(value)).toBeUndefined();
      }),
    );
    for (const near of ['y', 'n', '2', 'truex', 'yes no', 'on', 'off', '1.0', '01', '-0', 'tru e']) expect(booleanOf(near)).toBeUndefined();
    for (const near of [2, -1, 0.5, -0 + 1e-9, null, undefined, {}, [], [true], Number.NaN]) expect(booleanOf(near)).toBeUndefined();
  });
});
