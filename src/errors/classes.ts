/** The error classes: one root, the HTTP errors by the service's type, and one class per family of refusal. */
import { setOwn } from '../internal/guards.js';
import { printable } from '../internal/text.js';
import type { ErrorCode, InboxErrorCode, OidcErrorCode, SdJwtErrorCode, WebhookErrorCode } from './codes.js';

/**
 * Defines a property that code can read but that serialisers and loggers do not walk: a defined
 * property is neither enumerable nor writable unless it says so.
 */
function hide(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, configurable: true });
}

/** The root of everything the SDK throws. */
export class AcmeIdentityError extends Error {
  /**
   * The class's name, as a string literal: each class below sets its own, so `name` survives
   * minification (a class's own `name` does not). The root is never thrown itself.
   */
  static readonly errorName: string = 'AcmeIdentityError';

  /** Stable, machine-readable code. */
  readonly code: ErrorCode;

  /** The class's {@link AcmeIdentityError.errorName}: on the prototype, so not a field of each error. */
  override get name(): string {
    return (this.constructor as typeof AcmeIdentityError).errorName;
  }

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message);
    this.code = code;
    if (options && 'cause' in options) hide(this, 'cause', options.cause);
  }

  /** A log-safe summary: the name, code, message and the enumerable, non-secret fields. */
  toJSON(): Record<string, unknown> {
    return { ...(this as object), name: this.name, message: this.message };
  }
}

/** What the service said about an error, as parsed from its `error` envelope. */
export interface ServiceErrorBody {
  message?: string | undefined;
  type?: string | undefined;
  code?: string | undefined;
  timestamp?: string | undefined;
  correlation_id?: string | undefined;
  details?: Record<string, unknown> | undefined;
}

export interface ApiErrorInit {
  status: number;
  body: ServiceErrorBody | undefined;
  /** The correlation id sent with the request: used when the body does not carry one. */
  requestCorrelationId: string | undefined;
  headers: Headers;
  /** How many attempts the call made, this answer's included. @default 1 */
  attempts?: number;
}

/** A request's two codes where an error's `details` names them as the creation's answer does (E2002, 409), each printable. */
function namedCodes(details: ServiceErrorBody['details']): Pick<ConflictError, 'accessRequestCode' | 'identitySessionCode'> {
  return {
    accessRequestCode: printable(details?.['access_request_code'], 256),
    identitySessionCode: printable(details?.['identity_session_code'], 256),
  };
}

/** What each error says happened, and what to do where the spec says; never a value of the request. */
const SUMMARIES: Partial<Record<ErrorCode, string>> = {
  ERR_BAD_REQUEST: 'the service refused the request as malformed',
  ERR_VALIDATION: "the service refused the request's parameters",
  ERR_AUTHENTICATION:
    'authentication failed even with a fresh token: check clientId and clientSecret, and for identity endpoints tenantId and timestampFormat (X-Request-Timestamp, whose format the spec does not show)',
  ERR_PERMISSION_DENIED: 'the client is not allowed to do this: check tenantId and the permissions the operator gave the client',
  ERR_NOT_FOUND: "not found (or not this client's)",
  ERR_CONFLICT: 'it conflicts with one that exists',
  ERR_PRECONDITION_FAILED: 'a precondition of the request failed',
  ERR_CREDENTIAL_EXPIRED: 'the credential has expired',
  ERR_CREDENTIAL_REVOKED: 'the credential was revoked',
  ERR_CREDENTIAL_PENDING_ACCEPTANCE: 'the credential is still pending acceptance',
  ERR_CREDENTIAL_VERIFICATION_FAILED: 'the credential failed verification',
  ERR_PAYLOAD_TOO_LARGE: 'the file is larger than the service accepts (5 MB)',
  ERR_RATE_LIMITED: 'rate limited by the service: retry later',
  ERR_INTERNAL: 'the service failed with an internal error: retry later',
  ERR_DATABASE: "the service's database failed: retry later",
  ERR_EXTERNAL_SERVICE: 'a service the service depends on failed: retry later',
  ERR_SERVICE_UNAVAILABLE: 'the service is unavailable: retry later',
};

/** An HTTP error answered by the service. Subclasses narrow it by the spec's error type. */
export class ApiError<Code extends ErrorCode = ErrorCode> extends AcmeIdentityError {
  static override readonly errorName: string = 'ApiError';
  /** The code of this class's errors: each class below that adds nothing but its code sets its own. */
  static readonly errorCode: ErrorCode = 'ERR_API';

