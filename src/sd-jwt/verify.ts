/** Verification of a compact SD-JWT (or plain JWT) per RFC 9901 §7.1 and §7.3. */
import type { JWK } from 'jose';
import { isObject, setOwn } from '../internal/guards.js';
import { printable } from '../internal/text.js';
import { sameIssuer } from '../internal/issuer.js';
import { unixSeconds } from '../internal/times.js';
import { importVerifyKey } from '../internal/jws.js';
import { isBase64url, segmentBytes, verifySignature } from '../internal/jws-node.js';
import { ConfigurationError, SdJwtVerificationError, type SdJwtErrorCode } from '../errors/index.js';
import { nonNegativeOption } from '../errors/options.js';
import { digests, hashAlgorithm, type HashAlgorithm } from './hash.js';
import { ASYMMETRIC_ALGORITHMS, MAX_KEY_CANDIDATES, type KeySource } from './jwks.js';

/** Options shared by every verification. */
export interface TimeOptions {
  /** Seconds of leeway on `exp`, `nbf` and `iat`, both ways. @default 0 */
  clockToleranceSeconds?: number;
  /** The clock, in ms; read at each verification. @default Date.now */
  now?: () => number;
}

export interface KeyBindingOptions {
  /** The `aud` the key-binding JWT must carry (your client id or URL). */
  audience: string;
  /** The `nonce` the key-binding JWT must carry, when you sent one. */
  nonce?: string;
  /** How old its `iat` may be, in seconds. @default 300 */
  maxAgeSeconds?: number;
}

export interface VerifySdJwtOptions extends TimeOptions {
  /** The issuer's keys. */
  keys: KeySource;
  /** The `iss` required; defaults to the key source's issuer (from discovery) when it has one. */
  issuer?: string;
  /** JWS algorithms accepted; only asymmetric ones are ever accepted. @default all asymmetric JWS algorithms */
  algorithms?: readonly string[];
  /** Claims that must be present after processing. @default ['exp'] */
  requiredClaims?: readonly string[];
  /** Require and check a key-binding JWT with these expectations. Without it, one that is present is still checked for `typ`, signature and `sd_hash`. */
  keyBinding?: KeyBindingOptions;
  /**
   * Accept a plain JWT (no `~`), as the credential API issues them. @default true
   * A JWT carrying `_sd` digests or `_sd_alg` is an SD-JWT whatever this says: without its `~` it
   * is refused (`ERR_SD_JWT_MALFORMED`), never taken for a plain JWT.
   */
  allowPlainJwt?: boolean;
}

/** One disclosure as sent and as decoded. */
export interface VerifiedDisclosure {
  /** The base64url string exactly as it appeared in the SD-JWT. */
  readonly encoded: string;
  readonly digest: string;
  readonly salt: string;
  /** The claim name; absent for an array element. */
  readonly name?: string;
  readonly value: unknown;
}

/** A verified SD-JWT: the processed claims and how they were proven. */
export interface VerifiedSdJwt {
  /** The issuer-signed payload with every disclosed claim in place and `_sd`, `_sd_alg` and undisclosed digests removed. */
  readonly claims: Record<string, unknown>;
  readonly header: Readonly<Record<string, unknown>>;
  readonly disclosures: readonly VerifiedDisclosure[];
  readonly hashAlgorithm: HashAlgorithm;
  /** The key-binding JWT's payload, when one was present. */
  readonly keyBinding?: Readonly<Record<string, unknown>>;
}

/** The error for a broken rule; `cause` is kept non-enumerable by the error class. */
export const fail = (code: SdJwtErrorCode, message: string, cause?: unknown): SdJwtVerificationError =>
  new SdJwtVerificationError(code, message, cause === undefined ? undefined : { cause });

/** A claim name as a message shows it: quoted, {@link printable} (a crafted name can be megabytes, or forge a log line). */
export const shown = (name: string): string => `"${printable(name) ?? ''}"`;

const decoder = new TextDecoder('utf-8', { fatal: true });

