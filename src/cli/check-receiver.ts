/**
 * `acme-identity check-receiver <url> --secret …`: fires signed deliveries at the relying party's
 * webhook endpoint, and only there, and checks the receiver contract: 200 for a first delivery,
 * 200 again for its redelivery, 4xx for a bad signature, for a body re-serialised after signing
 * and (where the scheme has one) for a stale timestamp. Each failure comes with advice.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { Check, CheckStatus } from './report.js';
import { TEST_DELIVERY_FIELD } from '../internal/test-delivery.js';

/** How deliveries are signed: the webhook verifier's schemes. */
export type SigningScheme = 'prefixed-hex' | 'hex' | 'base64' | 'stripe' | 'standard';

export interface CheckReceiverOptions {
  url: string;
  /** The webhook secret the endpoint verifies with. */
  secret: string;
  /** @default 'prefixed-hex' (`sha256=` and hex, the sandbox's) */
  scheme?: SigningScheme;
  /** The signature header, for the schemes that use one header. @default 'X-Webhook-Signature' */
  header?: string;
  fetch?: (request: Request) => Promise<Response>;
  /** Per delivery, in ms. @default 10000 */
  timeoutMs?: number;
  /**
   * An `access_request_code` your endpoint's handler fails on (a test hook of yours): a delivery
   * for it must be answered 5xx, so the service retries. Without it, that check is skipped: a
   * handler's failure cannot be caused from outside.
   */
  failingCode?: string;
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Headers that sign `body` at `timestamp` (UNIX seconds) under `scheme`. */
export function signDelivery(
  secret: string,
  body: string,
  scheme: SigningScheme,
  timestamp: number,
  header = 'X-Webhook-Signature',
): Record<string, string> {
  const mac = (key: string | Buffer, content: string) => createHmac('sha256', key).update(content);
  switch (scheme) {
    case 'hex':
      return { [header]: mac(secret, body).digest('hex') };
    case 'base64':
      return { [header]: mac(secret, body).digest('base64') };
    case 'stripe':
      return { [header]: `t=${timestamp},v1=${mac(secret, `${timestamp}.${body}`).digest('hex')}` };
    case 'standard': {
      const id = `msg_${randomUUID()}`;
      const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret);
      return {
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': `v1,${mac(key, `${id}.${timestamp}.${body}`).digest('base64')}`,
      };
    }
    default:
      return { [header]: `sha256=${mac(secret, body).digest('hex')}` };
  }
}

/** A delivery of the spec's form for a made-up request (its token is a JWT that names it, unsigned). */
function payload(code = `arc_check_${randomUUID().slice(0, 12)}`): { body: string; object: Record<string, unknown> } {
  const token = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ access_request_code: code, exp: Math.floor(Date.now() / 1000) + 600 })}.`;
  // Marked as a test delivery (signed with the rest): an identity inbox answers it without storing it.
  const object = { event: 'approved', access_request_code: code, access_token: token, [TEST_DELIVERY_FIELD]: 'check-receiver' };
  return { body: JSON.stringify(object), object };
}

/** A delivery's answer: the status, or why there was none. */
type Answer = number | string;
type Send = (body: string, headers: Record<string, string>) => Promise<Answer>;
/** Headers that sign `body` with the endpoint's scheme (under `secret`, at `timestamp`, when given). */
type Sign = (body: string, secret?: string, timestamp?: number) => Record<string, string>;

/** POSTs one delivery to the endpoint, within `timeoutMs`; its body is not read. */
function deliverTo(url: string, fetchImpl: (request: Request) => Promise<Response>, timeoutMs: number): Send {
  return async (body, headers) => {
    try {
      const request = new Request(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', ...headers },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const response = await fetchImpl(request);
      await response.body?.cancel();
      return response.status;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
}

/** A check from an answer: `judge` rates a status; no answer at all fails. Advice only when not ok. */
function judged(name: string, answer: Answer, judge: (status: number) => CheckStatus, advice: string): Check {
  const status = typeof answer === 'number' ? judge(answer) : 'fail';
  const detail = typeof answer === 'number' ? `answered ${answer}` : `no answer: ${answer}`;
  return { name, status, detail, ...(status === 'ok' ? {} : { advice }) };
}

/** A delivery that must be refused: 400 is right, another 4xx works, anything else lets it through. */
function refused(status: number): CheckStatus {
  if (status === 400) return 'ok';
  return status >= 400 && status < 500 ? 'warn' : 'fail';
}

/** A first delivery: 200 once stored; another 2xx works; anything else makes the service retry. */
function stored(status: number): CheckStatus {
  if (status === 200) return 'ok';
  return status >= 200 && status < 300 ? 'warn' : 'fail';
}

/** A redelivery: 200 (a duplicate); 409 while the first is still in hand. */
function duplicate(status: number): CheckStatus {
  if (status === 200) return 'ok';
  return status === 409 ? 'warn' : 'fail';
}

/** A delivery whose handler failed: 5xx, so the service retries. */
function retried(status: number): CheckStatus {
  if (status >= 500) return 'ok';
  return status >= 400 ? 'warn' : 'fail';
}

/** A first delivery answered 404 or 405: nothing takes deliveries at this URL. */
function noRoute(answer: number, url: string): Check {
  return {
    name: 'first delivery',
    status: 'fail',
    detail: `answered ${answer}: no webhook route at ${url}`,
    advice: `check the URL: its path must be your receiver's POST route (the other checks need one, and were not run)`,
  };
}

