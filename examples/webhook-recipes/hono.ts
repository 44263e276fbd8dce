/** Recipe: Hono. `c.req.raw` is the Web `Request`; do not read it with `c.req.json()` first. */
import { Hono } from 'hono';
import { createWebhookReceiver, createWebhookVerifier, type IdentityActionsEvent } from '@acme/identity/webhooks';

export function honoApp(secret: string, onEvent: (event: IdentityActionsEvent) => Promise<void>) {
  const receiver = createWebhookReceiver(createWebhookVerifier({ secret }), onEvent);
  const app = new Hono();
  app.post('/webhooks/acme', (c) => receiver.fetch(c.req.raw));
  return app;
}
