/**
 * Checks of the caller's input, before anything is sent: each problem is an `InputIssue` naming the
 * field, and never quoting the value (it may be personal data).
 */
import * as z from 'zod/mini';
import { claimsIssues, wireClaims, type ClaimsRequest } from '../claims/index.js';
import { PERSON_REF } from '../contract/patterns.js';
import { InvalidInputError, type InputIssue } from '../errors/index.js';
import { toBase64 } from '../internal/encoding.js';
import type { Schemas } from './schemas.js';

/** The keys of `T` whose property is optional. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/**
 * `T` with each optional field also taking `undefined`, which the input checks read as unset: a
 * caller's `send_email: maybe` type-checks under `exactOptionalPropertyTypes` as it runs.
 */
type UnsetAllowed<T> = { [K in keyof T as K extends OptionalKeys<T> ? never : K]: T[K] } & {
  [K in OptionalKeys<T>]?: T[K] | undefined;
};

/**
 * The body of POST /identity/request, as the SDK takes it. An optional field given as `undefined`
 * is unset.
 * @interface
 */
export type IdentityRequestInput = UnsetAllowed<
  Omit<Schemas['IdentityRequestInput'], 'results_emails' | 'download_email' | 'expiry_hours' | 'claims'>
> & {
  /** Emails notified of results: a comma-separated string or a list. @default none */
  results_emails?: string | readonly string[] | undefined;
  /** Email that gets a download link for source files. @default none */
  download_email?: string | undefined;
  /** Hours the request stays valid; 0 disables expiry (not recommended). @default 24 */
  expiry_hours?: number | undefined;
  claims: ClaimsRequest;
};

/** What POST /credentials/submit takes, with the file as bytes (the SDK does the base64). An optional field given as `undefined` is unset. */
export interface CredentialSubmitInput {
  /** Credential type, e.g. `acicncchc`; more types are added over time. */
  type: string;
  /** Person reference of the shape `<uid>/<uid>`. */
  person_ref: string;
  /** Display name; required unless `type` is `acicncchc`. */
  name?: string | undefined;
  /** Required unless `type` is `acicncchc`. */
  description?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  /** The original document: PNG, JPG or PDF, at most 5 MB. `Buffer` is a `Uint8Array`. */
  file: Uint8Array | ArrayBuffer | Blob;
  /** Source file name, with the extension of its content (`.png`, `.jpg`/`.jpeg`, `.pdf`). */
  file_name: string;
  issuer_name: string;
  issuer_url: string;
  /** The issuer's public ID for this credential. */
  issuer_ref: string;
  /** Expiry as UNIX seconds or a `Date`; required unless `type` is `acicncchc`. */
  time_expires?: number | Date | undefined;
}

/** `input` without its fields given as `undefined`: such an optional field is unset, and leaves no key in the body. */
function withoutUnset<T extends object>(input: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

/** Files above this size are refused before upload (the service answers 413). */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;

const EMAIL = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;

const nonEmpty = z.string({ error: 'is required and must be a string' }).check(z.minLength(1, { error: 'must not be empty' }));
const email = z.string({ error: 'must be a string' }).check(z.regex(EMAIL, { error: 'must be an email address' }));
const httpUrl = z.string({ error: 'must be a string' }).check(
  z.refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
    error: 'must be an absolute http(s) URL',
  }),
);
/** The addresses of an email-list field: a list, or one string of comma-separated ones ('' for none). */
function addresses(value: string | string[]): string[] {
  if (typeof value !== 'string') return value;
  return value === '' ? [] : value.split(',');
}
const emailList = z
  .union([z.string(), z.array(z.string())], { error: 'must be a string or a list of strings' })
  .check(z.refine((value) => addresses(value).every((e) => EMAIL.test(e.trim())), { error: 'must be email addresses' }));

// An optional field given as `undefined` is unset, as if left out: TypeScript's default settings
// (no exactOptionalPropertyTypes) let a caller write `{ expiry_hours: maybeHours }`.
const IdentityRequestSchema = z.looseObject({
  first_name: nonEmpty,
  last_name: nonEmpty,
  email,
  phone: z.string({ error: 'must be a string of digits' }).check(
    z.refine((value) => !/^(\+|00)/.test(value), {
      error: 'must not include the country code: pass it as phone_country_code',
      abort: true,
    }),
    z.regex(/^[0-9]{4,14}$/, { error: 'must be 4 to 14 digits, without spaces or country code' }),
  ),
  phone_country_code: z
    .int({ error: 'must be an integer country code, such as 61' })
    .check(z.minimum(1, { error: 'must be between 1 and 999' }), z.maximum(999, { error: 'must be between 1 and 999' })),
  purpose: nonEmpty,
  return_url: httpUrl,
  off_ramp_url: httpUrl,
  results_emails: z.optional(emailList),
  download_email: z.optional(z.union([z.literal(''), email], { error: 'must be an email address' })),
  expiry_hours: z.optional(
    z.int({ error: 'must be a whole number of hours' }).check(z.minimum(0, { error: 'must be 0 or more (0 disables expiry)' })),
  ),
  send_email: z.optional(z.boolean({ error: 'must be a boolean' })),
  payment_via: z.optional(nonEmpty),
  ruleset: z.optional(nonEmpty),
  claims: z.unknown(),
});

