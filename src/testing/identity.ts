/** Identity requests and responses of the fake service: validation, lifecycle, SD-JWT results. */
import { claimsProblem, requestedClaimKeys } from './claims.js';
import { serviceError, validationError } from './http.js';
import { disclose, digestsWithDecoys, issueSdJwt, sha256, type DisclosureEncoding, type IssuedDisclosure } from './sd-jwt.js';
import { randomId, toHex } from '../internal/encoding.js';
import type { SigningKeys } from './keys.js';
import { claimValueAs, type ResolvedReadings } from './readings.js';
import type { components } from '../../generated/schema.js';

export type IdentityStatus = 'pending' | 'opened' | 'approved' | 'cancelled' | 'deleted';

/** A valid POST /identity/request body: the three fields described as optional may be absent. */
export type IdentityInput = Omit<InputSchema, OptionalInSpec> & Partial<Pick<InputSchema, OptionalInSpec>>;
type InputSchema = components['schemas']['IdentityRequestInput'];
/** The three inputs "yes in schema, described as optional". */
const OPTIONAL_IN_SPEC = ['results_emails', 'download_email', 'expiry_hours'] as const;
type OptionalInSpec = (typeof OPTIONAL_IN_SPEC)[number];

export interface IdentityRecord {
  readonly clientId: string;
  readonly accessRequestCode: string;
  readonly identitySessionCode: string;
  readonly input: IdentityInput;
  readonly redirectUrl: string;
  readonly createdAt: number;
  /** UNIX seconds, or undefined when expiry_hours was 0. */
  readonly timeExpires: number | undefined;
  status: IdentityStatus;
  openedAt?: number;
  completedAt?: number;
  /** The opaque token inside the X-Access-Token JWT of the approval webhook. */
  accessToken?: string;
  response?: Record<string, unknown>;
}

/** What the person's journey produced, for {@link FakeService.approve}. */
export interface ApprovalOptions {
  /** Claim values that replace or add to the person's defaults (keys are claim keys). */
  values?: Record<string, unknown>;
  /** The person could not provide every document the ruleset needs. */
  partiallyComplete?: boolean;
  /** `skip`: the webhook is never sent (a delivery lost on the service's side); see {@link FakeService.resendWebhook}. @default 'send' */
  webhook?: 'send' | 'skip';
}

const EMAIL = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;
const PHONE = /^[0-9]{4,14}$/;

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

type ValidationRules = {
  supportedClaims: ReadonlySet<string>;
  purposes: readonly string[] | undefined;
  /** The `optionalInputs` reading: whether the three inputs "yes in schema, described as optional" are required. @default 'prose' */
  optionalInputs?: ResolvedReadings['optionalInputs'];
};

/** Validates POST /identity/request as the spec describes it; throws E1001 naming every bad field. */
export function validateIdentityInput(body: unknown, rules: ValidationRules): IdentityInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw serviceError('E1002', 'The body must be a JSON object');
  }
  const input = body as Record<string, unknown>;
  checkIdentityInput(input, rules);
  return input;
}

