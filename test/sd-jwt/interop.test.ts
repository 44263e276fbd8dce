/** SD-JWTs issued by @sd-jwt/core (the OpenWallet Foundation's implementation) verify to the same claims. */
import { beforeAll, describe, expect, test } from 'vitest';
import { SDJwtInstance } from '@sd-jwt/core';
import { digest as sdDigest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { verifySdJwt } from '../../src/sd-jwt/index.js';
import { ISSUER, NOW, at, testIssuer, type TestIssuer } from './issuer.js';

const text = new TextEncoder();

function signerFor(key: CryptoKey, algorithm: AlgorithmIdentifier | EcdsaParams) {
  return async (data: string) => Buffer.from(await crypto.subtle.sign(algorithm, key, text.encode(data))).toString('base64url');
}

let issuer: TestIssuer;
let sdjwt: SDJwtInstance<Record<string, unknown>>;
beforeAll(async () => {
  issuer = await testIssuer();
  sdjwt = new SDJwtInstance({
    hasher: sdDigest,
    hashAlg: 'sha-256',
    saltGenerator: generateSalt,
    signer: signerFor(issuer.privateKey, { name: 'RSASSA-PKCS1-v1_5' }),
    signAlg: 'RS256',
  });
});

const claims = {
  iss: ISSUER,
  iat: NOW,
  exp: NOW + 3600,
  sub: 'person-1',
  given_name: 'Jane',
  family_name: 'Möbius',
  address: { street_address: '1 Main St', locality: 'Sydney', country: 'AU' },
  nationalities: ['AU', 'FR', 'DE'],
  verification: { evidence: [{ type: 'document', document: { number: 'X123', country: 'AU' } }] },
};

const frame = {
  _sd: ['given_name', 'family_name', 'address', 'verification'],
  _sd_decoy: 3,
  address: { _sd: ['street_address', 'locality'], _sd_decoy: 1 },
  nationalities: { _sd: [1, 2] },
  verification: { evidence: { 0: { document: { _sd: ['number'] } } } },
};

describe('interop with @sd-jwt/core 0.19.0', () => {
  test('flat, nested, array and recursive disclosures with decoys verify to the original claims', async () => {
    const issued = await sdjwt.issue(claims, frame as never, { header: { kid: 'k1', typ: 'dc+sd-jwt' } });
    const verified = await verifySdJwt(issued, at(issuer.keys));
    expect(verified.claims).toEqual(claims);
    expect(verified.disclosures.length).toBeGreaterThanOrEqual(8);
  });

  test('a partial presentation verifies to what @sd-jwt/core itself reveals', async () => {
    const issued = await sdjwt.issue(claims, frame as never, { header: { kid: 'k1' } });
    const presented = await sdjwt.present(issued, { given_name: true, address: { locality: true }, nationalities: { 2: true } } as never);
    const ours = await verifySdJwt(presented, at(issuer.keys));
    const theirs = await sdjwt.getClaims(presented);
    expect(ours.claims).toEqual(theirs);
    expect(ours.claims['address']).toEqual({ locality: 'Sydney', country: 'AU' });
    expect(ours.claims['nationalities']).toEqual(['AU', 'DE']);
    expect(ours.claims).not.toHaveProperty('family_name');
  });

  test('a key-binding JWT made by @sd-jwt/core is accepted', async () => {
    const holder = await generateKeyPair('ES256', { extractable: true });
    const withKb = new SDJwtInstance({
      hasher: sdDigest,
      hashAlg: 'sha-256',
      saltGenerator: generateSalt,
      signer: signerFor(issuer.privateKey, { name: 'RSASSA-PKCS1-v1_5' }),
      signAlg: 'RS256',
      kbSigner: signerFor(holder.privateKey, { name: 'ECDSA', hash: 'SHA-256' }),
      kbSignAlg: 'ES256',
    });
    const issued = await withKb.issue({ ...claims, cnf: { jwk: await exportJWK(holder.publicKey) } }, frame as never, {
      header: { kid: 'k1' },
    });
    const presented = await withKb.present(issued, { given_name: true } as never, {
      kb: { payload: { iat: NOW, aud: 'https://rp.example', nonce: 'n-42' } },
    });
    const verified = await verifySdJwt(presented, { ...at(issuer.keys), keyBinding: { audience: 'https://rp.example', nonce: 'n-42' } });
    expect(verified.keyBinding?.['aud']).toBe('https://rp.example');
    expect(verified.claims['given_name']).toBe('Jane');
  });
});
