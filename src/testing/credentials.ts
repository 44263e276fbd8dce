/** Credentials of the fake service: submit, verify, file-data and revoke, with the spec's rules. */
import { decodeProtectedHeader } from 'jose';
import { signJwt, signedPayload, verifyJwt, type SigningKeys } from './keys.js';
import { serviceError, uncodedError } from './http.js';
import { fromBase64, randomId, toBase64 } from '../internal/encoding.js';
import { PERSON_REF } from '../contract/patterns.js';
import type { ResolvedReadings } from './readings.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024;

/** The state a credential can be put in by a test, beside issued and revoked. */
export type CredentialCondition = 'issued' | 'pending_acceptance' | 'verification_failed';

export interface CredentialRecord {
  readonly ref: string;
  readonly clientId: string;
  readonly type: string;
  readonly issuerRef: string;
  readonly jwt: string;
  readonly timeExpires: number | undefined;
  /** The source file, AES-GCM encrypted at rest. */
  readonly file: { iv: Uint8Array<ArrayBuffer>; ciphertext: ArrayBuffer };
  revoked: boolean;
  condition: CredentialCondition;
}

const FILE_TYPES = [
  { kind: 'png', extensions: ['png'], magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { kind: 'jpg', extensions: ['jpg', 'jpeg'], magic: [0xff, 0xd8, 0xff] },
  { kind: 'pdf', extensions: ['pdf'], magic: [0x25, 0x50, 0x44, 0x46, 0x2d] },
];

/** A name (no path, not only dots), a dot and an extension. */
const NAMED_FILE = /^[^/\\]*[^/\\.][^/\\]*\.[^./\\]+$/;

function isWebUrl(value: string): boolean {
  return URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}

/** Types for which name, description and time_expires are not required. */
const TYPES_WITHOUT_DISPLAY_FIELDS = new Set(['acicncchc']);

interface ValidCredential {
  type: string;
  person_ref: string;
  name?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  bytes: Uint8Array<ArrayBuffer>;
  file_name: string;
  issuer_name: string;
  issuer_url: string;
  issuer_ref: string;
  time_expires?: number;
}

/**
 * Checks a submission: 400 for missing or mistyped parameters, 413 for a file over 5 MB, 422 for a
 * type, file format or extension the service does not accept.
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one check per field of the spec's credential input, in the spec's order, each refusal named
export function validateCredentialInput(body: unknown, types: readonly string[]): ValidCredential {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw serviceError('E1002', 'The body must be a JSON object');
  }
  const input = body as Record<string, unknown>;
  const errors: Record<string, string> = {};
  const type = input['type'];
  const needsDisplay = typeof type !== 'string' || !TYPES_WITHOUT_DISPLAY_FIELDS.has(type);
  const required = ['type', 'person_ref', 'file_data', 'file_name', 'issuer_name', 'issuer_url', 'issuer_ref'];
  if (needsDisplay) required.push('name', 'description');
  for (const field of required) {
    if (typeof input[field] !== 'string' || input[field] === '') errors[field] = 'is required';
  }
  const expires = input['time_expires'];
  if (expires !== undefined ? typeof expires !== 'number' || !Number.isInteger(expires) : needsDisplay) {
    errors['time_expires'] = 'must be a UNIX timestamp';
  }
  if (typeof input['person_ref'] === 'string' && !PERSON_REF.test(input['person_ref'])) {
    errors['person_ref'] = 'must have the shape <uid>/<uid>';
  }
  if (typeof input['file_name'] === 'string' && !NAMED_FILE.test(input['file_name'])) {
    errors['file_name'] = 'must be a file name with its extension (.png, .jpg, .jpeg or .pdf), without a path';
  }
  if (typeof input['issuer_url'] === 'string' && !isWebUrl(input['issuer_url'])) {
    errors['issuer_url'] = 'must be an absolute http(s) URL';
  }
  const metadata = input['metadata'];
  if (metadata !== undefined && (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))) {
    errors['metadata'] = 'must be an object';
  }
  const bytes = typeof input['file_data'] === 'string' ? fromBase64(input['file_data']) : undefined;
  if (typeof input['file_data'] === 'string' && !bytes) errors['file_data'] = 'must be base64';
  if (Object.keys(errors).length > 0) throw serviceError('E1001', 'Invalid parameters', { details: { validation_errors: errors } });
  const data = bytes as Uint8Array<ArrayBuffer>;
  if (data.length > MAX_FILE_BYTES) throw uncodedError(413, 'File larger than 5 MB');

  const semantic: Record<string, string> = {};
  if (!types.includes(type as string)) semantic['type'] = 'is not a credential type this service issues';
  const detected = FILE_TYPES.find((t) => t.magic.every((byte, i) => data[i] === byte));
  const extension = (input['file_name'] as string).toLowerCase().split('.').at(-1) ?? '';
  if (!detected) semantic['file_data'] = 'must be a PNG, JPG or PDF file';
  else if (!detected.extensions.includes(extension)) semantic['file_name'] = `extension must match the ${detected.kind} content`;
  if (Object.keys(semantic).length > 0) {
    throw uncodedError(422, 'Validation error', { validation_errors: semantic });
  }
  const { file_data: _unused, ...rest } = input;
  return { ...(rest as Omit<ValidCredential, 'bytes'>), bytes: data };
}

/** Issues the credential as an RSA-signed JWT and stores it with its file encrypted. */
export async function issueCredential(
  clientId: string,
  input: ValidCredential,
  context: { keys: SigningKeys; fileKey: CryptoKey; issuer: string; nowMs: number },
): Promise<CredentialRecord> {
  const ref = `cred:${randomId(9)}/${randomId(9)}`;
  const jwt = await signJwt(
    context.keys,
    {
      iss: context.issuer,
      sub: input.person_ref,
      jti: randomId(16),
      ...(input.time_expires !== undefined ? { exp: input.time_expires } : {}),
      vc: {
        type: ['VerifiableCredential', input.type],
        issuer: { name: input.issuer_name, url: input.issuer_url, ref: input.issuer_ref },
        credentialSubject: {
          id: input.person_ref,
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
          file_name: input.file_name,
        },
      },
    },
    { nowMs: context.nowMs },
  );
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, context.fileKey, input.bytes);
  return {
    ref,
    clientId,
    type: input.type,
    issuerRef: input.issuer_ref,
    jwt,
    timeExpires: input.time_expires,
    file: { iv, ciphertext },
    revoked: false,
    condition: 'issued',
  };
}

