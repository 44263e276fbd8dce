/**
 * `@acme/identity/testing`: a fake of the whole service for tests and local development.
 * Pass `service.fetch` as the client's `fetch`, route it through msw with
 * `@acme/identity/testing/msw`, or serve it on localhost with {@link startSandbox} (what
 * `npx acme-identity-sandbox` runs) or {@link serveFakeService}.
 */
export { createFakeService } from './service.js';
export { DEFAULT_CLIENT, DEFAULT_HEX_WEBHOOK_SECRET } from './options.js';
export type {
  Fault,
  FakeClientRegistration,
  FakeExchange,
  FakeService,
  FakeServiceOptions,
  FakeServiceSettings,
  InboxView,
  RecordedRequest,
  TimestampFormat,
} from './options.js';
export type { ApprovalOptions, IdentityStatus } from './identity.js';
export { IDENTITY_ACTIONS, signWebhook, webhookRequest } from './webhooks.js';
export { DEFAULT_READINGS, READING_CHOICES, parseReadings, resolveReadings } from './readings.js';
export type { FakeReadings, ResolvedReadings } from './readings.js';
export { DEFAULT_DELEGATIONS, DEFAULT_OIDC_BACKEND_CLIENT, DEFAULT_OIDC_CLIENT } from './oidc.js';
export type { AuthorizationTransaction, OidcClientRegistration, TokenEndpointAuthMethod } from './oidc.js';
export type { WebhookDelivery, WebhookPayload, WebhookRetryOptions } from './webhooks.js';
export type { CredentialCondition } from './credentials.js';
export { OBTAINABLE_CREDENTIALS, SUPPORTED_CLAIMS } from '../contract/claims.js';
export { openApiDocument } from '../contract/openapi.js';
export type { SigningKeys } from './keys.js';
export type { DisclosureEncoding } from './sd-jwt.js';
export type { IdentityRecord } from './identity.js';
export { freePort, serveFakeService, serveFetch } from './server.js';
export { startSandbox } from './sandbox.js';
export type { Sandbox, SandboxCredentials, SandboxOptions } from './sandbox.js';
export type { RunningFakeService, ServeOptions } from './server.js';
