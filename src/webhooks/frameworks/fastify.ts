/**
 * `@acme/identity/webhooks/fastify`: the webhook route as a Fastify plugin. Its content-type parser
 * keeps the body as bytes, scoped to the plugin: the rest of the app keeps Fastify's JSON parser.
 * Fastify is not imported.
 * @example
 * ```ts
 * import { acmeWebhookPlugin } from '@acme/identity/webhooks/fastify';
 * await app.register(acmeWebhookPlugin, { path: '/webhooks/acme', secret: process.env.ACME_WEBHOOK_SECRET!, inbox });
 * ```
 * @module webhooks/fastify
 */
import { answerBody } from '../receiver.js';
import { receiverFor, type WebhookHandlerOptions } from './shared.js';

export interface AcmeWebhookPluginOptions extends WebhookHandlerOptions {
  /** The route's path. @default '/webhooks/acme' */
  path?: string;
}

/** The parts of a Fastify instance the plugin uses. */
interface FastifyScope {
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    type: string | string[] | RegExp,
    options: { parseAs: 'buffer' },
    parser: (request: unknown, body: Buffer, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  post(
    path: string,
    handler: (
      request: { body: unknown; headers: Record<string, string | string[] | undefined> },
      reply: { code(status: number): { send(body: unknown): unknown } },
    ) => Promise<unknown>,
  ): unknown;
}

/**
 * A Fastify plugin that serves the service's webhooks at `options.path`, with its own raw-body
 * parser scoped to that route.
 * @example
 * ```ts
 * await app.register(acmeWebhookPlugin, { path: '/webhooks/acme', secret: process.env.ACME_WEBHOOK_SECRET!, inbox });
 * ```
 * @throws {ConfigurationError} for options without a secret (or verifier), or without exactly one of onEvent and inbox.
 */
export async function acmeWebhookPlugin(scope: FastifyScope, options: AcmeWebhookPluginOptions): Promise<void> {
  const receiver = receiverFor(options);
  // Every content type, as bytes: the signature covers them whatever the service labels them.
  // Scoped to this plugin (Fastify encapsulates it): the app's own parsers are untouched.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  scope.post(options.path ?? '/webhooks/acme', async (request, reply) => {
    const outcome = await receiver.handle(request.body instanceof Uint8Array ? request.body : new Uint8Array(), request.headers);
    return reply.code(outcome.status).send(answerBody(outcome));
  });
}

export type { WebhookHandlerOptions } from './shared.js';