const CredentialSchema = z.looseObject({
  type: nonEmpty,
  person_ref: z
    .string({ error: 'is required and must be a string' })
    .check(z.regex(PERSON_REF, { error: 'must have the shape <uid>/<uid>' })),
  name: z.optional(nonEmpty),
  description: z.optional(nonEmpty),
  metadata: z.optional(z.record(z.string(), z.unknown(), { error: 'must be an object' })),
  file_name: nonEmpty,
  issuer_name: nonEmpty,
  issuer_url: httpUrl,
  issuer_ref: nonEmpty,
  time_expires: z.optional(z.union([z.int(), z.date()], { error: 'must be UNIX seconds (an integer) or a Date' })),
});

/**
 * The issues of an object schema's result, each named by its field's path. Never called on a
 * non-object (requireObject comes first), so every issue has a path: a field of the input.
 */
function issuesOf(result: { success: boolean; error?: z.core.$ZodError }): InputIssue[] {
  if (result.success || !result.error) return [];
  return result.error.issues.map((issue) => ({ field: issue.path.map(String).join('.'), message: issue.message }));
}

function requireObject(input: unknown, what: string): Record<string, unknown> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new InvalidInputError([{ field: '(input)', message: `${what} must be an object` }]);
  }
  return input as Record<string, unknown>;
}

/**
 * The three inputs the spec's schema requires and its prose calls optional, with what each is
 * sent as when it must be and the caller left it unset: no results emails, no download email, the
 * spec's 24-hour expiry.
 */
const UNSET_OPTIONALS = { results_emails: '', download_email: '', expiry_hours: 24 } as const;
type UnsetOptional = keyof typeof UNSET_OPTIONALS;

/**
 * Checks an identity request and returns the body to send. The three inputs the schema requires
 * and the prose calls optional are sent as given; left unset, they are sent only with `fill`, as
 * no results emails, no download email and the spec's 24-hour expiry.
 */
export function identityRequestBody(
  input: IdentityRequestInput,
  supportedClaims: ReadonlySet<string> | undefined,
  fill: boolean,
): Schemas['IdentityRequestInput'] {
  requireObject(input, 'the identity request');
  const issues = [...issuesOf(z.safeParse(IdentityRequestSchema, input)), ...claimsIssues(input.claims, supportedClaims)];
  if (issues.length > 0) throw new InvalidInputError(issues);
  const results = input.results_emails;
  const given = {
    results_emails: typeof results === 'object' ? results.join(',') : results,
    download_email: input.download_email,
    expiry_hours: input.expiry_hours,
  };
  const body: Record<string, unknown> = { ...withoutUnset(input), claims: wireClaims(input.claims) };
  for (const field of Object.keys(UNSET_OPTIONALS) as UnsetOptional[]) {
    const value = given[field] ?? (fill ? UNSET_OPTIONALS[field] : undefined);
    if (value === undefined) delete body[field];
    else body[field] = value;
  }
  // The generated type has the three as required (the schema's reading); `fill` decides whether they are sent.
  return body as Schemas['IdentityRequestInput'];
}

/** Whether a refusal says only that unset optionals are missing: every field it names is one of them, left unset by the caller. */
export function refusesOnlyUnsetOptionals(fields: readonly string[], input: IdentityRequestInput): boolean {
  const unset = (Object.keys(UNSET_OPTIONALS) as UnsetOptional[]).filter((field) => input[field] === undefined);
  // A field may be named by its path (`body.results_emails`): its last segment is its name.
  return fields.length > 0 && fields.every((field) => (unset as readonly string[]).includes(field.split('.').at(-1) ?? field));
}

