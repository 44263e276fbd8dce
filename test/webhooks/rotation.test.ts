/**
 * Several signatures of several conventions in one delivery (#39, "every spelling of the same
 * thing"): a sender rotating its secret writes two Stripe sets separated by a space, or signs in two
 * conventions at once. Every set is read; the delivery verifies when one of them is right, on
 * both crypto paths (`web-crypto.test.ts` runs this file again without `node:crypto`). The
 * signatures are made by hand with `node:crypto` and by the `standardwebhooks` package, never by
 * the SDK.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from 'vitest';
import { createWebhookVerifier, type WebhookVerifierOptions } from '../../src/webhooks/index.js';
import { rejection } from '../fixtures.js';

const SECRET = 'whsec_c2FuZGJveC1zZWNyZXQtMDEyMzQ1Njc4OWFiY2RlZg==';
const OLD = 'whsec_b2xkLXNlY3JldC1vZi10aGUtc2VuZGVyLTAxMjM0NQ==';
const NOW = 1_790_000_000_000;
const T = Math.floor(NOW / 1000);
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJhY2Nlc3NfcmVxdWVzdF9jb2RlIjoiYXJjXzEifQ.c2ln';
const BODY = JSON.stringify({ event: 'approved', access_request_code: 'arc_1', access_token: TOKEN });

const make = (options: Partial<WebhookVerifierOptions> = {}) =>
  createWebhookVerifier({ secret: SECRET, replayStore: false, now: () => NOW, logLevel: 'off', ...options });

/** One signature, written by its convention with the secret given. */
type Signature = { convention: 'stripe' | 'hex' | 'prefixed' | 'base64' | 'standard'; secret: string };

const stripeSet = (secret: string, t = T) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${BODY}`).digest('hex')}`;
const plain = (secret: string, form: 'hex' | 'prefixed' | 'base64') => {
  const mac = createHmac('sha256', secret).update(BODY);
  return form === 'base64' ? mac.digest('base64') : `${form === 'prefixed' ? 'sha256=' : ''}${mac.digest('hex')}`;
};
const standardEntry = (secret: string) => new Webhook(secret).sign('msg_1', new Date(NOW), BODY);

function written(signature: Signature): string {
  if (signature.convention === 'stripe') return stripeSet(signature.secret);
  if (signature.convention === 'standard') return standardEntry(signature.secret);
  return plain(signature.secret, signature.convention);
}

/** The headers of a delivery carrying these signatures in X-Webhook-Signature: `separator` between them, `edge` around them all. */
function headersOf(signatures: readonly Signature[], separator: string, edge = ''): Record<string, string> {
  const headers: Record<string, string> = { 'x-webhook-signature': `${edge}${signatures.map(written).join(separator)}${edge}` };
  if (signatures.some((s) => s.convention === 'standard')) {
    headers['webhook-id'] = 'msg_1';
    headers['webhook-timestamp'] = String(T);
  }
  return headers;
}

describe('several signatures in one delivery', () => {
  test("two Stripe sets separated by a space, the new secret's second or first: verified", async () => {
    for (const header of [`${stripeSet(OLD)} ${stripeSet(SECRET)}`, `${stripeSet(SECRET)} ${stripeSet(OLD)}`]) {
      await expect(make().verify(BODY, { 'x-webhook-signature': header })).resolves.toMatchObject({ kind: 'approved' });
    }
  });

  test('two Stripe sets whose secrets are both unknown: refused as a wrong signature', async () => {
    const error = await rejection(make().verify(BODY, { 'x-webhook-signature': `${stripeSet(OLD)} ${stripeSet(OLD, T - 1)}` }));
    expect(error).toMatchObject({ code: 'ERR_WEBHOOK_SIGNATURE' });
  });

  test('a Stripe set and a Standard Webhooks entry in one header; a bare HMAC beside a Stripe set', async () => {
    const mixes: Signature[][] = [
      [
        { convention: 'stripe', secret: OLD },
        { convention: 'standard', secret: SECRET },
      ],
      [
        { convention: 'hex', secret: SECRET },
        { convention: 'stripe', secret: OLD },
      ],
    ];
    for (const signatures of mixes) await expect(make().verify(BODY, headersOf(signatures, ' '))).resolves.toBeDefined();
  });

  test('one stale set among several refuses the delivery: every signed timestamp is held to the tolerance', async () => {
    const error = await rejection(make().verify(BODY, { 'x-webhook-signature': `${stripeSet(SECRET)} ${stripeSet(SECRET, T - 301)}` }));
    expect(error).toMatchObject({ code: 'ERR_WEBHOOK_TIMESTAMP' });
  });

  test('a chosen scheme reads its own convention only: a right Stripe set beside a wrong bare HMAC verifies under stripe', async () => {
    const header = `${plain(OLD, 'hex')} ${stripeSet(SECRET)}`;
    await expect(make({ scheme: 'stripe' }).verify(BODY, { 'x-webhook-signature': header })).resolves.toBeDefined();
    const error = await rejection(make({ scheme: 'hmac' }).verify(BODY, { 'x-webhook-signature': header }));
    expect(error).toMatchObject({ code: 'ERR_WEBHOOK_SIGNATURE' });
  });

  test('property: any mix of conventions, secrets, order, separators and edges verifies exactly when one signature is by a known secret', async () => {
    const signature = fc.record({
      convention: fc.constantFrom<Signature['convention']>('stripe', 'hex', 'prefixed', 'base64', 'standard'),
      secret: fc.constantFrom(SECRET, OLD),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(signature, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(' ', '  ', ', ', '\t', ' ,'),
        // Commas or whitespace a sender leaves around the whole header, or none.
        fc.constantFrom('', ',', ',,', ' ', '\t', ', '),
        async (signatures, separator, edge) => {
          const outcome = await make()
            .verify(BODY, headersOf(signatures, separator, edge))
            .then(
              () => 'verified',
              (error: { code?: string }) => error.code,
            );
          expect(outcome).toBe(signatures.some((s) => s.secret === SECRET) ? 'verified' : 'ERR_WEBHOOK_SIGNATURE');
        },
      ),
      { numRuns: 150 },
    );
  });
});
