/** Recipe: plain `node:http`. Read the body as bytes and hand them over untouched. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import {
  createWebhookReceiver,
  createWebhookVerifier,
  type IdentityActionsEvent,
  type WebhookVerifierOptions,
} from '@acme/identity/webhooks';

async function rawBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function nodeHttpServer(
  secret: string,
  onEvent: (event: IdentityActionsEvent) => unknown,
  options: Omit<WebhookVerifierOptions, 'secret'> = {},
): Server {
  const receiver = createWebhookReceiver(createWebhookVerifier({ ...options, secret }), onEvent);
  return createServer(async (request, response) => {
    if (request.method !== 'POST' || request.url !== '/webhooks/acme') {
      response.writeHead(404).end();
      return;
    }
    const { status } = await receiver.handle(await rawBody(request), request.headers);
    response.writeHead(status).end();
  });
}
