/** Verification of an identity response: the REST envelope's digests, expiry and request code, and its credential JWTs. */
import { toBase64Url, utf8 } from '../internal/encoding.js';
import { canonicalDigest, digests, hashAlgorithm, type HashAlgorithm } from './hash.js';
import type { KeySource } from './jwks.js';
import { booleanOf, isObject, sameJson, setOwn } from '../internal/guards.js';
import { disclosureArray, disclosureString, type DisclosureFields } from '../internal/disclosure.js';
import { base64urlBytes } from '../internal/jws.js';
import { unixTimeOf } from '../internal/times.js';
import {
  MAX_DEPTH,
  type VerifiedDisclosure,
  checkTimeOptions,
  checkTimes,
  decodeJson,
  fail,
  shown,
  verifySdJwt,
  type TimeOptions,
  type VerifiedSdJwt,
  type VerifySdJwtOptions,
} from './verify.js';

export interface VerifyIdentityResponseOptions extends TimeOptions {
  /**
   * The code of the request you created (`identity_session_code` from `identityRequests.create`),
   * or its codes: the response's `request_code` must equal one of them. The spec calls it the
   * "original request code" without saying which of the two; both name your request.
   */
  requestCode: string | readonly string[];
  /** The service's keys, to verify each `*.credential_jwt`. Without keys, the claims can only be consistent, never proven. */
  keys?: KeySource;
  /** The `iss` required of credential JWTs; defaults to the key source's issuer. */
  issuer?: string;
  /** JWS algorithms accepted for credential JWTs. @default all asymmetric JWS algorithms */
  algorithms?: readonly string[];
  /**
   * Refuse the response unless every disclosed claim is proven by the issuer's signature on a
   * `credential_jwt` (so fail when none is present). @default false
   */
  requireSignature?: boolean;
  /** Claims each `credential_jwt` must carry after processing (passed to {@link verifySdJwt}). @default ['exp'] */
  credentialRequiredClaims?: readonly string[];
}

/**
 * How the claims were established:
 * - `signature`: every disclosed claim is in a `credential_jwt` whose issuer signature verified;
 * - `digests`: the claims match the envelope's `_sd` digests (those without a salt are listed in
 *   `uncheckedClaims`), but the envelope is not signed, so they are only as trustworthy as the TLS
 *   connection they came over.
 */
export type ClaimsProof = 'signature' | 'digests';

export interface VerifiedIdentityResponse {
  /** Claim key to disclosed value, as sent (decode with {@link readClaim}). */
  readonly claims: Readonly<Record<string, unknown>>;
  readonly proof: ClaimsProof;
  /** The claim keys proven by a verified `credential_jwt` signature. */
  readonly signedClaims: readonly string[];
  /**
   * The claim keys disclosed without a salt (the spec gives one "when applicable") that no signed
   * credential carries: stated by the envelope, with no digest to check them against.
   * `requireSignature` refuses them.
   */
  readonly uncheckedClaims: readonly string[];
  /** Requested claims the service could not disclose because it has no data for them. */
  readonly disclosuresMissing: readonly string[];
  /** True when the person could not provide every document the ruleset needs. */
  readonly partiallyComplete: boolean;
  /**
   * The service's own verdict, its `acmeidentity.valid` claim (a boolean in any form that says
   * one, as `readClaim` decodes it), when the response discloses it: `false` means the service
   * does not vouch for this identity, however well its claims verify. `undefined` when it was not
   * requested or not disclosed. The identity inbox hands an identity marked `false` over as
   * `invalid`, never as verified.
   */
  readonly valid: boolean | undefined;
  /** Each verified `{credential}.credential_jwt`, by its key. */
  readonly credentials: Readonly<Record<string, VerifiedSdJwt>>;
  /** The response's `exp`, UNIX seconds. */
  readonly expiresAt: number;
  /** The response `data` as received, unknown fields included. */
  readonly data: Readonly<Record<string, unknown>>;
}

