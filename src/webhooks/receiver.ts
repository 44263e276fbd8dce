/** A receiver: verification, the event handler and the answer, for any framework. */
import { AcmeIdentityError, ConfigurationError } from '../errors/index.js';
import type { HeaderSource, IdentityActionsEvent, RawBody, WebhookVerifier } from './verify.js';

/** What the receiver answered, and why. */
export interface WebhookOutcome {
  /**
   * 200: processed, or a duplicate of a processed delivery; 400: refused; 409: another attempt is
   * processing it now (the service retries); 500: the handler failed (the service retries).
   */
  status: 200 | 400 | 409 | 500;
  event?: IdentityActionsEvent;
  /** The refusal, the handler's failure, or the replay store's. */
  error?: unknown;
}

export interface WebhookReceiver {
  /** For frameworks that hand over the raw body and headers (Express with `express.raw`, Fastify). */
  handle(body: RawBody, headers: HeaderSource): Promise<WebhookOutcome>;
  /** A Web-standard handler (Workers, Next.js route handlers, Hono, Deno, Bun). The answer body is the error code, never details. */
  fetch(request: Request): Promise<Response>;
}

/**
 * The answer's body, the one rule for every route: `{ received: true }` for a 200 (a delivery
 * processed, or one processed before), else the error code alone, never its details: the
 * refusal's own code, `ERR_HANDLER` when your handler failed, `ERR_UNAVAILABLE` when the replay
 * store did.
 */
export function answerBody(outcome: WebhookOutcome): { received: true } | { error: string } {
  if (outcome.status === 200) return { received: true };
  if (outcome.error instanceof AcmeIdentityError) return { error: outcome.error.code };
  return { error: outcome.event ? 'ERR_HANDLER' : 'ERR_UNAVAILABLE' };
}

/** The answer to a delivery the verifier did not take that is no refusal: done already (200), or being processed (409). Any other refusal is a 400. */
const REFUSAL_STATUS: Partial<Record<string, 200 | 409>> = { ERR_WEBHOOK_DUPLICATE: 200, ERR_WEBHOOK_IN_PROGRESS: 409 };

/**
 * Wraps a verifier and your handler into the answers the service expects: 200 once `onEvent` has
 * resolved and the delivery is marked done (keep it short: record or queue the event, fetch the
 * identity afterwards, since the spec has the client answer 200 first), 200 for a redelivery of a
 * processed delivery, 409 while another attempt processes it, 400 for a refused delivery, and 500
 * when `onEvent` throws, after forgetting the delivery so the service's retry is processed. A
 * process that dies inside `onEvent` leaves the delivery to the retry once the processing lease
 * runs out: each delivery is processed at least once, and once when all goes well.
 *
 * @example
 * ```ts
 * const receiver = createWebhookReceiver(createWebhookVerifier({ secret }), async (event) => queue.push(event));
 * export const POST = receiver.fetch; // Next.js route handler
 * ```
 */
export function createWebhookReceiver(verifier: WebhookVerifier, onEvent: (event: IdentityActionsEvent) => unknown): WebhookReceiver {
  if (typeof verifier?.verify !== 'function') throw new ConfigurationError('verifier', 'must be a verifier from createWebhookVerifier');
  if (typeof onEvent !== 'function') throw new ConfigurationError('onEvent', 'must be a function that takes the event');
  async function settle(verify: () => Promise<IdentityActionsEvent>): Promise<WebhookOutcome> {
    let event: IdentityActionsEvent;
    try {
      event = await verify();
    } catch (error) {
      // Not a refusal of the delivery (the replay store is unreachable, say): 500, so the service retries.
      if (!(error instanceof AcmeIdentityError)) return { status: 500, error };
      return { status: REFUSAL_STATUS[error.code] ?? 400, error };
    }
    try {
      await onEvent(event);
    } catch (error) {
      await verifier.release(event);
      return { status: 500, event, error };
    }
    // Processed: marked done, or a store that cannot be written leaves it to a redelivery (500).
    try {
      await verifier.complete(event);
      return { status: 200, event };
    } catch (error) {
      return { status: 500, event, error };
    }
  }
  return {
    handle: (body, headers) => settle(() => verifier.verify(body, headers)),
    async fetch(request) {
      const outcome = await settle(() => verifier.verifyRequest(request));
      return Response.json(answerBody(outcome), { status: outcome.status });
    },
  };
}
