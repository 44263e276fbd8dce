/** Recipe: a plain Web `Request` handler (Cloudflare Workers, Deno, Bun). The secret comes from the environment binding. */
import { createWebhookReceiver, createWebhookVerifier, type IdentityActionsEvent } from '@acme/identity/webhooks';

export function workerHandler(secret: string, onEvent: (event: IdentityActionsEvent) => Promise<void>) {
  const receiver = createWebhookReceiver(createWebhookVerifier({ secret }), onEvent);
  return {
    async fetch(request: Request): Promise<Response> {
      const url = new URL(request.url);
      if (request.method !== 'POST' || url.pathname !== '/webhooks/acme') return new Response('not found', { status: 404 });
      return receiver.fetch(request);
    },
  };
}
