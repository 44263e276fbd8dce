/** The Node fast path and the Web Crypto path (browsers, edge runtimes) give the same digests. */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
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