/** JSON with non-ASCII characters escaped as `\uXXXX`, as Python's `json.dumps` writes by default. */
function asciiOnly(json: string): string {
  return json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON with `", "` and `": "` separators (Python's `json.dumps` default, and RFC 9901's examples). */
function spaced(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(spaced).join(', ')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}: ${spaced(value[k])}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/**
 * The disclosure strings an issuer may have hashed for `[salt, claim, value]`, most likely first.
 * The spec does not show the hash input; RFC 9901 hashes the base64url of the issuer's exact JSON
 * bytes, which decoding loses. So the compact form from a `credential_jwt` is used when there is
 * one (see {@link hashInputs}), else the two common serialisations (compact, and Python's spaced
 * form), each with non-ASCII characters kept and escaped. A value whose numbers were written
 * differently (`1.0`) cannot be recovered and is refused. Each is tried as RFC 9901 hashes it (its
 * base64url), then as the JSON itself, which an issuer that skips the encoding hashes.
 */
function candidates(salt: string, claim: string, value: unknown): [encoded: string[], json: string[]] {
  const forms = [JSON.stringify([salt, claim, value]), spaced([salt, claim, value])];
  for (const form of [...forms]) {
    const ascii = asciiOnly(form);
    if (ascii !== form) forms.push(ascii);
  }
  return [forms.map((form) => toBase64Url(utf8(form))), forms];
}

/**
 * What a disclosure's digest may cover, in two batches: as RFC 9901 hashes it, then the JSON
 * itself. The exact bytes of the claim when there are any (the envelope's own disclosure string,
 * a signed credential's: their base64url, and the JSON each encodes), else {@link candidates}.
 */
function hashInputs(
  exact: readonly (string | undefined)[],
  salt: string,
  claim: string,
  value: unknown,
): [encoded: string[], json: string[]] {
  const encoded = [...new Set(exact.filter((form) => form !== undefined))];
  if (encoded.length === 0) return candidates(salt, claim, value);
  return [encoded, encoded.map((form) => new TextDecoder().decode(base64urlBytes(form)))];
}

/**
 * The digest `_sd` commits to of the first batch of inputs that has one: the second batch (the
 * JSON itself) is hashed only when RFC 9901's forms found none, so a service that follows it pays
 * for no more hashes than before.
 */
async function committedDigest(algorithm: HashAlgorithm, batches: readonly string[][], committed: ReadonlySet<string>) {
  for (const inputs of batches) {
    const digest = (await digests(algorithm, inputs)).find((d) => committed.has(d));
    if (digest !== undefined) return digest;
  }
  return undefined;
}

interface EnvelopeDisclosure {
  claim: string;
  /** Absent when the service gave none ("salt … when applicable"): the claim is then checked against a signed credential, or stated plainly. */
  salt: string | undefined;
  value: unknown;
  /** The disclosure string as the envelope sent it (RFC 9901's form): the exact bytes its digest covers. */
  encoded?: string;
}

/** A disclosure in RFC 9901's array form, `[salt, claim, value]`, as an entry's fields. */
function arrayFields(array: unknown, i: number): DisclosureFields {
  const fields = disclosureArray(array);
  if (!fields) throw fail('ERR_SD_JWT_MALFORMED', `disclosures[${i}] is not [salt, claim, value]`);
  return fields;
}

/**
 * An entry of `disclosures`, as the spec shows it (`{claim, salt, value}`), or as RFC 9901 writes
 * a disclosure, which a service that follows SD-JWT may send: its base64url string (whose bytes are
 * then what `_sd` commits to), or the array that string encodes (`[salt, claim, value]`). An entry
 * the client read from such a string carries it (`internal/disclosure.ts`): the string is read, and
 * the entry's fields, which came from it, are not.
 */
function entryFields(given: unknown, i: number): { claim: unknown; salt: unknown; value: unknown; encoded?: string } {
  const item = isObject(given) ? (disclosureString(given) ?? given) : given;
  if (typeof item === 'string') {
    const decoded = decodeJson(item, `disclosures[${i}]`);
    // (Decoded here, after the response's own depth check: held to the same bound.)
    if (!shallow(decoded, MAX_DEPTH)) throw fail('ERR_SD_JWT_MALFORMED', `disclosures[${i}] nests deeper than ${MAX_DEPTH} levels`);
    return { ...arrayFields(decoded, i), encoded: item };
  }
  if (Array.isArray(item)) return arrayFields(item, i);
  return isObject(item)
    ? { claim: item['claim'], salt: item['salt'], value: item['value'] }
    : { claim: undefined, salt: undefined, value: undefined };
}

/** Whether `value` nests no deeper than `room` levels (each object or array is one). */
function shallow(value: unknown, room: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (room === 0) return false;
  return Object.values(value).every((v) => shallow(v, room - 1));
}

function envelopeDisclosures(data: Record<string, unknown>): EnvelopeDisclosure[] {
  const list = data['disclosures'] ?? [];
  if (!Array.isArray(list)) throw fail('ERR_SD_JWT_MALFORMED', 'disclosures is not an array');
  const seen = new Set<string>();
  // Array.from visits the holes of a sparse array (as undefined), which map would pass over.
  return Array.from(list as unknown[], (item, i) => {
    const fields = entryFields(item, i);
    const claim = fields.claim;
    if (typeof claim !== 'string') throw fail('ERR_SD_JWT_MALFORMED', `disclosures[${i}] has no claim key`);
    // RFC 9901 §7.1 step 3: a disclosed name is never a reserved one, nor one the payload already has in the clear.
    if (claim === '_sd' || claim === '...')
      throw fail('ERR_SD_JWT_RESERVED_NAME', `disclosures[${i}] names the reserved claim ${shown(claim)}`);
    if (Object.hasOwn(data, claim)) {
      throw fail('ERR_SD_JWT_CLAIM_COLLISION', `disclosures[${i}] discloses ${shown(claim)}, a plaintext field of the response`);
    }
    const salt = fields.salt ?? undefined;
    if (salt !== undefined && typeof salt !== 'string')
      throw fail('ERR_SD_JWT_MALFORMED', `disclosures[${i}] (${shown(claim)}) has a salt that is not a string`);
    if (seen.has(claim)) throw fail('ERR_SD_JWT_DUPLICATE_DISCLOSURE', `claim ${shown(claim)} is disclosed twice`);
    seen.add(claim);
    return { claim, salt, value: fields.value, ...(fields.encoded === undefined ? {} : { encoded: fields.encoded }) };
  });
}

function stringList(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  // Array.from turns the holes of a sparse array into undefined, which every() would pass over.
  if (!Array.isArray(value)) throw fail('ERR_SD_JWT_MALFORMED', `${field} is not an array of strings`);
  const list: unknown[] = Array.from(value as unknown[]);
  if (!list.every((v): v is string => typeof v === 'string')) throw fail('ERR_SD_JWT_MALFORMED', `${field} is not an array of strings`);
  return list;
}

/** Where {@link compactByDisclosure} files a disclosure: its salt and its claim name together. */
const disclosureKey = (salt: string, name: string) => JSON.stringify([salt, name]);

/**
 * The named disclosures of verified credential JWTs, by salt and claim name: the issuer's exact
 * bytes for a claim. By both, not the salt alone: an issuer that gives every disclosure one salt
 * (`''`, say) still has each claim found, whatever order its credentials come in.
 */
function compactByDisclosure(credentials: Record<string, VerifiedSdJwt>): Map<string, VerifiedDisclosure> {
  const found = new Map<string, VerifiedDisclosure>();
  for (const verified of Object.values(credentials)) {
    for (const d of verified.disclosures) if (d.name !== undefined) found.set(disclosureKey(d.salt, d.name), d);
  }
  return found;
}

/**
 * The named claims the verified credential JWTs disclose, by claim key: what the issuer signed.
 * Two credentials that disclose one claim with different values are refused: which is the
 * person's cannot be told.
 */
function signedByName(credentials: Record<string, VerifiedSdJwt>): Map<string, VerifiedDisclosure> {
  const byName = new Map<string, VerifiedDisclosure>();
  for (const verified of Object.values(credentials)) {
    for (const d of verified.disclosures) {
      if (d.name === undefined) continue;
      const other = byName.get(d.name);
      if (other && !sameJson(other.value, d.value)) {
        throw fail('ERR_SD_JWT_ENVELOPE_MISMATCH', `two signed credentials disclose claim ${shown(d.name)} with different values`);
      }
      byName.set(d.name, d);
    }
  }
  return byName;
}

/** Whether a credential's disclosed name is a claim key of the service (`{credential}.{field}`, `document.…`), not a JWT claim (`iss`, `vct`…). */
const isClaimKey = (name: string) => name.includes('.') && !name.endsWith('.credential_jwt');

async function verifyCredentials(data: Record<string, unknown>, options: VerifyIdentityResponseOptions) {
  const credentials: Record<string, VerifiedSdJwt> = {};
  const keys = options.keys;
  for (const [field, value] of Object.entries(data)) {
    if (!field.endsWith('.credential_jwt') || !keys) continue;
    if (typeof value !== 'string') throw fail('ERR_SD_JWT_MALFORMED', `${field} is not a string`);
    // The spec calls it a "full SD-JWT credential": a plain JWT there is refused, not taken as one.
    if (!value.includes('~')) throw fail('ERR_SD_JWT_MALFORMED', `${field} is a plain JWT, not the full SD-JWT credential (no "~")`);
    // issuer, algorithms, clockToleranceSeconds and now pass through as they are (verifySdJwt reads
    // an absent one as its default); a plain JWT never gets here, so allowPlainJwt has nothing to say.
    const verified = await verifySdJwt(value, {
      ...options,
      keys,
      requiredClaims: options.credentialRequiredClaims,
    } as VerifySdJwtOptions);
    // A credential of another person proves nothing about this one: a sub in both must be the same.
    const sub = verified.claims['sub'];
    if (sub !== undefined && data['sub'] !== undefined && sub !== data['sub']) {
      throw fail('ERR_SD_JWT_SUBJECT_MISMATCH', `${field} is about another subject than the response`);
    }
    credentials[field] = verified;
  }
  return credentials;
}

/**
 * The disclosures of verified credential JWTs whose subject is the response's, by salt: the
 * issuer's exact bytes for a claim. A credential without `sub` is bound to no one, so its claims
 * are not counted as signed for this response.
 */
function boundCredentials(credentials: Record<string, VerifiedSdJwt>, data: Record<string, unknown>): Record<string, VerifiedSdJwt> {
  if (data['sub'] === undefined) return credentials;
  return Object.fromEntries(Object.entries(credentials).filter(([, verified]) => verified.claims['sub'] === data['sub']));
}

/**
 * An identity with no claim, nothing the service says it could not disclose and no credential is
 * no identity: the answer of a cancelled request, or claims put where the SDK does not look.
 * Absence decides nothing, so it is taken as neither. Credential JWTs that could not be verified
 * (no `keys`) and hold the only claims say which option to set.
 */
function refuseEmpty(
  data: Record<string, unknown>,
  claims: Record<string, unknown>,
  missing: readonly string[],
  credentials: Record<string, VerifiedSdJwt>,
): void {
  if (Object.keys(claims).length > 0 || missing.length > 0 || Object.keys(credentials).length > 0) return;
  const unverified = Object.keys(data).filter((field) => field.endsWith('.credential_jwt'));
  if (unverified.length > 0) {
    throw fail(
      'ERR_SD_JWT_NO_CLAIMS',
      `the response discloses its claims only inside ${unverified.map(shown).join(', ')}, which cannot be read unverified: pass keys (remoteJwks(authUrl)) to verify it`,
    );
  }
  throw fail(
    'ERR_SD_JWT_NO_CLAIMS',
    'the identity response has no claim, no credential_jwt and nothing in disclosures_missing: it may be the answer for a cancelled request or claims placed where no rule reads them, so it is taken as neither',
  );
}

/** The claim by which the service says whether it vouches for the identity. */
const VALID_CLAIM = 'acmeidentity.valid';

/**
 * The service's verdict on the identity, its `acmeidentity.valid` claim, when disclosed: a boolean
 * in any form that says one. Anything else is refused: a verdict that cannot be read is never
 * taken as either.
 */
function verdictOf(claims: Record<string, unknown>): boolean | undefined {
  if (!Object.hasOwn(claims, VALID_CLAIM)) return undefined;
  const valid = booleanOf(claims[VALID_CLAIM]);
  if (valid === undefined) throw fail('ERR_SD_JWT_MALFORMED', `${VALID_CLAIM} is not a boolean`);
  return valid;
}

function signatureRequiredReason(
  options: VerifyIdentityResponseOptions,
  credentials: Record<string, VerifiedSdJwt>,
  bound: Record<string, VerifiedSdJwt>,
): string {
  if (!options.keys) return 'a signature is required, but no keys were given to verify a credential_jwt with';
  if (Object.keys(credentials).length === 0) {
    return 'a signature is required, but the response has no credential_jwt (request the acmeidentity.credential claim)';
  }
  if (Object.keys(bound).length === 0) return "a signature is required, but no credential_jwt names the response's subject (sub)";
  return 'a signature is required, but some claims are not in a signed credential_jwt';
}

/** How many envelopes deep an identity response is looked for: the spec's `{data, correlation_id}` (or the client's result), and a gateway's around it. */
const MAX_ENVELOPES = 2;

/**
 * The identity response's `data` in what was passed: the client's result, the service's envelope
 * `{data, correlation_id}` (wrapped once more by a gateway, as `client/envelope.ts` reads it too),
 * or `data` itself. An object with its own `request_code` is the response; one without it whose
 * `data` is an object is an envelope around it.
 */
function openEnvelopes(response: unknown): unknown {
  let value = response;
  for (
    let depth = 0;
    depth < MAX_ENVELOPES && isObject(value) && !Object.hasOwn(value, 'request_code') && isObject(value['data']);
    depth++
  ) {
    value = value['data'];
  }
  return value;
}

/** The response's own times, read as every answer of the service is read (`internal/times.ts`). */
const RESPONSE_TIMES: ReadonlySet<string> = new Set(['exp', 'nbf', 'iat']);

/**
 * The response's fields as the REST client reads them, so that a response passed here raw means
 * what it means through the client: an absent field written as `null` is absent; `exp`, `nbf` and
 * `iat` are UNIX seconds from any form that names one instant (an `exp` in milliseconds is not an
 * `exp` thousands of years away); `partially_complete` is a boolean in any form that says one
 * (`"No"`, `"false"`). Anything that names no time or no boolean is refused.
 */
function readFields(received: Record<string, unknown>): Record<string, unknown> {
  const read: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(received)) {
    if (value !== null) setOwn(read, field, readField(field, value));
  }
  for (const [field, value] of Object.entries(received)) {
    if (isObject(value) && Object.hasOwn(value, 'credential_jwt')) readNested(read, `${field}.credential_jwt`, value['credential_jwt']);
  }
  return read;
}

