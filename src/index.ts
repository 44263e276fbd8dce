/**
 * `@acme/identity`: the REST client of the acme identity-verification and credential service,
 * and the errors everything in the SDK throws.
 *
 * @example
 * ```ts
 * import { AcmeIdentityClient, ConflictError } from '@acme/identity';
 *
 * const acme = new AcmeIdentityClient({ baseUrl, clientId, clientSecret, tenantId });
 * ```
 * @module \@acme/identity
 */
export { AcmeIdentityClient, createClient, MAX_FILE_BYTES, MemoryTokenStore, responseOf } from './client/index.js';
export type {
  ApiResult,
  AuthResource,
  CredentialsResource,
  IdentityRequestsResource,
  IdentityResponsesResource,
  StatusResource,
  ResponseInfo,
  ClientOptions,
  CreateIdentityRequestOptions,
  CredentialSubmitInput,
  IdentityRequestCodes,
  IdentityRequestInput,
  IdentityResponseRequest,
  RequestOptions,
  Schemas,
  StoredToken,
  TimestampFormat,
  UnsetOptionals,
  TokenStore,
  VerifiedIdentityOptions,
  WebhookEventLike,
} from './client/index.js';
export type { AppInfo } from './client/options.js';
export type { OpenTelemetryApi } from './internal/tracing.js';
export type {
  Hooks,
  InboxEvent,
  LogLevel,
  Logger,
  ObservabilityOptions,
  RequestEvent,
  ResponseEvent,
  RetryEvent,
  TokenRenewalEvent,
} from './internal/observe.js';
export { VERSION } from './version.js';
export { OBTAINABLE_CREDENTIALS, canBeEssential, claimKey, claimsIssues, readClaim, readClaims } from './claims/index.js';
export type {
  CheckedClaimKey,
  ClaimKey,
  ClaimsRequest,
  ClaimValue,
  KnownClaimTypes,
  ObtainableCredential,
  PersonName,
  ReadClaims,
  SpecClaimTypes,
} from './claims/index.js';
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
} from './errors/index.js';
export type {
  AnyAcmeIdentityError,
  ApiErrorInit,
  ErrorCode,
  IdentityFlowStep,
  InputIssue,
  InboxErrorCode,
  OidcErrorCode,
  SdJwtErrorCode,
  ServiceErrorBody,
  WebhookErrorCode,
} from './errors/index.js';
