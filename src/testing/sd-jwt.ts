/**
 * How the fake issues SD-JWTs (RFC 9901) as an independent issuer would: a salted disclosure per
 * claim, its digest in `_sd` among decoys, the issuer-signed JWT and the disclosures joined by
 * `~`. Written apart from the SDK's verifier (sd-jwt/), so the two cannot share a mistake.
 */
import { signJwt, type SigningKeys } from './keys.js';
import { randomId, toBase64Url, utf8 } from '../internal/encoding.js';

/** One disclosed claim as the REST envelope carries it, with its compact RFC 9901 form. */
export interface IssuedDisclosure {
  claim: string;
  salt: string;
  value: unknown;
  /** The JSON array `[salt, claim, value]`, as written. */
  json: string;
  /** base64url of {@link IssuedDisclosure.json}: the exact bytes the digest covers. */
  encoded: string;
  digest: string;
}

/** base64url(SHA-256(UTF-8 of text)): a disclosure digest, and a PKCE S256 challenge. */
export async function sha256(text: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(text))));
}

/**
 * How the disclosure JSON is written before it is base64url-encoded and hashed: `compact`
 * (`JSON.stringify`) or `spaced` (`", "` and `": "` separators and non-ASCII escaped, as Python's
 * `json.dumps` and RFC 9901's examples write it). The spec does not show which the service uses.
 */
export type DisclosureEncoding = 'compact' | 'spaced';

function spacedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(spacedJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${spacedJson(k)}: ${spacedJson(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Makes the disclosure of one claim and its SHA-256 digest (RFC 9901 §4.2.1, §4.2.3). */
export async function disclose(claim: string, value: unknown, encoding: DisclosureEncoding = 'compact'): Promise<IssuedDisclosure> {
  const salt = randomId(16);
  const json = encoding === 'compact' ? JSON.stringify([salt, claim, value]) : spacedJson([salt, claim, value]);
  const encoded = toBase64Url(utf8(json));
  return { claim, salt, value, json, encoded, digest: await sha256(encoded) };
}

/** Digests of the disclosures plus `decoys` random ones, sorted so their order reveals nothing. */
export async function digestsWithDecoys(disclosures: readonly IssuedDisclosure[], decoys: number): Promise<string[]> {
  const digests = disclosures.map((d) => d.digest);
  for (let i = 0; i < decoys; i++) digests.push(await sha256(randomId(16)));
  return digests.sort();
}

/** A compact SD-JWT, `<issuer-signed JWT>~<disclosure>~...~` (no key binding), signed RS256. */
export async function issueSdJwt(
  keys: SigningKeys,
  claims: Record<string, unknown>,
  disclosures: readonly IssuedDisclosure[],
  options: { nowMs: number; decoys?: number },
): Promise<string> {
  const payload = { ...claims, _sd: await digestsWithDecoys(disclosures, options.decoys ?? 2), _sd_alg: 'sha-256' };
  const jwt = await signJwt(keys, payload, { typ: 'dc+sd-jwt', nowMs: options.nowMs });
  return `${jwt}~${disclosures.map((d) => `${d.encoded}~`).join('')}`;
}