/** JSON of a base64url segment; `what` names the segment in the error. */
export function decodeJson(segment: string, what: string): unknown {
  try {
    if (segment === '') throw new TypeError('empty');
    return JSON.parse(decoder.decode(segmentBytes(segment)));
  } catch (cause) {
    throw fail('ERR_SD_JWT_MALFORMED', `${what} is not base64url-encoded JSON`, cause);
  }
}

/** A disclosure as the result shows it, with where it was sent; `used` marks a digest that referenced it. */
interface Decoded {
  readonly disclosure: VerifiedDisclosure;
  readonly index: number;
  used: boolean;
}

function decodeDisclosure(encoded: string, index: number, digest: string): Decoded {
  const array = decodeJson(encoded, `disclosure ${index + 1}`);
  if (!Array.isArray(array) || (array.length !== 2 && array.length !== 3) || typeof array[0] !== 'string') {
    throw fail('ERR_SD_JWT_MALFORMED', `disclosure ${index + 1} is not [salt, name, value] or [salt, value]`);
  }
  if (array.length === 2) return { disclosure: { encoded, digest, salt: array[0], value: array[1] }, index, used: false };
  if (typeof array[1] !== 'string') throw fail('ERR_SD_JWT_MALFORMED', `disclosure ${index + 1} has a claim name that is not a string`);
  return { disclosure: { encoded, digest, salt: array[0], name: array[1], value: array[2] }, index, used: false };
}

/** How deep a payload or a response may nest: deeper is refused before any work that recurses. */
export const MAX_DEPTH = 64;

/** The digests met while revealing, and whether any `_sd` was met (an empty one too). */
type Digests = Set<string> & { sdSeen?: boolean };

/** The disclosure a digest references (marked used), or undefined for a decoy; a digest met twice is refused. */
function disclosed(digest: unknown, byDigest: ReadonlyMap<string, Decoded>, seen: Digests): Decoded | undefined {
  if (typeof digest !== 'string') throw fail('ERR_SD_JWT_MALFORMED', 'a digest is not a string');
  if (seen.has(digest)) throw fail('ERR_SD_JWT_DUPLICATE_DIGEST', 'a digest appears more than once in the payload');
  seen.add(digest);
  const disclosure = byDigest.get(digest);
  if (disclosure) disclosure.used = true;
  return disclosure;
}

/**
 * Puts each referenced disclosure in place of its digest (RFC 9901 §7.1 step 3), refusing a
 * digest seen twice, a disclosure of the wrong form for where it is referenced, a reserved name
 * and a name that collides with a plaintext claim.
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: RFC 9901 §7.1 step 3 as the RFC writes it: objects and arrays, digests and decoys, each refusal its own code
function reveal(value: unknown, byDigest: ReadonlyMap<string, Decoded>, seen: Digests, depth: number): unknown {
  if (depth > MAX_DEPTH) throw fail('ERR_SD_JWT_MALFORMED', `payload nested deeper than ${MAX_DEPTH} levels`);
  if (value === null || typeof value !== 'object') return value;
  const claim = (digest: unknown) => disclosed(digest, byDigest, seen);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const element of value) {
      if (isObject(element) && Object.hasOwn(element, '...')) {
        if (Object.keys(element).length !== 1) throw fail('ERR_SD_JWT_MALFORMED', 'an array digest object has keys besides "..."');
        const disclosure = claim(element['...']);
        if (!disclosure) continue; // undisclosed element or decoy: removed
        if (disclosure.disclosure.name !== undefined) {
          throw fail('ERR_SD_JWT_DISCLOSURE_FORM', `disclosure ${disclosure.index + 1} has three elements but is referenced from an array`);
        }
        out.push(reveal(disclosure.disclosure.value, byDigest, seen, depth + 1));
      } else {
        out.push(reveal(element, byDigest, seen, depth + 1));
      }
    }
    return out;
  }
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key !== '_sd') setOwn(out, key, reveal(value[key], byDigest, seen, depth + 1));
  }
  if (!Object.hasOwn(value, '_sd')) return out;
  const sd = value['_sd'];
  seen.sdSeen = true;
  if (!Array.isArray(sd)) throw fail('ERR_SD_JWT_MALFORMED', '_sd is not an array');
  for (const digest of sd) {
    const disclosure = claim(digest);
    if (!disclosure) continue;
    const { name } = disclosure.disclosure;
    if (name === undefined) {
      throw fail('ERR_SD_JWT_DISCLOSURE_FORM', `disclosure ${disclosure.index + 1} has two elements but is referenced from _sd`);
    }
    if (name === '_sd' || name === '...')
      throw fail('ERR_SD_JWT_RESERVED_NAME', `disclosure ${disclosure.index + 1} names the reserved claim ${shown(name)}`);
    if (Object.hasOwn(out, name)) throw fail('ERR_SD_JWT_CLAIM_COLLISION', `disclosed claim ${shown(name)} already exists at its level`);
    setOwn(out, name, reveal(disclosure.disclosure.value, byDigest, seen, depth + 1));
  }
  return out;
}

/** The verifier's clock, in UNIX seconds, read now: a clock that returns anything but a finite number fails closed. */
function nowSeconds(options: TimeOptions): number {
  const ms: unknown = (options.now ?? Date.now)();
  if (typeof ms !== 'number' || !Number.isFinite(ms)) throw new ConfigurationError('now', 'must return a finite number of milliseconds');
  return Math.floor(ms / 1000);
}

