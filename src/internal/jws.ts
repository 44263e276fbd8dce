/**
 * JWS signatures with Web Crypto alone, for the browser-facing verifiers (the SD-JWT verifier and
 * the OIDC helper's ID token check): asymmetric algorithms only, never `none` or HMAC.
 *
 * jose does the same with more around it (JWK handling, every JOSE option), which costs 4.8 KB of
 * a browser bundle where these checks need about 0.5 KB. The tests hold this to jose's verdicts
 * (`test/internal/jws.test.ts`: the same tokens, the same accept or refuse).
 */

/** The Web Crypto parameters of a JWS `alg`, and the JWK `kty` (and `crv`) that fits it. */
export interface JwsAlgorithm {
  readonly name: 'RSASSA-PKCS1-v1_5' | 'RSA-PSS' | 'ECDSA' | 'Ed25519';
  readonly hash?: string;
  readonly saltLength?: number;
  readonly namedCurve?: string;
  readonly kty: 'RSA' | 'EC' | 'OKP';
  readonly crv?: string;
}

/**
 * `alg`'s Web Crypto parameters; `undefined` for anything that is not an asymmetric signature
 * (`none`, HMAC, unknown), or not a string at all (`["RS256"]`, which a template would write as
 * `RS256`: jose refuses it too).
 */
export function jwsAlgorithm(alg: unknown): JwsAlgorithm | undefined {
  if (typeof alg !== 'string') return undefined;
  if (alg === 'EdDSA' || alg === 'Ed25519') return { name: 'Ed25519', kty: 'OKP', crv: 'Ed25519' };
  const [, family, bits] = /^(RS|PS|ES)(256|384|512)$/.exec(alg) ?? [];
  if (!bits) return undefined;
  const hash = `SHA-${bits}`;
  if (family === 'RS') return { name: 'RSASSA-PKCS1-v1_5', hash, kty: 'RSA' };
  if (family === 'PS') return { name: 'RSA-PSS', hash, saltLength: +bits / 8, kty: 'RSA' };
  const crv = `P-${bits === '512' ? 521 : bits}`;
  return { name: 'ECDSA', hash, namedCurve: crv, kty: 'EC', crv };
}

/** Bytes of a base64url string (no padding); throws a `TypeError` on any other character. */
export function base64urlBytes(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new TypeError('not base64url');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  // A plain loop: `Uint8Array.from(binary, fn)` walks the string's iterator, several times slower.
  // (Not `fromBase64` of internal/encoding.ts: its canonical-padding check is bytes the OIDC budget lacks.)
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Whether `jwk` is a key to check an `alg` signature with, for a token naming `kid` (or none):
 * its `kty` and `crv` fit the algorithm, its `alg` and `use` (when present) allow it.
 */
export function jwkFits(jwk: JsonWebKey & { kid?: unknown }, alg: unknown, kid: unknown): boolean {
  const params = jwsAlgorithm(alg);
  return (
    params !== undefined &&
    jwk.kty === params.kty &&
    jwk.crv === params.crv &&
    (kid === undefined || jwk.kid === kid) &&
    (jwk.alg === undefined || jwk.alg === alg) &&
    (jwk.use === undefined || jwk.use === 'sig')
  );
}

/** How many keys a token is tried against when several fit it: a rotation holds two; more is work an attacker chooses. */
export const MAX_KEY_CANDIDATES = 4;

/**
 * The one rule of every verifier (SD-JWT and OIDC) for choosing keys: of a key set, the public
 * keys (no `d`: every private RSA, EC or OKP key has one; `oct` keys never fit an asymmetric `alg`)
 * whose `key_ops`, when present, include `verify` (RFC 7517 §4.3), that fit the token's `alg` and
 * `kid` ({@link jwkFits}); at most {@link MAX_KEY_CANDIDATES}, in the set's order. The signature
 * decides among them.
 */
export function fittingKeys<K extends JsonWebKey & { kid?: unknown }>(keys: readonly K[], alg: unknown, kid: unknown): K[] {
  return keys
    .filter(
      (jwk) =>
        jwk.d === undefined &&
        (jwk.key_ops === undefined || (Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify'))) &&
        jwkFits(jwk, alg, kid),
    )
    .slice(0, MAX_KEY_CANDIDATES);
}

/** A public JWK as a verification key for `alg` (Web Crypto checks the JWK's `alg`, `use` and `key_ops` against it). */
export function importVerifyKey(jwk: JsonWebKey, alg: string): Promise<CryptoKey> {
  const params = jwsAlgorithm(alg);
  if (!params) return Promise.reject(new TypeError(`${alg} is not an asymmetric JWS algorithm`));
  return crypto.subtle.importKey('jwk', jwk, params, false, ['verify']);
}

/**
 * Whether the compact JWS `jws` is signed by `key` with `alg`. Rejects (a `TypeError` or Web
 * Crypto's `DOMException`) when `alg` is not asymmetric or the key cannot verify it.
 */
export async function verifyJwsSignature(jws: string, key: CryptoKey, alg: string): Promise<boolean> {
  const params = jwsAlgorithm(alg);
  if (!params) throw new TypeError(`${alg} is not an asymmetric JWS algorithm`);
  const end = jws.lastIndexOf('.');
  return crypto.subtle.verify(params, key, base64urlBytes(jws.slice(end + 1)), new TextEncoder().encode(jws.slice(0, end)));
}
