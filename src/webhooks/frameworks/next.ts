/**
 * `@acme/identity/webhooks/next`: the webhook route for the Next.js App Router
 * (`app/webhooks/acme/route.ts`). Route handlers get a Web `Request`, read raw here.
 * @example
 * ```ts
 * // app/webhooks/acme/route.ts
 * import { createWebhookRoute } from '@acme/identity/webhooks/next';
 * export const { POST } = createWebhookRoute({ secret: process.env.ACME_WEBHOOK_SECRET!, inbox });
 * ```
 * @module webhooks/next
 */
import { receiverFor, type WebhookHandlerOptions } from './shared.js';

/**
 * The route's handlers: `POST`.
 * @example
 * ```ts
 * export const { POST } = createWebhookRoute({ secret: process.env.ACME_WEBHOOK_SECRET!, onEvent: (event) => queue.push(event) });
 * ```
 * @throws {ConfigurationError} for options without a secret (or verifier), or without exactly one of onEvent and inbox.
 */
export function createWebhookRoute(options: WebhookHandlerOptions): { POST: (request: Request) => Promise<Response> } {
  const receiver = receiverFor(options);
  return { POST: (request) => receiver.fetch(request) };
}

export type { WebhookHandlerOptions } from './shared.js';