/** `clockToleranceSeconds`, refused unless a finite number of seconds, 0 or more. */
function toleranceOf(options: TimeOptions): number {
  return nonNegativeOption('clockToleranceSeconds', options.clockToleranceSeconds, 0);
}

/**
 * Checks the options every verifier takes, before any work: the clock and the tolerance.
 * @throws {ConfigurationError} naming the option.
 */
export function checkTimeOptions(options: unknown, keysRequired: boolean): asserts options is TimeOptions & { keys?: KeySource } {
  if (!isObject(options)) throw new ConfigurationError('options', keysRequired ? 'are required (at least keys)' : 'are required');
  if (options['now'] !== undefined && typeof options['now'] !== 'function')
    throw new ConfigurationError('now', 'must be a function returning milliseconds');
  toleranceOf(options);
  const keys = options['keys'];
  if (keysRequired || keys !== undefined) {
    if (!isObject(keys) || typeof keys['keyFor'] !== 'function') {
      throw new ConfigurationError('keys', 'must be a key source such as remoteJwks(authUrl) or localJwks(jwks)');
    }
  }
}

/**
 * How far `nbf` may be ahead of the clock beyond the tolerance: times are whole seconds, and a
 * clock learnt from the service (`Date`, `iat`) is known to a second, uncorrected under two. A
 * response stamped `nbf` in the second it was fetched is not "not yet valid"; `exp` has no leeway.
 */
const NBF_LEEWAY_SECONDS = 2;

/** Refuses a payload whose `exp` has elapsed or whose `nbf` has not come, within the tolerance (and, for `nbf`, {@link NBF_LEEWAY_SECONDS}). */
export function checkTimes(claims: Record<string, unknown>, options: TimeOptions, required: readonly string[]): void {
  const now = nowSeconds(options);
  const tolerance = toleranceOf(options);
  // A claim of the payload's own: `toString` or `constructor` is not present for being inherited.
  for (const name of required) {
    if (!Object.hasOwn(claims, name)) throw fail('ERR_SD_JWT_MISSING_CLAIM', `required claim "${name}" is absent`);
  }
  for (const name of ['exp', 'nbf', 'iat']) {
    const value = claims[name];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
      throw fail('ERR_SD_JWT_MALFORMED', `"${name}" is not a number`);
    }
  }
  // An instant written in milliseconds is read as one (unixSeconds): taken as seconds, it would
  // put `exp` thousands of years away, and what it signs would never expire.
  if (typeof claims['exp'] === 'number' && now - tolerance >= unixSeconds(claims['exp'])) {
    throw fail('ERR_SD_JWT_EXPIRED', '"exp" has elapsed');
  }
  if (typeof claims['nbf'] === 'number' && now + tolerance + NBF_LEEWAY_SECONDS < unixSeconds(claims['nbf'])) {
    throw fail('ERR_SD_JWT_NOT_YET_VALID', '"nbf" is in the future');
  }
}

