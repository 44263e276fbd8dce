/**
 * Decoders for claim values whose form the spec calls out. Claim value types are not uniform:
 * some are JSON inside a string, `sanctionscheck.is_pep` is the string `Yes`, not a boolean; and a
 * service may write any claim's value in another form with the same meaning.
 *
 * @see {@link https://github.com/acme/identity-sdk/blob/main/docs/service-spec.md | the service specification}, "Claim keys"
 */
import { ClaimDecodeError, InvalidInputError } from '../errors/index.js';
import { booleanOf, isObject, sameJson } from '../internal/guards.js';

/** `acmeidentity.name`, decoded from its JSON string. */
export interface PersonName {
  first_name: string;
  last_name: string;
}

/** The decoded type of each claim key the spec names. */
export interface SpecClaimTypes {
  'acmeidentity.valid': boolean;
  /** The credential as the service sends it: its form is not shown. */
  'acmeidentity.credential': unknown;
  /** The credential as a JWT (an SD-JWT: `verifySdJwt` reads it). */
  'acmeidentity.credential_jwt': string;
  'acmeidentity.name': PersonName;
  'acmeidentity.given_name': string;
  'acmeidentity.family_name': string;
  'acmeidentity.birth_date': string;
  'acmeidentity.email': string;
  'acmeidentity.phone': string;
  'acmeidentity.email_verified': boolean;
  'acmeidentity.phone_verified': boolean;
  'acmeidentity.names_verified': boolean;
  /** `Yes` / `No` as the service writes it (a boolean, `"true"`, 1/0 are accepted too): its type is not shown. */
  'sanctionscheck.is_sanctioned': boolean;
  /** The string `Yes` (true) or `No` (false), in any case; a boolean, `"true"`/`"false"`, 1/0 too. */
  'sanctionscheck.is_pep': boolean;
  /** Decoded from its JSON string (or taken as sent when already an object or array); the structure of a match is not shown. */
  'sanctionscheck.matches': unknown;
  'document.passport.travel_document_number': string;
  'document.passport_foreign.passport_number': string;
  'document.driving_license.licence_number': string;
  /** The credential as the service sends it: its form is not shown. */
  'acicncchc.credential': unknown;
}

/**
 * The decoded type of each claim the SDK knows: the spec's, and those an application declares
 * for keys the service added later (module augmentation); any other claim reads as `unknown`.
 * @example
 * ```ts
 * declare module '@acme/identity' {
 *   interface KnownClaimTypes {
 *     'loyalty.tier': number;
 *   }
 * }
 * ```
 */
// An interface, not an alias, so that applications can augment it.
export interface KnownClaimTypes extends SpecClaimTypes {}

declare const checked: unique symbol;

/** A claim key known only at run time (configuration, a discovery document), checked by `claimKey`. */
export type CheckedClaimKey = string & { readonly [checked]: true };

/**
 * A claim key: one the spec names, one you declared, or one checked at run time. A typo is a
 * compile error. Keys the service adds later are declared by module augmentation, with their type:
 * `declare module '@acme/identity' { interface KnownClaimTypes { 'newcredential.field': string } }`;
 * or taken from text with `claimKey`.
 */
export type ClaimKey = keyof KnownClaimTypes | CheckedClaimKey;

/** The decoded type of claim `K`. */
export type ClaimValue<K extends string> = K extends keyof KnownClaimTypes ? KnownClaimTypes[K] : unknown;

type Decoder = (value: unknown, claim: string) => unknown;

/**
 * Each decoder is lenient on form and strict on meaning ("claim value types are not uniform"): a
 * value is accepted in every form that says one thing unambiguously, and anything else is a
 * {@link ClaimDecodeError}, never a guess.
 */
const string: Decoder = (value, claim) => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) {
    // A document number or date sent as a JSON number means the same digits, while a number can
    // hold them: past 2^53 JSON.parse has already rounded some away (a 20-digit number comes back
    // ending in zeros), and another number's digits are never returned as the claim's.
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
      throw new ClaimDecodeError(claim, 'is a number too large for its digits to survive JSON: send it as a string');
    }
    return String(value);
  }
  throw new ClaimDecodeError(claim, 'is not a string');
};

