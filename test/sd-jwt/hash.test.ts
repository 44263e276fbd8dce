/** The Node fast path and the Web Crypto path (browsers, edge runtimes) give the same digests. */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { SdJwtVerificationError } from '../../src/errors/index.js';
import { digests, hashAlgorithm } from '../../src/sd-jwt/hash.js';
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
