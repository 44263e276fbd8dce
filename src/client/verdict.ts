/**
 * What a 200 from GET /credentials/verify says against itself. The spec answers a credential that
 * does not verify with an error (410 revoked, 412 with E1009 expired, E1011 pending acceptance or
 * E1012 verification failed); a service may instead answer 200 and say so in the body: a verdict
 * beside the credential (`valid: false`), or the credential alone, its expiry left to the reader.
 * Either way the answer is not a verified credential, and the SDK never returns it as one: it
 * throws the error the spec's status would have brought (docs/spec-choices.md: "strict on meaning").
 */

import {
  type ApiErrorInit,
  CredentialExpiredError,
  CredentialPendingAcceptanceError,
  CredentialRevokedError,
  CredentialVerificationFailedError,
  InvalidResponseError,
} from '../errors/classes.js';
import { booleanOf, isObject } from '../internal/guards.js';
import { unixTimeOf } from '../internal/times.js';
import type { ApiResult } from './results.js';

/** A verdict field and the value of it that says the credential did not verify. */
const VERDICTS: readonly (readonly [field: string, refuses: boolean])[] = [
  ['valid', false],
  ['verified', false],
  ['revoked', true],
];

/** The verdict fields written in words (`status: 'revoked'`): a text there is read; anything else (a status list's reference object) is not a verdict. */
const WORD_FIELDS = ['status', 'verification_status'] as const;

type CredentialErrorClass =
  | typeof CredentialExpiredError
  | typeof CredentialPendingAcceptanceError
  | typeof CredentialRevokedError
  | typeof CredentialVerificationFailedError;

/** Each verdict word, as {@link wordOf} writes it, and the error it says (`undefined`: it verified). */
const VERDICT_WORDS = new Map<string, CredentialErrorClass | undefined>([
  ['valid', undefined],
  ['verified', undefined],
  ['active', undefined],
  ['issued', undefined],
  ['ok', undefined],
  ['success', undefined],
  ['revoked', CredentialRevokedError],
  ['expired', CredentialExpiredError],
  ['pending', CredentialPendingAcceptanceError],
  ['pending_acceptance', CredentialPendingAcceptanceError],
  ['invalid', CredentialVerificationFailedError],
  ['failed', CredentialVerificationFailedError],
  ['verification_failed', CredentialVerificationFailedError],
  ['unverified', CredentialVerificationFailedError],
  ['rejected', CredentialVerificationFailedError],
  ['suspended', CredentialVerificationFailedError],
]);

/** A verdict word in one spelling: lower case, its words joined by `_` (`Pending Acceptance`, `PENDING-ACCEPTANCE`). */
const wordOf = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/** Where a credential says when it expires: a JWT's `exp` (UNIX time), the W3C data model's dates (v1, v2). */
const EXPIRY_FIELDS = ['exp', 'expirationDate', 'validUntil'] as const;

/** Where a credential says when it becomes valid: a JWT's `nbf` (UNIX time), the W3C data model's `validFrom` (v2). */
const NOT_BEFORE_FIELDS = ['nbf', 'validFrom'] as const;

/**
 * How far a credential's start may be ahead of the service's clock and still be valid now: times
 * are whole seconds, and the clock learnt from the service is known to a second (the SD-JWT
 * verifier's `nbf` leeway, for the same reason). A credential issued in the second it is verified
 * has come; one that starts later than this has not.
 */
const NOT_BEFORE_LEEWAY_SECONDS = 2;

/** The fields of `data` a service may put the credential under rather than write it as `data` itself. */
const CREDENTIAL_WRAPPERS = ['payload', 'credential', 'verifiableCredential', 'verifiable_credential'] as const;

/**
 * Where a verification answer's `data` states the credential's verdict and times: `data` itself
 * and its `vc` (a JWT's payload, as the spec's "decoded raw verifiable credential JSON" reads);
 * and, for `data` that wraps the credential, the object under each of {@link CREDENTIAL_WRAPPERS}
 * and that object's `vc`: a whole decoded JWT (`{header, payload, signature}`, as jsonwebtoken's
 * `decode(token, {complete: true})` writes it), or the credential beside a verdict
 * (`{credential, verified}`). A place read needlessly can only refuse; one left unread would
 * return an expired credential.
 */
function credentialPlaces(data: Record<string, unknown>): [path: string, record: Record<string, unknown>][] {
  const places: [string, Record<string, unknown>][] = [];
  const add = (path: string, record: Record<string, unknown>) => {
    places.push([path, record]);
    if (isObject(record['vc'])) places.push([`${path}.vc`, record['vc']]);
  };
  add('data', data);
  for (const wrapper of CREDENTIAL_WRAPPERS) {
    const wrapped = data[wrapper];
    if (isObject(wrapped)) add(`data.${wrapper}`, wrapped);
  }
  return places;
}

/**
 * Refuses a verification answer whose body says the credential did not verify: a verdict field
 * (`valid` or `verified` false, `revoked` true, in any form a boolean is written), a verdict in
 * words (`status` or `verification_status`: `revoked`, `expired`, `pending_acceptance`,
 * `invalid`, `verification_failed`…, in any case), an expiry (`exp`, `expirationDate`,
 * `validUntil`, in any of {@link credentialPlaces}) already past on the service's clock, or a
 * start (`nbf`, `validFrom`) not yet come on it. A verdict or time that is no boolean or no time
 * is an `InvalidResponseError` naming the field: not read as either. The answer's `data` is kept
 * on the error's `details.data`.
 */
