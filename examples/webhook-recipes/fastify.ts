/**
 * Recipe: Fastify, with `@acme/identity/webhooks/fastify`. The plugin keeps the body as bytes in
 * its own scope; the rest of the app keeps Fastify's JSON parser.
 */
import Fastify from 'fastify';
import { acmeWebhookPlugin } from '@acme/identity/webhooks/fastify';
import type { IdentityActionsEvent } from '@acme/identity/webhooks';

export function fastifyApp(secret: string, onEvent: (event: IdentityActionsEvent) => Promise<void>) {
  const app = Fastify();
  app.register(acmeWebhookPlugin, { path: '/webhooks/acme', secret, onEvent });
  return app;
}
