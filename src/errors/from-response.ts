/** From a service's error answer to the typed error: by status where it has one meaning, then code, type and status. */
import { namedCode, type ServiceErrorCode } from '../contract/errors.js';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  CredentialExpiredError,
  CredentialPendingAcceptanceError,
  CredentialRevokedError,
  CredentialVerificationFailedError,
  DatabaseError,
  EmailDeliveryError,
  ExternalServiceError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PreconditionFailedError,
  RateLimitError,
  ServiceUnavailableError,
  ValidationError,
  type ApiErrorInit,
} from './classes.js';

type ApiErrorClass = new (init: ApiErrorInit) => ApiError;

/** Each code of the contract's error table (but E1007, a RateLimitError whatever its status) names its class; its type names the same one. */
const byServiceCode: Record<string, ApiErrorClass> = {
  E1001: ValidationError,
  E1002: BadRequestError,
  E1003: AuthenticationError,
  E1004: PermissionDeniedError,
  E1005: NotFoundError,
  E1006: ConflictError,
  E1008: PreconditionFailedError,
  E1009: CredentialExpiredError,
  E1010: CredentialRevokedError,
  E1011: CredentialPendingAcceptanceError,
  E1012: CredentialVerificationFailedError,
  E2001: InternalServerError,
  E2002: EmailDeliveryError,
  E2003: DatabaseError,
  E2004: ExternalServiceError,
  E2005: ServiceUnavailableError,
} satisfies Record<Exclude<ServiceErrorCode, 'E1007'>, ApiErrorClass>;

/** A service `type`, classed as the code the contract's table pairs it with (`VALIDATION_ERROR` as E1001). */
function byType(type: string | undefined): ApiErrorClass | undefined {
  return lookup(byServiceCode, namedCode(undefined, type));
}

/** For answers whose body names neither a code nor a type the SDK knows. */
const byStatus: Record<number, ApiErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  410: CredentialRevokedError,
  412: PreconditionFailedError,
  413: PayloadTooLargeError,
  422: ValidationError,
  500: InternalServerError,
  502: ExternalServiceError,
  503: ServiceUnavailableError,
};

/** Statuses with one meaning, whatever code the body names (a 413 is too large even if its body says E1001). */
const byStatusFirst: Record<number, ApiErrorClass> = {
  410: CredentialRevokedError,
  413: PayloadTooLargeError,
};

/**
 * The typed error for an HTTP error answer. A 429 is always a {@link RateLimitError} carrying
 * `retryAfterMs`, a 410 a {@link CredentialRevokedError} and a 413 a {@link PayloadTooLargeError};
 * any other status goes by the service's `code`, else its `type`, else the status. On a credential
 * endpoint (`credential: true`) a 412 with no known code is {@link CredentialVerificationFailedError},
 * as the spec's rule for those endpoints says.
 */
export function apiErrorFrom(init: ApiErrorInit, retryAfterMs?: number, context: { credential?: boolean } = {}): ApiError {
  if (init.status === 429) return new RateLimitError(init, retryAfterMs);
  const First = lookup(byStatusFirst, init.status);
  if (First) return new First(init);
  // In any case (`e2002`, `validation_error`, as a service modelled on Stripe's lower-case types
  // writes them): the same code, never a class by status alone that drops what the code means.
  const code = upper(init.body?.code);
  const type = upper(init.body?.type);
  if (code === 'E1007' || type === 'RATE_LIMIT_EXCEEDED') return new RateLimitError(init, retryAfterMs);
  const Class =
    lookup(byServiceCode, code) ??
    byType(type) ??
    (context.credential && init.status === 412 ? CredentialVerificationFailedError : undefined) ??
    lookup(byStatus, init.status) ??
    (init.status >= 500 ? InternalServerError : undefined);
  return Class ? new Class(init) : new ApiError(init);
}

/** A code or type in upper case; nothing for what is not text (a body built by hand can hold anything). */
const upper = (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : undefined);

/** `table[key]` for the table's own keys only: a code such as `constructor` or `__proto__` names nothing. */
function lookup<K extends string | number>(table: Record<K, ApiErrorClass>, key: K | undefined): ApiErrorClass | undefined {
  return key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}
