/**
 * The ID token's signature, checked with Web Crypto against the issuer's JWKS.
 *
 * oauth4webapi validates the ID token's claims but, as it documents, trusts TLS for its origin and
 * checks the signature only when asked (`validateApplicationLevelSignature`). The spec asks for the
 * check. This is that check in well under a kilobyte instead of that function's 1.8 KB, which would
 * not fit the browser budget: asymmetric algorithms only (never `none` or HMAC), the keys chosen by
 * the rule every verifier shares (`fittingKeys` of `internal/jws.ts`: public keys allowed to
 * verify, fitting `kid`, `kty`, `crv`, `alg` and `use`; in a rotation each fitting one is tried).
 *
 * Where the keys come from is the entry's choice: a browser page holds one sign-in, so it reads the
 * JWKS for its callback ({@link freshKeys}, and a rotated key is always in it); a backend keeps the
 * key set for ten minutes and reads it again at once when no key fits, such reads bounded to one
 * every 30 seconds ({@link cachedKeys}).
 */
import { OidcError } from '../errors/index.js';
import { base64urlBytes, fittingKeys, jwsAlgorithm, verifyJwsSignature } from '../internal/jws.js';
import { kept } from '../internal/kept.js';
import { printable } from '../internal/text.js';

type Jwk = JsonWebKey & { kid?: string };

/** A compact JWS's signature under a key, for its `alg`. */
export type SignatureCheck = (jws: string, key: CryptoKey, alg: string) => Promise<boolean>;

/** Fetches a JWKS (the allowed URLs only) as JSON. */
export type KeysOf = (url: string) => Promise<{ keys?: unknown }>;

/** What a key source reads of the issuer's discovery document: where its keys are. */
export interface KeysHolder {
  readonly jwks_uri: string;
}

/** The issuer's keys that `fitting` keeps of its key set. */
export type KeySource = (as: KeysHolder, fitting: (keys: Jwk[]) => Jwk[]) => Promise<Jwk[]>;

/** The keys of a JWKS document, none when it has no `keys` array. */
const keysIn = (body: { keys?: unknown } | null): Jwk[] => (Array.isArray(body?.keys) ? (body.keys as Jwk[]) : []);

/** The JWKS read for each check: a browser page's, whose one sign-in checks one ID token. */
export const freshKeys =
  (keysOf: KeysOf): KeySource =>
  async (as, fitting) =>
    fitting(keysIn(await keysOf(as.jwks_uri)));

/**
 * The JWKS kept for ten minutes and read again at once when no key of it fits (a key rotated a
 * second ago verifies), such reads bounded to one every 30 seconds: the SD-JWT key source's
 * defaults. A read that failed is not kept.
 */
export function cachedKeys(keysOf: KeysOf, now: () => number): KeySource {
  const keySet = kept<Jwk[]>(now);
  /** When a token no key fitted last caused a read: one such read every 30 seconds at most. */
  let rekeyedAt = Number.NEGATIVE_INFINITY;
  return async (as, fitting) => {
    const read = async () => keysIn(await keysOf(as.jwks_uri));
    // A set read for this very token is not read again for it.
    const readNow = keySet.age() > 600_000;
    const found = fitting(await keySet.get(readNow, read));
    if (found.length > 0 || readNow || now() - rekeyedAt < 30_000) return found;
    rekeyedAt = now();
    return fitting(await keySet.get(true, read));
  };
}

const signatureError = (message: string) => new OidcError('ERR_OIDC_ID_TOKEN_SIGNATURE', `ID token: ${message}`);

/** A verifier for one issuer: `verify(as, jwt)` resolves when the signature is good. */
export function jwsVerifier(keys: KeySource, check: SignatureCheck = verifyJwsSignature) {
  return async function verify(as: KeysHolder, jwt: string): Promise<void> {
    const [header = ''] = jwt.split('.');
    const { alg, kid } = JSON.parse(new TextDecoder().decode(base64urlBytes(header))) as { alg?: unknown; kid?: unknown };
    const params = jwsAlgorithm(alg);
    if (!params) throw signatureError(`${printable(String(alg))} is not an asymmetric JWS algorithm`);
    // No fitting key, or none whose signature verifies: the same refusal.
    for (const jwk of await keys(as, (set) => fittingKeys(set, alg, kid))) {
      if (await check(jwt, await crypto.subtle.importKey('jwk', jwk, params, false, ['verify']), alg as string)) return;
    }
    throw signatureError('no key of its JWKS fits and verifies it');
  };
}