  declare readonly code: Code;

  /** HTTP status. */
  readonly status: number;
  /** The service's error `type` (for example `VALIDATION_ERROR`), when it sent one; control characters removed, at most 64 characters. */
  readonly type: string | undefined;
  /** The service's error code (for example `E1001`), when it sent one; control characters removed, at most 64 characters. */
  readonly serviceCode: string | undefined;
  /** The service's correlation id, or the one the SDK sent when the body has none. */
  readonly correlationId: string | undefined;
  /**
   * How many attempts the call made, this answer's included. Above 1 after a retry: a 404 from a
   * retried delete, or a 410 from a retried revoke, can mean the first attempt took effect and
   * only its answer was lost.
   */
  readonly attempts: number;
  /** The service's human-readable message. Not part of `message`: the SDK cannot vouch it holds no personal data. */
  declare readonly serviceMessage: string | undefined;
  /** The service's `details` object, untouched; for a 200 refused for what its body says (`credentials.verify`), `{data}`: the answer's `data`. */
  declare readonly details: Readonly<Record<string, unknown>> | undefined;
  /** The response headers. */
  declare readonly headers: Headers;
  /** The service's error object exactly as it arrived (`type` and `code` above are made printable). */
  declare readonly body: ServiceErrorBody | undefined;

  constructor(init: ApiErrorInit, code: ErrorCode = (new.target as typeof ApiError).errorCode, summary?: string) {
    const body = init.body;
    // What the service wrote is bounded and stripped of control characters before it reaches a
    // message or an enumerable field (log injection); the raw body stays on `body`, non-enumerable.
    const type = printable(body?.type);
    const serviceCode = printable(body?.code);
    const correlationId = printable(body?.correlation_id, 128) ?? printable(init.requestCorrelationId, 128);
    // What happened in words, then the facts an operator searches for: status, type and code, correlation id.
    const facts = [
      `HTTP ${init.status}`,
      [type, serviceCode].filter(Boolean).join(' '),
      correlationId && `correlation id ${correlationId}`,
    ];
    super(code, `${summary ?? SUMMARIES[code] ?? 'the service answered with an error'} (${facts.filter(Boolean).join(', ')})`);
    this.status = init.status;
    this.type = type;
    this.serviceCode = serviceCode;
    this.correlationId = correlationId;
    this.attempts = init.attempts ?? 1;
    hide(this, 'serviceMessage', body?.message);
    hide(this, 'details', body?.details);
    hide(this, 'headers', init.headers);
    hide(this, 'body', body);
  }
}

/** 400 `INVALID_REQUEST` (E1002), or a 400 with no recognised code. */
export class BadRequestError extends ApiError<'ERR_BAD_REQUEST'> {
  static override readonly errorName = 'BadRequestError';
  static override readonly errorCode = 'ERR_BAD_REQUEST';
}

/**
 * `details.validation_errors` as field to message. The spec's form is a map; a list of
 * `{field, message}` (or `name`/`path`/`loc` and `msg`/`error`, as common validators write them)
 * is read the same way, so a refusal names its fields whichever form the service chose.
 */
function fieldMessages(raw: unknown): Record<string, string> {
  const messages: Record<string, string> = {};
  if (Array.isArray(raw)) {
    for (const item of raw) {
      if (item === null || typeof item !== 'object') continue;
      const entry = item as Record<string, unknown>;
      const where = entry['field'] ?? entry['name'] ?? entry['path'] ?? entry['loc'];
      const field = Array.isArray(where) ? where.join('.') : where;
      if (typeof field !== 'string' || field === '') continue;
      setOwn(messages, field, String(entry['message'] ?? entry['msg'] ?? entry['error'] ?? ''));
    }
  } else if (raw && typeof raw === 'object') {
    for (const [field, message] of Object.entries(raw)) setOwn(messages, field, String(message));
  }
  return messages;
}

/** 400 `VALIDATION_ERROR` (E1001), or 422 from the credential endpoints. */
export class ValidationError extends ApiError<'ERR_VALIDATION'> {
  static override readonly errorName = 'ValidationError';

