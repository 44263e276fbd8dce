/** The union of every error class the SDK throws, for `switch (error.code)` to narrow on. */
import type {
  AbortError,
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
} from './classes.js';

/**
 * Every error the SDK throws, as a union of its classes: once an error is known to be the SDK's
 * (`error instanceof AcmeIdentityError`), `switch (error.code)` narrows it to its class and the
 * fields that class carries, as jose's `AnyJOSEError` does.
 * @example
 * ```ts
 * catch (caught) {
 *   if (!(caught instanceof AcmeIdentityError)) throw caught;
 *   const error = caught as AnyAcmeIdentityError;
 *   switch (error.code) {
 *     case 'ERR_CONFLICT': return reuse(error.existingCode);       // ConflictError
 *     case 'ERR_RATE_LIMITED': return later(error.retryAfterMs);   // RateLimitError
 *     case 'ERR_OIDC_STATE': return restartSignIn(error.error);   // OidcError
 *   }
 * }
 * ```
 */
export type AnyAcmeIdentityError =
  | (ApiError & { readonly code: 'ERR_API' })
  | BadRequestError
  | ValidationError
  | AuthenticationError
  | PermissionDeniedError
  | NotFoundError
  | ConflictError
  | PreconditionFailedError
  | CredentialExpiredError
  | CredentialRevokedError
  | CredentialPendingAcceptanceError
  | CredentialVerificationFailedError
  | PayloadTooLargeError
  | RateLimitError
  | InternalServerError
  | EmailDeliveryError
  | DatabaseError
  | ExternalServiceError
  | ServiceUnavailableError
  | ConnectionError
  | TimeoutError
  | AbortError
  | InvalidResponseError
  | InvalidInputError
  | ConfigurationError
  | SdJwtVerificationError
  | JwksError
  | ClaimDecodeError
  | WebhookVerificationError
  | IdentityFlowError
  | OidcError;
