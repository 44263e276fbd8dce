import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { fromBase64, fromFileBase64, toBase64, toBase64Url } from '../../src/internal/encoding.js';

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

describe('a file as base64, in every form a service may write it (fromFileBase64)', () => {
  /** The forms of one file's base64, each of which must read back as its bytes. */
  const forms = (bytes: Uint8Array) => {
    const padded = Buffer.from(bytes).toString('base64');
    const url = Buffer.from(bytes).toString('base64url');
    return {
      padded,
      unpadded: padded.replace(/=+$/, ''),
      url,
      'url, padded': url.padEnd(Math.ceil(url.length / 4) * 4, '='),
      'MIME lines (CRLF)': padded.replace(/.{76}(?=.)/g, '$&\r\n'),
      'lines (LF), a trailing newline': `${padded.replace(/.{64}(?=.)/g, '$&\n')}\n`,
      'data URL': `data:application/pdf;base64,${padded}`,
    };
  };

  test('property: every form reads back as the same bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        for (const [form, text] of Object.entries(forms(bytes))) {
          expect(fromFileBase64(text), form).toEqual(new Uint8Array(bytes));
        }
      }),
    );
  });

  test('property: both alphabets in one text, a character of neither, or a length no base64 has is refused, never decoded to other bytes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 3, maxLength: 200 }),
        fc.constantFrom('+', '/'),
        fc.constantFrom('-', '_'),
        (bytes, standard, url) => {
          const padded = Buffer.from(bytes).toString('base64');
          expect(fromFileBase64(`${standard}${url}${padded}`)).toBeUndefined();
          expect(fromFileBase64(`${padded.slice(0, 2)}*${padded.slice(3)}`)).toBeUndefined();
          expect(fromFileBase64(`${padded.replace(/=+$/, '')}A`.slice(0, 4 * Math.ceil(padded.length / 4) - 3))).toBeUndefined();
        },
      ),
    );
    // A data: prefix is read only where it starts the text.
    for (const text of ['%%%%', 'data:text/plain,aGVsbG8=', 'A', 'AAAAA', 'AA=A', 'AAAAdata:a/b;base64,AAAA'])
      expect(fromFileBase64(text), text).toBeUndefined();
    // Its media type and parameters are read up to 200 characters: a longer one is no prefix (and no
    // multi-megabyte text is scanned for one).
    const parameters = (length: number) => `application/pdf;name=${'n'.repeat(length - 'application/pdf;name='.length)}`;
    expect(fromFileBase64(`data:${parameters(200)};base64,aGVsbG8=`)).toEqual(new TextEncoder().encode('hello'));
    expect(fromFileBase64(`data:${parameters(201)};base64,aGVsbG8=`)).toBeUndefined();
  });
});