  /** Field name to the service's message (non-enumerable: messages may quote the input). */
  declare readonly validationErrors: Readonly<Record<string, string>>;
  /** The names of the fields the service refused. */
  readonly fields: readonly string[];

  constructor(init: ApiErrorInit) {
    const validationErrors = fieldMessages(init.body?.details?.['validation_errors']);
    // Field names are the service's words too: printable, and at most ten of them in the message.
    const fields = Object.keys(validationErrors).map((field) => printable(field) as string);
    const named = fields.slice(0, 10).join(', ') + (fields.length > 10 ? ` and ${fields.length - 10} more` : '');
    super(
      init,
      'ERR_VALIDATION',
      fields.length > 0
        ? `the service refused ${fields.length === 1 ? 'a parameter' : 'parameters'}: ${named} (see validationErrors)`
        : undefined,
    );
    this.fields = fields;
    hide(this, 'validationErrors', validationErrors);
  }
}

/** 401 `AUTHENTICATION_FAILED` (E1003): missing or invalid authentication. */
export class AuthenticationError extends ApiError<'ERR_AUTHENTICATION'> {
  static override readonly errorName = 'AuthenticationError';
  static override readonly errorCode = 'ERR_AUTHENTICATION';
}

/** 403 `UNAUTHORIZED` (E1004): authenticated, but not allowed. */
export class PermissionDeniedError extends ApiError<'ERR_PERMISSION_DENIED'> {
  static override readonly errorName = 'PermissionDeniedError';
  static override readonly errorCode = 'ERR_PERMISSION_DENIED';
}

/** 404 `NOT_FOUND` (E1005). */
export class NotFoundError extends ApiError<'ERR_NOT_FOUND'> {
  static override readonly errorName = 'NotFoundError';
  static override readonly errorCode = 'ERR_NOT_FOUND';
}

/** 409 `CONFLICT` (E1006): an open identity request to the same person, or a duplicate credential. */
export class ConflictError extends ApiError<'ERR_CONFLICT'> {
  static override readonly errorName = 'ConflictError';

  /** On identity requests: `details.existing_code`, else the `accessRequestCode` below (the sandbox's `existing_code` is that one). */
  readonly existingCode: string | undefined;
  /** The existing request's codes, where `details` names them as the creation's answer does: with both, it can be read or deleted. */
  readonly accessRequestCode: string | undefined;
  readonly identitySessionCode: string | undefined;

  constructor(init: ApiErrorInit) {
    const details = init.body?.details;
    const { accessRequestCode, identitySessionCode } = namedCodes(details);
    const existingCode = printable(details?.['existing_code'], 256) ?? accessRequestCode ?? identitySessionCode;
    super(
      init,
      'ERR_CONFLICT',
      existingCode
        ? `an open identity request to this person exists (existingCode ${existingCode}): use it, or delete it and create the request again`
        : undefined,
    );
    this.existingCode = existingCode;
    this.accessRequestCode = accessRequestCode;
    this.identitySessionCode = identitySessionCode;
  }
}

/** 412 `PRECONDITION_FAILED` (E1008), or a 412 with no recognised code. */
export class PreconditionFailedError extends ApiError<'ERR_PRECONDITION_FAILED'> {
  static override readonly errorName = 'PreconditionFailedError';
  static override readonly errorCode = 'ERR_PRECONDITION_FAILED';
}

/** 412 `CREDENTIAL_EXPIRED` (E1009). */
export class CredentialExpiredError extends ApiError<'ERR_CREDENTIAL_EXPIRED'> {
  static override readonly errorName = 'CredentialExpiredError';
  static override readonly errorCode = 'ERR_CREDENTIAL_EXPIRED';
}

/** 410 from a credential endpoint, or 412 `CREDENTIAL_REVOKED` (E1010). */
export class CredentialRevokedError extends ApiError<'ERR_CREDENTIAL_REVOKED'> {
  static override readonly errorName = 'CredentialRevokedError';
  static override readonly errorCode = 'ERR_CREDENTIAL_REVOKED';
}

/** 412 `CREDENTIAL_PENDING_ACCEPTANCE` (E1011). */
export class CredentialPendingAcceptanceError extends ApiError<'ERR_CREDENTIAL_PENDING_ACCEPTANCE'> {
  static override readonly errorName = 'CredentialPendingAcceptanceError';
  static override readonly errorCode = 'ERR_CREDENTIAL_PENDING_ACCEPTANCE';
}

