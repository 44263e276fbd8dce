/**
 * A service may sign `<timestamp>.<body>` and send the timestamp in a header of its own beside
 * `X-Webhook-Signature` ("signed content: not shown"), without the `timestamp` option being set.
 * The signatures here are made with `node:crypto` by hand, not by the SDK; `web-crypto.test.ts`
 * runs this file again on the Web Crypto path.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { WebhookVerificationError, createWebhookVerifier, type WebhookVerifierOptions } from '../../src/webhooks/index.js';
import { rejection } from '../fixtures.js';
import { macWork } from './crypto-path.js';

const SECRET = 'whsec_timestamp_header_0123456789abcdef';
const NOW = 1_790_000_000_000;
const T = Math.floor(NOW / 1000);
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJhY2Nlc3NfcmVxdWVzdF9jb2RlIjoiYXJjXzEifQ.c2ln';
const body = (code: string) => JSON.stringify({ event: 'approved', access_request_code: code, access_token: TOKEN });

const verifier = (options: Partial<WebhookVerifierOptions> = {}) =>
  createWebhookVerifier({ secret: SECRET, replayStore: false, now: () => NOW, logLevel: 'off', ...options });

const mac = (content: string, encoding: 'hex' | 'base64' = 'hex') => createHmac('sha256', SECRET).update(content).digest(encoding);
/**
 * The timestamp in X-Webhook-Timestamp, `sha256=` and the hex HMAC of `"<t>.<body>"` (the fake's
 * `timestamped` reading), or of the two joined by `join`.
 */
