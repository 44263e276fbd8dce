/**
 * Run-time shapes of the service's answers, with zod/mini. Each is declared as a schema of the
 * generated type, so TypeScript fails the build when the OpenAPI document and these drift apart.
 * Objects are loose: fields the service adds later pass through.
 */
import * as z from 'zod/mini';
import type { components } from '../../generated/schema.js';
import { decodedDisclosure, disclosureArray, withDisclosureString } from '../internal/disclosure.js';
import { booleanOf } from '../internal/guards.js';
import { requestTimeOf, unixSeconds, unixTimeOf } from '../internal/times.js';

/**
 * The service's data shapes, as its OpenAPI document (`{base_url}/docs/spec`) names them: each
 * result's `data` is one of them (`Schemas['IdentityRequestCreated']`, …). Generated into
 * `generated/` by openapi-typescript; listed here field by field.
 * @interface
 */
export type Schemas = components['schemas'];

/** A zod/mini schema whose output is `T`. */
export type ShapeOf<T> = z.ZodMiniType<T, unknown>;

const str = z.exactOptional(z.string());
/**
 * `schema`, tried only on a value whose `typeof` is one of `kinds`: the same result, sooner. zod runs
 * a field's schema even when its key is absent (and then drops what it found), and a union that
 * fails builds an issue for each of its options: about 0.65 µs for each absent time field of each
 * answer, found in the REST bench's profile (#44).
 */
function ofKinds<T>(kinds: readonly string[], schema: z.ZodMiniType<T, unknown>): z.ZodMiniType<T, unknown> {
  return z.pipe(
    z.custom<unknown, unknown>((value) => kinds.includes(typeof value)),
    schema,
  );
}
/** Marks the issues {@link readBy} raises: their message is this module's words, never the value. */
const READER = 'acmeReader';

/**
 * A value the service may write in several forms, read by `read` (one rule of `internal/`, the
 * same wherever the SDK reads that kind of value): what it reads is the value; what it reads as
 * `undefined` is refused, saying what was `expected`.
 */
function readBy<T>(read: (value: unknown) => T | undefined, expected: string): z.ZodMiniType<T, unknown> {
  return z.pipe(
    z.unknown(),
    z.transform((value: unknown, ctx) => {
      const readValue = read(value);
      if (readValue !== undefined) return readValue;
      ctx.issues.push({ code: 'custom', message: expected, input: value, params: { [READER]: true } });
      return z.NEVER;
    }),
  );
}

/**
 * A whole number, or one written as a string of digits ("1700000000"): the spec types these
 * fields as integers, and a service that serialises them as strings means the same number.
 * Anything else (a decimal string, a date) is refused, never guessed at.
 */
const wholeNumber: z.ZodMiniType<number, unknown> = z.pipe(
  z.union([z.int(), z.string().check(z.regex(/^\s*-?[0-9]{1,15}\s*$/))]),
  z.transform((value: number | string) => Number(value)),
);
const int = z.exactOptional(ofKinds(['number', 'string'], wholeNumber));
/**
 * A UNIX time in seconds, as the spec types it, from any form that names one instant
 * ({@link unixTimeOf}): a whole number (or its digits), one with a fraction (floored), one written
 * in milliseconds or a finer unit (an `exp` in milliseconds never makes a response that does not
 * expire), or a date with its zone. A date without a zone is refused.
 */
const unixTime = z.exactOptional(
  readBy(unixTimeOf, 'a UNIX time: seconds (or a finer unit), as a number or its digits, or a date with its zone'),
);
/**
 * A boolean, or one written as a word the way the spec writes `is_pep` (`"Yes"`), as `"true"`, or
 * as `1`/`0` ({@link booleanOf}): one meaning each. Anything else is refused.
 */
const boolean = readBy(booleanOf, 'a boolean: true/false, yes/no or 1/0');
const bool = z.exactOptional(boolean);

/**
 * The token response: its lifetime fields are read whatever they hold, and judged by the token
 * manager (client/lifetime.ts), which sets aside what names no lifetime and says so: a lifetime in
 * a form nobody can read costs the token nothing when the JWT's `exp` (or another field) states it.
 */