/** 412 `CREDENTIAL_VERIFICATION_FAILED` (E1012). */
export class CredentialVerificationFailedError extends ApiError<'ERR_CREDENTIAL_VERIFICATION_FAILED'> {
  static override readonly errorName = 'CredentialVerificationFailedError';
  static override readonly errorCode = 'ERR_CREDENTIAL_VERIFICATION_FAILED';
}

/** 413: the credential file is larger than 5 MB. */
export class PayloadTooLargeError extends ApiError<'ERR_PAYLOAD_TOO_LARGE'> {
  static override readonly errorName = 'PayloadTooLargeError';
  static override readonly errorCode = 'ERR_PAYLOAD_TOO_LARGE';
}

/** 429 `RATE_LIMIT_EXCEEDED` (E1007). */
export class RateLimitError extends ApiError<'ERR_RATE_LIMITED'> {
  static override readonly errorName = 'RateLimitError';

  /** How long the service asked the caller to wait (from `Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit, retryAfterMs: number | undefined) {
    super(
      init,
      'ERR_RATE_LIMITED',
      retryAfterMs === undefined ? undefined : `rate limited by the service: retry after ${Math.ceil(retryAfterMs / 1000)} s`,
    );
    this.retryAfterMs = retryAfterMs;
  }
}

/** 500 `INTERNAL_ERROR` (E2001), or a 5xx with no recognised code. */
export class InternalServerError extends ApiError<'ERR_INTERNAL'> {
  static override readonly errorName = 'InternalServerError';
  static override readonly errorCode = 'ERR_INTERNAL';
}

/**
 * 500 `INTERNAL_ERROR_EMAIL` (E2002) on identity-request create: the request **was created**, only
 * the email to the person failed. The person can still finish at `redirectUrl`.
 */
export class EmailDeliveryError extends ApiError<'ERR_EMAIL_DELIVERY'> {
  static override readonly errorName = 'EmailDeliveryError';

  /**
   * `details.code`: the code of the request that was created, as the service wrote it. The spec
   * does not say which of the two; the sandbox gives the `identity_session_code` (the one that
   * retrieves the result: the `access_request_code` arrives with the webhook).
   */
  readonly requestCode: string | undefined;
  /**
   * `details.access_request_code` and `details.identity_session_code`, where the service names the
   * codes as the creation's answer does rather than (or beside) `details.code`; `requestCode` is
   * then the one `details.code` gives, or else the identity_session_code named here.
   */
  readonly accessRequestCode: string | undefined;
  readonly identitySessionCode: string | undefined;
  /** `details.redirect_url`: where the person can still finish (non-enumerable: it is the person's link). */
  declare readonly redirectUrl: string | undefined;

