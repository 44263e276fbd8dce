export { AcmeIdentityClient, createClient, responseOf } from './client.js';
export type {
  ApiResult,
  ResponseInfo,
  CreateIdentityRequestOptions,
  IdentityRequestCodes,
  IdentityResponseRequest,
} from './client.js';
export type { ClientOptions, RequestOptions, TimestampFormat } from './options.js';
export type { CredentialSubmitInput, IdentityRequestInput } from './input.js';
export { MAX_FILE_BYTES } from './input.js';
export { MemoryTokenStore } from './tokens.js';
export type { StoredToken, TokenStore } from './tokens.js';
export type { Schemas } from './schemas.js';
export type { VerifiedIdentityOptions, WebhookEventLike } from './identity-flow.js';
