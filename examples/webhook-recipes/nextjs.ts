/**
 * Recipe: a Next.js route handler, `app/webhooks/acme/route.ts`. Route handlers get a Web `Request`,
 * whose body the receiver reads raw.
 */
import { createWebhookReceiver, createWebhookVerifier, type IdentityActionsEvent } from '@acme/identity/webhooks';

export function nextRouteHandler(secret: string, onEvent: (event: IdentityActionsEvent) => Promise<void>) {
  const receiver = createWebhookReceiver(createWebhookVerifier({ secret }), onEvent);
  // In route.ts: `export const POST = receiver.fetch;`
  return { POST: receiver.fetch };
}
