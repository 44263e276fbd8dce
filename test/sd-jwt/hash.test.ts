/** The Node fast path and the Web Crypto path (browsers, edge runtimes) give the same digests. */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { SdJwtVerificationError } from '../../src/errors/index.js';
import { canonicalDigest, digests, hashAlgorithm } from '../../src/sd-jwt/hash.js';
import { bodyDigest } from '../../src/webhooks/verify.js';
import { nodeCrypto } from '../../src/internal/node-crypto.js';

describe('digests', () => {
  test('Node is used when the runtime offers it', () => {
    expect(nodeCrypto()).not.toBeNull();
  });

  test("RFC 9901's vector, on both paths", async () => {
    const disclosure = 'WyJfMjZiYzRMVC1hYzZxMktJNmNCVzVlcyIsICJmYW1pbHlfbmFtZSIsICJNw7ZiaXVzIl0';
    for (const node of [nodeCrypto(), null]) {
      expect(await digests('sha-256', [disclosure], node)).toEqual(['X9yH0Ajrdm1Oij4tWso9UzzKJvPoDxwmuEcO3XAdRC0']);
    }
  });

  test('both paths agree for every algorithm and input', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('sha256', 'sha-384', 'sha-512'),
        fc.array(fc.base64String(), { maxLength: 5 }),
        async (name, inputs) => {
          const algorithm = hashAlgorithm(name);
          expect(await digests(algorithm, inputs, null)).toEqual(await digests(algorithm, inputs, nodeCrypto()));
        },
      ),
      { numRuns: 100 },
    );
  });

  test('the webhook delivery id is the same on both paths', async () => {
    const body = new TextEncoder().encode('{"access_request_code":"arc_1"}');
    expect(await bodyDigest(body, null)).toBe(await bodyDigest(body, nodeCrypto()));
  });
});

describe('_sd_alg: every spelling of the same hash (#39)', () => {
  /** A name as some standard or platform writes it: any case, `-`, `_` or nothing before the length. */
  const spelling = (length: '256' | '384' | '512') =>
    fc
      .tuple(fc.constantFrom('-', '_', ''), fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }))
      .map(([separator, upper]) => `${[...'sha'].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')}${separator}${length}`);

  test('property: sha-256, SHA-256, sha256, SHA_256… name one hash, the one their length says', () => {
    const lengths = fc.constantFrom('256' as const, '384' as const, '512' as const);
    fc.assert(
      fc.property(
        lengths.chain((length) => spelling(length).map((name) => [length, name] as const)),
        ([length, name]) => {
          expect(hashAlgorithm(name)).toBe(`sha-${length}`);
        },
      ),
      { numRuns: 100 },
    );
  });

  test('property: any other name is ERR_SD_JWT_HASH_ALG, never a TypeError (prototype names and truncated hashes included)', () => {
    const known = /^sha[-_]?(256|384|512)$/i;
    const names = fc.oneof(
      fc.string(),
      fc.constantFrom(
        'constructor',
        '__proto__',
        'toString',
        'hasOwnProperty',
        'sha-256/128',
        'sha3-256',
        'sha-1',
        'sha--256',
        ' sha256',
        'sha256 ',
      ),
    );
    fc.assert(
      fc.property(names, (name) => {
        if (known.test(name)) return;
        expect(() => hashAlgorithm(name)).toThrow(SdJwtVerificationError);
        try {
          hashAlgorithm(name);
        } catch (error) {
          expect((error as SdJwtVerificationError).code).toBe('ERR_SD_JWT_HASH_ALG');
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('an _sd digest in any encoding an issuer may write (#39): canonicalDigest', () => {
  const ALGORITHMS = [
    ['sha-256', 32],
    ['sha-384', 48],
    ['sha-512', 64],
  ] as const;
  const digest = fc
    .constantFrom(...ALGORITHMS)
    .chain(([algorithm, size]) => fc.tuple(fc.constant(algorithm), fc.uint8Array({ minLength: size, maxLength: size })));

  test('property: hex (either case), base64 (padded or not) and base64url of a digest all read as its base64url, RFC 9901 form', () => {
    fc.assert(
      fc.property(digest, ([algorithm, bytes]) => {
        const canonical = Buffer.from(bytes).toString('base64url');
        const hex = Buffer.from(bytes).toString('hex');
        const base64 = Buffer.from(bytes).toString('base64');
        for (const form of [canonical, hex, hex.toUpperCase(), base64, base64.replace(/=+$/, '')]) {
          expect(canonicalDigest(algorithm, form), form).toBe(canonical);
        }
      }),
      { numRuns: 150 },
    );
  });

  test("property: a text that is no digest of the hash (another length, another alphabet, another hash's size) is kept as it is, matching nothing", () => {
    fc.assert(
      fc.property(digest, fc.integer({ min: 1, max: 3 }), ([algorithm, bytes], cut) => {
        const short = bytes.subarray(cut);
        const longer = Buffer.concat([bytes, Buffer.alloc(cut, 7)]);
        // A digest of another of the hashes, in every encoding.
        const others = ALGORITHMS.filter(([, size]) => size !== bytes.length).map(([, size]) => Buffer.alloc(size, cut));
        for (const other of [short, longer, ...others]) {
          for (const form of [
            Buffer.from(other).toString('hex'),
            Buffer.from(other).toString('base64url'),
            Buffer.from(other).toString('base64'),
          ]) {
            expect(canonicalDigest(algorithm, form), form).toBe(form);
          }
        }
        const canonical = Buffer.from(bytes).toString('base64url');
        // A character outside every alphabet, or padding in the middle, at the digest's length and
        // with a character that base64 and base64url write differently: not a digest either.
        for (const form of [`${canonical.slice(2)}!+`, `${canonical.slice(0, 10)}=${canonical.slice(12)}/`]) {
          expect(form).toHaveLength(canonical.length);
          expect(canonicalDigest(algorithm, form), form).toBe(form);
        }
        // More padding than base64 ever writes (at most two '='): not a digest in any encoding.
        for (const form of [`${canonical}===`, `${Buffer.from(bytes).toString('base64')}===`]) {
          expect(canonicalDigest(algorithm, form), form).toBe(form);
        }
      }),
      { numRuns: 150 },
    );
  });
});
