/**
 * `@acme/identity/webhooks/hono`: the webhook route for Hono. It reads `c.req.raw`, the Web
 * `Request`, itself: a `c.req.json()` before it would leave nothing to verify. Hono is not imported.
 * @example
 * ```ts
 * import { acmeWebhook } from '@acme/identity/webhooks/hono';
 * app.post('/webhooks/acme', acmeWebhook({ secret: env.ACME_WEBHOOK_SECRET, inbox }));
 * ```
 * @module webhooks/hono
 */
import { receiverFor, type WebhookHandlerOptions } from './shared.js';

/**
 * A Hono handler for the service's webhooks.
 * @example
 * ```ts
 * app.post('/webhooks/acme', acmeWebhook({ secret: env.ACME_WEBHOOK_SECRET, onEvent: (event) => queue.push(event) }));
 * ```
 * @throws {ConfigurationError} for options without a secret (or verifier), or without exactly one of onEvent and inbox.
 */
export function acmeWebhook(options: WebhookHandlerOptions): (c: { req: { raw: Request } }) => Promise<Response> {
  const receiver = receiverFor(options);
  return (c) => receiver.fetch(c.req.raw);
}

export type { WebhookHandlerOptions } from './shared.js';
