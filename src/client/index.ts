/** The REST client's public face, as the package's main entry re-exports it. */
export { AcmeIdentityClient, createClient, responseOf } from './client.js';
export type {
  AuthResource,
  CreateIdentityRequestOptions,
  CredentialsResource,
  IdentityRequestsResource,
  IdentityResponsesResource,
  StatusResource,
} from './resources.js';
export type { ApiResult, IdentityRequestCodes, IdentityResponseRequest, ResponseInfo } from './results.js';
export type { ClientOptions, RequestOptions, TimestampFormat, UnsetOptionals } from './options.js';
export type { CredentialSubmitInput, IdentityRequestInput } from './bodies.js';
export { MAX_FILE_BYTES } from './bodies.js';
export { MemoryTokenStore } from './tokens.js';
export type { StoredToken, TokenStore } from './tokens.js';
export type { Schemas } from './schemas.js';
export type { VerifiedIdentityOptions, WebhookEventLike } from './identity-flow.js';
