import { signJwt, type SigningKeys } from './keys.js';
import { randomId, toBase64Url, utf8 } from '../internal/encoding.js';

/** One disclosed claim as the REST envelope carries it, with its compact RFC 9901 form. */
export interface IssuedDisclosure {
  claim: string;
  salt: string;
  value: unknown;
  /** base64url of the JSON array `[salt, claim, value]`: the exact bytes the digest covers. */
  encoded: string;
  digest: string;
}

async function sha256(text: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(text))));
}

/** Makes the disclosure of one claim and its SHA-256 digest (RFC 9901 §4.2.1, §4.2.3). */
export async function disclose(claim: string, value: unknown): Promise<IssuedDisclosure> {
  const salt = randomId(16);
  const encoded = toBase64Url(utf8(JSON.stringify([salt, claim, value])));
  return { claim, salt, value, encoded, digest: await sha256(encoded) };
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