const FILE_KINDS = [
  { kind: 'PNG', extensions: ['png'], magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { kind: 'JPG', extensions: ['jpg', 'jpeg'], magic: [0xff, 0xd8, 0xff] },
  { kind: 'PDF', extensions: ['pdf'], magic: [0x25, 0x50, 0x44, 0x46, 0x2d] },
];

/** Types that need no name, description or time_expires. */
const TYPES_WITHOUT_DISPLAY_FIELDS = new Set(['acicncchc']);

async function bytesOf(file: unknown): Promise<Uint8Array | undefined> {
  if (file instanceof Uint8Array) return file;
  if (file instanceof ArrayBuffer) return new Uint8Array(file);
  if (typeof Blob !== 'undefined' && file instanceof Blob) return new Uint8Array(await file.arrayBuffer());
  return undefined;
}

/** Checks a credential submission, including the file's size and format, and builds the body. */
export async function credentialBody(input: CredentialSubmitInput): Promise<Schemas['CredentialInput']> {
  requireObject(input, 'the credential');
  const issues = issuesOf(z.safeParse(CredentialSchema, input));
  if (!TYPES_WITHOUT_DISPLAY_FIELDS.has(input.type)) {
    for (const field of ['name', 'description', 'time_expires'] as const) {
      if (input[field] === undefined) issues.push({ field, message: `is required for type ${JSON.stringify(input.type)}` });
    }
  }
  const bytes = await bytesOf(input.file);
  if (!bytes) {
    issues.push({ field: 'file', message: 'must be a Uint8Array, Buffer, ArrayBuffer or Blob' });
  } else if (bytes.length > MAX_FILE_BYTES) {
    issues.push({ field: 'file', message: `is ${bytes.length} bytes; the service accepts at most 5 MB (${MAX_FILE_BYTES} bytes)` });
  } else {
    const kind = FILE_KINDS.find((k) => k.magic.every((byte, i) => bytes[i] === byte));
    if (!kind) issues.push({ field: 'file', message: 'must be a PNG, JPG or PDF file' });
    else if (typeof input.file_name === 'string') {
      // A name (no path separators, not only dots), a dot, and the content's extension.
      const extension = /^[^/\\]*[^/\\.][^/\\]*\.([^./\\]+)$/.exec(input.file_name)?.[1] ?? '';
      if (!kind.extensions.includes(extension.toLowerCase())) {
        issues.push({
          field: 'file_name',
          message: `must be a file name ending in .${kind.extensions.join(' or .')} for ${kind.kind} content`,
        });
      }
    }
  }
  if (issues.length > 0) throw new InvalidInputError(issues);
  const { file: _file, time_expires, ...rest } = withoutUnset(input);
  return {
    ...rest,
    file_data: toBase64(bytes as Uint8Array),
    ...(time_expires !== undefined
      ? { time_expires: time_expires instanceof Date ? Math.floor(time_expires.getTime() / 1000) : time_expires }
      : {}),
  };
}

/**
 * Whether a path segment names the current or the parent folder once decoded: `.` and `..`, and
 * every percent-encoded spelling of them (`%2e`, `%2E`, `.%2e`, `%2e.`, `%2e%2e`…), which the URL
 * layer (WHATWG URL, so every `fetch`) resolves exactly as it resolves the dots themselves.
 * Decoded until nothing changes, so a server that decodes twice (`%252e`) finds none either.
 */
function isDotSegment(segment: string): boolean {
  let decoded = segment;
  for (;;) {
    const next = decoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (next === decoded) break;
    decoded = next;
  }
  return decoded === '.' || decoded === '..';
}

const DOT_SEGMENT =
  'contains a path segment that is or decodes to "." or ".." (such as %2e%2e): the URL layer would resolve it into another path';

/** What makes a `credential_ref` unsendable verbatim, or `undefined` when it can be sent as it is. */
function credentialRefProblem(ref: unknown): string | undefined {
  if (typeof ref !== 'string' || ref === '') return 'must be the non-empty credential_ref string returned by submit';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\s\x00-\x1f\x7f?#\\]/.test(ref)) return 'contains a character that would change the request URL (whitespace, control, ?, # or \\)';
  if (/[^\x21-\x7e]|["<>`{}]/.test(ref)) {
    return 'contains a character that cannot be sent verbatim in a URL path (", <, >, `, {, } or non-ASCII): the spec has it sent without percent-encoding';
  }
  if (ref.split('/').some(isDotSegment)) return DOT_SEGMENT;
  return undefined;
}

/**
 * A `credential_ref` goes into the path exactly as the service returned it: never parsed, built
 * or percent-encoded (spec, GET /credentials/verify). What would change the request target
 * instead (a query or fragment marker, a segment that is or decodes to a dot segment, whitespace
 * or control characters) is refused, and so is what the URL layer would percent-encode on the way
 * out (`"`, `<`, `>`, a backtick, `{`, `}` and anything outside ASCII): such a ref cannot be sent
 * verbatim, and sending it encoded would name another credential on a service that takes the path
 * as it comes. What is accepted reaches the wire byte for byte (test/client/request-target.test.ts).
 */
export function checkCredentialRef(ref: unknown): string {
  const problem = credentialRefProblem(ref);
  if (problem) throw new InvalidInputError([{ field: 'credentialRef', message: problem }]);
  return ref as string;
}

/** A code or token: a non-empty string. */
export function checkCode(field: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new InvalidInputError([{ field, message: 'is required and must be a non-empty string' }]);
  }
  return value;
}

/**
 * An identity code for a path segment: a non-empty string that neither is nor decodes to `.` or
 * `..`. Percent-encoding leaves the dots as they are (URL resolution would turn them into another
 * path); an encoded spelling (`%2e%2e`) goes out encoded again and is harmless to a service that
 * decodes once, but names a parent folder to one that decodes twice, and is no code anyway.
 */
export function checkPathCode(field: string, value: unknown): string {
  const code = checkCode(field, value);
  // A lone surrogate has no UTF-8 form: encodeURIComponent would throw a bare URIError.
  if (/\p{Cs}/u.test(code)) throw new InvalidInputError([{ field, message: 'is not well-formed text (it holds a lone surrogate)' }]);
  if (isDotSegment(code)) {
    throw new InvalidInputError([{ field, message: 'must not be or decode to "." or ".." (such as %2e%2e): it would name another path' }]);
  }
  return code;
}
