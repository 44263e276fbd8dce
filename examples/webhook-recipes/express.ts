/** Recipe: Express. The route reads the raw body with `express.raw`; `express.json()` would break the signature. */
import express from 'express';
import { createWebhookReceiver, createWebhookVerifier, type IdentityActionsEvent } from '@acme/identity/webhooks';

export function expressApp(secret: string, onEvent: (event: IdentityActionsEvent) => Promise<void>) {
  const receiver = createWebhookReceiver(createWebhookVerifier({ secret }), onEvent);
  const app = express();
  app.post('/webhooks/acme', express.raw({ type: 'application/json' }), async (req, res) => {
    const { status } = await receiver.handle(req.body as Buffer, req.headers);
    res.sendStatus(status);
  });
  return app;
}