  constructor(init: ApiErrorInit) {
    super(
      init,
      'ERR_EMAIL_DELIVERY',
      'the request was created, but the email to the person failed: do not create it again; send the person redirectUrl yourself',
    );
    const details = init.body?.details;
    const url = details?.['redirect_url'];
    ({ accessRequestCode: this.accessRequestCode, identitySessionCode: this.identitySessionCode } = namedCodes(details));
    this.requestCode = printable(details?.['code'], 256) ?? this.identitySessionCode ?? this.accessRequestCode;
    hide(this, 'redirectUrl', typeof url === 'string' ? url : undefined);
  }
}

/** 500 `DATABASE_ERROR` (E2003). */
export class DatabaseError extends ApiError<'ERR_DATABASE'> {
  static override readonly errorName = 'DatabaseError';
  static override readonly errorCode = 'ERR_DATABASE';
}

/** 502 `EXTERNAL_SERVICE_ERROR` (E2004). */
export class ExternalServiceError extends ApiError<'ERR_EXTERNAL_SERVICE'> {
  static override readonly errorName = 'ExternalServiceError';
  static override readonly errorCode = 'ERR_EXTERNAL_SERVICE';
}

/** 503 `SERVICE_UNAVAILABLE` (E2005). */
export class ServiceUnavailableError extends ApiError<'ERR_SERVICE_UNAVAILABLE'> {
  static override readonly errorName = 'ServiceUnavailableError';
  static override readonly errorCode = 'ERR_SERVICE_UNAVAILABLE';
}

/** The `code` of a system or undici error (`ECONNRESET`, `UND_ERR_SOCKET`), looked for along the `cause` chain. */
export function systemCode(error: unknown): string | undefined {
  for (let depth = 0; depth < 4 && error !== null && typeof error === 'object'; depth++) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code;
    error = (error as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The request got no complete HTTP answer: no connection, a reset or close before the headers
 * (`phase: 'send'`), or a body cut short after them (`phase: 'body'`). Safe calls were retried first.
 */
export class ConnectionError extends AcmeIdentityError {
  static override readonly errorName = 'ConnectionError';

  declare readonly code: 'ERR_CONNECTION';

  readonly correlationId: string | undefined;
  /** `send`: nothing came back; `body`: the status and headers came, the body was cut short. */
  readonly phase: 'send' | 'body';
  /** The system's or the HTTP stack's error code (`ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`), when there is one. */
  readonly systemCode: string | undefined;
  /** The host the request went to (public configuration, never a path or a query). */
  readonly host: string | undefined;
  constructor(correlationId: string | undefined, cause: unknown, phase: 'send' | 'body' = 'send', host?: string) {
    const code = systemCode(cause);
    const where = host ? ` ${host}` : ' the service';
    const what = phase === 'body' ? `the connection to${where} failed while the response body was read` : `could not reach${where}`;
    super('ERR_CONNECTION', code ? `${what} (${code})` : what, { cause });
    this.host = host;
    this.correlationId = correlationId;
    this.phase = phase;
    this.systemCode = code;
  }
}

/** The call's overall deadline (all attempts together) elapsed. */
export class TimeoutError extends AcmeIdentityError {
  static override readonly errorName = 'TimeoutError';

  declare readonly code: 'ERR_TIMEOUT';

  readonly correlationId: string | undefined;
  readonly timeoutMs: number;
  constructor(correlationId: string | undefined, timeoutMs: number) {
    super('ERR_TIMEOUT', `the call did not finish within ${timeoutMs} ms`);
    this.correlationId = correlationId;
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's `AbortSignal` fired. */
export class AbortError extends AcmeIdentityError {
  static override readonly errorName = 'AbortError';

  declare readonly code: 'ERR_ABORTED';

  readonly correlationId: string | undefined;
  constructor(correlationId: string | undefined, reason: unknown) {
    super('ERR_ABORTED', 'the call was aborted', { cause: reason });
    this.correlationId = correlationId;
  }
}

/** The service answered something the SDK cannot read: not JSON, or not the documented shape. */
export class InvalidResponseError extends AcmeIdentityError {
  static override readonly errorName = 'InvalidResponseError';

  declare readonly code: 'ERR_INVALID_RESPONSE';

  readonly status: number;
  readonly correlationId: string | undefined;
  /** Where the response departed from the documented shape (paths only, never values). */
  readonly issues: readonly string[];
  constructor(status: number, correlationId: string | undefined, reason: string, issues: readonly string[] = []) {
    super('ERR_INVALID_RESPONSE', `unreadable response (HTTP ${status}): ${reason}`);
    this.status = status;
    this.correlationId = printable(correlationId, 128);
    this.issues = issues;
  }
}

/** One refused input field: where, and why (never the value). */
export interface InputIssue {
  /** Dotted path of the field, for example `claims.document.passport.passport_number` or `phone`. */
  readonly field: string;
  readonly message: string;
}

/** The caller's input was refused before anything was sent. */
export class InvalidInputError extends AcmeIdentityError {
  static override readonly errorName = 'InvalidInputError';

  declare readonly code: 'ERR_INVALID_INPUT';

  /** The first refused field. */
  readonly field: string;
  readonly issues: readonly InputIssue[];
  constructor(issues: readonly InputIssue[]) {
    const first = issues[0] ?? { field: '(input)', message: 'invalid' };
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super('ERR_INVALID_INPUT', `${first.field}: ${first.message}${more}`);
    this.field = first.field;
    this.issues = issues;
  }
}

/** The client was configured with options it cannot work with. */
export class ConfigurationError extends AcmeIdentityError {
  static override readonly errorName = 'ConfigurationError';

  declare readonly code: 'ERR_INVALID_CONFIG';

  readonly option: string;
  constructor(option: string, message: string) {
    super('ERR_INVALID_CONFIG', `${option}: ${message}`);
    this.option = option;
  }
}

/**
 * An SD-JWT, credential JWT or identity response was refused. `code` says which rule failed;
 * the message names claims and positions, never values (they are personal data).
 */
export class SdJwtVerificationError extends AcmeIdentityError {
  static override readonly errorName = 'SdJwtVerificationError';

  declare readonly code: SdJwtErrorCode;
  constructor(code: SdJwtErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** The issuer's discovery document or JWKS could not be fetched or read. */
export class JwksError extends AcmeIdentityError {
  static override readonly errorName = 'JwksError';

  declare readonly code: 'ERR_JWKS';

  /** The URL that failed (public metadata, never a secret). */
  readonly url: string;
  constructor(url: string, message: string, options?: { cause?: unknown }) {
    super('ERR_JWKS', `${url}: ${message}`, options);
    this.url = url;
  }
}

/** A claim value is not of the form the spec gives it (for example `acmeidentity.name` is not JSON). */
export class ClaimDecodeError extends AcmeIdentityError {
  static override readonly errorName = 'ClaimDecodeError';

  declare readonly code: 'ERR_CLAIM_DECODE';

  /** The claim key whose value could not be decoded. */
  readonly claim: string;
  constructor(claim: string, message: string) {
    super('ERR_CLAIM_DECODE', `${claim}: ${message}`);
    this.claim = claim;
  }
}

/** A webhook delivery was refused. The message never says which byte differed, nor echoes a secret. */
export class WebhookVerificationError extends AcmeIdentityError {
  static override readonly errorName = 'WebhookVerificationError';

  declare readonly code: WebhookErrorCode;
  constructor(code: WebhookErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** Where `getVerified` stopped: see {@link IdentityFlowError.step}. */
export type IdentityFlowStep = 'cancelled' | 'token' | 'fetch' | 'verify';

/** A step of the asynchronous identity flow (webhook to verified identity) failed; `cause` holds the step's own error. */
export class IdentityFlowError extends AcmeIdentityError {
  static override readonly errorName = 'IdentityFlowError';

  declare readonly code: 'ERR_IDENTITY_FLOW';

  /**
   * `cancelled`: the request was cancelled, so there is no identity: the webhook said so, or (for
   * an event of another or no kind) the service answered 404 for a request that exists;
   * `token`: the webhook's X-Access-Token does not name the event's request;
   * `fetch`: GET /identity/response failed; `verify`: the response was refused.
   */
  readonly step: IdentityFlowStep;
  constructor(step: IdentityFlowStep, message: string, cause: unknown) {
    super('ERR_IDENTITY_FLOW', `${step}: ${message}`, { cause });
    this.step = step;
  }
}

/**
 * The identity inbox set a delivery aside or refused a call. `code` says why; `entryId` names the
 * entry (its `access_request_code`); the failure behind it, when there was one, is the `cause`.
 */
export class InboxError extends AcmeIdentityError {
  static override readonly errorName = 'InboxError';

  declare readonly code: InboxErrorCode;

  readonly entryId: string;
  constructor(code: InboxErrorCode, entryId: string, message: string, cause?: unknown) {
    super(code, message, cause === undefined ? undefined : { cause });
    this.entryId = entryId;
  }
}

/**
 * An OIDC sign-in failed. `code` says which check; the message names what was wrong, never a
 * code, verifier, token or claim value.
 */
export class OidcError extends AcmeIdentityError {
  static override readonly errorName = 'OidcError';

  declare readonly code: OidcErrorCode;
  /** The OAuth `error` the service answered (`access_denied`, `invalid_grant`, …), when it answered one. */
  declare readonly error?: string;
  /** The service's `error_description`, when it gave one. */
  declare readonly errorDescription?: string;
  /** The HTTP status of the answer, for endpoint errors. */
  declare readonly status?: number;
  /** The ID token claim that failed, for `ERR_OIDC_ID_TOKEN`, `ERR_OIDC_ID_TOKEN_EXPIRED` and `ERR_OIDC_NONCE`. */
  declare readonly claim?: string;
  constructor(
    code: OidcErrorCode,
    message: string,
    details: { error?: string; errorDescription?: string; status?: number; claim?: string; cause?: unknown } = {},
  ) {
    // The base class keeps `cause` (non-enumerable) when `details` has one.
    super(code, message, details);
    const { cause: _, ...fields } = details;
    Object.assign(this, fields);
  }
}
