/**
 * `@acme/identity/webhooks`: verifies the service's 'Identity Actions' webhooks (HMAC of
 * `X-Webhook-Signature` over the raw body, Web Crypto, constant time), parses the event, and
 * refuses redeliveries. Web APIs only: Node, Deno, Bun, workers and edge runtimes.
 *
 * @example
 * ```ts
 * import { createWebhookVerifier } from '@acme/identity/webhooks';
 *
 * const webhooks = createWebhookVerifier({ secret: env.ACME_WEBHOOK_SECRET });
 * export default {
 *   async fetch(request: Request) {
 *     const event = await webhooks.verifyRequest(request);
 *     // queue event.accessRequestCode and event.accessToken, then:
 *     return new Response(null, { status: 200 });
 *   },
 * };
 * ```
 * @see {@link https://github.com/acme/identity-sdk/blob/main/docs/service-spec.md | the service specification}, "Events"
 * @module
 */
export { createWebhookVerifier } from './verify.js';
export type {
  HeaderSource,
  IdentityActionsEvent,
  WebhookEventKind,
  RawBody,
  WebhookVerifier,
} from './verify.js';
export type { WebhookSecret, WebhookVerifierOptions } from './options.js';
export { createWebhookReceiver } from './receiver.js';
export type { WebhookOutcome, WebhookReceiver } from './receiver.js';
export { MemoryReplayStore } from './replay.js';
export type { ReplayClaim, ReplayStore } from './replay.js';
export { ConfigurationError, WebhookVerificationError } from '../errors/index.js';
export type { WebhookErrorCode } from '../errors/index.js';
