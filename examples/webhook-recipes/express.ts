/**
 * Recipe: Express, with `@acme/identity/webhooks/express`. The handler reads the raw body itself:
 * mount it before `express.json()` (or on a router without it). After a JSON parser it refuses
 * every delivery (500 `ERR_WEBHOOK_PARSED_BODY`) and logs why.
 */
import express from 'express';
import { acmeWebhookHandler } from '@acme/identity/webhooks/express';
import type { IdentityActionsEvent } from '@acme/identity/webhooks';

export function expressApp(secret: string, onEvent: (event: IdentityActionsEvent) => Promise<void>) {
  const app = express();
  app.post('/webhooks/acme', acmeWebhookHandler({ secret, onEvent }));
  app.use(express.json()); // the rest of the app parses JSON as usual
  return app;
}
