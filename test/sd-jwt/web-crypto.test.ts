/**
 * The verifier as browsers and edge runtimes run it: no `node:crypto`, so signatures and digests
 * go through Web Crypto, asynchronously. Node runs take the synchronous `node:crypto` path, so
 * these tests load the verifier afresh with `process.getBuiltinModule` saying it has no crypto.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { rejection } from '../helpers.js';
import { ISSUER, NOW, at, digest, disclosure, testIssuer, type TestIssuer } from './issuer.js';

type Verifier = typeof import('../../src/sd-jwt/index.js');
let sdk: Verifier;
let issuer: TestIssuer;
const builtin = process.getBuiltinModule.bind(process);

beforeAll(async () => {
  vi.spyOn(process, 'getBuiltinModule').mockImplementation(((id: string) =>
    id === 'node:crypto' || id === 'crypto' ? undefined : builtin(id)) as typeof process.getBuiltinModule);
  vi.resetModules();
  sdk = await import('../../src/sd-jwt/index.js');
  issuer = await testIssuer();
});
afterAll(() => {
  vi.restoreAllMocks();
  vi.resetModules();
});

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(sdk.SdJwtVerificationError);
  return (error as InstanceType<Verifier['SdJwtVerificationError']>).code;
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
