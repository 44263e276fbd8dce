/**
 * Every error the SDK throws is an {@link AcmeIdentityError} with a stable `code` from
 * {@link ErrorCode}: match on `code` (or `instanceof`), never on `message`.
 *
 * Nothing secret or personal is put in a message or an enumerable property: the service's own
 * `message`, `details` and the raw response headers are reachable as properties but are
 * non-enumerable, so `JSON.stringify(error)`, `util.inspect(error)` and loggers that walk own
 * enumerable keys never print them.
 *
 * @see {@link https://github.com/acme/identity-sdk/blob/main/docs/service-spec.md | the service specification}, "Errors"
 * @module
 */
export type { ErrorCode, InboxErrorCode, OidcErrorCode, SdJwtErrorCode, WebhookErrorCode } from './codes.js';
export {
  AbortError,
  AcmeIdentityError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ClaimDecodeError,
  ConfigurationError,
  ConflictError,
  ConnectionError,
  CredentialExpiredError,
  CredentialPendingAcceptanceError,
  CredentialRevokedError,
  CredentialVerificationFailedError,
  DatabaseError,
  EmailDeliveryError,
  ExternalServiceError,
  IdentityFlowError,
  InboxError,
  InternalServerError,
  InvalidInputError,
  InvalidResponseError,
  JwksError,
  NotFoundError,
  OidcError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PreconditionFailedError,
  RateLimitError,
  SdJwtVerificationError,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
  WebhookVerificationError,
  systemCode,
} from './classes.js';
export type { ApiErrorInit, IdentityFlowStep, InputIssue, ServiceErrorBody } from './classes.js';
export type { AnyAcmeIdentityError } from './any.js';
export { apiErrorFrom } from './from-response.js';
