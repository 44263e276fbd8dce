/**
 * `@acme/identity/webhooks/express`: the webhook route for Express (4 or 5). It reads the raw body
 * itself; mounted after a body parser that already consumed the body as JSON, it refuses every
 * delivery with 500 `ERR_WEBHOOK_PARSED_BODY` and logs how to fix it, rather than verifying
 * bytes that are no longer the ones signed. Express is not imported.
 * @example
 * ```ts
 * import { acmeWebhookHandler } from '@acme/identity/webhooks/express';
 * app.post('/webhooks/acme', acmeWebhookHandler({ secret: process.env.ACME_WEBHOOK_SECRET!, inbox }));
 * ```
 * @module webhooks/express
 */
import { liteLog } from '../../internal/log-lite.js';
import { answerBody } from '../receiver.js';
import { receiverFor, type WebhookHandlerOptions } from './shared.js';

/** The parts of Express's request the handler reads (a Node `IncomingMessage`). */
interface ExpressRequest extends AsyncIterable<unknown> {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body?: unknown;
  readonly readableEnded?: boolean;
}

/** The parts of Express's response the handler writes. */
interface ExpressResponse {
  status(code: number): ExpressResponse;
  json(body: unknown): unknown;
}

/**
 * An Express route handler for the service's webhooks. It reads the raw body itself: mount it
 * before any body parser.
 * @example
 * ```ts
 * app.post('/webhooks/acme', acmeWebhookHandler({ secret: process.env.ACME_WEBHOOK_SECRET!, onEvent: (event) => queue.push(event) }));
 * ```
 * @throws {ConfigurationError} for options without a secret (or verifier), or without exactly one of onEvent and inbox.
 */
export function acmeWebhookHandler(options: WebhookHandlerOptions): (request: ExpressRequest, response: ExpressResponse) => Promise<void> {
  const receiver = receiverFor(options);
  const log = liteLog(options.verifierOptions ?? {});
  return async (request, response) => {
    let body: Uint8Array | string;
    if (request.body instanceof Uint8Array || typeof request.body === 'string') body = request.body;
    else if (request.readableEnded !== false) {
      // The stream was read before this route (express.json(), or anything that consumed it,
      // whether or not it set req.body): the bytes that were signed are gone. A body set without
      // reading the stream (Express 4's parsers, for a type they skip) leaves it to be read below.
      log(
        'warn',
        'webhooks/express: the request body was already parsed (express.json() runs before this route?): mount acmeWebhookHandler before any body parser, or after express.raw({ type: "*/*" })',
        { code: 'ERR_WEBHOOK_PARSED_BODY' },
      );
      response.status(500).json({ error: 'ERR_WEBHOOK_PARSED_BODY' });
      return;
    } else {
      const chunks: Uint8Array[] = [];
      for await (const chunk of request) chunks.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : (chunk as Uint8Array));
      body = Buffer.concat(chunks);
    }
    const outcome = await receiver.handle(body, request.headers);
    response.status(outcome.status).json(answerBody(outcome));
  };
}

export type { WebhookHandlerOptions } from './shared.js';
