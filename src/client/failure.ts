/**
 * What an answer says went wrong. An error status carries the service's error fields, in the
 * spec's form or another (`errorFields` finds them); a success status may carry them too, from a
 * service or a gateway that answers every call 200 and says in the body that it failed
 * (`failureIn`). Such an answer is the error it carries, never a
 * success opened from whatever else it holds: a DELETE answered `200 {error: {code: 'E1005'}}`
 * deleted nothing, and a `/credentials/verify` answered so verified nothing
 * (docs/spec-choices.md: "strict on meaning").
 */
import { ERROR_TABLE, namedCode, type ServiceErrorCode } from '../contract/errors.js';
import type { ServiceErrorBody } from '../errors/index.js';
import { booleanOf, isObject } from '../internal/guards.js';

/** The fields of the service's error object that are text. */
const ERROR_TEXT_FIELDS = ['message', 'type', 'code', 'timestamp', 'correlation_id'] as const;

/**
 * The service's error body, wherever it put it (`{error: {…}}`, or its fields at the top), or
 * `undefined` when there is none to read. Each field the spec names is kept when it has its type
 * and left out otherwise: a `null` (an absent field, as some services write it) or a `details` that
 * is no object never hides the code beside it, which decides the error's class (an E2002 read as a
 * bare 500 would invite creating the request again). Fields the spec does not name are kept as sent.
 */
function errorBody(sent: unknown): ServiceErrorBody | undefined {
  const wrapped = isObject(sent) && isObject(sent['error']);
  const fields = wrapped ? sent['error'] : sent;
  if (!isObject(fields)) return undefined;
  const body: Record<string, unknown> = { ...fields };
  for (const name of ERROR_TEXT_FIELDS) if (typeof body[name] !== 'string') delete body[name];
  if (!isObject(body['details'])) delete body['details'];
  // A body without the `error` envelope is the service's error only when it names a type or a code.
  return wrapped || body['type'] !== undefined || body['code'] !== undefined ? (body as ServiceErrorBody) : undefined;
}

/** The form of the service's error codes (`E1005`; any case, as `errorCase` reads them). */
const SERVICE_CODE = /^E\d{4}$/i;

/** Whether a field says something went wrong: present, and neither empty nor a boolean false. */
function saysError(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  const flag = booleanOf(value);
  if (flag !== undefined) return flag;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return !isObject(value) || Object.keys(value).length > 0;
}

/**
 * Whether a successful answer says the call failed, by any of the forms services and gateways use:
 * 1. `success` or `ok` false, in any form a boolean is written;
 * 2. JSend's `status` `fail` or `error` beside its `data`, `message` or `error`;
 * 3. an `error` it carries: the spec's error object, OAuth's error string (`{error,
 *    error_description}`), or `true`;
 * 4. an `errors` list that is not empty (JSON:API's and GraphQL's form);
 * 5. a service error code (`E1005`) at its top: the spec's error fields unwrapped (beside a
 *    `data: null`, or a `data` holding what failed, as much as alone).
 * No record of the service has a `success`, `ok`, `error` or `errors` field, none has those
 * `status` values (the status records' are `operational`, `degraded` or `healthy`), and none has
 * a `code` of the service's error form.
 */
function saysFailed(body: Record<string, unknown>): boolean {
  for (const flag of ['success', 'ok']) if (body[flag] !== undefined && booleanOf(body[flag]) === false) return true;
  const status = typeof body['status'] === 'string' ? body['status'].trim().toLowerCase() : undefined;
  if ((status === 'fail' || status === 'error') && ['data', 'message', 'error'].some((field) => Object.hasOwn(body, field))) return true;
  if (saysError(body['error']) || saysError(body['errors'])) return true;
  return typeof body['code'] === 'string' && SERVICE_CODE.test(body['code'].trim());
}

/** OAuth's error form (`{error: 'invalid_request', error_description}`) as the service's fields: its error is a type. */
function oauthError(body: Record<string, unknown>): ServiceErrorBody | undefined {
  const { error, error_description: description } = body;
  if (typeof error !== 'string') return undefined;
  return typeof description === 'string' ? { type: error, message: description } : { type: error };
}

/**
 * The error's fields in an answer that failed (by its status, or by what it says), where the
 * answer put them: its error object or its top level first (the spec's place), then the first of
 * its `errors`, then OAuth's error string, then its `data`; `undefined` when none names a code or
 * a type (then the status alone classes the error, or it is a plain `ApiError`).
 */
export function errorFields(body: unknown): ServiceErrorBody | undefined {
  if (!isObject(body)) return undefined;
  const errors = body['errors'];
  return errorBody(body) ?? errorBody(Array.isArray(errors) ? errors[0] : undefined) ?? oauthError(body) ?? errorBody(body['data']);
}

/** The failure a successful answer carries (its fields by {@link errorFields}), or `undefined` when it says none (see `saysFailed`). */
export function failureIn(body: unknown): { readonly body: ServiceErrorBody | undefined } | undefined {
  return isObject(body) && saysFailed(body) ? { body: errorFields(body) } : undefined;
}

/**
 * The codes of the table whose status the transport acts on: a token refused (401, replayed once
 * with a fresh token), a rate limit (429) and a server error (5xx), which it retries by the rules of
 * client/retry.ts. It accepts any other status as it is.
 */
const ACTED_ON = (Object.keys(ERROR_TABLE) as ServiceErrorCode[]).filter((code) => {
  const { status } = ERROR_TABLE[code];
  return status === 401 || status === 429 || status >= 500;
});

/** A prefilter: one of those codes or their types somewhere in the text, in any case; only such a text is parsed. */
const MAY_CARRY = new RegExp(ACTED_ON.flatMap((code) => [code, ERROR_TABLE[code].type]).join('|'), 'i');

/**
 * The status a successful answer's failure stands for ({@link failureIn}: its code, or its type,
 * as the spec's table pairs it with a status): a service that answers errors 200 writes a 401, a
 * 429 or a 503 so, and the transport weighs the answer as that status. `undefined` when it carries
 * no failure the table names. A text that names no code the transport acts on is not parsed: the
 * transport would accept the answer as it is either way.
 */
export function statusCarried(text: string): number | undefined {
  if (!MAY_CARRY.test(text)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const fields = failureIn(body)?.body;
  const code = namedCode(fields?.code, fields?.type);
  return code === undefined ? undefined : ERROR_TABLE[code].status;
}
