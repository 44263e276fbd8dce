/**
 * Verifying one RSA-2048 SD-JWT with 20 disclosures: this SDK, @sd-jwt/core 0.19.0, and jose's
 * `compactVerify` alone (the signature, the unavoidable cost), and a minimal node:crypto verifier,
 * in one run. Goals (issues #4 and #31): at least 5x faster than @sd-jwt/core with its Node hasher,
 * at least as fast as the minimal verifier, at most 1.3x the signature alone. Prints, never fails.
 *
 * @sd-jwt/core runs in its two usual set-ups: with @sd-jwt/crypto-nodejs's synchronous hasher
 * (Node), and with a Web Crypto hasher (what browsers and edge runtimes have). Both share one
 * imported verification key, as its own `getVerifier` does.
 *
 *   npm run bench            (ITERATIONS=3000 for more samples)
 */
import { SDJwtInstance } from '@sd-jwt/core';
import type { Hasher } from '@sd-jwt/types';
import { digest as sdDigest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { createHash, createPublicKey, hash as oneShotHash, verify as nodeVerify } from 'node:crypto';
import { compactVerify, exportJWK, generateKeyPair } from 'jose';
import { localJwks, verifySdJwt } from '../../src/sd-jwt/index.js';
import { compare, micros } from './stats.js';

const ITERATIONS = Number(process.env['ITERATIONS'] ?? 1500);
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
const RUN = 25;
const medians = await compare(contestants, ITERATIONS, undefined, RUN);
const callByCall = await compare(contestants, ITERATIONS);

const vsCore = medians.sdJwtCore / medians.sdk;
const vsCoreWebCrypto = medians.sdJwtCoreWebCrypto / medians.sdk;
const vsSignature = medians.sdk / medians.signature;
const vsMinimal = medians.minimal / medians.sdk;
console.log(`SD-JWT verification: RSA-2048, 20 disclosures, ${ITERATIONS} verifications each, in runs of ${RUN}`);
console.log(`  jose compactVerify (signature only)  median ${micros(medians.signature)}`);
console.log(`  minimal node:crypto verifier         median ${micros(medians.minimal)}`);
console.log(`  @acme/identity verifySdJwt           median ${micros(medians.sdk)}`);
console.log(`  @sd-jwt/core 0.19.0, Node hasher     median ${micros(medians.sdJwtCore)}`);
console.log(`  @sd-jwt/core 0.19.0, Web Crypto      median ${micros(medians.sdJwtCoreWebCrypto)}`);
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
console.log(`  ${vsCore.toFixed(2)}x faster than @sd-jwt/core (Node hasher)        goal >= 5x: ${verdict(vsCore >= 5)}`);
console.log(`  ${vsMinimal.toFixed(2)}x the speed of the minimal node:crypto verifier  goal >= 1.0x: ${verdict(vsMinimal >= 1)}`);
console.log(`  ${vsCoreWebCrypto.toFixed(2)}x faster than @sd-jwt/core (Web Crypto hasher)  goal >= 4x: ${verdict(vsCoreWebCrypto >= 4)}`);
console.log(`  ${vsSignature.toFixed(2)}x the signature alone                          goal <= 1.3x: ${verdict(vsSignature <= 1.3)}`);
console.log(
  `  (the signature alone is ${(medians.sdJwtCore / medians.signature).toFixed(2)}x faster than @sd-jwt/core with the Node hasher)`,
);
console.log(
  `  call by call: verifySdJwt ${micros(callByCall.sdk)}, ${(callByCall.sdJwtCore / callByCall.sdk).toFixed(2)}x @sd-jwt/core, ` +
    `${(callByCall.minimal / callByCall.sdk).toFixed(2)}x the minimal verifier (${micros(callByCall.minimal)})`,
);
