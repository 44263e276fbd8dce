import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { fromBase64, toBase64, toBase64Url } from '../../src/internal/encoding.js';

describe('base64', () => {
  test('round-trips any bytes and agrees with Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
        const text = toBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64'));
        expect(fromBase64(text)).toEqual(bytes);
        expect(toBase64Url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
      }),
    );
  });

  test('refuses text that is not canonical base64', () => {
    for (const text of ['abc', 'ab=c', '@@@@', 'YQ==YQ==', 'YQ', 'Y===', '====']) expect(fromBase64(text)).toBeUndefined();
  });

  test('property: any text is decoded as Buffer decodes it when it is padded base64 of the standard alphabet, else undefined; never a throw', () => {
    // base64url's '-' and '_', and padding in the middle, are another encoding, not this one.
    const char = fc.constantFrom(...'AZaz09+/-_=. '.split(''), 'Q', 'w');
    fc.assert(
      fc.property(
        fc.array(char, { maxLength: 16 }).map((chars) => chars.join('')),
        (text) => {
          const standard = text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);
          const decoded = fromBase64(text);
          if (standard) expect(decoded).toEqual(new Uint8Array(Buffer.from(text, 'base64')));
          else expect(decoded).toBeUndefined();
        },
      ),
      { numRuns: 500 },
    );
  });

  test('handles multi-megabyte input', () => {
    const big = new Uint8Array(6 * 1024 * 1024).fill(7);
    expect(fromBase64(toBase64(big))?.length).toBe(big.length);
  });
});
