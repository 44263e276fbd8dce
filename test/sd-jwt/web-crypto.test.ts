/**
 * The verifier as browsers and edge runtimes run it: no `node:crypto`, so signatures and digests
 * go through Web Crypto, asynchronously. Node runs take the synchronous `node:crypto` path; here
 * the SDK is told there is none. The tests below are about that path itself; after them every
 * SD-JWT test file runs again on it (#45), so a rule kept on one path and broken on the other
 * fails. `hash.test.ts` compares both paths itself, and is not run again.
 */
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { nodeCrypto } from '../../src/internal/node-crypto.js';
import * as sdk from '../../src/sd-jwt/index.js';
import { rejection } from '../fixtures.js';
import { ISSUER, NOW, at, digest, disclosure, testIssuer, type TestIssuer } from './issuer.js';

vi.mock('../../src/internal/node-crypto.js', () => ({ nodeCrypto: () => null }));
/** Nor a `Buffer` while the SDK loads (it keeps the one it finds then), as in a browser; the tests' own helpers get it back below. */
const buffer = vi.hoisted(() => {
  const found = globalThis.Buffer;
  Reflect.deleteProperty(globalThis, 'Buffer');
  return found;
});
globalThis.Buffer = buffer;

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await testIssuer();
});

test('the SDK sees no node:crypto in this file, and decodes segments without Buffer (by atob, as a browser does)', async () => {
  expect(nodeCrypto()).toBeNull();
  const name = disclosure('salt-1', 'given_name', 'Jane');
  const sdJwt = await issuer.sdJwt({ _sd: [digest(name)] }, [name]);
  const buffers = vi.spyOn(Buffer, 'from');
  const decode = vi.spyOn(globalThis, 'atob');
  const { claims } = await sdk.verifySdJwt(sdJwt, at(issuer.keys));
  expect(claims['given_name']).toBe('Jane');
  expect(buffers).not.toHaveBeenCalled();
  expect(decode).toHaveBeenCalled();
  buffers.mockRestore();
  decode.mockRestore();
});

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(sdk.SdJwtVerificationError);
  return (error as sdk.SdJwtVerificationError).code;
}

describe('verifySdJwt on Web Crypto alone', () => {
  test('a good SD-JWT verifies, its signature checked by crypto.subtle.verify', async () => {
    const verify = vi.spyOn(crypto.subtle, 'verify');
    const name = disclosure('salt-1', 'given_name', 'Jane');
    const sdJwt = await issuer.sdJwt({ _sd: [digest(name), digest('decoy')] }, [name]);
    const { claims, disclosures } = await sdk.verifySdJwt(sdJwt, at(sdk.localJwks({ keys: [issuer.publicJwk] }, ISSUER)));
    expect(claims['given_name']).toBe('Jane');
    expect(disclosures[0]!.digest).toBe(digest(name));
    expect(verify).toHaveBeenCalledTimes(1);
    verify.mockRestore();
  });

  test('a bad signature is refused, and reported before a malformed disclosure', async () => {
    const keys = sdk.localJwks({ keys: [issuer.publicJwk] }, ISSUER);
    const name = disclosure('salt-1', 'given_name', 'Jane');
    const sdJwt = await issuer.sdJwt({ _sd: [digest(name)] }, [name]);
    const [jwt] = sdJwt.split('~');
    const forged = `${jwt!.slice(0, -6)}${jwt!.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA'}`;
    expect(await code(sdk.verifySdJwt(`${forged}~${name}~`, at(keys)))).toBe('ERR_SD_JWT_SIGNATURE');
    expect(await code(sdk.verifySdJwt(`${forged}~not-json~`, at(keys)))).toBe('ERR_SD_JWT_SIGNATURE');
    // With the signature good, the same disclosure is what is wrong.
    expect(await code(sdk.verifySdJwt(`${jwt}~not-json~`, at(keys)))).toBe('ERR_SD_JWT_MALFORMED');
  });

  test('without a kid each fitting key is tried in turn: the second of a rotation verifies, a stranger does not', async () => {
    const pair = async () => {
      const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
      return { privateKey, jwk: (await exportJWK(publicKey)) as JWK };
    };
    const [old, current, stranger] = [await pair(), await pair(), await pair()];
    const keys = sdk.localJwks({ keys: [old.jwk, current.jwk] }, ISSUER);
    const sign = (key: CryptoKey) => new SignJWT({ iss: ISSUER, exp: NOW + 60 }).setProtectedHeader({ alg: 'ES256' }).sign(key);
    await expect(sdk.verifySdJwt(`${await sign(current.privateKey)}~`, at(keys))).resolves.toBeDefined();
    await expect(sdk.verifySdJwt(`${await sign(old.privateKey)}~`, at(keys))).resolves.toBeDefined();
    expect(await code(sdk.verifySdJwt(`${await sign(stranger.privateKey)}~`, at(keys)))).toBe('ERR_SD_JWT_SIGNATURE');
  });

  test('a key Web Crypto refuses for the algorithm is a signature refusal with its cause', async () => {
    // A key source that hands out an RSA key for an ES256 token: Web Crypto rejects the pairing.
    const keys = { keyFor: async () => await issuer.keys.keyFor({ alg: 'RS256', kid: 'k1' }) };
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT({ iss: ISSUER, exp: NOW + 60 }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(privateKey);
    const error = await rejection(sdk.verifySdJwt(`${token}~`, at(keys)));
    expect((error as { code?: string }).code).toBe('ERR_SD_JWT_SIGNATURE');
    expect((error as Error).cause).toBeInstanceOf(Error);
  });
});

await import('./edges.test.js');
await import('./interop.test.js');
await import('./jwks.test.js');
await import('./properties.test.js');
await import('./response.test.js');
await import('./verify.test.js');