/** The JWS algorithms allowed: the caller's list, with anything symmetric or `none` taken out. */
function allowedAlgorithms(requested: readonly string[] | undefined): readonly string[] {
  const asymmetric: readonly string[] = ASYMMETRIC_ALGORITHMS;
  return requested === undefined ? asymmetric : requested.filter((alg) => asymmetric.includes(alg));
}

/**
 * The signature of `jwt` under `key`, with `node:crypto` where the runtime has it, else Web Crypto
 * (`internal/jws-node.ts`, `internal/jws.ts`; both held to jose's verdicts by their tests). The header was checked already: `alg` is allowed, and no `crit` extension is asked.
 */
async function verifyJws(jwt: string, keys: readonly CryptoKey[], alg: string): Promise<void> {
  // Each fitting key in turn (one, unless the header names no kid): the first that verifies wins.
  for (const key of keys) {
    let valid: boolean;
    try {
      valid = await verifySignature(jwt, key, alg);
    } catch (cause) {
      throw fail('ERR_SD_JWT_SIGNATURE', `the issuer's key cannot verify ${alg}`, cause);
    }
    if (valid) return;
  }
  throw fail('ERR_SD_JWT_SIGNATURE', 'signature verification failed');
}

/** The issuer's keys fitting `header`: every candidate when it names no `kid` and the source can list them. */
async function issuerKeys(source: KeySource, header: Record<string, unknown> & { alg: string }): Promise<CryptoKey[]> {
  const kid = header['kid'];
  const wanted = { alg: header.alg, kid: typeof kid === 'string' ? kid : undefined };
  if (wanted.kid === undefined && typeof source.keysFor === 'function') {
    const keys = await source.keysFor(wanted);
    if (Array.isArray(keys) && keys.length > 0) return keys.slice(0, MAX_KEY_CANDIDATES);
  }
  return [await source.keyFor(wanted)];
}

/** The protected header of a compact JWS, refused unless its `alg` is in `algorithms` and it asks for no `crit` extension. */
function jwsHeader(segment: string, what: string, algorithms: readonly string[], code: SdJwtErrorCode = 'ERR_SD_JWT_ALG_NOT_ALLOWED') {
  const header = decodeJson(segment, what);
  if (!isObject(header) || typeof header['alg'] !== 'string' || !algorithms.includes(header['alg'])) {
    throw fail(code, 'the JWS algorithm is not allowed');
  }
  // RFC 7515 §4.1.11: extensions a verifier does not understand must be refused; this one knows none.
  if (header['crit'] !== undefined) throw fail(code, 'the JWS asks for crit extensions, which are not supported');
  return header as Record<string, unknown> & { alg: string };
}

/**
 * The `keyBinding` option, each bound checked before any token is read: an audience, a nonce when
 * one is given, and a maximum age of 0 seconds or more (one of NaN would let any age through).
 */
function checkKeyBindingOptions(kb: unknown): void {
  if (!isObject(kb) || typeof kb['audience'] !== 'string' || kb['audience'] === '') {
    throw new ConfigurationError('keyBinding.audience', 'is required: the aud the key-binding JWT must carry');
  }
  if (kb['nonce'] !== undefined && typeof kb['nonce'] !== 'string') throw new ConfigurationError('keyBinding.nonce', 'must be a string');
  nonNegativeOption('keyBinding.maxAgeSeconds', kb['maxAgeSeconds'], 300);
}

