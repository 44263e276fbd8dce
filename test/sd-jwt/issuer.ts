/** A test issuer of SD-JWTs built by hand, so each test can break exactly one rule of RFC 9901. */
import { createHash } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { localJwks, type KeySource } from '../../src/sd-jwt/index.js';

export const ISSUER = 'https://issuer.example';
export const NOW_MS = Date.UTC(2026, 10, 22, 12, 0, 0);
export const NOW = NOW_MS / 1000;

export interface TestIssuer {
  keys: KeySource;
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** Signs `payload` as the issuer (RS256, kid "k1") unless told otherwise. */
  sign(payload: JWTPayload, header?: Record<string, unknown>, key?: CryptoKey): Promise<string>;
  /** `<jwt>~<d1>~...~` over `payload` with `exp` an hour after {@link NOW} unless given. */
  sdJwt(payload: JWTPayload, disclosures: readonly string[]): Promise<string>;
}

export async function testIssuer(): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256' };
  const sign = (payload: JWTPayload, header: Record<string, unknown> = {}, key: CryptoKey = privateKey) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'dc+sd-jwt', ...header } as { alg: string }).sign(key);
  return {
    keys: localJwks({ keys: [publicJwk] }, ISSUER),
    privateKey,
    publicJwk,
    sign,
    async sdJwt(payload, disclosures) {
      const jwt = await sign({ iss: ISSUER, iat: NOW, exp: NOW + 3600, _sd_alg: 'sha-256', ...payload });
      return `${jwt}~${disclosures.map((d) => `${d}~`).join('')}`;
    },
  };
}

/** A disclosure: base64url of the JSON array of `parts` (compact JSON). */
export function disclosure(...parts: unknown[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/** base64url(SHA-256(ascii(disclosure))). */
export function digest(encoded: string, algorithm = 'sha256'): string {
  return createHash(algorithm).update(encoded).digest('base64url');
}

/** The verifier's options on the frozen clock. */
export function at(keys: KeySource, nowMs = NOW_MS) {
  return { keys, now: () => nowMs };
}
