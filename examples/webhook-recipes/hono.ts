/** Recipe: Hono, with `@acme/identity/webhooks/hono`. It reads `c.req.raw`: no `c.req.json()` before it. */
import { Hono } from 'hono';
import { acmeWebhook } from '@acme/identity/webhooks/hono';
import type { IdentityActionsEvent } from '@acme/identity/webhooks';

export function honoApp(secret: string, onEvent: (event: IdentityActionsEvent) => Promise<void>) {
  const app = new Hono();
  app.post('/webhooks/acme', acmeWebhook({ secret, onEvent }));
  return app;
}