/** The checks of {@link validateIdentityInput}: passing them makes the object an `IdentityInput`. */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one check per field of the spec's identity request input, in the spec's order, each refusal named
function checkIdentityInput(
  input: Record<string, unknown>,
  rules: ValidationRules,
): asserts input is Record<string, unknown> & IdentityInput {
  const errors: Record<string, string> = {};
  const nonEmpty = (field: string) => {
    if (typeof input[field] !== 'string' || (input[field] as string).trim() === '') errors[field] = 'is required';
  };
  for (const field of ['first_name', 'last_name', 'purpose']) nonEmpty(field);
  if (typeof input['email'] !== 'string' || !EMAIL.test(input['email'])) errors['email'] = 'must be an email address';
  if (typeof input['phone'] !== 'string' || !PHONE.test(input['phone'])) {
    errors['phone'] = 'must be the digits of a mobile number, without country code';
  }
  const cc = input['phone_country_code'];
  if (typeof cc !== 'number' || !Number.isInteger(cc) || cc < 1 || cc > 999) {
    errors['phone_country_code'] = 'must be an integer country code';
  }
  if (rules.purposes && typeof input['purpose'] === 'string' && !rules.purposes.includes(input['purpose'])) {
    errors['purpose'] = 'is not an allowed purpose';
  }
  for (const field of ['return_url', 'off_ramp_url']) {
    if (!isHttpUrl(input[field])) errors[field] = 'must be an absolute http(s) URL';
  }
  // As the schema reads them (`schema`): required, any string; as the prose does (`prose`): optional, and an empty one is no email address.
  const required = rules.optionalInputs === 'schema';
  const empty = (field: string) => input[field] === '' && required;
  for (const field of OPTIONAL_IN_SPEC) {
    if (required && input[field] === undefined) errors[field] = 'is required';
  }
  const results = input['results_emails'];
  if (results !== undefined && !empty('results_emails')) {
    if (typeof results !== 'string' || !results.split(',').every((e) => EMAIL.test(e.trim()))) {
      errors['results_emails'] = 'must be a comma-separated list of email addresses';
    }
  }
  const download = input['download_email'];
  if (download !== undefined && !empty('download_email') && (typeof download !== 'string' || !EMAIL.test(download))) {
    errors['download_email'] = 'must be an email address';
  }
  const hours = input['expiry_hours'];
  if (hours !== undefined && (typeof hours !== 'number' || !Number.isInteger(hours) || hours < 0)) {
    errors['expiry_hours'] = 'must be a whole number of hours, 0 or more';
  }
  if (input['send_email'] !== undefined && typeof input['send_email'] !== 'boolean') {
    errors['send_email'] = 'must be a boolean';
  }
  for (const field of ['payment_via', 'ruleset']) {
    if (input[field] !== undefined && (typeof input[field] !== 'string' || input[field] === '')) {
      errors[field] = 'must be a non-empty string';
    }
  }
  if (input['claims'] === undefined) {
    errors['claims'] = 'is required';
  } else {
    const problem = claimsProblem(input['claims'], rules.supportedClaims);
    if (problem) errors['claims'] = problem;
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
}

export function newIdentityRecord(clientId: string, input: IdentityInput, journeyOrigin: string, nowMs: number): IdentityRecord {
  const accessRequestCode = `arc_${randomId(12)}`;
  const identitySessionCode = `isc_${randomId(12)}`;
  const hours = input.expiry_hours ?? 24;
  return {
    clientId,
    accessRequestCode,
    identitySessionCode,
    input,
    redirectUrl: `${journeyOrigin}/journey/${accessRequestCode}`,
    createdAt: nowMs,
    timeExpires: hours === 0 ? undefined : Math.floor(nowMs / 1000) + hours * 3600,
    status: 'pending',
  };
}

export function isExpired(record: IdentityRecord, nowMs: number): boolean {
  return record.timeExpires !== undefined && Math.floor(nowMs / 1000) >= record.timeExpires;
}

/** Open: the person may still act on it, so a second request to the same person conflicts. */
export function isOpen(record: IdentityRecord, nowMs: number): boolean {
  return (record.status === 'pending' || record.status === 'opened') && !isExpired(record, nowMs);
}

export function samePerson(a: IdentityInput, b: IdentityInput): boolean {
  return a.email.toLowerCase() === b.email.toLowerCase() || (a.phone === b.phone && a.phone_country_code === b.phone_country_code);
}

/** A base64url digest as the `digestEncoding` reading writes it. */
function digestAs(encoding: ResolvedReadings['digestEncoding'], digest: string): string {
  if (encoding === 'base64url') return digest;
  const bytes = Uint8Array.from(atob(digest.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  if (encoding === 'hex') return toHex(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/** An optional field: left out when absent, or `null` where the `absent` reading writes it so. */
function optional(name: string, value: unknown, readings: ResolvedReadings | undefined): Record<string, unknown> {
  if (value !== undefined) return { [name]: value };
  return readings?.absent === 'null' ? { [name]: null } : {};
}

/**
 * `time_expires` as the `requestExpiry` reading writes it (the UNIX time it ends, the seconds left
 * until then, or the hours it was created for), or for a request that never expires
 * (`expiry_hours: 0`) what the `neverExpires` reading writes: nothing, or 0.
 */
function expiry(record: IdentityRecord, nowMs: number, readings: ResolvedReadings | undefined): Record<string, unknown> {
  const { timeExpires } = record;
  if (timeExpires === undefined) {
    return readings?.neverExpires === 'zero' ? { time_expires: 0 } : optional('time_expires', undefined, readings);
  }
  if (readings?.requestExpiry === 'remaining') return { time_expires: Math.max(0, timeExpires - Math.floor(nowMs / 1000)) };
  if (readings?.requestExpiry === 'hours') return { time_expires: record.input.expiry_hours ?? 24 };
  return { time_expires: timeExpires };
}

/** GET /identity/request/...: the spec's identity request details, at `nowMs` on the service's clock. */
export function requestDetails(record: IdentityRecord, nowMs: number, readings?: ResolvedReadings): Record<string, unknown> {
  const { input } = record;
  return {
    first_name: input.first_name,
    last_name: input.last_name,
    email: input.email,
    phone: input.phone,
    phone_country_code: input.phone_country_code,
    purpose: input.purpose,
    ...expiry(record, nowMs, readings),
    ...optional('opened_at', record.openedAt, readings),
    ...optional('completed_at', record.completedAt, readings),
    request_code: readings?.requestCode === 'access_request_code' ? record.accessRequestCode : record.identitySessionCode,
    redirect_url: record.redirectUrl,
    send_email: record.input.send_email ?? false,
  };
}

/** The claim values a verified person has by default; document numbers are unknown unless given. */
export function defaultValues(
  input: Pick<IdentityInput, 'first_name' | 'last_name' | 'email' | 'phone' | 'phone_country_code'>,
): Record<string, unknown> {
  return {
    'acmeidentity.valid': true,
    'acmeidentity.name': JSON.stringify({ first_name: input.first_name, last_name: input.last_name }),
    'acmeidentity.given_name': input.first_name,
    'acmeidentity.family_name': input.last_name,
    'acmeidentity.birth_date': '1990-01-01',
    'acmeidentity.email': input.email,
    'acmeidentity.phone': `+${input.phone_country_code}${input.phone}`,
    'acmeidentity.email_verified': true,
    'acmeidentity.phone_verified': true,
    'acmeidentity.names_verified': true,
    'sanctionscheck.is_sanctioned': 'No',
    'sanctionscheck.is_pep': 'No',
    'sanctionscheck.matches': JSON.stringify([]),
  };
}

/**
 * Builds the identity response of an approved request: each requested claim with a known value
 * becomes a disclosure whose digest is in `_sd`; unknown ones go to `disclosures_missing`; each
 * requested `{credential}.credential` becomes a signed SD-JWT in `{credential}.credential_jwt`.
 */
export async function buildIdentityResponse(
  record: IdentityRecord,
  options: ApprovalOptions,
  context: {
    keys: SigningKeys;
    issuer: string;
    nowMs: number;
    ttlSeconds: number;
    encoding: DisclosureEncoding;
    readings?: ResolvedReadings;
  },
): Promise<Record<string, unknown>> {
  const given: Record<string, unknown> = { ...defaultValues(record.input), ...options.values };
  const reading = context.readings?.claimValues ?? 'spec';
  const values = Object.fromEntries(Object.entries(given).map(([key, value]) => [key, claimValueAs(reading, value)]));
  const keys = requestedClaimKeys(record.input.claims);
  const credentials = keys.filter((key) => key.endsWith('.credential'));
  const disclosable = keys.filter((key) => !key.endsWith('.credential') && !key.endsWith('.credential_jwt'));
  const disclosures: IssuedDisclosure[] = [];
  const missing: string[] = [];
  for (const key of disclosable) {
    if (values[key] === undefined) missing.push(key);
    else disclosures.push(await disclose(key, values[key], context.encoding));
  }
  const placement = context.readings?.claimPlacement ?? 'both';
  const onlySigned = (placement === 'credential' || placement === 'flat') && credentials.length > 0;
  // Under `resalted` the envelope salts its disclosures itself: its `_sd` commits to its own, each
  // signed credential to the issuer's.
  const envelope =
    placement === 'resalted' && credentials.length > 0
      ? await Promise.all(disclosures.map(({ claim, value }) => disclose(claim, value, context.encoding)))
      : disclosures;
  const iat = Math.floor(context.nowMs / 1000);
  const common = {
    iss: context.issuer,
    sub: `person_${randomId(9)}`,
    nbf: iat,
    iat,
    exp: iat + context.ttlSeconds,
  };
  const data: Record<string, unknown> = {
    ref: `idc_${randomId(12)}`,
    ...common,
    jti: randomId(16),
    _sd: (await digestsWithDecoys(await hashedAs(context.readings?.disclosureHash ?? 'base64url', envelope), 2)).map((digest) =>
      digestAs(context.readings?.digestEncoding ?? 'base64url', digest),
    ),
    _sd_alg: context.readings?.sdAlg ?? 'sha256',
    // Under the `claimPlacement: 'credential'` and `'flat'` readings the claims are inside the signed
    // credentials (and, for `flat`, plain fields of `data` too), not in `disclosures`.
    disclosures: onlySigned ? [] : envelope.map((disclosure) => writtenAs(context.readings?.disclosureForm ?? 'object', disclosure)),
    disclosures_missing: missing,
    request_code: context.readings?.requestCode === 'access_request_code' ? record.accessRequestCode : record.identitySessionCode,
    partially_complete: options.partiallyComplete ?? false,
  };
  if (onlySigned && placement === 'flat') for (const { claim, value } of disclosures) data[claim] = value;
  for (const credential of credentials) {
    const name = credential.slice(0, -'.credential'.length);
    data[`${name}.credential_jwt`] = await issueSdJwt(
      context.keys,
      { ...common, jti: randomId(16), vct: `${context.issuer}/credentials/${name}` },
      disclosures,
      { nowMs: context.nowMs },
    );
  }
  return context.readings?.claimKeys === 'nested' ? nestClaimKeys(data) : data;
}

/**
 * `data` with its claim keys written as paths (the `claimKeys: 'nested'` reading):
 * `acmeidentity.credential_jwt` as `{acmeidentity: {credential_jwt}}`, by the claim key form
 * (`{credential}.{field}`, `document.{doc_type}.{field}`).
 */
function nestClaimKeys(data: Record<string, unknown>): Record<string, unknown> {
  const nested: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    const path = key.split('.');
    const parents = path[0] === 'document' ? path.slice(0, 2) : path.slice(0, 1);
    if (path.length <= parents.length) {
      nested[key] = value;
      continue;
    }
    let at = nested;
    for (const parent of parents) {
      at[parent] ??= {};
      at = at[parent] as Record<string, unknown>;
    }
    at[path.slice(parents.length).join('.')] = value;
  }
  return nested;
}

/** A disclosure as the `disclosureForm` reading writes it in the response's `disclosures`. */
function writtenAs(form: ResolvedReadings['disclosureForm'], { claim, salt, value, encoded }: IssuedDisclosure): unknown {
  if (form === 'compact') return encoded;
  return form === 'array' ? [salt, claim, value] : { claim, salt, value };
}

/**
 * The response's disclosures with the digests its `_sd` lists, as the `disclosureHash` reading
 * says: of the base64url (RFC 9901's, as a signed credential's are), or of the JSON itself.
 */
async function hashedAs(reading: ResolvedReadings['disclosureHash'], disclosures: IssuedDisclosure[]): Promise<IssuedDisclosure[]> {
  if (reading === 'base64url') return disclosures;
  return Promise.all(disclosures.map(async (d) => ({ ...d, digest: await sha256(d.json) })));
}

/** Identity endpoints refuse a request whose codes do not both name it. */
export function findRecord(
  records: ReadonlyMap<string, IdentityRecord>,
  clientId: string,
  accessRequestCode: string,
  identitySessionCode: string,
): IdentityRecord {
  const record = records.get(accessRequestCode);
  if (!record || record.clientId !== clientId || record.identitySessionCode !== identitySessionCode || record.status === 'deleted') {
    throw serviceError('E1005', 'Identity request not found');
  }
  return record;
}