export function refuseUnverified(result: ApiResult<Record<string, unknown>>, nowMs: number): void {
  for (const [path, record] of credentialPlaces(result.data)) {
    refuseVerdict(result, path, record);
    refuseVerdictWord(result, path, record);
    refuseExpired(result, path, record, nowMs);
    refuseNotYetValid(result, path, record, nowMs);
  }
}

/** A verdict in words that says the credential did not verify; a text that is no verdict this SDK knows is read as neither. */
function refuseVerdictWord(result: ApiResult<Record<string, unknown>>, path: string, record: Record<string, unknown>): void {
  for (const field of WORD_FIELDS) {
    const said = record[field];
    if (typeof said !== 'string') continue;
    const word = wordOf(said);
    if (!VERDICT_WORDS.has(word)) throw invalidAnswer(result, `${path}.${field}`, 'is not a verdict this SDK reads');
    const Refusal = VERDICT_WORDS.get(word);
    if (Refusal) throw new Refusal(errorInit(result), undefined, `the service answered 200, but ${path}.${field} is ${word}`);
  }
}

/** A verdict field that says the credential did not verify. */
function refuseVerdict(result: ApiResult<Record<string, unknown>>, path: string, record: Record<string, unknown>): void {
  for (const [field, refuses] of VERDICTS) {
    if (record[field] === undefined || record[field] === null) continue;
    const said = booleanOf(record[field]);
    if (said === undefined) throw invalidAnswer(result, `${path}.${field}`, 'is not a boolean');
    if (said !== refuses) continue;
    const init = errorInit(result);
    if (field === 'revoked') throw new CredentialRevokedError(init, undefined, `the service answered 200, but ${path}.revoked is true`);
    throw new CredentialVerificationFailedError(init, undefined, `the service answered 200, but ${path}.${field} is false`);
  }
}

/**
 * The times `record` states in `fields`, as UNIX seconds, each with its path; an absent one (or
 * `null`) is skipped, one that is no time is an `InvalidResponseError` naming it (read as neither).
 */
function timesIn(
  result: ApiResult<Record<string, unknown>>,
  path: string,
  record: Record<string, unknown>,
  fields: readonly string[],
): [where: string, seconds: number][] {
  const times: [string, number][] = [];
  for (const field of fields) {
    if (record[field] === undefined || record[field] === null) continue;
    const seconds = unixTimeOf(record[field]);
    if (seconds === undefined) throw invalidAnswer(result, `${path}.${field}`, 'is not a time');
    times.push([`${path}.${field}`, seconds]);
  }
  return times;
}

/** An expiry already past on the service's clock (a whole second, as the service's own check reads it). */
function refuseExpired(result: ApiResult<Record<string, unknown>>, path: string, record: Record<string, unknown>, nowMs: number): void {
  for (const [where, expires] of timesIn(result, path, record, EXPIRY_FIELDS)) {
    if (expires <= Math.floor(nowMs / 1000)) {
      throw new CredentialExpiredError(errorInit(result), undefined, `the service answered 200, but the credential's ${where} has passed`);
    }
  }
}

/** A start not yet come on the service's clock, beyond {@link NOT_BEFORE_LEEWAY_SECONDS}: the credential is not valid now. */
function refuseNotYetValid(result: ApiResult<Record<string, unknown>>, path: string, record: Record<string, unknown>, nowMs: number): void {
  for (const [where, starts] of timesIn(result, path, record, NOT_BEFORE_FIELDS)) {
    if (starts > Math.floor(nowMs / 1000) + NOT_BEFORE_LEEWAY_SECONDS) {
      throw new CredentialVerificationFailedError(
        errorInit(result),
        undefined,
        `the service answered 200, but the credential's ${where} has not come: it is not valid yet`,
      );
    }
  }
}

/** The error's facts from the 200 it refuses; the answer's `data` kept on `details.data`. */
function errorInit(result: ApiResult<Record<string, unknown>>): ApiErrorInit {
  return {
    status: result.response?.status ?? 200,
    body: { correlation_id: result.correlationId, details: { data: result.data } },
    requestCorrelationId: undefined,
    headers: result.response?.headers ?? new Headers(),
    attempts: result.response?.attempts ?? 1,
  };
}

/** An `InvalidResponseError` for the answer behind `result`, naming `path`. */
function invalidAnswer(result: ApiResult<object>, path: string, reason: string): InvalidResponseError {
  return new InvalidResponseError(result.response?.status ?? 200, result.correlationId, `${path} ${reason}`, [path]);
}

/**
 * Refuses an action's answer that says the action was not done: one of `fields` of its `data`
 * false (in any form a boolean is written), as a revoke's `revoked: false` or a DELETE's
 * `deleted: false`. Nothing was done, so the answer is an `InvalidResponseError` naming the field,
 * never a success a caller would take for the action; one that is no boolean is refused the same
 * way (read as neither).
 */
export function refuseNotDone(result: ApiResult<object>, fields: readonly string[], notDone: string): void {
  const data = result.data as Record<string, unknown>;
  for (const field of fields) {
    if (data[field] === undefined || data[field] === null) continue;
    const said = booleanOf(data[field]);
    if (said === true) continue;
    throw invalidAnswer(result, `data.${field}`, said === false ? `is false: ${notDone}` : 'is not a boolean');
  }
}
