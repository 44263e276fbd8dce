/**
 * The fake's signing keys and JWTs (with jose): one RSA key signs everything the fake issues
 * (access tokens, X-Access-Token JWTs, SD-JWTs, credentials, ID tokens); a rotation keeps the old
 * key in the JWKS beside the new one, and the fake verifies its own tokens against every key it
 * published.
 */
import {
  SignJWT,
  compactVerify,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  type JWK,
  type JWTPayload,
  type CryptoKey,
} from 'jose';
import { randomId } from '../internal/encoding.js';
import { UNITS_PER_SECOND, type TimeUnitName } from './readings.js';

/** The fake service's RSA signing key: access tokens, X-Access-Token JWTs, SD-JWTs and credentials. */
export interface SigningKeys {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  /** The public key as a JWK, with `kid`, `alg` and `use`: what a JWKS endpoint serves. */
  readonly publicJwk: JWK;
}

export async function createSigningKeys(): Promise<SigningKeys> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
  const kid = randomId(8);
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateKey, publicKey, publicJwk };
}

/** A time in whole seconds written in the `tokenTimes` reading's unit: as it is, or in milliseconds or microseconds. */
export const inTokenUnit = (seconds: number, unit: TimeUnitName = 'seconds') => seconds * UNITS_PER_SECOND[unit];

/**
 * A JWT signed by `keys`, issued at `nowMs` and expiring `ttlSeconds` later, its `iat` and `exp`
 * in seconds, or in a finer unit when `unit` says so (the `tokenTimes` reading).
 */
export async function signJwt(
  keys: SigningKeys,
  payload: JWTPayload,
  options: { typ?: string; nowMs: number; ttlSeconds?: number; unit?: TimeUnitName },
): Promise<string> {
  const iat = Math.floor(options.nowMs / 1000);
  const jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', kid: keys.kid, typ: options.typ ?? 'JWT' })
    .setIssuedAt(inTokenUnit(iat, options.unit));
  if (options.ttlSeconds !== undefined) jwt.setExpirationTime(inTokenUnit(iat + options.ttlSeconds, options.unit));
  return jwt.sign(keys.privateKey);
}

/**
 * The payload of a JWT signed by one of `keys` (chosen by `kid`), or `undefined` when it is not
 * one, or expired: its `exp` read in the `unit` the fake wrote it in (the `tokenTimes` reading;
 * jose checks one in seconds, and one in a finer unit is checked here).
 */
export async function verifyJwt(
  keys: readonly SigningKeys[],
  token: string,
  nowMs: number,
  unit: TimeUnitName = 'seconds',
): Promise<JWTPayload | undefined> {
  try {
    const { kid } = decodeProtectedHeader(token);
    const key = keys.find((k) => k.kid === kid);
    if (!key) return undefined;
    const { payload } = await jwtVerify(token, key.publicKey, {
      algorithms: ['RS256'],
      currentDate: new Date(nowMs),
    });
    if (unit !== 'seconds' && typeof payload.exp === 'number' && (payload.exp / UNITS_PER_SECOND[unit]) * 1000 <= nowMs) return undefined;
    return payload;
  } catch {
    return undefined;
  }
}

/**
 * The payload of a JWT whose signature one of `keys` (chosen by `kid`) verifies, whatever its times
 * say, or `undefined`: what a service that checks a credential's signature and leaves its expiry
 * to the reader reads (the `verifyAnswer` reading).
 */
export async function signedPayload(keys: readonly SigningKeys[], token: string): Promise<JWTPayload | undefined> {
  try {
    const key = keys.find((k) => k.kid === decodeProtectedHeader(token).kid);
    if (!key) return undefined;
    const { payload } = await compactVerify(token, key.publicKey, { algorithms: ['RS256'] });
    return JSON.parse(new TextDecoder().decode(payload)) as JWTPayload;
  } catch {
    return undefined;
  }
}