async function checkKeyBinding(
  kbJwt: string,
  presented: string,
  claims: Record<string, unknown>,
  algorithm: HashAlgorithm,
  options: VerifySdJwtOptions,
): Promise<Record<string, unknown>> {
  const bad = (message: string, cause?: unknown) => fail('ERR_SD_JWT_KEY_BINDING', `key-binding JWT: ${message}`, cause);
  const cnf = claims['cnf'];
  const jwk = isObject(cnf) && isObject(cnf['jwk']) ? (cnf['jwk'] as JWK) : undefined;
  if (!jwk) throw bad('the SD-JWT has no cnf.jwk to check it with');
  const algorithms = allowedAlgorithms(options.algorithms);
  const [head = ''] = kbJwt.split('.');
  const header = jwsHeader(head, 'the key-binding JWT header', algorithms, 'ERR_SD_JWT_KEY_BINDING');
  let valid = false;
  try {
    valid = await verifySignature(kbJwt, await importVerifyKey(jwk as JsonWebKey, header.alg), header.alg);
  } catch (error) {
    throw bad('signature or algorithm refused', error);
  }
  if (!valid) throw bad('signature or algorithm refused');
  if (header['typ'] !== 'kb+jwt') throw bad('typ is not kb+jwt');
  const payload = decodeJson(kbJwt.split('.')[1] ?? '', 'key-binding JWT payload');
  if (!isObject(payload)) throw bad('payload is not an object');
  const [expected] = await digests(algorithm, [presented]);
  if (payload['sd_hash'] !== expected) throw bad('sd_hash does not match the presented SD-JWT');
  const kb = options.keyBinding;
  if (kb && payload['aud'] !== kb.audience) throw bad('aud is not the expected audience');
  if (kb?.nonce !== undefined && payload['nonce'] !== kb.nonce) throw bad('nonce is not the expected nonce');
  const iat = payload['iat'];
  if (typeof iat !== 'number') throw bad('iat is missing');
  const now = nowSeconds(options);
  const tolerance = toleranceOf(options);
  if (iat > now + tolerance) throw bad('iat is in the future');
  if (now - tolerance - iat > (kb?.maxAgeSeconds ?? 300)) throw bad('iat is too old');
  return payload;
}

/**
 * Verifies a compact SD-JWT `<jwt>~<disclosure>~...~[<kb-jwt>]` (or a plain JWT) as RFC 9901 §7.1
 * and §7.3 require: an asymmetric signature against the issuer's keys, the issuer, `_sd_alg`,
 * every disclosure's digest and form, no digest or disclosure twice, no unreferenced disclosure,
 * no collision with a plaintext claim, and then `exp`/`nbf` of the **processed** payload (so a
 * disclosed `exp` counts). A key-binding JWT, when present or required, is checked too.
 *
 * The signature is checked while the disclosures are hashed, so the digests cost little more than
 * the signature itself.
 *
 * @throws {SdJwtVerificationError} with a code naming the rule that failed.
 * @throws {JwksError} when the issuer's keys could not be fetched.
 * @example
 * ```ts
 * const { claims } = await verifySdJwt(data['acmeidentity.credential_jwt'], { keys: remoteJwks(authUrl) });
 * ```
 * @see RFC 9901, section 7
 */
