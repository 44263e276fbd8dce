/** Response helpers of the fake service: the spec's success envelope and error bodies. */
import { ERROR_TABLE, type ServiceErrorCode } from '../contract/errors.js';
import { booleansAs, numbersAsStrings, timesAs, timesInUnit, type ResolvedReadings } from './readings.js';

/** Per-request facts every response needs. */
export interface ResponseContext {
  correlationId: string;
  /** The service clock, in milliseconds. */
  now: number;
  /** How the fake reads what the spec leaves open; the defaults when absent. */
  readings?: ResolvedReadings;
}

/**
 * Sets `Date`, as an origin server with a clock sends it (RFC 9110 §6.6.1), on every answer of the
 * REST API and the authorization server alike, unless the `dateHeader` reading leaves it out. A
 * `Date` the answer carries already is kept.
 */
export function stampDate(headers: Headers, ctx: ResponseContext): void {
  if (ctx.readings?.dateHeader !== 'omitted' && !headers.has('date')) headers.set('date', new Date(ctx.now).toUTCString());
}

function headersFor(ctx: ResponseContext, extra?: Record<string, string>): Headers {
  const headers = new Headers(extra);
  headers.set('content-type', 'application/json');
  headers.set('x-correlation-id', ctx.correlationId);
  stampDate(headers, ctx);
  return headers;
}

/** A body with the spec's integers, times and booleans written as the `times`, `timeUnit`, `numbers` and `booleans` readings say. */
export function withNumbers(ctx: ResponseContext, body: unknown): unknown {
  const readings = ctx.readings;
  if (!readings) return body;
  // A date has no unit: the ISO form of a time is written from the seconds, whatever the unit reading.
  const inUnit = timesInUnit(readings.timeUnit, body);
  const timed = readings.times === 'iso8601' ? timesAs('iso8601', body) : timesAs(readings.times, inUnit);
  const numbered = readings.numbers === 'string' ? numbersAsStrings(timed) : timed;
  return booleansAs(readings.booleans, numbered);
}

export function json(ctx: ResponseContext, body: unknown, status = 200, extra?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: headersFor(ctx, extra) });
}

/** A 200 of another media type, with the headers every answer carries. */
export function typed(ctx: ResponseContext, body: string, contentType: string): Response {
  const headers = headersFor(ctx);
  headers.set('content-type', contentType);
  return new Response(body, { headers });
}

/**
 * `{data, correlation_id}`: the spec's wrapper around every successful REST result, as the
 * `envelope` reading writes it (with `success: true` or JSend's `status: 'success'` beside it, or
 * wrapped once more), and `meta: null` where the `absent` reading writes an absent optional.
 */
export function ok(ctx: ResponseContext, data: unknown): Response {
  const envelope: Record<string, unknown> = { data: withNumbers(ctx, data), correlation_id: ctx.correlationId };
  if (ctx.readings?.absent === 'null') envelope['meta'] = null;
  return json(ctx, enveloped(ctx.readings?.envelope ?? 'spec', envelope));
}

/**
 * The answer to an action whose result the spec writes as `{data: …}` (a DELETE's message, a
 * revoke's `revoked: true`), as its reading says: that (`message`, `revoked`), 200 with no body
 * (`empty`), or 204 No Content (`no-content`).
 */
export function actionAnswer(
  ctx: ResponseContext,
  reading: ResolvedReadings['deleteAnswer'] | ResolvedReadings['revokeAnswer'],
  data: unknown,
): Response {
  if (reading === 'no-content') return new Response(null, { status: 204, headers: { 'x-correlation-id': ctx.correlationId } });
  if (reading === 'empty') return new Response('', { status: 200, headers: { 'x-correlation-id': ctx.correlationId } });
  return ok(ctx, data);
}

function enveloped(reading: ResolvedReadings['envelope'], envelope: Record<string, unknown>): Record<string, unknown> {
  switch (reading) {
    case 'success':
      return { success: true, ...envelope };
    case 'jsend':
      return { status: 'success', ...envelope };
    case 'nested':
      return { data: envelope, correlation_id: envelope['correlation_id'] };
    case 'spec':
      return envelope;
  }
}

/** An error thrown by a route; the router turns it into the spec's error envelope. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

/**
 * An error of the spec's table. `minimal` sends only `type` and `code`, as the spec allows for
 * 401, 403, 429 and 500.
 */
export function serviceError(
  code: ServiceErrorCode,
  message: string,
  options: { details?: Record<string, unknown>; minimal?: boolean; headers?: Record<string, string> } = {},
): HttpError {
  const { type, status } = ERROR_TABLE[code];
  const body: Record<string, unknown> = options.minimal
    ? { type, code }
    : { message, type, code, ...(options.details ? { details: options.details } : {}) };
  return new HttpError(status, body, options.headers);
}

/**
 * An error of a status whose code the spec does not show (410, 413, 422 of the credential
 * endpoints). Every error carries `type` and `code` (spec, "Errors"), so the fake names the code of
 * the table that means the same: 410 `E1010` revoked, 413 and 422 `E1001` validation. A client
 * must go by the status for these (the SDK does).
 */
export function uncodedError(status: 410 | 413 | 422, message: string, details?: Record<string, unknown>): HttpError {
  const code: ServiceErrorCode = status === 410 ? 'E1010' : 'E1001';
  return new HttpError(status, { message, type: ERROR_TABLE[code].type, code, ...(details ? { details } : {}) });
}

/**
 * The answer carrying `error`. `rest`: whether it answers a REST call, whose status the
 * `errorStatus` reading may make 200 (never an OIDC endpoint's, nor a gateway's).
 */
export function errorResponse(ctx: ResponseContext, error: HttpError, rest = false): Response {
  const body = { ...error.body };
  if (!('type' in body && Object.keys(body).length === 2)) {
    body['timestamp'] = new Date(ctx.now).toISOString();
    body['correlation_id'] = ctx.correlationId;
  }
  // The `absent` reading: a field the error does not carry is written as `null`.
  if (ctx.readings?.absent === 'null') for (const name of ['message', 'details']) body[name] ??= null;
  // The `errorCase` reading: `e1005`, `not_found`.
  if (ctx.readings?.errorCase === 'lower') {
    for (const name of ['code', 'type']) if (typeof body[name] === 'string') body[name] = body[name].toLowerCase();
  }
  const status = rest && ctx.readings?.errorStatus === 'ok' ? 200 : error.status;
  return json(ctx, ctx.readings?.errorBody === 'bare' ? body : { error: body }, status, error.headers);
}

export function validationError(errors: Record<string, string>): HttpError {
  return serviceError('E1001', 'Validation failed', { details: { validation_errors: errors } });
}