/**
 * The caller's credential, in a state that allows verify or file-data: 404 when it does not
 * exist or another client issued it (never revealing which), 410 when revoked, 412 otherwise.
 */
export function usableCredential(record: CredentialRecord | undefined, clientId: string, nowMs: number): CredentialRecord {
  if (!record || record.clientId !== clientId) throw serviceError('E1005', 'Credential not found');
  if (record.revoked) throw uncodedError(410, 'Credential revoked');
  if (record.condition === 'pending_acceptance') throw serviceError('E1011', 'Credential pending acceptance');
  if (record.condition === 'verification_failed') throw serviceError('E1012', 'Credential verification failed');
  if (record.timeExpires !== undefined && Math.floor(nowMs / 1000) >= record.timeExpires) {
    throw serviceError('E1009', 'Credential expired');
  }
  return record;
}

/**
 * The caller's credential, for revoke: the spec allows revoking any credential "issued by caller
 * and not revoked", so an expired, pending or failed one is revoked too. 404 when it does not exist
 * or another client issued it, 410 when already revoked.
 */
export function revocableCredential(record: CredentialRecord | undefined, clientId: string): CredentialRecord {
  if (!record || record.clientId !== clientId) throw serviceError('E1005', 'Credential not found');
  if (record.revoked) throw uncodedError(410, 'Credential revoked');
  return record;
}

/** GET /credentials/verify/...: the decoded raw verifiable credential, after checking its signature. */
async function verifiedCredential(record: CredentialRecord, keys: readonly SigningKeys[], nowMs: number) {
  const payload = await verifyJwt(keys, record.jwt, nowMs);
  if (!payload) throw serviceError('E1012', 'Credential verification failed');
  return payload;
}

/** The verdict in words the `word` reading writes beside a credential, as a person would title it. */
function verdictWord(condition: CredentialRecord['condition'], expired: boolean): string {
  if (condition === 'pending_acceptance') return 'Pending Acceptance';
  if (condition === 'verification_failed') return 'Verification Failed';
  return expired ? 'Expired' : 'Valid';
}

/**
 * GET /credentials/verify/... as the `verifyAnswer` reading answers it. `status`: the spec's
 * errors (404, 410, then 412 with E1011, E1012 or E1009). `signature`: the signature and the
 * service's own conditions checked, the expiry left to the reader (an expired credential answered
 * 200, its `exp` past). `verdict`: 200 with `valid` beside the credential, false for an expired,
 * pending or failed one; `word`: 200 with that verdict in words (`status: 'Expired'`); `decoded`:
 * as `signature`, the credential written as a decoded JWT (`{header, payload, signature}`);
 * `wrapped`: as `signature`, the credential under `credential` beside `verified: true` (its
 * signature's verdict alone). Not found and revoked stay 404 and 410 under each ("stays revoked").
 */
export async function verificationAnswer(
  reading: ResolvedReadings['verifyAnswer'],
  record: CredentialRecord | undefined,
  clientId: string,
  keys: readonly SigningKeys[],
  nowMs: number,
): Promise<Record<string, unknown>> {
  if (reading === 'status') return verifiedCredential(usableCredential(record, clientId, nowMs), keys, nowMs);
  const found = revocableCredential(record, clientId);
  const payload = await signedPayload(keys, found.jwt);
  if (!payload) throw serviceError('E1012', 'Credential verification failed');
  const expired = found.timeExpires !== undefined && Math.floor(nowMs / 1000) >= found.timeExpires;
  if (reading === 'verdict') return { ...payload, valid: found.condition === 'issued' && !expired };
  if (reading === 'word') return { ...payload, status: verdictWord(found.condition, expired) };
  if (found.condition === 'pending_acceptance') throw serviceError('E1011', 'Credential pending acceptance');
  if (found.condition === 'verification_failed') throw serviceError('E1012', 'Credential verification failed');
  if (reading === 'decoded') return { header: decodeProtectedHeader(found.jwt), payload, signature: found.jwt.split('.')[2] };
  if (reading === 'wrapped') return { credential: payload, verified: true };
  return payload;
}

export async function decryptFile(record: CredentialRecord, fileKey: CryptoKey): Promise<string> {
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: record.file.iv }, fileKey, record.file.ciphertext);
  return toBase64(new Uint8Array(plain));
}

/** The base64 of a file (`base64`, padded) as the `fileEncoding` reading writes it. */
export function fileDataAs(reading: ResolvedReadings['fileEncoding'], base64: string): string {
  switch (reading) {
    case 'base64':
      return base64;
    case 'base64url':
      return base64.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
    case 'mime':
      return base64.replace(/.{76}(?=.)/g, '$&\r\n');
    case 'data-url':
      return `data:application/octet-stream;base64,${base64}`;
  }
}

export function isDuplicate(records: Iterable<CredentialRecord>, clientId: string, input: ValidCredential): boolean {
  for (const record of records) {
    if (record.clientId === clientId && record.type === input.type && record.issuerRef === input.issuer_ref) return true;
  }
  return false;
}
