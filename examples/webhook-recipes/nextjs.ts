/**
 * Recipe: a Next.js App Router route handler, `app/webhooks/acme/route.ts`, with
 * `@acme/identity/webhooks/next`: `export const { POST } = createWebhookRoute({ secret, inbox });`
 */
import { createWebhookRoute } from '@acme/identity/webhooks/next';
import type { IdentityActionsEvent } from '@acme/identity/webhooks';

export function nextRouteHandler(secret: string, onEvent: (event: IdentityActionsEvent) => Promise<void>) {
  return createWebhookRoute({ secret, onEvent });
}
