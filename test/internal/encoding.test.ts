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
    for (const text of ['abc', 'ab=c', '@@@@', 'YQ==YQ==', 'YQ']) expect(fromBase64(text)).toBeUndefined();
  });

  test('handles multi-megabyte input', () => {
    const big = new Uint8Array(6 * 1024 * 1024).fill(7);
    expect(fromBase64(toBase64(big))?.length).toBe(big.length);
  });
});
