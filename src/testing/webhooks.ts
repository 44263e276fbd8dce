/** The fake service's side of 'Identity Actions' webhooks: signing, delivery and retries. */
import { sleep } from '../internal/sleep.js';
import { fromBase64, fromHex, randomId, toBase64, toHex, utf8 } from '../internal/encoding.js';
import { DEFAULT_READINGS, type ResolvedReadings } from './readings.js';

/** The subscription a client needs for identity request webhooks (spec, "Events"). */
export const IDENTITY_ACTIONS = 'Identity Actions';

/**
 * The payload of an 'Identity Actions' webhook, in the fake's own reading. What goes over the
 * wire follows the `webhookKind` reading ({@link webhookRequest}).
 */
export interface WebhookPayload {
  /** Not in the spec (which does not show the kinds of event); the SDK reads it when present. */
  event: 'approved' | 'cancelled';
  access_request_code: string;
  /** JWT with the claims `access_token` and `access_request_code`, sent back as X-Access-Token. */
  access_token: string;
  /** Not in the spec's payload: sent where the `webhookCodes` reading is `both`. */
  identity_session_code?: string;
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
  /**
   * The error code the receiver answered with, when it refused the delivery and said why (the
   * SDK's receivers answer `{"error": "ERR_WEBHOOK_…"}`): a code-shaped `error` or `code` field of
   * at most 64 characters, in an answer of at most 4 KB. Shown in the sandbox's list of deliveries.
   */
  code?: string;
}

