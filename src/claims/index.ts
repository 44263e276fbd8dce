/**
 * Claim keys and the rules the service applies to a claims request, checked before anything is
 * sent so the caller gets a typed error naming the key instead of the service's `invalid_request`.
 *
 * @see {@link https://github.com/acme/identity-sdk/blob/main/docs/service-spec.md | the service specification}, "Claim keys"
 * @module
 */
import { OBTAINABLE_CREDENTIALS } from '../contract/claims.js';
import { InvalidInputError, type InputIssue } from '../errors/index.js';
import type { CheckedClaimKey, ClaimKey, KnownClaimTypes } from './decoders.js';

/** Credentials the service can obtain during a journey: the only ones that may be marked essential. */
export { OBTAINABLE_CREDENTIALS };

export type ObtainableCredential = (typeof OBTAINABLE_CREDENTIALS)[number];

/**
 * The two forms the service accepts: a flat array of keys, or keys mapped to `null` (optional) or
 * `{essential: true}` (mandatory). `{essential: false}` is taken too, as what a person writes in a
 * variable (TypeScript widens `true` to `boolean` there), and is sent as `null`.
 */
export type ClaimsRequest = readonly ClaimKey[] | { readonly [K in keyof KnownClaimTypes]?: null | { readonly essential: boolean } };

/** `claims` as the service takes them: `{essential: false}` sent as `null`, what it means. */
export function wireClaims<T>(claims: T): T {
  if (Array.isArray(claims) || claims === null || typeof claims !== 'object') return claims;
  return Object.fromEntries(
    Object.entries(claims).map(([key, marker]) => [key, (marker as { essential?: unknown } | null)?.essential === false ? null : marker]),
  ) as T;
}

const KEY_SEGMENT = /^[A-Za-z0-9_-]+$/;

/** Why `key` is not of the form `{credential}.{field}` or `document.{doc_type}.{field}`, if it is not. */
function keyFormProblem(key: string): string | undefined {
  const segments = key.split('.');
  if (!segments.every((s) => KEY_SEGMENT.test(s))) return 'is not a claim key (letters, digits, "_" and "-" between dots)';
  if (segments[0] === 'document' ? segments.length !== 3 : segments.length !== 2) {
    return 'must be {credential}.{field} or document.{doc_type}.{field}';
  }
  return undefined;
}

/**
 * A claim key from text, for keys known only at run time (configuration, a discovery document).
 * Whether the service takes it is checked where it is used: against the live
 * `acme_claims_supported` when there is one, else by its form (`{credential}.{field}` or
 * `document.{doc_type}.{field}`).
 * @throws {InvalidInputError} when `key` is not a non-empty string.
 * @example
 * ```ts
 * const keys = process.env.CLAIMS!.split(',').map(claimKey);
 * await acme.identityRequests.create({ ...person, claims: keys });
 * ```
 */
export function claimKey(key: string): CheckedClaimKey {
  if (typeof key !== 'string' || key === '') throw new InvalidInputError([{ field: 'claimKey', message: 'must be a non-empty string' }]);
  return key as CheckedClaimKey;
}

/**
 * Whether marking `key` essential is allowed: never for `document.*`, only for obtainable credentials.
 * @example
 * ```ts
 * canBeEssential('sanctionscheck.is_pep'); // true
 * canBeEssential('document.passport.travel_document_number'); // false
 * ```
 */
export function canBeEssential(key: string): boolean {
  // Anything but a string is no claim key, so nothing that can be essential.
  const credential = typeof key === 'string' ? (key.split('.')[0] ?? '') : 'document';
  return credential !== 'document' && (OBTAINABLE_CREDENTIALS as readonly string[]).includes(credential);
}

/** Why a key is not one the service knows, or `undefined` when it is. */
export type KeyCheck = (key: string) => string | undefined;

/**
 * Discovery's `acme_claims_supported` as a list of keys: the JSON array the metadata field is, or
 * the same keys written as one string, separated by spaces (as OAuth writes a scope) or commas.
 * Anything else lists no key: a request naming one is refused, naming the field.
 */
export function claimList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((key): key is string => typeof key === 'string');
  return typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : [];
}

/** The live `acme_claims_supported` list as a {@link KeyCheck}: a key it holds is accepted in any form. */
export const listedIn =
  (supported: ReadonlySet<string>): KeyCheck =>
  (key) =>
    supported.has(key) ? undefined : "is not in the service's acme_claims_supported";

/**
 * Checks a claims request in either form. `supported` is the live `acme_claims_supported` list
 * from discovery; without it, keys are checked for form only (the service still rejects unknown ones).
 * Returns every problem found, each naming the key, with `field` prefixed by `path`.
 * @example
 * ```ts
 * claimsIssues({ 'document.passport.travel_document_number': { essential: true } });
 * // [{ field: 'claims.document.passport.travel_document_number', message: 'cannot be essential: only acicncchc, … can be obtained during a journey, never document.*' }]
 * ```
 */
export function claimsIssues(claims: unknown, supported?: ReadonlySet<string>, path = 'claims'): InputIssue[] {
  return claimsRequestIssues(claims, supported ? listedIn(supported) : keyFormProblem, path);
}

/**
 * {@link claimsIssues} with the key rule given: the OIDC entries pass {@link listedIn} alone, so
 * a browser bundle carries no key-form rule.
 */
export function claimsRequestIssues(claims: unknown, unknownKey: KeyCheck, path: string): InputIssue[] {
  const issues: InputIssue[] = [];
  let entries: [string, unknown][];
  if (Array.isArray(claims)) {
    entries = [];
    for (const [i, key] of claims.entries()) {
      if (typeof key === 'string') entries.push([key, null]);
      else issues.push({ field: `${path}[${i}]`, message: 'must be a claim key string' });
    }
  } else if (claims !== null && typeof claims === 'object') {
    entries = Object.entries(claims);
  } else {
    return [{ field: path, message: 'must be an array of claim keys or an object mapping claim keys to null or {essential: true}' }];
  }
  if (entries.length === 0 && issues.length === 0) issues.push({ field: path, message: 'must request at least one claim' });
  for (const [key, marker] of entries) {
    const field = `${path}.${key}`;
    const unknown = unknownKey(key);
    if (unknown) {
      issues.push({ field, message: unknown });
      continue;
    }
    if (marker === null) continue;
    const essential =
      typeof marker === 'object' && Object.keys(marker).length === 1 ? (marker as { essential?: unknown }).essential : undefined;
    if (typeof essential !== 'boolean') {
      issues.push({ field, message: 'must be null (optional) or {essential: true}' });
    } else if (essential && !canBeEssential(key)) {
      issues.push({
        field,
        message: `cannot be essential: only ${OBTAINABLE_CREDENTIALS.join(', ')} can be obtained during a journey, never document.*`,
      });
    }
  }
  return issues;
}

export { readClaim, readClaims } from './decoders.js';
export type { CheckedClaimKey, ClaimKey, ClaimValue, KnownClaimTypes, PersonName, ReadClaims, SpecClaimTypes } from './decoders.js';
