/** The fake service's side of 'Identity Actions' webhooks: signing, delivery and retries. */
import { utf8 } from '../internal/encoding.js';

/** The subscription a client needs for identity request webhooks (spec, "Events"). */
export const IDENTITY_ACTIONS = 'Identity Actions';

/** The payload of an 'Identity Actions' webhook as the fake sends it. */
export interface WebhookPayload {
  /** Not in the spec (which does not show the kinds of event); the SDK reads it when present. */
  event: 'approved' | 'cancelled';
  access_request_code: string;
  /** JWT with the claims `access_token` and `access_request_code`, sent back as X-Access-Token. */
  access_token: string;
}

/** One attempt to deliver a webhook. */
export interface WebhookDelivery {
  url: string;
  payload: WebhookPayload;
  attempt: number;
  /** The receiver's HTTP status, or undefined when it could not be reached. */
  status: number | undefined;
  /** The receiver answered 200. */
  delivered: boolean;
}

export interface WebhookRetryOptions {
  /** Attempts in all, the first included. @default 5 */
  attempts?: number;
  /** Wait before the second attempt; doubled before each next one. @default 500 */
  baseDelayMs?: number;
}

/**
 * `sha256=` and the lower-case hex HMAC-SHA256 of the raw body: the scheme the SDK's verifier
 * expects by default. The spec does not show the algorithm, the signed content or the encoding.
 * @example
 * ```ts
 * const body = JSON.stringify(payload);
 * await receiver.fetch(new Request(url, { method: 'POST', body, headers: { 'x-webhook-signature': await signWebhook(secret, body) } }));
 * ```
 */
export async function signWebhook(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', utf8(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, utf8(body)));
  return `sha256=${Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Posts the webhook until the receiver answers 200, at most `attempts` times with doubling waits.
 * Anything but 200 (a redirect, 2xx other than 200, an error, no answer) counts as a failure, as
 * the spec has the client answer "HTTP 200 OK". `fetch` is looked up at call time, so msw sees it.
 */
export async function deliverWebhook(
  target: { url: string; secret: string },
  payload: WebhookPayload,
  retry: WebhookRetryOptions,
  record: (delivery: WebhookDelivery) => void,
): Promise<boolean> {
  const body = JSON.stringify(payload);
  const signature = await signWebhook(target.secret, body);
  const attempts = retry.attempts ?? 5;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let status: number | undefined;
    try {
      const response = await globalThis.fetch(target.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
        body,
        redirect: 'manual',
      });
      status = response.status;
      // Not awaited: cancelling an msw response body never settles.
      void response.body?.cancel().catch(() => undefined);
    } catch {
      status = undefined;
    }
    const delivered = status === 200;
    record({ url: target.url, payload, attempt, status, delivered });
    if (delivered) return true;
    if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, (retry.baseDelayMs ?? 500) * 2 ** (attempt - 1)));
  }
  return false;
}