export async function verifySdJwt(sdJwt: string, options: VerifySdJwtOptions): Promise<VerifiedSdJwt> {
  checkTimeOptions(options, true);
  if (options.keyBinding !== undefined) checkKeyBindingOptions(options.keyBinding);
  if (typeof sdJwt !== 'string') throw fail('ERR_SD_JWT_MALFORMED', 'the SD-JWT must be a string');
  const parts = sdJwt.split('~');
  const jwt = parts[0] ?? '';
  const plain = parts.length === 1;
  if (plain && options.allowPlainJwt === false) throw fail('ERR_SD_JWT_MALFORMED', 'a plain JWT where an SD-JWT was expected');
  // Everything between the JWT and the last "~" is a disclosure; after it, an optional KB-JWT.
  const kbJwt = plain ? '' : (parts.at(-1) ?? '');
  const encoded = plain ? [] : parts.slice(1, -1);
  if (kbJwt !== '' && kbJwt.split('.').length !== 3) {
    throw fail('ERR_SD_JWT_MALFORMED', 'an SD-JWT without key binding must end with "~"');
  }
  if (options.keyBinding && kbJwt === '') throw fail('ERR_SD_JWT_KEY_BINDING', 'a key-binding JWT is required but absent');
  const segments = jwt.split('.');
  if (segments.length !== 3) throw fail('ERR_SD_JWT_MALFORMED', 'the issuer-signed part is not a compact JWS');
  const [headerSegment = '', payloadSegment = '', signatureSegment = ''] = segments;
  if (!isBase64url(signatureSegment)) throw fail('ERR_SD_JWT_MALFORMED', 'the signature is not base64url');

  const header = jwsHeader(headerSegment, 'the JWS header', allowedAlgorithms(options.algorithms));
  const keys = await issuerKeys(options.keys, header);
  // The signature is checked on a worker thread (Web Crypto: `verifyJws` hands it over before its
  // first await) while this thread decodes and hashes the disclosures; with node:crypto, at once.
  const signature = verifyJws(jwt, keys, header.alg);
  // Handled below; marked now so that a quick rejection is never reported as unhandled meanwhile.
  signature.catch(() => undefined);
  let processed: Processed;
  try {
    processed = await processPayload(payloadSegment, encoded, plain);
  } catch (error) {
    await signature; // a bad signature is the first thing to report
    throw error;
  }
  await signature;

  const { claims, disclosures, algorithm } = processed;
  const issuer = options.issuer ?? options.keys.issuer;
  // An issuer with or without its trailing slash is one issuer; a token without `iss` is refused where one is required.
  if (issuer !== undefined && !sameIssuer(claims['iss'], issuer)) throw fail('ERR_SD_JWT_ISSUER', `"iss" is not "${issuer}"`);
  checkTimes(claims, options, options.requiredClaims ?? ['exp']);
  const result: VerifiedSdJwt = { claims, header, disclosures, hashAlgorithm: algorithm };
  if (kbJwt === '') return result;
  const presented = sdJwt.slice(0, sdJwt.length - kbJwt.length);
  return { ...result, keyBinding: await checkKeyBinding(kbJwt, presented, claims, algorithm, options) };
}

interface Processed {
  claims: Record<string, unknown>;
  disclosures: VerifiedDisclosure[];
  algorithm: HashAlgorithm;
}

/** The payload's disclosures resolved (RFC 9901 §7.1 steps 3-5): the claims they reveal, each checked once. */
async function processPayload(payloadSegment: string, encoded: readonly string[], plain: boolean): Promise<Processed> {
  const payload = decodeJson(payloadSegment, 'the JWT payload');
  if (!isObject(payload)) throw fail('ERR_SD_JWT_MALFORMED', 'the JWT payload is not an object');
  if (plain && payload['_sd_alg'] !== undefined)
    throw fail('ERR_SD_JWT_MALFORMED', 'an SD-JWT (it has _sd_alg) without its "~": not a plain JWT');
  const algorithm = hashAlgorithm(payload['_sd_alg']);
  const hashes = await digests(algorithm, encoded);
  // biome-ignore lint/style/noNonNullAssertion: digests() returns one digest per input, in order
  const decoded = encoded.map((e, i) => decodeDisclosure(e, i, hashes[i]!));
  const byDigest = new Map<string, Decoded>();
  for (const item of decoded) {
    const { digest } = item.disclosure;
    if (byDigest.has(digest)) throw fail('ERR_SD_JWT_DUPLICATE_DISCLOSURE', `disclosure ${item.index + 1} was sent twice`);
    byDigest.set(digest, item);
  }
  const { _sd_alg: _, ...rest } = payload;
  const seen: Digests = new Set<string>();
  const claims = reveal(rest, byDigest, seen, 0) as Record<string, unknown>;
  // Digests (`_sd` or `...`) make it an SD-JWT: as a plain JWT its undisclosed claims would pass unnoticed.
  if (plain && (seen.size > 0 || seen.sdSeen))
    throw fail('ERR_SD_JWT_MALFORMED', 'an SD-JWT (it has _sd digests) without its "~": not a plain JWT');
  const unused = decoded.find((d) => !d.used);
  if (unused) throw fail('ERR_SD_JWT_UNREFERENCED_DISCLOSURE', `disclosure ${unused.index + 1} is not referenced by any digest`);
  return { claims, disclosures: decoded.map((d) => d.disclosure), algorithm };
}