export const TokenResponse: ShapeOf<Schemas['TokenResponse']> = z.looseObject({
  access_token: str,
  refresh_token: str,
  // Seconds: a number, or one written as a string ("900", "-900"); anything else is NaN. The token
  // manager sets aside both NaN (no number) and a lifetime of 0 or less (already past), and says which.
  expires_in: z.exactOptional(
    z.pipe(
      z.unknown(),
      z.transform((value: unknown) =>
        typeof value === 'number' || (typeof value === 'string' && /^\s*-?[0-9]{1,12}(\.[0-9]+)?\s*$/.test(value))
          ? Number(value)
          : Number.NaN,
      ),
    ),
  ),
  // A date; a UNIX time (seconds, or milliseconds as 13 digits, or a finer unit) names one too, and is written as its date.
  expires: z.exactOptional(
    z.pipe(
      z.unknown(),
      z.transform((value: unknown) => {
        const time = typeof value === 'string' && /^\s*[0-9]{9,19}\s*$/.test(value) ? Number(value) : value;
        if (typeof time === 'number' && Number.isFinite(time)) return new Date(unixSeconds(time) * 1000).toUTCString();
        return typeof value === 'string' ? value : '';
      }),
    ),
  ),
});

export const IdentityRequestCreated: ShapeOf<Schemas['IdentityRequestCreated']> = z.looseObject({
  access_request_code: z.string(),
  identity_session_code: z.string(),
  redirect_url: z.string(),
});

/**
 * A time of an identity request (`time_expires`, `opened_at`, `completed_at`), read as
 * {@link unixTime} reads one, or 0 or less ("not set", as inbox/rules.ts reads it). A positive
 * number before 2001 (`requestTimeOf`) is refused: `time_expires` ("expiry time", an integer)
 * written as the seconds left or the hours asked for would otherwise be a request that expired in
 * 1970, and a live request's return page would say it expired.
 */
const requestTime = z.exactOptional(
  readBy(
    requestTimeOf,
    'a UNIX time (seconds since 1970, or a finer unit, or a date with its zone), or 0 for none; a number below 1,000,000,000 names a time before 2001, which is no time of a request: a duration (seconds or hours from now) is not read as one',
  ),
);

export const IdentityRequestDetails: ShapeOf<Schemas['IdentityRequestDetails']> = z.looseObject({
  first_name: str,
  last_name: str,
  email: str,
  phone: str,
  phone_country_code: int,
  purpose: str,
  time_expires: requestTime,
  opened_at: requestTime,
  completed_at: requestTime,
  request_code: str,
  redirect_url: str,
  send_email: bool,
});

export const MessageData: ShapeOf<Schemas['MessageData']> = z.looseObject({ message: str });

const DisclosureObject: ShapeOf<Schemas['Disclosure']> = z.looseObject({
  claim: z.string(),
  salt: str,
  value: z.exactOptional(
    ofKinds(
      ['string', 'boolean', 'number', 'object'],
      z.union([z.string(), z.boolean(), z.number(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())]),
    ),
  ),
});

/**
 * A disclosure as the spec shows it, or as RFC 9901 writes one (its base64url string, or the array
 * that string encodes: internal/disclosure.ts), which a service built on an SD-JWT library sends:
 * read as the spec's `{claim, salt, value}`. A string is kept with its fields (not enumerated): the
 * SD-JWT verifier hashes its own bytes, which the fields alone cannot give back.
 */
const Disclosure: ShapeOf<Schemas['Disclosure']> = z.union([
  DisclosureObject,
  readBy((entry): Schemas['Disclosure'] | undefined => {
    const encoded = typeof entry === 'string' ? entry : undefined;
    const fields = disclosureArray(encoded === undefined ? entry : decodedDisclosure(encoded));
    if (!fields) return undefined;
    const value = fields.value as Exclude<Schemas['Disclosure']['value'], undefined>;
    return withDisclosureString({ claim: fields.claim, salt: fields.salt, value }, encoded);
  }, 'a disclosure: {claim, salt, value}, its RFC 9901 string, or [salt, claim, value]'),
]);

