/** Recipe: Fastify. A content-type parser keeps the JSON body as a Buffer, so the HMAC sees the raw bytes. */
import Fastify from 'fastify';
import { createWebhookReceiver, createWebhookVerifier, type IdentityActionsEvent } from '@acme/identity/webhooks';

export function fastifyApp(secret: string, onEvent: (event: IdentityActionsEvent) => Promise<void>) {
  const receiver = createWebhookReceiver(createWebhookVerifier({ secret }), onEvent);
  const app = Fastify();
  app.register(async (scope) => {
    // Scoped to this route's plugin: the rest of the app keeps Fastify's JSON parser.
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post('/webhooks/acme', async (request, reply) => {
      const { status } = await receiver.handle(request.body as Buffer, request.headers);
      return reply.code(status).send();
    });
  });
  return app;
}