function firstDelivery(answer: Answer, scheme: SigningScheme): Check {
  const advice =
    answer === 400 || answer === 401 || answer === 403
      ? `a correctly signed delivery was refused: is the endpoint's secret this one, and its scheme ${scheme}?`
      : 'answer 200 once the delivery is stored; the service retries anything else';
  return judged('first delivery', answer, stored, advice);
}

function redelivery(answer: Answer): Check {
  const advice =
    answer === 409
      ? 'still processing the first: fine if it settles; a finished delivery answers 200'
      : 'a redelivery of a processed delivery answers 200 (and is not processed again), or the service keeps retrying';
  return judged('redelivery', answer, duplicate, advice);
}

async function badSignature(send: Send, sign: Sign, secret: string): Promise<Check> {
  const forged = payload();
  const answer = await send(forged.body, sign(forged.body, `${secret}-not-it`));
  return judged('bad signature', answer, refused, 'your endpoint accepted a bad signature: it is not verifying (answer 400)');
}

async function reformattedBody(send: Send, sign: Sign): Promise<Check> {
  const reshaped = payload();
  const answer = await send(JSON.stringify(reshaped.object, null, 2), sign(reshaped.body));
  return judged(
    'reformatted body',
    answer,
    refused,
    'it accepted a body re-serialised after signing: verify the raw bytes, before any JSON parsing (express.raw, not express.json)',
  );
}

async function staleTimestamp(send: Send, sign: Sign, scheme: SigningScheme, now: number): Promise<Check> {
  if (scheme !== 'stripe' && scheme !== 'standard') {
    return { name: 'stale timestamp', status: 'skip', detail: `the ${scheme} scheme signs no timestamp` };
  }
  const stale = payload();
  const answer = await send(stale.body, sign(stale.body, undefined, now - 3_600));
  return judged(
    'stale timestamp',
    answer,
    refused,
    'it accepted a delivery signed an hour ago: check the timestamp (toleranceSeconds), or replays get through',
  );
}

async function handlerFailure(send: Send, sign: Sign, failingCode: string | undefined): Promise<Check> {
  if (!failingCode) {
    return {
      name: 'handler failure',
      status: 'skip',
      detail: 'give --handler-failure <access_request_code>, a code your test handler throws for',
    };
  }
  const failing = payload(failingCode);
  const answer = await send(failing.body, sign(failing.body));
  return judged(
    'handler failure',
    answer,
    retried,
    'your endpoint answered success although its handler failed: the service will not retry, and the identity is lost (answer 5xx)',
  );
}

/** Runs the receiver checks, one delivery after another; resolves one check per rule. */
export async function checkReceiver(options: CheckReceiverOptions): Promise<Check[]> {
  const scheme = options.scheme ?? 'prefixed-hex';
  const now = () => Math.floor(Date.now() / 1000);
  const sign: Sign = (body, secret = options.secret, timestamp = now()) => signDelivery(secret, body, scheme, timestamp, options.header);
  const send = deliverTo(options.url, options.fetch ?? ((request) => globalThis.fetch(request)), options.timeoutMs ?? 10_000);
  const first = payload();
  const signed = sign(first.body);
  const answer = await send(first.body, signed);
  // Nothing takes deliveries at this URL: what the other checks would see says nothing about a receiver.
  if (answer === 404 || answer === 405) return [noRoute(answer, options.url)];
  return [
    firstDelivery(answer, scheme),
    redelivery(await send(first.body, signed)),
    await badSignature(send, sign, options.secret),
    await reformattedBody(send, sign),
    await staleTimestamp(send, sign, scheme, now()),
    await handlerFailure(send, sign, options.failingCode),
  ];
}