/** The refusal code in a receiver's answer, when it gives one: JSON with a code-shaped `error` (or `code`). */
async function refusalCode(response: Response): Promise<string | undefined> {
  if (Number(response.headers.get('content-length') ?? 0) > 4096) return undefined;
  const text = await response.text();
  if (text.length > 4096) return undefined;
  try {
    const body = JSON.parse(text) as { error?: unknown; code?: unknown } | null;
    const code = typeof body?.error === 'string' ? body.error : body?.code;
    return typeof code === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The bytes a webhook secret's hex digits spell (after an optional `whsec_`): what the
 * `webhookKey: 'hex'` reading keys with.
 * @param whose the secret as the refusal names it (`client sandbox-client's webhook secret`)
 * @throws {TypeError} for a secret in any other form, naming the reading and `whose`.
 */
export function hexSecretKey(secret: string, whose: string): Uint8Array<ArrayBuffer> {
  const digits = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (digits.length > 0 && digits.length % 2 === 0 && /^[0-9a-f]+$/i.test(digits)) return fromHex(digits);
  throw new TypeError(
    `fake service: the reading webhookKey=hex signs with a secret's hex digits, and ${whose} is not hex digits (an even count, after an optional whsec_)`,
  );
}

export interface WebhookRetryOptions {
  /** Attempts in all, the first included. @default 5 */
  attempts?: number;
  /** Wait before the second attempt; doubled before each next one. @default 500 */
  baseDelayMs?: number;
}

/**
 * `sha256=` and the lower-case hex HMAC-SHA256 of the raw body: the fake's default reading of
 * the signature. The spec does not show the algorithm, the signed content or the encoding.
 * @example
 * ```ts
 * const body = JSON.stringify(payload);
 * await receiver.fetch(new Request(url, { method: 'POST', body, headers: { 'x-webhook-signature': await signWebhook(secret, body) } }));
 * ```
 */
export async function signWebhook(secret: string, body: string): Promise<string> {
  return `sha256=${toHex(await hmac(utf8(secret), body))}`;
}

async function hmac(key: Uint8Array<ArrayBuffer>, content: string, hash: ResolvedReadings['webhookHash'] = 'SHA-256'): Promise<Uint8Array> {
  const imported = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', imported, utf8(content)));
}

/** The body the `webhookKind` reading writes for a payload. */
function webhookBody(
  payload: Omit<WebhookPayload, 'access_token'>,
  reading: ResolvedReadings['webhookKind'],
  nowMs: number,
): Record<string, unknown> {
  const { event, ...fields } = payload;
  switch (reading) {
    case 'event':
      return { event, ...fields };
    case 'type':
      return { type: event, ...fields };
    case 'dotted':
      return { event_type: `identity.request.${event}`, ...fields };
    case 'status':
      return { status: event.toUpperCase(), ...fields };
    case 'none':
      return fields;
    case 'envelope':
      return { type: `identity.request.${event}`, timestamp: new Date(nowMs).toISOString(), data: fields };
    case 'object':
      return {
        // One id per event, the same in each redelivery, as Stripe keeps it.
        id: `evt_${fields.access_request_code}_${event}`,
        object: 'event',
        type: `identity_request.${event}`,
        created: Math.floor(nowMs / 1000),
        data: { object: { object: 'identity_request', ...fields } },
      };
    case 'payload':
      return { event, payload: fields };
  }
}

/**
 * The body and headers of one webhook delivery, as the readings say: the payload's kind field
 * (`webhookKind`) and the signature's convention (`webhookSignature`), signed with `secret`.
 * @example
 * ```ts
 * const { body, headers } = await webhookRequest({ secret, readings: resolveReadings({ webhookSignature: 'stripe' }) }, payload);
 * await receiver.fetch(new Request(url, { method: 'POST', body, headers }));
 * ```
 */
export async function webhookRequest(
  target: { secret: string; readings?: ResolvedReadings; now?: () => number },
  payload: WebhookPayload,
): Promise<{ body: string; headers: Record<string, string> }> {
  const readings = target.readings ?? DEFAULT_READINGS;
  const nowMs = (target.now ?? Date.now)();
  // A cancellation's token left out where the `cancelledToken` reading says so.
  const { access_token: _, ...rest } = payload;
  const sent = payload.event === 'cancelled' && readings.cancelledToken === 'omitted' ? rest : payload;
  const body = JSON.stringify(webhookBody(sent, readings.webhookKind, nowMs));
  const text = utf8(target.secret);
  const afterPrefix = target.secret.replace(/^whsec_/, '');
  const someBytes = (bytes: Uint8Array<ArrayBuffer> | undefined) => (bytes && bytes.length > 0 ? bytes : undefined);
  // Standard Webhooks' own rule: the base64 after whsec_ when it is base64 (its alphabet, not base64url); else the secret's bytes.
  const standardKey = someBytes(fromBase64(afterPrefix)) ?? text;
  // What the `decoded` reading keys with: the base64 (or base64url) after `whsec_`, decoded.
  const decoded = target.secret.startsWith('whsec_') ? someBytes(fromBase64(afterPrefix.replace(/-/g, '+').replace(/_/g, '/'))) : undefined;
  // What the `hex` reading keys with: decoded, and the secret checked to be hex, only under that reading.
  const hex = readings.webhookKey === 'hex' ? hexSecretKey(target.secret, 'the webhook secret') : text;
  const keys = {
    convention: { other: text, standard: standardKey },
    decoded: { other: decoded ?? text, standard: decoded ?? standardKey },
    text: { other: text, standard: text },
    hex: { other: hex, standard: hex },
  }[readings.webhookKey];
  const key = keys.other;
  const stamps = {
    seconds: Math.floor(nowMs / 1000),
    milliseconds: Math.floor(nowMs),
    microseconds: Math.floor(nowMs) * 1000,
    iso8601: new Date(nowMs).toISOString(),
  };
  const t = String(stamps[readings.webhookTimestamp]);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  /** Stripe's `t=…,v1=…` set, signed with `signingKey`. */
  const stripeSet = async (signingKey: Uint8Array<ArrayBuffer>) => `t=${t},v1=${toHex(await hmac(signingKey, `${t}.${body}`))}`;
  /** The plain HMAC, by the `webhookHash` reading, and the prefix that names it (`sha256=`, by the `webhookHashName` reading). */
  const hash = readings.webhookHash;
  const plain = (content: string) => hmac(key, content, hash);
  const bits = hash.slice(4);
  const named = {
    sha256: `sha${bits}=`,
    'sha-256': `sha-${bits}=`,
    'hmac-sha256': `hmac-sha${bits}=`,
    'HMAC-SHA256': `HMAC-SHA${bits}=`,
  }[readings.webhookHashName];
  switch (readings.webhookSignature) {
    case 'prefixed-hex':
      headers['x-webhook-signature'] = `${named}${toHex(await plain(body))}`;
      break;
    case 'hex':
      headers['x-webhook-signature'] = toHex(await plain(body));
      break;
    case 'base64':
      headers['x-webhook-signature'] = toBase64(await plain(body));
      break;
    case 'stripe':
      headers['x-webhook-signature'] = await stripeSet(key);
      break;
    case 'timestamped': {
      // The timestamp in a header of its own (the `webhookStampHeader` reading's), signed before the body, joined to it as the `webhookStampJoin` reading says.
      const join = { dot: '.', colon: ':', none: '' }[readings.webhookStampJoin];
      headers[readings.webhookStampHeader] = t;
      headers['x-webhook-signature'] = `${named}${toHex(await plain(`${t}${join}${body}`))}`;
      break;
    }
    case 'slack':
      // Slack's form (Zoom's too): v0= and the hex HMAC of "v0:<timestamp>:<body>", the timestamp in a header of its own.
      headers[readings.webhookStampHeader] = t;
      headers['x-webhook-signature'] = `v0=${toHex(await hmac(key, `v0:${t}:${body}`))}`;
      break;
    case 'rotation':
      // A sender in the middle of rotating its secret: a set by the secret it is retiring (one the client never had), then one by the current.
      headers['x-webhook-signature'] = `${await stripeSet(utf8(`retired:${target.secret}`))} ${await stripeSet(key)}`;
      break;
    case 'standard': {
      const id = `msg_${randomId(12)}`;
      headers['webhook-id'] = id;
      headers['webhook-timestamp'] = t;
      headers['webhook-signature'] = `v1,${toBase64(await hmac(keys.standard, `${id}.${t}.${body}`))}`;
      break;
    }
  }
  return { body, headers };
}

/**
 * Posts the webhook until the receiver answers 200, at most `attempts` times with doubling waits.
 * Anything but 200 (a redirect, 2xx other than 200, an error, no answer) counts as a failure, as
 * the spec has the client answer "HTTP 200 OK". `fetch` is looked up at call time, so msw sees it.
 * The body and signature follow the readings; a retry is the same body and headers, unless the
 * `redelivery: 'fresh-token'` reading mints a new `access_token` for each attempt.
 */
export async function deliverWebhook(
  target: {
    url: string;
    secret: string;
    readings?: ResolvedReadings;
    now?: () => number;
    /** A fresh payload for a retry (a new `access_token`), where the `redelivery: 'fresh-token'` reading says so. */
    mint?: () => Promise<WebhookPayload>;
  },
  first: WebhookPayload,
  retry: WebhookRetryOptions,
  record: (delivery: WebhookDelivery) => void,
): Promise<boolean> {
  let payload = first;
  let { body, headers } = await webhookRequest(target, payload);
  const attempts = retry.attempts ?? 5;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1 && target.mint && target.readings?.redelivery === 'fresh-token') {
      payload = await target.mint();
      ({ body, headers } = await webhookRequest(target, payload));
    }
    let status: number | undefined;
    let code: string | undefined;
    try {
      const response = await globalThis.fetch(target.url, { method: 'POST', headers, body, redirect: 'manual' });
      status = response.status;
      if (status < 400) {
        // Not awaited: cancelling an msw response body never settles.
        void response.body?.cancel().catch(() => undefined);
      } else {
        // A receiver that never finishes its answer's body holds no delivery up: two seconds at most.
        const stop = new AbortController();
        const timeUp = sleep(2000, stop.signal).then(
          () => undefined,
          () => undefined,
        );
        code = await Promise.race([refusalCode(response).catch(() => undefined), timeUp]);
        stop.abort();
      }
    } catch {
      status = undefined;
    }
    const delivered = status === 200;
    record({ url: target.url, payload, attempt, status, delivered, ...(code === undefined ? {} : { code }) });
    if (delivered) return true;
    if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, (retry.baseDelayMs ?? 500) * 2 ** (attempt - 1)));
  }
  return false;
}
