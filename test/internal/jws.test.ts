/** The JWS checks (Web Crypto, and node:crypto where it exists), held to jose's verdicts: the same tokens, the same accept or refuse. */
import { constants, KeyObject, sign as nodeSign } from 'node:crypto';
import { describe, expect, test, vi } from 'vitest';
import fc from 'fast-check';
import { CompactSign, compactVerify, exportJWK, generateKeyPair, importJWK } from 'jose';
import { base64urlBytes, fittingKeys, importVerifyKey, jwkFits, jwsAlgorithm, verifyJwsSignature } from '../../src/internal/jws.js';
import { ASYMMETRIC_ALGORITHMS } from '../../src/sd-jwt/jwks.js';
import { verifySignature, verifyWithNode } from '../../src/internal/jws-node.js';
import { nodeCrypto } from '../../src/internal/node-crypto.js';

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
const payload = new TextEncoder().encode(JSON.stringify({ iss: 'https://auth.acme.test', sub: 'person-1', given_name: 'Jane' }));

async function signed(alg: string) {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const jws = await new CompactSign(payload).setProtectedHeader({ alg }).sign(privateKey);
  return { jws, jwk, ours: await importVerifyKey(jwk, alg), theirs: await importJWK(jwk, alg) };
}

/** jose's verdict on `jws` under `key`. */
const joseAccepts = (jws: string, key: Awaited<ReturnType<typeof importJWK>>, alg: string) =>
  compactVerify(jws, key, { algorithms: [alg] }).then(
    () => true,
    () => false,
  );
/** `jws` with one character of its payload or its signature changed to another base64url one (or the same). */
function changedTokens(jws: string) {
  const [head, body, signature] = jws.split('.') as [string, string, string];
  const b64u = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return fc.tuple(fc.boolean(), fc.nat(), fc.constantFrom(...b64u)).map(([inSignature, at, char]) => {
    const part = inSignature ? signature : body;
    const i = at % part.length;
    const changed = part.slice(0, i) + char + part.slice(i + 1);
    return inSignature ? `${head}.${body}.${changed}` : `${head}.${changed}.${signature}`;
  });
}

/** Ours: a throw (a malformed signature) counts as a refusal, as the verifiers treat it. */
const oursAccepts = (jws: string, key: CryptoKey, alg: string) => verifyJwsSignature(jws, key, alg).catch(() => false);