/**
 * A signed credential written nested, `{acmeidentity: {credential_jwt}}`, as a writer that reads
 * the spec's `acmeidentity.credential_jwt` as a path may: read under the spec's dotted name, so that
 * it is verified and its claims are the identity's as they are written either way. Written both
 * ways with two values, it is refused: two answers to one question.
 */
function readNested(read: Record<string, unknown>, name: string, value: unknown): void {
  if (value === null) return;
  if (Object.hasOwn(read, name) && read[name] !== value) {
    throw fail('ERR_SD_JWT_MALFORMED', `${shown(name)} is written both as a dotted name and nested, with two values`);
  }
  setOwn(read, name, value);
}

function readField(field: string, value: unknown): unknown {
  if (RESPONSE_TIMES.has(field)) {
    const seconds = unixTimeOf(value);
    if (seconds === undefined) throw fail('ERR_SD_JWT_MALFORMED', `"${field}" is not a UNIX time`);
    return seconds;
  }
  if (field === 'partially_complete') {
    const complete = booleanOf(value);
    if (complete === undefined) throw fail('ERR_SD_JWT_MALFORMED', 'partially_complete is not a boolean');
    return complete;
  }
  return value;
}

/**
 * Verifies an identity response (GET /identity/response/...) before its claims are used:
 * 1. `exp` has not elapsed and `nbf` has come (tolerance `clockToleranceSeconds`, default none);
 * 2. `request_code` is the code of the request you created;
 * 3. `_sd_alg` is sha-256 (`sha256` as the service writes it), sha-384 or sha-512;
 * 4. each `*.credential_jwt` is a valid SD-JWT signed by the issuer (when `keys` is given);
 * 5. each disclosure's digest is in `_sd`, no digest or claim twice; a claim that a credential JWT
 *    also carries must have its value, whatever salt the envelope gave it (with the same salt, its
 *    exact compact bytes are what is hashed); one without a salt (the spec gives it "when
 *    applicable") is checked against a signed credential that carries the claim, or stated as
 *    plainly as the envelope states it;
 * 6. the claims a verified credential JWT discloses are claims of the identity too (the signed
 *    value wins: a disclosure that disagrees is refused, a plain field of `data` named like the
 *    claim is left in `data` as it came);
 * 7. an answer with no claim, no credential and nothing missing is refused (`ERR_SD_JWT_NO_CLAIMS`),
 *    never taken as an empty identity or as a cancellation;
 * 8. `acmeidentity.valid`, when disclosed, is the service's verdict (`valid`): a boolean in any
 *    form that says one, else refused (`ERR_SD_JWT_MALFORMED`).
 *
 * `proof` says whether the claims were proven by the issuer's signature or are only consistent
 * with the (unsigned) envelope; `requireSignature` makes the second a failure.
 *
 * @param response The `ApiResult` from `identityResponses.get`, the raw envelope `{data, ...}`, or `data` itself: read raw, it means what it means through the client.
 * @throws {SdJwtVerificationError} with a code naming the rule that failed.
 * @throws {JwksError} when the issuer's keys could not be fetched.
 * @example
 * ```ts
 * const response = await acme.identityResponses.get({ accessRequestCode, identitySessionCode, accessToken });
 * const verified = await verifyIdentityResponse(response, { requestCode: identitySessionCode, keys: remoteJwks(authUrl) });
 * const name = readClaim(verified.claims, 'acmeidentity.name'); // { first_name, last_name } | undefined
 * ```
 * @see {@link https://github.com/acme/identity-sdk/blob/main/docs/service-spec.md | the service specification}, "Identity response" and "GET /identity/response/..."
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the steps of verifying an identity response in the order they must run (RFC 9901 §7.1 and the spec's envelope), each refusal its own code
export async function verifyIdentityResponse(response: unknown, options: VerifyIdentityResponseOptions): Promise<VerifiedIdentityResponse> {
  checkTimeOptions(options, false);
  const received = openEnvelopes(response);
  if (!isObject(received)) throw fail('ERR_SD_JWT_MALFORMED', 'the identity response is not an object');
  if (!shallow(received, MAX_DEPTH)) throw fail('ERR_SD_JWT_MALFORMED', `the identity response nests deeper than ${MAX_DEPTH} levels`);
  const data = readFields(received);
  const codes: readonly unknown[] = Array.isArray(options.requestCode) ? options.requestCode : [options.requestCode];
  if (!codes.length || codes.some((code) => typeof code !== 'string' || !code)) {
    throw fail('ERR_SD_JWT_REQUEST_CODE', 'options.requestCode (the code of the request you created) is required');
  }
  checkTimes(data, options, ['exp']);
  if (!codes.includes(data['request_code'])) {
    throw fail('ERR_SD_JWT_REQUEST_CODE', 'request_code is not the code of the request you created');
  }
  const algorithm: HashAlgorithm = hashAlgorithm(data['_sd_alg']);
  const committed = stringList(data['_sd'], '_sd').map((digest) => canonicalDigest(algorithm, digest));
  const digestSet = new Set(committed);
  if (digestSet.size !== committed.length) throw fail('ERR_SD_JWT_DUPLICATE_DIGEST', 'a digest appears more than once in _sd');
  const disclosures = envelopeDisclosures(data);
  const disclosuresMissing = stringList(data['disclosures_missing'], 'disclosures_missing');

  const credentials = await verifyCredentials(data, options);
  const bound = boundCredentials(credentials, data);
  const byDisclosure = compactByDisclosure(bound);
  const byName = signedByName(bound);
  const claims: Record<string, unknown> = {};
  const signedClaims: string[] = [];
  const uncheckedClaims: string[] = [];
  const keep = (claim: string, value: unknown, signed: boolean) => {
    Object.defineProperty(claims, claim, { value, enumerable: true, writable: false, configurable: false });
    if (signed) signedClaims.push(claim);
  };
  for (const { claim, salt, value, encoded } of disclosures) {
    // What the issuer signed for this claim, whatever salt the envelope gave it: only the value can
    // differ, and the signed one wins (an envelope that salts its disclosures anew is no exception).
    // (Two bound credentials that sign one claim agree on its value: `signedByName` refused them otherwise.)
    const signed = byName.get(claim);
    if (signed && !sameJson(signed.value, value)) {
      throw fail('ERR_SD_JWT_ENVELOPE_MISMATCH', `claim ${shown(claim)} differs from the one in the signed credential`);
    }
    if (salt !== undefined) {
      // The signed credential's own disclosure with this salt and name: its exact bytes are what the digest covers.
      const compact = byDisclosure.get(disclosureKey(salt, claim));
      const digest = await committedDigest(algorithm, hashInputs([encoded, compact?.encoded], salt, claim, value), digestSet);
      // No second entry can match this digest: what is hashed is the text of [salt, claim, value],
      // and one text is one claim, which `envelopeDisclosures` refused to see disclosed twice.
      if (digest === undefined) throw fail('ERR_SD_JWT_DIGEST_MISMATCH', `the digest of claim ${shown(claim)} is not in _sd`);
    } else if (!signed) {
      // No salt: nothing to hash. The claim is proven by a signed credential that carries it, or is
      // stated as plainly as the unsigned envelope states everything (proof 'digests' at best).
      uncheckedClaims.push(claim);
    }
    keep(claim, value, signed !== undefined);
  }
  // A claim disclosed only inside a signed credential is a claim of the identity all the same:
  // the result is never emptier than the answer. One the envelope also states as a plain field of
  // `data` (unsigned, undigested) is the signed value; `data` keeps what the envelope said.
  for (const [claim, disclosure] of byName) {
    if (isClaimKey(claim) && !Object.hasOwn(claims, claim)) keep(claim, disclosure.value, true);
  }
  refuseEmpty(data, claims, disclosuresMissing, credentials);
  const valid = verdictOf(claims);
  const proven = Object.keys(bound).length > 0 && signedClaims.length === Object.keys(claims).length;
  if (options.requireSignature && !proven) {
    throw fail('ERR_SD_JWT_SIGNATURE_REQUIRED', signatureRequiredReason(options, credentials, bound));
  }
  return {
    claims,
    proof: proven ? 'signature' : 'digests',
    signedClaims,
    uncheckedClaims,
    disclosuresMissing,
    partiallyComplete: data['partially_complete'] === true,
    valid,
    credentials,
    expiresAt: data['exp'] as number,
    data: received,
  };
}