const stamped = (payload: string, t: number | string = T, join = '.') => ({
  'x-webhook-timestamp': String(t),
  'x-webhook-signature': `sha256=${mac(`${t}${join}${payload}`)}`,
});
/** The same header beside an HMAC of the body alone. */
const beside = (payload: string, t: number | string = T) => ({ 'x-webhook-timestamp': String(t), 'x-webhook-signature': mac(payload) });

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return error as WebhookVerificationError;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a timestamp header signed before the body, found without the timestamp option', () => {
  test('verifies in every encoding of the plain HMAC, in seconds and in milliseconds', async () => {
    const payload = body('arc_1');
    await expect(verifier().verify(payload, stamped(payload))).resolves.toMatchObject({ kind: 'approved', accessRequestCode: 'arc_1' });
    await expect(verifier().verify(payload, stamped(payload, NOW))).resolves.toMatchObject({ kind: 'approved' });
    const base64 = { 'x-webhook-timestamp': String(T), 'x-webhook-signature': mac(`${T}.${payload}`, 'base64') };
    await expect(verifier().verify(payload, base64)).resolves.toMatchObject({ kind: 'approved' });
  });

  test('the timestamp is signed: changed, removed, or moved into the body, the delivery is refused', async () => {
    const payload = body('arc_1');
    const headers = stamped(payload);
    const changed = { ...headers, 'x-webhook-timestamp': String(T + 1) };
    expect((await refusal(verifier().verify(payload, changed))).code).toBe('ERR_WEBHOOK_SIGNATURE');
    const removed = { 'x-webhook-signature': headers['x-webhook-signature'] };
    expect((await refusal(verifier().verify(payload, removed))).code).toBe('ERR_WEBHOOK_SIGNATURE');
    // The signed text sent as the body: its MAC matches, but it is no payload (JSON cannot start with digits and a dot).
    expect((await refusal(verifier().verify(`${T}.${payload}`, removed))).code).toBe('ERR_WEBHOOK_PAYLOAD');
  });

  test('a signed timestamp outside toleranceSeconds is refused as such, even on the first delivery; toleranceSeconds widens it', async () => {
    const payload = body('arc_1');
    for (const t of [T - 301, T + 301]) {
      const error = await refusal(verifier().verify(payload, stamped(payload, t)));
      expect(error.code).toBe('ERR_WEBHOOK_TIMESTAMP');
      expect(error.message).toContain('X-Webhook-Timestamp');
      expect(error.message).toContain('toleranceSeconds');
    }
    await expect(verifier().verify(payload, stamped(payload, T - 300))).resolves.toBeDefined();
    await expect(verifier({ toleranceSeconds: 900 }).verify(payload, stamped(payload, T - 600))).resolves.toBeDefined();
  });

  test('once a delivery shows the timestamp signed, it is required, and held to the tolerance before any MAC', async () => {
    const v = verifier();
    await v.verify(body('arc_1'), stamped(body('arc_1')));
    const payload = body('arc_2');
    const missing = await refusal(v.verify(payload, { 'x-webhook-signature': mac(payload) }));
    expect(missing.code).toBe('ERR_WEBHOOK_MISSING_TIMESTAMP');
    // The body signed alone, beside the header: no longer the service's form.
    expect((await refusal(v.verify(payload, beside(payload)))).code).toBe('ERR_WEBHOOK_SIGNATURE');
    const hmacs = macWork();
    expect((await refusal(v.verify(payload, stamped(payload, T - 301)))).code).toBe('ERR_WEBHOOK_TIMESTAMP');
    expect(hmacs).not.toHaveBeenCalled();
    await expect(v.verify(payload, stamped(payload))).resolves.toMatchObject({ accessRequestCode: 'arc_2' });
    expect(hmacs).toHaveBeenCalledTimes(1);
  });

  test('a service that sends the header beside a body signed alone is read so, then checked once per delivery', async () => {
    const v = verifier();
    const hmacs = macWork();
    // A stale header decides nothing about a body signed alone: it was never signed. Undecided, the
    // body is checked alone and after the header joined by a dot, a colon and nothing: four MACs.
    await expect(v.verify(body('arc_1'), beside(body('arc_1'), T - 10_000))).resolves.toMatchObject({ accessRequestCode: 'arc_1' });
    expect(hmacs).toHaveBeenCalledTimes(4);
    hmacs.mockClear();
    await expect(v.verify(body('arc_2'), beside(body('arc_2')))).resolves.toBeDefined();
    expect(hmacs).toHaveBeenCalledTimes(1);
    // Learnt: the timestamp is not signed, so a MAC over it is not this service's.
    expect((await refusal(v.verify(body('arc_3'), stamped(body('arc_3'))))).code).toBe('ERR_WEBHOOK_SIGNATURE');
  });

  test('the timestamp and the body joined by a colon or by nothing verify too, and the join is learnt: after it, only that one is checked', async () => {
    for (const [join, others] of [
      [':', ['.', '']],
      ['', ['.', ':']],
      ['.', [':', '']],
    ] as const) {
      const v = verifier();
      await expect(v.verify(body('arc_1'), stamped(body('arc_1'), T, join))).resolves.toMatchObject({ accessRequestCode: 'arc_1' });
      const hmacs = macWork();
      hmacs.mockClear();
      await expect(v.verify(body('arc_2'), stamped(body('arc_2'), T, join))).resolves.toBeDefined();
      expect(hmacs, JSON.stringify(join)).toHaveBeenCalledTimes(1);
      for (const other of others) {
        const error = await refusal(v.verify(body('arc_3'), stamped(body('arc_3'), T, other)));
        expect(error.code, `${JSON.stringify(join)} then ${JSON.stringify(other)}`).toBe('ERR_WEBHOOK_SIGNATURE');
      }
    }
  });

  test("the timestamp option's join: a dot unless set, the one set alone read, anything else a ConfigurationError", async () => {
    const payload = body('arc_1');
    const option = (join?: '.' | ':' | '') =>
      verifier({ timestamp: { header: 'X-Webhook-Timestamp', ...(join === undefined ? {} : { join }) } });
    await expect(option().verify(payload, stamped(payload))).resolves.toBeDefined();
    expect((await refusal(option().verify(payload, stamped(payload, T, ':')))).code).toBe('ERR_WEBHOOK_SIGNATURE');
    for (const join of [':', ''] as const) {
      await expect(option(join).verify(payload, stamped(payload, T, join))).resolves.toBeDefined();
      expect((await refusal(option(join).verify(payload, stamped(payload)))).code).toBe('ERR_WEBHOOK_SIGNATURE');
    }
    for (const join of ['-', '..', ' ', 1]) {
      expect(() => verifier({ timestamp: { header: 'X-Webhook-Timestamp', join: join as never } })).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'timestamp.join' }),
      );
    }
  });

  test('a refused delivery teaches nothing: after a stale signed timestamp, a body signed alone still verifies', async () => {
    const v = verifier();
    expect((await refusal(v.verify(body('arc_1'), stamped(body('arc_1'), T - 301)))).code).toBe('ERR_WEBHOOK_TIMESTAMP');
    expect((await refusal(v.verify(body('arc_1'), { ...stamped(body('arc_1')), 'x-webhook-timestamp': String(T + 5) }))).code).toBe(
      'ERR_WEBHOOK_SIGNATURE',
    );
    await expect(v.verify(body('arc_2'), beside(body('arc_2')))).resolves.toBeDefined();
  });

  test('deliveries checked at once, before any decided the form, each have their signed timestamp held to the tolerance', async () => {
    const v = verifier();
    const [fresh, stale] = await Promise.allSettled([
      v.verify(body('arc_1'), stamped(body('arc_1'))),
      v.verify(body('arc_2'), stamped(body('arc_2'), T - 301)),
    ]);
    expect(fresh.status).toBe('fulfilled');
    expect(stale.status === 'rejected' && stale.reason).toMatchObject({ code: 'ERR_WEBHOOK_TIMESTAMP' });
  });

  test('deliveries checked at once learn from the first that verifies: a later one that verified another way decides nothing', async () => {
    const v = verifier();
    // On Web Crypto both are checked before either learns: the second's MACs are held until the first has settled. On
    // node:crypto the first decides at once, and the second, its body signed alone, is then refused.
    const subtleVerify = crypto.subtle.verify.bind(crypto.subtle);
    let first: Promise<unknown> = Promise.resolve();
    vi.spyOn(crypto.subtle, 'verify').mockImplementation(async (algorithm, key, signature, data) => {
      const verified = await subtleVerify(algorithm, key, signature, data);
      if (new TextDecoder().decode(data as Uint8Array).includes('arc_2')) await first.catch(() => undefined);
      return verified;
    });
    first = v.verify(body('arc_1'), stamped(body('arc_1')));
    await Promise.allSettled([first, v.verify(body('arc_2'), beside(body('arc_2')))]);
    await expect(first).resolves.toMatchObject({ accessRequestCode: 'arc_1' });
    // Decided by the first: the timestamp is signed, and a body signed alone beside it is refused.
    await expect(v.verify(body('arc_3'), stamped(body('arc_3')))).resolves.toMatchObject({ accessRequestCode: 'arc_3' });
    expect((await refusal(v.verify(body('arc_4'), beside(body('arc_4'))))).code).toBe('ERR_WEBHOOK_SIGNATURE');
  });

  test('a date with its zone and the spaces a plain object of headers may keep around it is the instant it names, signed as it came', async () => {
    const payload = body('arc_1');
    const spaced = ` ${new Date(NOW).toISOString()}\t`;
    await expect(
      verifier().verify(payload, { 'x-webhook-timestamp': spaced, 'x-webhook-signature': mac(`${spaced}.${payload}`) }),
    ).resolves.toMatchObject({ accessRequestCode: 'arc_1' });
  });

  test('a mismatch where no timestamp header was tried says the body alone', async () => {
    const error = await refusal(verifier().verify(body('arc_1'), { 'x-webhook-signature': mac('another body') }));
    expect([error.code, error.message]).toEqual(['ERR_WEBHOOK_SIGNATURE', 'the signature does not match the body']);
    const tried = await refusal(verifier().verify(body('arc_1'), beside('another body')));
    expect(tried.message).toBe(
      "the signature does not match the body nor X-Webhook-Timestamp's value and the body (joined by a dot, a colon or nothing)",
    );
  });

  test('a mismatch names the header whose form was tried; a header that is no time (a date without its zone) is not tried; one with its zone is', async () => {
    const payload = body('arc_1');
    const wrong = { 'x-webhook-timestamp': String(T), 'x-webhook-signature': mac('another body') };
    const error = await refusal(verifier().verify(payload, wrong));
    expect(error.code).toBe('ERR_WEBHOOK_SIGNATURE');
    expect(error.message).toContain('X-Webhook-Timestamp');
    const naive = new Date(NOW).toISOString().slice(0, 19);
    const hmacs = macWork();
    const dated = await refusal(
      verifier().verify(payload, { 'x-webhook-timestamp': naive, 'x-webhook-signature': mac(`${naive}.${payload}`) }),
    );
    expect(dated.code).toBe('ERR_WEBHOOK_SIGNATURE');
    expect(dated.message).not.toContain('X-Webhook-Timestamp');
    expect(hmacs).toHaveBeenCalledTimes(1);
    const iso = new Date(NOW).toISOString();
    await expect(
      verifier().verify(payload, { 'x-webhook-timestamp': iso, 'x-webhook-signature': mac(`${iso}.${payload}`) }),
    ).resolves.toMatchObject({ accessRequestCode: 'arc_1' });
    expect((await refusal(verifier().verify(payload, { 'x-webhook-signature': mac('another body') }))).message).not.toContain('Timestamp');
  });

  test("the header's name follows signatureHeader's; the timestamp option, when set, is the only header read", async () => {
    const payload = body('arc_1');
    const headers = { 'x-acme-timestamp': String(T), 'x-acme-signature': mac(`${T}.${payload}`) };
    await expect(verifier({ signatureHeader: 'X-Acme-Signature' }).verify(payload, headers)).resolves.toBeDefined();
    const named = verifier({ signatureHeader: 'X-Acme-Signature', timestamp: { header: 'X-Sent-At' } });
    expect((await refusal(named.verify(payload, headers))).code).toBe('ERR_WEBHOOK_MISSING_TIMESTAMP');
    // A signature header without "signature" in its name: X-Webhook-Timestamp.
    const other = { 'x-webhook-timestamp': String(T), 'x-mac': mac(`${T}.${payload}`) };
    await expect(verifier({ signatureHeader: 'X-Mac' }).verify(payload, other)).resolves.toBeDefined();
  });

  test("property: the timestamp is found in X-Webhook-Timestamp, X-Request-Timestamp (the spec's own header) or X-Timestamp, in any case; once a delivery shows which, that one alone is required", async () => {
    const names = ['X-Webhook-Timestamp', 'X-Request-Timestamp', 'X-Timestamp'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names), fc.constantFrom(...names), fc.boolean(), async (signed, other, upper) => {
        const v = verifier();
        const named = (name: string, t: number) => ({ [upper ? name.toUpperCase() : name.toLowerCase()]: String(t) });
        const payload = body('arc_1');
        // Another header beside it with another time: never what decides.
        const first = {
          ...(other === signed ? {} : named(other, T + 7)),
          ...named(signed, T),
          'x-webhook-signature': mac(`${T}.${payload}`),
        };
        await expect(v.verify(payload, first)).resolves.toMatchObject({ accessRequestCode: 'arc_1' });
        const next = body('arc_2');
        // Learnt: the timestamp signed in that header; in another one, or in none, it is missing.
        const moved = { ...named(other === signed ? 'X-Unread-Timestamp' : other, T), 'x-webhook-signature': mac(`${T}.${next}`) };
        expect((await refusal(v.verify(next, moved))).code).toBe('ERR_WEBHOOK_MISSING_TIMESTAMP');
        await expect(v.verify(next, { ...named(signed, T), 'x-webhook-signature': mac(`${T}.${next}`) })).resolves.toBeDefined();
      }),
      { seed: 46, numRuns: 40 },
    );
  });

  test('a mismatch names every timestamp header tried', async () => {
    const payload = body('arc_1');
    const headers = { 'x-request-timestamp': String(T), 'x-timestamp': String(T), 'x-webhook-signature': mac('another body') };
    const error = await refusal(verifier().verify(payload, headers));
    expect(error.message).toContain(
      "X-Request-Timestamp's value or X-Timestamp's value and the body (joined by a dot, a colon or nothing)",
    );
  });

  test("scheme: 'stripe' or 'standard' never reads the header, nor checks a plain HMAC", async () => {
    const payload = body('arc_1');
    for (const scheme of ['stripe', 'standard'] as const) {
      const error = await refusal(verifier({ scheme }).verify(payload, stamped(payload)));
      expect(error.code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
      expect(error.message).toContain(`not in the ${scheme} form`);
    }
  });

  test('property: verified exactly when the MAC covers what the headers say and a signed timestamp is within tolerance', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -900, max: 900 }),
        fc.constantFrom('stamped', 'beside', 'neither'),
        fc.boolean(),
        fc.constantFrom('.', ':', ''),
        fc.constantFrom('-', ';', ' ', '..'),
        async (offset, form, millis, join, other) => {
          const payload = body('arc_p');
          const t = millis ? (T + offset) * 1000 : T + offset;
          // `neither`: the timestamp and the body joined by what is not read (a dash, a semicolon, a space, two dots).
          const forms = {
            stamped: () => stamped(payload, t, join),
            beside: () => beside(payload, t),
            neither: () => ({ 'x-webhook-timestamp': String(t), 'x-webhook-signature': mac(`${t}${other}${payload}`) }),
          };
          const headers = forms[form]();
          const verified = verifier().verify(payload, headers);
          if (form === 'beside' || (form === 'stamped' && Math.abs(offset) <= 300)) await expect(verified).resolves.toBeDefined();
          else expect((await refusal(verified)).code).toBe(form === 'stamped' ? 'ERR_WEBHOOK_TIMESTAMP' : 'ERR_WEBHOOK_SIGNATURE');
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('Slack\'s form (Zoom\'s too): v0= and the hex HMAC of "v0:<timestamp>:<body>", the timestamp in a header of its own', () => {
  const slack = (payload: string, t: number | string, header = 'x-webhook-timestamp') => ({
    [header]: String(t),
    'x-webhook-signature': `v0=${mac(`v0:${t}:${payload}`)}`,
  });

  test('property: verified exactly when the MAC covers v0, the timestamp and the body, the timestamp is within tolerance, in any of the headers looked in', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -900, max: 900 }),
        fc.constantFrom('x-webhook-timestamp', 'x-request-timestamp', 'x-timestamp'),
        fc.constantFrom('slack', 'no version', 'dot'),
        async (offset, header, form) => {
          const payload = body('arc_s');
          const t = T + offset;
          const signed = { slack: `v0:${t}:${payload}`, 'no version': `${t}:${payload}`, dot: `v0:${t}.${payload}` }[form];
          const verified = verifier().verify(payload, { [header]: String(t), 'x-webhook-signature': `v0=${mac(signed)}` });
          if (Math.abs(offset) > 300) expect((await refusal(verified)).code).toBe('ERR_WEBHOOK_TIMESTAMP');
          else if (form === 'slack') await expect(verified).resolves.toMatchObject({ accessRequestCode: 'arc_s' });
          else expect((await refusal(verified)).code).toBe('ERR_WEBHOOK_SIGNATURE');
        },
      ),
      { seed: 47, numRuns: 60 },
    );
  });

  test("the timestamp is required, and read in the timestamp option's header when it is set", async () => {
    const payload = body('arc_1');
    const missing = await refusal(verifier().verify(payload, { 'x-webhook-signature': slack(payload, T)['x-webhook-signature'] }));
    expect(missing.code).toBe('ERR_WEBHOOK_MISSING_TIMESTAMP');
    expect(missing.message).toContain('X-Webhook-Timestamp or X-Request-Timestamp or X-Timestamp');
    const option = verifier({ timestamp: { header: 'X-Slack-Request-Timestamp' } });
    await expect(option.verify(payload, slack(payload, T, 'x-slack-request-timestamp'))).resolves.toBeDefined();
    expect((await refusal(option.verify(payload, slack(payload, T)))).code).toBe('ERR_WEBHOOK_MISSING_TIMESTAMP');
    // The option's tolerance, not the verifier's, holds the timestamp it names.
    const wide = verifier({ timestamp: { header: 'X-Slack-Request-Timestamp', toleranceSeconds: 900 } });
    await expect(wide.verify(payload, slack(payload, T - 600, 'x-slack-request-timestamp'))).resolves.toBeDefined();
  });

  test("v0= entries that are not 64 hex digits are malformed; beside t= they are Stripe's v0, never read", async () => {
    const payload = body('arc_1');
    const short = await refusal(verifier().verify(payload, { 'x-webhook-timestamp': String(T), 'x-webhook-signature': 'v0=abcd' }));
    expect(short.code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    const stripeV0 = {
      'x-webhook-timestamp': String(T),
      'x-webhook-signature': `t=${T},v0=${mac(`v0:${T}:${payload}`)},v1=${'ab'.repeat(32)}`,
    };
    expect((await refusal(verifier().verify(payload, stripeV0))).code).toBe('ERR_WEBHOOK_SIGNATURE');
    // A Stripe set of t= and v0= alone (its test mode) is no Slack signature, however its MAC was made.
    const stripeOnlyV0 = { 'x-webhook-timestamp': String(T), 'x-webhook-signature': `t=${T},v0=${mac(`v0:${T}:${payload}`)}` };
    expect((await refusal(verifier().verify(payload, stripeOnlyV0))).code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    // Every v0= entry must be one: a valid one beside another that is not is no signature to pick from.
    const mixed = { 'x-webhook-timestamp': String(T), 'x-webhook-signature': `v0=${mac(`v0:${T}:${payload}`)},v0=abcd` };
    expect((await refusal(verifier().verify(payload, mixed))).code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    // Another version alone is neither form.
    const v2 = { 'x-webhook-timestamp': String(T), 'x-webhook-signature': `v2=${mac(`v0:${T}:${payload}`)}` };
    expect((await refusal(verifier().verify(payload, v2))).code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
  });
});