describe('JWS signatures with Web Crypto', () => {
  test.each(ALGORITHMS)('%s: a token jose signed verifies, as jose says', async (alg) => {
    const { jws, ours, theirs } = await signed(alg);
    expect(await verifyJwsSignature(jws, ours, alg)).toBe(true);
    expect(await joseAccepts(jws, theirs, alg)).toBe(true);
  });

  test.each(['RS256', 'ES256', 'PS256', 'EdDSA'])(
    '%s: any change to the payload or signature is refused exactly when jose refuses it',
    async (alg) => {
      const { jws, ours, theirs } = await signed(alg);
      await fc.assert(
        fc.asyncProperty(changedTokens(jws), async (token) => {
          expect(await oursAccepts(token, ours, alg)).toBe(await joseAccepts(token, theirs, alg));
        }),
        { numRuns: 60 },
      );
    },
  );

  test('a signature by another key of the same kind is refused', async () => {
    const a = await signed('RS256');
    const b = await signed('RS256');
    expect(await verifyJwsSignature(a.jws, b.ours, 'RS256')).toBe(false);
  });

  test('every algorithm the SD-JWT verifier allows has Web Crypto parameters', () => {
    for (const alg of ASYMMETRIC_ALGORITHMS) expect(jwsAlgorithm(alg), alg).toBeDefined();
  });

  test('none, HMAC and unknown algorithms have no parameters, and no key is imported for them', async () => {
    for (const alg of ['none', 'HS256', 'HS512', 'RS1', 'ES256K', '', undefined]) expect(jwsAlgorithm(alg)).toBeUndefined();
    // EdDSA means Ed25519 here: Ed448 (and its fully specified name) is another curve, never read as it (#45).
    for (const alg of ['Ed448', 'EdDSA448', 'eddsa', 'ed25519']) expect(jwsAlgorithm(alg), alg).toBeUndefined();
    // The name whole, never a known name inside another.
    for (const alg of ['xRS256', 'RS256x', 'HS256RS256', 'RS2560', 'rs256']) expect(jwsAlgorithm(alg), alg).toBeUndefined();
    const { jwk, jws } = await signed('RS256');
    await expect(importVerifyKey(jwk, 'HS256')).rejects.toThrow(TypeError);
    await expect(verifyJwsSignature(jws, await importVerifyKey(jwk, 'RS256'), 'none')).rejects.toThrow(TypeError);
  });

  test('a key imported for one algorithm cannot verify another', async () => {
    const { jws, ours } = await signed('RS256');
    await expect(verifyJwsSignature(jws, ours, 'ES256')).rejects.toThrow();
  });

  test('a JWK whose alg or use does not fit is refused at import', async () => {
    const { jwk } = await signed('RS256');
    await expect(importVerifyKey({ ...jwk, alg: 'RS384' }, 'RS256')).rejects.toThrow();
    await expect(importVerifyKey({ ...jwk, use: 'enc' }, 'RS256')).rejects.toThrow();
    const ec = await signed('ES256');
    await expect(importVerifyKey(ec.jwk, 'ES384')).rejects.toThrow();
  });

  test('the key fit: a key that fails only one condition (kty, crv, kid, alg, use) is not picked', () => {
    const rsa = { kty: 'RSA', n: 'AQAB', e: 'AQAB', kid: 'k1', alg: 'RS256', use: 'sig' };
    const ec = { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA', kid: 'e1' };
    expect(jwkFits(rsa, 'RS256', 'k1')).toBe(true);
    expect(jwkFits(rsa, 'RS256', undefined)).toBe(true); // no kid in the token: any fitting key
    expect(jwkFits({ kty: 'RSA', kid: 'k1' }, 'PS256', 'k1')).toBe(true); // no alg, no use: fits any RSA algorithm
    expect(jwkFits(rsa, 'PS256', 'k1')).toBe(false); // its alg says RS256 only
    expect(jwkFits({ ...rsa, kty: 'EC' }, 'RS256', 'k1')).toBe(false);
    // A key that does not say its type is not taken for one that fits.
    const { kty: _kty, ...untyped } = rsa;
    expect(jwkFits(untyped, 'RS256', 'k1')).toBe(false);
    expect(jwkFits({ ...rsa, crv: 'P-256' }, 'RS256', 'k1')).toBe(false);
    expect(jwkFits(rsa, 'RS256', 'k2')).toBe(false);
    // A token naming a kid is checked with that key only, as jose's key sets do: a key without a kid is not it.
    expect(jwkFits({ kty: 'RSA', alg: 'RS256' }, 'RS256', 'k1')).toBe(false);
    expect(jwkFits({ kty: 'RSA', alg: 'RS256' }, 'RS256', undefined)).toBe(true);
    expect(jwkFits({ ...rsa, alg: 'RS384' }, 'RS256', 'k1')).toBe(false);
    expect(jwkFits({ ...rsa, use: 'enc' }, 'RS256', 'k1')).toBe(false);
    // Only 'sig' says signing: any other use (RFC 7517 §4.2 lets registries add some), or its case changed, is not it (#45).
    for (const use of ['signature', 'SIG', 'sig ', 'verify', '']) expect(jwkFits({ ...rsa, use }, 'RS256', 'k1'), use).toBe(false);
    expect(jwkFits(ec, 'ES256', 'e1')).toBe(true);
    expect(jwkFits({ ...ec, crv: 'P-384' }, 'ES256', 'e1')).toBe(false);
    expect(jwkFits(ec, 'ES384', 'e1')).toBe(false);
    expect(jwkFits(ec, 'HS256', 'e1')).toBe(false);
  });

  test('the keys picked: public ones whose key_ops, when present, is a list holding verify (RFC 7517 §4.3), in the set order', () => {
    const rsa = { kty: 'RSA', n: 'AQAB', e: 'AQAB', alg: 'RS256' };
    const picked = (...keys: (JsonWebKey & { kid?: string })[]) => fittingKeys(keys, 'RS256', undefined).map((key) => key.kid);
    expect(
      picked({ ...rsa, kid: 'plain' }, { ...rsa, kid: 'ops', key_ops: ['verify'] }, { ...rsa, kid: 'both', key_ops: ['sign', 'verify'] }),
    ).toEqual(['plain', 'ops', 'both']);
    // key_ops not naming verify, or not a list at all (a string, an object): the key says nothing it may verify with.
    for (const key_ops of [['sign'], [], 'verify', { 0: 'verify' }]) {
      expect(picked({ ...rsa, kid: 'odd', key_ops: key_ops as never }), JSON.stringify(key_ops)).toEqual([]);
    }
    // A private key (it has d) is never a verification key, even listed with verify.
    expect(picked({ ...rsa, kid: 'private', d: 'AQAB', key_ops: ['verify'] })).toEqual([]);
  });

  test('an alg that is not a string is no algorithm, whatever it would print as (a list, a nested list): no parameters, no key fits', () => {
    for (const alg of [['RS256'], [['ES256']], ['EdDSA'], { toString: () => 'RS256' }, 256]) {
      expect(jwsAlgorithm(alg), JSON.stringify(alg)).toBeUndefined();
      expect(jwkFits({ kty: 'RSA' }, alg, undefined), JSON.stringify(alg)).toBe(false);
    }
    expect(jwsAlgorithm('RS256')).toMatchObject({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' });
    expect(jwsAlgorithm('EdDSA')).toMatchObject({ name: 'Ed25519' });
  });

  test('base64url only: padding, + and / are refused', () => {
    expect(Array.from(base64urlBytes('AQID'))).toEqual([1, 2, 3]);
    expect(Array.from(base64urlBytes('-_8'))).toEqual([251, 255]);
    for (const bad of ['AQID=', 'a+b', 'a/b', 'a b']) expect(() => base64urlBytes(bad)).toThrow(TypeError);
  });
});

/**
 * #31: the `node:crypto` path the SD-JWT verifier takes on Node, held to jose's verdicts and to
 * the Web Crypto path's on the same keys and tokens: every algorithm, good and bad signatures.
 */
describe('JWS signatures with node:crypto', () => {
  const node = nodeCrypto()!;
  const nodeAccepts = (jws: string, key: CryptoKey, alg: string) => {
    try {
      return verifyWithNode(node, jws, key, alg);
    } catch {
      return false;
    }
  };

  test('this runtime has node:crypto, so the verifiers take this path', async () => {
    expect(node).not.toBeNull();
    const { jws, ours } = await signed('RS256');
    await expect(verifySignature(jws, ours, 'RS256')).resolves.toBe(true);
  });

  test.each(ALGORITHMS)('%s: a good signature verifies; one changed anywhere does not, exactly as jose and Web Crypto say', async (alg) => {
    const { jws, ours, theirs } = await signed(alg);
    expect(verifyWithNode(node, jws, ours, alg)).toBe(true);
    await fc.assert(
      fc.asyncProperty(changedTokens(jws), async (token) => {
        const verdict = nodeAccepts(token, ours, alg);
        expect(verdict).toBe(await joseAccepts(token, theirs, alg));
        expect(verdict).toBe(await oursAccepts(token, ours, alg));
      }),
      { numRuns: 25 },
    );
  });

  test.each([
    ['a truncated signature', (s: string) => s.slice(0, 20)],
    ['an empty signature', () => ''],
    ['a signature of 4n+1 characters (no base64)', (s: string) => `${s}A`],
    ['padding', (s: string) => `${s}=`],
    ['standard base64 characters', (s: string) => `${s.replace(/-/g, '+').replace(/_/g, '/')}+/`],
  ])('%s is refused, never accepted', async (_name, change) => {
    for (const alg of ['RS256', 'ES256', 'PS256', 'EdDSA']) {
      const { jws, ours, theirs } = await signed(alg);
      const end = jws.lastIndexOf('.');
      const token = `${jws.slice(0, end)}.${change(jws.slice(end + 1))}`;
      expect(nodeAccepts(token, ours, alg), alg).toBe(false);
      expect(await joseAccepts(token, theirs, alg), alg).toBe(false);
    }
  });

  test.each(['PS256', 'PS384', 'PS512'])(
    "%s: a signature whose PSS salt is not the hash's length (RFC 7518 §3.5) is refused, as jose and Web Crypto refuse it",
    async (alg) => {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      const jwk = await exportJWK(publicKey);
      const ours = await importVerifyKey(jwk, alg);
      const theirs = await importJWK(jwk, alg);
      const hashBytes = Number(alg.slice(2)) / 8;
      const input = `${Buffer.from(JSON.stringify({ alg })).toString('base64url')}.${Buffer.from(payload).toString('base64url')}`;
      const sign = (saltLength: number) =>
        `${input}.${nodeSign(`sha${alg.slice(2)}`, Buffer.from(input), {
          key: KeyObject.from(privateKey as CryptoKey),
          padding: constants.RSA_PKCS1_PSS_PADDING,
          saltLength,
        }).toString('base64url')}`;
      // The hash's length verifies on every path: the tokens below differ in their salt alone.
      expect(verifyWithNode(node, sign(hashBytes), ours, alg)).toBe(true);
      for (const saltLength of [0, hashBytes - 1, hashBytes + 1]) {
        const token = sign(saltLength);
        expect(nodeAccepts(token, ours, alg), `salt ${saltLength}`).toBe(false);
        expect(await oursAccepts(token, ours, alg), `salt ${saltLength}`).toBe(false);
        expect(await joseAccepts(token, theirs, alg), `salt ${saltLength}`).toBe(false);
      }
    },
  );

  test('a signature by another key of the same kind is refused', async () => {
    const a = await signed('ES384');
    const b = await signed('ES384');
    expect(verifyWithNode(node, a.jws, b.ours, 'ES384')).toBe(false);
  });

  test('a key imported for another algorithm, or not for verifying, is refused as Web Crypto refuses it', async () => {
    const { jws, ours, jwk } = await signed('RS256');
    expect(() => verifyWithNode(node, jws, ours, 'PS256')).toThrow(TypeError);
    expect(() => verifyWithNode(node, jws, ours, 'RS384')).toThrow(TypeError);
    await expect(verifyJwsSignature(jws, ours, 'PS256')).rejects.toThrow();
    const ec = await signed('ES256');
    expect(() => verifyWithNode(node, ec.jws, ec.ours, 'ES384')).toThrow(TypeError);
    expect(() => verifyWithNode(node, jws, ours, 'none')).toThrow(TypeError);
    const signing = await crypto.subtle.importKey('jwk', { ...jwk, key_ops: ['encrypt'] }, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, [
      'encrypt',
    ]);
    expect(() => verifyWithNode(node, jws, signing, 'RS256')).toThrow(TypeError);
    // The right algorithm, imported for no use at all: not a key to verify with, on either path.
    const unusable = await crypto.subtle.importKey('jwk', jwk, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, []);
    expect(() => verifyWithNode(node, jws, unusable, 'RS256')).toThrow(TypeError);
    await expect(verifyJwsSignature(jws, unusable, 'RS256')).rejects.toThrow();
  });

  test('a runtime whose node:crypto has verify but no KeyObject (a partial compatibility layer) checks with Web Crypto, and still verifies', async () => {
    const { jws, ours } = await signed('ES256');
    const webCrypto = vi.spyOn(crypto.subtle, 'verify');
    const keyObject = Object.getOwnPropertyDescriptor(node, 'KeyObject');
    Object.defineProperty(node, 'KeyObject', { value: undefined, configurable: true, writable: true });
    try {
      await expect(verifySignature(jws, ours, 'ES256')).resolves.toBe(true);
      // One character of the signature changed (not its last, whose low bits base64 may ignore).
      const at = jws.length - 10;
      const tampered = `${jws.slice(0, at)}${jws[at] === 'A' ? 'B' : 'A'}${jws.slice(at + 1)}`;
      await expect(verifySignature(tampered, ours, 'ES256')).resolves.toBe(false);
      expect(webCrypto).toHaveBeenCalledTimes(2);
    } finally {
      if (keyObject) Object.defineProperty(node, 'KeyObject', keyObject);
      webCrypto.mockRestore();
    }
  });

  test('a signature check that throws is a signature that does not verify, never a pass', async () => {
    const { jws, ours } = await signed('ES256');
    const throwing = {
      ...node,
      verify: () => {
        throw new Error('a signature of the wrong length');
      },
    };
    expect(verifyWithNode(throwing, jws, ours, 'ES256')).toBe(false);
    // The same token and key verify when the check does not throw: the refusal is the throw's.
    expect(verifyWithNode(node, jws, ours, 'ES256')).toBe(true);
  });
});