export const IdentityResponseData: ShapeOf<Schemas['IdentityResponseData']> = z.looseObject({
  ref: str,
  iss: str,
  sub: str,
  nbf: unixTime,
  exp: unixTime,
  iat: unixTime,
  jti: str,
  _sd: z.exactOptional(z.array(z.string())),
  _sd_alg: str,
  disclosures: z.exactOptional(z.array(Disclosure)),
  disclosures_missing: z.exactOptional(z.array(z.string())),
  'acmeidentity.credential_jwt': str,
  request_code: str,
  partially_complete: bool,
});

export const CredentialSubmitted: ShapeOf<Schemas['CredentialSubmitted']> = z.looseObject({ credential_ref: z.string() });
export const VerifiableCredential: ShapeOf<Schemas['VerifiableCredential']> = z.record(z.string(), z.unknown());
export const CredentialFileData: ShapeOf<Schemas['CredentialFileData']> = z.looseObject({ file_data: z.string() });
export const CredentialRevoked: ShapeOf<Schemas['CredentialRevoked']> = z.looseObject({ revoked: boolean });

/** One of the spec's values, in any case and with spaces around (` OPERATIONAL` is `operational`), as booleans and numbers are read; anything else is refused. */
const anyCase = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.exactOptional(
    z.pipe(
      z.pipe(
        z.string(),
        z.transform((value: string) => value.trim().toLowerCase()),
      ),
      z.enum(values),
    ),
  );

export const StatusCurrent: ShapeOf<Schemas['StatusCurrent']> = z.looseObject({
  status: anyCase(['operational', 'degraded']),
  timestamp: unixTime,
  environment: str,
  components: z.exactOptional(
    z.looseObject({
      api: z.exactOptional(z.looseObject({ status: str, version: str })),
      database: z.exactOptional(z.looseObject({ status: str, message: str })),
    }),
  ),
  maintenance_mode: bool,
});

export const StatusHealth: ShapeOf<Schemas['StatusHealth']> = z.looseObject({
  status: anyCase(['healthy', 'degraded']),
  timestamp: unixTime,
  database: anyCase(['connected', 'error']),
});

/**
 * The field names a record's schema knows, or `undefined` for a record of any fields (a raw
 * credential): how `client/envelope.ts` tells an envelope from a record, and an empty record from one.
 */
export function fieldsOf(schema: ShapeOf<unknown>): ReadonlySet<string> | undefined {
  if (!fieldSets.has(schema)) {
    const shape = (schema as { shape?: unknown }).shape;
    fieldSets.set(schema, typeof shape === 'object' && shape !== null ? new Set(Object.keys(shape)) : undefined);
  }
  return fieldSets.get(schema);
}
/** Each schema's field names, worked out once. */
const fieldSets = new WeakMap<object, ReadonlySet<string> | undefined>();

/**
 * What a success without a body (200 with nothing, or 204) means, for the records of an action
 * that was done: a DELETE's is the deletion, message or not; a revoke's is the revocation (the
 * spec's transition: "revoked | response `data.revoked` is true").
 */
export const WHEN_EMPTY: ReadonlyMap<ShapeOf<unknown>, Readonly<Record<string, unknown>>> = new Map<
  ShapeOf<unknown>,
  Record<string, unknown>
>([
  [MessageData, {}],
  [CredentialRevoked, { revoked: true }],
]);

/**
 * Where a value departs from a schema: issue paths only, never the values themselves, each from
 * the body's root (`at`: where the value sat in it, `data.` for one inside an envelope).
 */
export function issuePaths(error: z.core.$ZodError, at = ''): string[] {
  return error.issues.map((issue) => pathOf(issue, at));
}

function pathOf(issue: z.core.$ZodIssue, at: string): string {
  const path = [...at.split('.').filter(Boolean), ...issue.path.map(String)];
  return path.length > 0 ? path.join('.') : '(root)';
}

/**
 * Why a value was refused, where one of this module's readers ({@link readBy}) refused it: each
 * path with what the reader expects, in its own words (never the value); `''` when none did.
 */
export function issueReasons(error: z.core.$ZodError, at = ''): string {
  const reasons = error.issues
    .filter((issue) => issue.code === 'custom' && issue.params?.[READER] === true)
    .map((issue) => `${pathOf(issue, at)}: expected ${issue.message}`);
  return reasons.length > 0 ? ` (${reasons.join('; ')})` : '';
}