/** true/false, "true"/"false", "Yes"/"No" in any case, 1/0 and "1"/"0": one meaning each ({@link booleanOf}). */
const boolean: Decoder = (value, claim) => {
  const decoded = booleanOf(value);
  if (decoded === undefined) throw new ClaimDecodeError(claim, 'is not a boolean');
  return decoded;
};

/** A JSON-encoded string, decoded; an object or array the service already decoded is taken as it is. */
const jsonString: Decoder = (value, claim) => {
  if (typeof value === 'object' && value) return value;
  if (typeof value !== 'string') throw new ClaimDecodeError(claim, 'is not a JSON-encoded string');
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new ClaimDecodeError(claim, 'is not valid JSON');
  }
};

const name: Decoder = (value, claim) => {
  const decoded = jsonString(value, claim) as Partial<PersonName> | null;
  if (typeof decoded?.first_name !== 'string' || typeof decoded.last_name !== 'string') {
    throw new ClaimDecodeError(claim, 'is not a JSON object with first_name and last_name strings');
  }
  return { first_name: decoded.first_name, last_name: decoded.last_name };
};

/** A value whose form the spec does not show: taken as sent. */
const asSent: Decoder = (value) => value;

const DECODERS: Readonly<Record<keyof SpecClaimTypes, Decoder>> = {
  'acmeidentity.valid': boolean,
  'acmeidentity.credential': asSent,
  'acmeidentity.credential_jwt': string,
  'acmeidentity.name': name,
  'acmeidentity.given_name': string,
  'acmeidentity.family_name': string,
  'acmeidentity.birth_date': string,
  'acmeidentity.email': string,
  'acmeidentity.phone': string,
  'acmeidentity.email_verified': boolean,
  'acmeidentity.phone_verified': boolean,
  'acmeidentity.names_verified': boolean,
  'sanctionscheck.is_sanctioned': boolean,
  'sanctionscheck.is_pep': boolean,
  'sanctionscheck.matches': jsonString,
  'document.passport.travel_document_number': string,
  'document.passport_foreign.passport_number': string,
  'document.driving_license.licence_number': string,
  'acicncchc.credential': asSent,
};

/**
 * Reads claim `key` from verified claims, decoded to its documented type: `undefined` when it was
 * not disclosed, the raw value for a claim the SDK does not know yet (new claims appear over
 * time). The raw value always stays where the issuer wrote it: `claims[key]`, or for a sign-in's
 * claims also `claims.acme[key]` or its path (`claims.acmeidentity.name`).
 *
 * @throws {ClaimDecodeError} `ERR_CLAIM_DECODE` when the value is not of its documented form, or is written in two places with two values.
 * @throws {InvalidInputError} `ERR_INVALID_INPUT` when `claims` is not an object or `key` not a string.
 * @example
 * ```ts
 * const name = readClaim(verified.claims, 'acmeidentity.name'); // { first_name, last_name } | undefined
 * const pep = readClaim(verified.claims, 'sanctionscheck.is_pep'); // boolean | undefined
 * ```
 */
export function readClaim<K extends string>(claims: Readonly<Record<string, unknown>>, key: K): ClaimValue<K> | undefined {
  if (claims === null || typeof claims !== 'object')
    throw new InvalidInputError([{ field: 'claims', message: 'must be the verified claims object' }]);
  if (typeof key !== 'string') throw new InvalidInputError([{ field: 'key', message: 'must be a claim key string' }]);
  const value = claimIn(claims, key);
  if (value === undefined) return undefined;
  const decode = Object.hasOwn(DECODERS, key) ? DECODERS[key as keyof SpecClaimTypes] : undefined;
  return (decode ? decode(value, key) : value) as ClaimValue<K>;
}

/** An own property's value: never one of `Object.prototype`'s. */
const own = (object: unknown, name: string): unknown => (isObject(object) && Object.hasOwn(object, name) ? object[name] : undefined);

/**
 * Names whose object is one claim, never a credential's claims written as paths: OpenID Connect's
 * own claims whose values are objects, and `__proto__` (kept as data, never walked into).
 */
