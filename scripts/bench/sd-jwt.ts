/**
 * Verifying one RSA-2048 SD-JWT with 20 disclosures: this SDK (as built, dist/), @sd-jwt/core
 * 0.19.0, jose's `compactVerify` alone (the signature, the unavoidable cost), and a minimal
 * node:crypto verifier. Goals (#44): within 1.2x the minimal correct verifier, every RFC 9901 check
 * kept; at least 5x faster than @sd-jwt/core with its Node hasher (#4). Run in fresh processes
 * (processes.ts): each figure the median of the processes and their range. Prints, never fails.
 *
 * @sd-jwt/core runs in its two usual set-ups: with @sd-jwt/crypto-nodejs's synchronous hasher
 * (Node), and with a Web Crypto hasher (what browsers and edge runtimes have). Both share one
 * imported verification key, as its own `getVerifier` does.
 *
 *   npm run bench            ITERATIONS=3000 for more samples, BENCH_PROCESSES=5 for more processes
 */
import { SDJwtInstance } from '@sd-jwt/core';
import type { Hasher } from '@sd-jwt/types';
import { digest as sdDigest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { createHash, createPublicKey, hash as oneShotHash, verify as nodeVerify } from 'node:crypto';
import { compactVerify, exportJWK, generateKeyPair } from 'jose';
import { benchmark, built, ratio, type Medians } from './processes.js';
import { compare } from './stats.js';

const ITERATIONS = Number(process.env['ITERATIONS'] ?? 1500);
const RUN = 25;

async function measure(): Promise<Medians> {
  const { localJwks, verifySdJwt } = await built<typeof import('../../src/sd-jwt/index.js')>('sd-jwt/index.js');
  const text = new TextEncoder();

  const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const rsa = { name: 'RSASSA-PKCS1-v1_5' };
  const coreWith = (hasher: Hasher) =>
    new SDJwtInstance({
      hasher,
      hashAlg: 'sha-256',
      saltGenerator: generateSalt,
      signer: async (data: string) => Buffer.from(await crypto.subtle.sign(rsa, privateKey, text.encode(data))).toString('base64url'),
      signAlg: 'RS256',
      verifier: async (data: string, signature: string) =>
        crypto.subtle.verify(rsa, publicKey, Buffer.from(signature, 'base64url'), text.encode(data)),
    });
  const core = coreWith(sdDigest);
  const coreWebCrypto = coreWith(
    async (data) => new Uint8Array(await crypto.subtle.digest('SHA-256', typeof data === 'string' ? text.encode(data) : data)),
  );

  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = { iss: 'https://auth.acme.test', iat: now, exp: now + 3600, sub: 'person-1' };
  const disclosed: string[] = [];
  for (let i = 0; i < 20; i++) {
    claims[`claim_${i}`] = `value number ${i} of the bench credential`;
    disclosed.push(`claim_${i}`);
  }
  const sdJwt = await core.issue(claims, { _sd: disclosed } as never, { header: { kid: 'bench' } });
  const jwt = sdJwt.split('~')[0]!;
  const keys = localJwks({ keys: [{ ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256' }] });

  /**
   * The floor (#31): a minimal verifier on node:crypto doing the same work the SDK must, and no
   * more: the RS256 signature with a key object made once, the payload decoded, each disclosure
   * hashed and decoded, and each digest looked up in `_sd`. No checks of form, times or issuer.
   */
  const nodeKey = createPublicKey({ key: await exportJWK(publicKey), format: 'jwk' } as never);
  const sha256 = (input: string) =>
    typeof oneShotHash === 'function' ? oneShotHash('sha256', input, 'base64url') : createHash('sha256').update(input).digest('base64url');
  function minimalNode(presented: string): Record<string, unknown> {
    const [token = '', ...rest] = presented.split('~');
    const end = token.lastIndexOf('.');
    if (!nodeVerify('sha256', Buffer.from(token.slice(0, end)), nodeKey, Buffer.from(token.slice(end + 1), 'base64url'))) {
      throw new Error('bad signature');
    }
    const payload = JSON.parse(Buffer.from(token.slice(token.indexOf('.') + 1, end), 'base64url').toString()) as Record<string, unknown>;
    const digests = new Set(payload['_sd'] as string[]);
    const claims: Record<string, unknown> = { ...payload };
    for (const disclosure of rest.slice(0, -1)) {
      if (!digests.has(sha256(disclosure))) throw new Error('unreferenced disclosure');
      const [, name, value] = JSON.parse(Buffer.from(disclosure, 'base64url').toString()) as [string, string, unknown];
      claims[name] = value;
    }
    return claims;
  }

  // Each must really verify: check once before timing.
  const ours = await verifySdJwt(sdJwt, { keys });
  const theirs = (await core.verify(sdJwt)).payload as Record<string, unknown>;
  if (
    ours.disclosures.length !== 20 ||
    theirs['claim_19'] !== ours.claims['claim_19'] ||
    minimalNode(sdJwt)['claim_19'] !== theirs['claim_19']
  ) {
    throw new Error('the verifiers disagree');
  }

  const contestants = {
    signature: () => compactVerify(jwt, publicKey),
    minimal: async () => minimalNode(sdJwt),
    sdk: () => verifySdJwt(sdJwt, { keys }),
    sdJwtCore: () => core.verify(sdJwt),
    sdJwtCoreWebCrypto: () => coreWebCrypto.verify(sdJwt),
  };
  /**
   * In runs of 25 (#31). Call by call, each verification pays for what the one before it left cold:
   * right after a Web Crypto call (jose's, @sd-jwt/core's), a node:crypto verification takes about a
   * third longer whichever verifier makes it (the minimal one 76 µs after itself, 105 µs after
   * @sd-jwt/core, on this machine). A server verifies one kind of token many times over; the
   * call-by-call figures are printed too.
   */
  const inRuns = await compare(contestants, ITERATIONS, undefined, RUN);
  const callByCall = await compare(contestants, ITERATIONS);
  return { ...inRuns, 'sdk, call by call': callByCall.sdk, 'minimal, call by call': callByCall.minimal };
}

await benchmark(`SD-JWT verification: RSA-2048, 20 disclosures, ${ITERATIONS} verifications each, in shuffled runs of ${RUN}`, measure, [
  ratio('sdk', 'minimal', 'verifySdJwt / the minimal node:crypto verifier', 1.2),
  ratio('sdk, call by call', 'minimal, call by call', 'the same, call by call'),
  ratio('sdk', 'sdJwtCore', 'verifySdJwt / @sd-jwt/core, Node hasher', 0.2),
  ratio('sdk', 'sdJwtCoreWebCrypto', 'verifySdJwt / @sd-jwt/core, Web Crypto hasher', 0.25),
  ratio('sdk', 'signature', "verifySdJwt / jose's signature check alone"),
]);
