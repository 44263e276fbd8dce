/**
 * Webhook verification against the peers on the same convention and body (#44), 1 KB and 64 KB:
 * Standard Webhooks headers for this SDK, `standardwebhooks` and `svix`; Stripe's
 * `Stripe-Signature` for this SDK and stripe-node's `constructEvent`; and the spec's plain
 * `X-Webhook-Signature` HMAC for this SDK beside the limit, a bare `node:crypto` HMAC compared with
 * `timingSafeEqual` and the body parsed. Each verifier is made once and verifies the same delivery
 * over and over (this SDK's without a replay store, as the peers have none); each is checked to
 * verify before it is timed. This SDK is measured as built (dist/), as users load it.
 *
 * Goals (#44): cheaper than each peer on its convention at both sizes, and within 2× the bare HMAC
 * and parse at 1 KB. Run in fresh processes (processes.ts): medians and their range.
 *
 *   npm run bench             ITERATIONS=3000 for more samples, BENCH_PROCESSES=5 for more processes
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import { benchmark, built, ratio, type Medians } from './processes.js';
import { compare } from './stats.js';

const ITERATIONS = Number(process.env['ITERATIONS'] ?? 1500);
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJhY2Nlc3NfcmVxdWVzdF9jb2RlIjoiYXJjXzEifQ.c2lnbmF0dXJl';
/** One secret for every convention: Standard Webhooks keys with its base64, Stripe and the plain HMAC with its text. */
const SECRET = `whsec_${Buffer.from('bench-secret-0123456789abcdef0123').toString('base64')}`;
const SIZES = [1024, 64 * 1024] as const;

/** An Identity Actions payload padded to `size` bytes. */
function payloadOf(size: number): string {
  const base = { event: 'approved', access_request_code: 'arc_bench', access_token: TOKEN, padding: '' };
  const room = size - JSON.stringify(base).length;
  return JSON.stringify({ ...base, padding: 'x'.repeat(Math.max(0, room)) });
}

async function measure(): Promise<Medians> {
  const { createWebhookVerifier } = await built<typeof import('../../src/webhooks/index.js')>('webhooks/index.js');
  const plain = createWebhookVerifier({ secret: SECRET, replayStore: false });
  const standardSdk = createWebhookVerifier({ secret: SECRET, replayStore: false, scheme: 'standard' });
  const stripeSdk = createWebhookVerifier({ secret: SECRET, replayStore: false, scheme: 'stripe', signatureHeader: 'stripe-signature' });
  const standard = new StandardWebhook(SECRET);
  const svix = new SvixWebhook(SECRET);
  const stripe = new Stripe('sk_test_bench');
  const medians: Medians = {};
  for (const size of SIZES) {
    const body = payloadOf(size);
    const hex = createHmac('sha256', SECRET).update(body).digest('hex');
    const expected = Buffer.from(hex, 'hex');
    const plainHeaders = { 'x-webhook-signature': `sha256=${hex}` };
    const id = 'msg_bench';
    const now = new Date();
    const seconds = String(Math.floor(now.getTime() / 1000));
    const signature = standard.sign(id, now, body);
    const standardHeaders = { 'webhook-id': id, 'webhook-timestamp': seconds, 'webhook-signature': signature };
    const svixHeaders = { 'svix-id': id, 'svix-timestamp': seconds, 'svix-signature': signature };
    const stripeHeader = stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET });
    const stripeHeaders = { 'stripe-signature': stripeHeader };

    // Each must really verify: checked once before timing (this also lets the SDK learn the key form).
    for (const verified of [
      await plain.verify(body, plainHeaders),
      await standardSdk.verify(body, standardHeaders),
      await stripeSdk.verify(body, stripeHeaders),
    ]) {
      if (verified.accessRequestCode !== 'arc_bench') throw new Error('the SDK did not verify');
    }
    standard.verify(body, standardHeaders);
    svix.verify(body, svixHeaders);
    stripe.webhooks.constructEvent(body, stripeHeader, SECRET);

    const kb = `${size / 1024} KB`;
    const timed = await compare(
      {
        [`${kb} bare HMAC + timingSafeEqual + JSON.parse`]: () =>
          timingSafeEqual(createHmac('sha256', SECRET).update(body).digest(), expected) && JSON.parse(body),
        [`${kb} SDK, X-Webhook-Signature`]: () => plain.verify(body, plainHeaders),
        [`${kb} SDK, Standard Webhooks`]: () => standardSdk.verify(body, standardHeaders),
        [`${kb} standardwebhooks`]: () => standard.verify(body, standardHeaders),
        [`${kb} svix`]: () => svix.verify(body, svixHeaders),
        [`${kb} SDK, Stripe-Signature`]: () => stripeSdk.verify(body, stripeHeaders),
        [`${kb} stripe constructEvent`]: () => stripe.webhooks.constructEvent(body, stripeHeader, SECRET),
      },
      ITERATIONS,
    );
    Object.assign(medians, timed);
  }
  return medians;
}

const figures = SIZES.flatMap((size) => {
  const kb = `${size / 1024} KB`;
  return [
    ratio(`${kb} SDK, Standard Webhooks`, `${kb} standardwebhooks`, `${kb}: SDK / standardwebhooks`, 1),
    ratio(`${kb} SDK, Standard Webhooks`, `${kb} svix`, `${kb}: SDK / svix`, 1),
    ratio(`${kb} SDK, Stripe-Signature`, `${kb} stripe constructEvent`, `${kb}: SDK / Stripe constructEvent`, 1),
    ratio(
      `${kb} SDK, X-Webhook-Signature`,
      `${kb} bare HMAC + timingSafeEqual + JSON.parse`,
      `${kb}: SDK / bare HMAC + parse`,
      size === 1024 ? 2 : undefined,
    ),
  ];
});

await benchmark(`webhook verification, ${ITERATIONS} verifications of each, shuffled`, measure, figures);
