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

/** Runs the receiver checks; resolves one check per rule. */
export async function checkReceiver(options: CheckReceiverOptions): Promise<Check[]> {
  const scheme = options.scheme ?? 'prefixed-hex';
  const fetchImpl = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const now = () => Math.floor(Date.now() / 1000);
  const send = async (body: string, headers: Record<string, string>): Promise<number | string> => {
    try {
      const response = await fetchImpl(
        new Request(options.url, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', ...headers },
          signal: AbortSignal.timeout(timeoutMs),
        }),
      );
      await response.body?.cancel();
      return response.status;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
  const checks: Check[] = [];
  const judge = (name: string, answer: number | string, expect: (status: number) => CheckStatus, advice: string, detail?: string) => {
    const status = typeof answer === 'number' ? expect(answer) : 'fail';
    checks.push({
      name,
      status,
      detail: detail ?? (typeof answer === 'number' ? `answered ${answer}` : `no answer: ${answer}`),
      ...(status === 'ok' ? {} : { advice }),
    });
  };
  const refused = (status: number): CheckStatus => {
    if (status === 400) return 'ok';
    return status >= 400 && status < 500 ? 'warn' : 'fail';
  };

  const first = payload();
  const signed = signDelivery(options.secret, first.body, scheme, now(), options.header);
  const firstAnswer = await send(first.body, signed);
  if (firstAnswer === 404 || firstAnswer === 405) {
    // Nothing takes deliveries at this URL: what the other checks would see says nothing about a receiver.
    checks.push({
      name: 'first delivery',
      status: 'fail',
      detail: `answered ${firstAnswer}: no webhook route at ${options.url}`,
      advice: `check the URL: its path must be your receiver's POST route (the other checks need one, and were not run)`,
    });
    return checks;
  }
  judge(
    'first delivery',
    firstAnswer,
    (status) => {
      if (status === 200) return 'ok';
      return status >= 200 && status < 300 ? 'warn' : 'fail';
    },
    firstAnswer === 400 || firstAnswer === 401 || firstAnswer === 403
      ? `a correctly signed delivery was refused: is the endpoint's secret this one, and its scheme ${scheme}?`
      : 'answer 200 once the delivery is stored; the service retries anything else',
  );
  const again = await send(first.body, signed);
  judge(
    'redelivery',
    again,
    (status) => {
      if (status === 200) return 'ok';
      return status === 409 ? 'warn' : 'fail';
    },
    again === 409
      ? 'still processing the first: fine if it settles; a finished delivery answers 200'
      : 'a redelivery of a processed delivery answers 200 (and is not processed again), or the service keeps retrying',
  );

  const forged = payload();
  const wrong = signDelivery(`${options.secret}-not-it`, forged.body, scheme, now(), options.header);
  judge(
    'bad signature',
    await send(forged.body, wrong),
    refused,
    'your endpoint accepted a bad signature: it is not verifying (answer 400)',
  );

  const reshaped = payload();
  const original = signDelivery(options.secret, reshaped.body, scheme, now(), options.header);
  judge(
    'reformatted body',
    await send(JSON.stringify(reshaped.object, null, 2), original),
    refused,
    'it accepted a body re-serialised after signing: verify the raw bytes, before any JSON parsing (express.raw, not express.json)',
  );

  if (scheme === 'stripe' || scheme === 'standard') {
    const stale = payload();
    judge(
      'stale timestamp',
      await send(stale.body, signDelivery(options.secret, stale.body, scheme, now() - 3_600, options.header)),
      refused,
      'it accepted a delivery signed an hour ago: check the timestamp (toleranceSeconds), or replays get through',
    );
  } else checks.push({ name: 'stale timestamp', status: 'skip', detail: `the ${scheme} scheme signs no timestamp` });

  if (options.failingCode) {
    const failing = payload(options.failingCode);
    judge(
      'handler failure',
      await send(failing.body, signDelivery(options.secret, failing.body, scheme, now(), options.header)),
      (status) => {
        if (status >= 500) return 'ok';
        return status >= 400 ? 'warn' : 'fail';
      },
      'your endpoint answered success although its handler failed: the service will not retry, and the identity is lost (answer 5xx)',
    );
  } else
    checks.push({
      name: 'handler failure',
      status: 'skip',
      detail: 'give --handler-failure <access_request_code>, a code your test handler throws for',
    });
  return checks;
}