const OBJECT_CLAIMS: ReadonlySet<string> = new Set(['address', '_claim_names', '_claim_sources', '__proto__']);

/**
 * The key of every claim a sign-in's claims carry, wherever the issuer wrote it (see
 * {@link readClaim}): each top-level name; for an `acme` object, its keys instead; for an object
 * written as a path, the claim keys it holds by the claim key form (`{credential}.{field}`,
 * `document.{doc_type}.{field}`) instead.
 * @example
 * ```ts
 * claimKeysIn({ sub: 'p', acme: { 'acmeidentity.name': '…' }, sanctionscheck: { is_pep: 'No' } });
 * // ['sub', 'acmeidentity.name', 'sanctionscheck.is_pep']
 * ```
 */
export function claimKeysIn(claims: Readonly<Record<string, unknown>>): string[] {
  const keys = new Set<string>();
  for (const [name, value] of Object.entries(claims)) {
    if (!isObject(value) || name.includes('.') || OBJECT_CLAIMS.has(name)) keys.add(name);
    else for (const key of keysWithin(name, value)) keys.add(key);
  }
  return [...keys];
}

/** The claim keys an object holds: the `acme` object's keys, or a path's by the claim key form. */
function keysWithin(name: string, value: Record<string, unknown>): string[] {
  if (name === 'acme') return Object.keys(value);
  if (name !== 'document') return Object.keys(value).map((field) => `${name}.${field}`);
  return Object.entries(value).flatMap(([type, fields]) =>
    isObject(fields) ? Object.keys(fields).map((field) => `document.${type}.${field}`) : [],
  );
}

/**
 * Claim `key`'s values wherever the issuer wrote it, each place once. An identity response's
 * claims are under their dotted names; how a sign-in's ID token and userinfo carry the `acme`
 * claims is not shown: under their dotted names (`"acmeidentity.name"`), inside the `acme` object
 * the request named them in, or as paths (`{acmeidentity: {name}}`).
 */
export function placesOf(claims: Readonly<Record<string, unknown>>, key: string): unknown[] {
  const path = key.split('.').reduce<unknown>((at, name) => own(at, name), claims);
  return [own(claims, key), own(own(claims, 'acme'), key), path].filter((value) => value !== undefined);
}

/** Claim `key` from every place it may be ({@link placesOf}): two places with two values are refused, never one of them chosen. */
function claimIn(claims: Readonly<Record<string, unknown>>, key: string): unknown {
  const found = placesOf(claims, key);
  if (found.slice(1).some((value) => !sameJson(value, found[0])))
    throw new ClaimDecodeError(key, 'is written in two places with two values');
  return found[0];
}

/** The claims {@link readClaims} read: each key asked for, decoded to its type; absent when not disclosed. */
export type ReadClaims<K extends ClaimKey> = { readonly [P in K]?: ClaimValue<P> };

/**
 * Reads the claims `keys` names from verified claims, each decoded as {@link readClaim} decodes
 * it, into one object typed by the keys asked for: a key that was not disclosed is absent.
 *
 * @throws {ClaimDecodeError} `ERR_CLAIM_DECODE` when a value is not of its documented form.
 * @throws {InvalidInputError} `ERR_INVALID_INPUT` when `claims` is not an object or `keys` not an array of strings.
 * @example
 * ```ts
 * const person = readClaims(verified.claims, ['acmeidentity.name', 'sanctionscheck.is_pep']);
 * person['acmeidentity.name']?.first_name; // string | undefined
 * person['sanctionscheck.is_pep']; // boolean | undefined
 * ```
 */
export function readClaims<const K extends ClaimKey>(claims: Readonly<Record<string, unknown>>, keys: readonly K[]): ReadClaims<K> {
  if (!Array.isArray(keys)) throw new InvalidInputError([{ field: 'keys', message: 'must be an array of claim keys' }]);
  const read: Record<string, unknown> = {};
  for (const key of keys) {
    const value = readClaim(claims, key);
    // Defined, not assigned: a key named __proto__ stays a claim, never the object's prototype.
    if (value !== undefined) Object.defineProperty(read, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return read as ReadClaims<K>;
}
