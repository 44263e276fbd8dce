/** `acme-identity check-receiver` (#29): a correct receiver passes; each broken one is caught, with advice. */
import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { checkReceiver, signDelivery, type SigningScheme } from '../../src/cli/check-receiver.js';
import { createIdentityInbox } from '../../src/inbox/index.js';
import { createWebhookReceiver, createWebhookVerifier, type WebhookVerifierOptions } from '../../src/webhooks/index.js';

const SECRET = 'whsec_check_0123456789abcdef0123456789';
const URL = 'https://rp.example/webhooks/acme';
type Endpoint = (request: Request) => Promise<Response>;

const sdkReceiver = (options: Partial<WebhookVerifierOptions> = {}): Endpoint =>
  createWebhookReceiver(createWebhookVerifier({ secret: SECRET, logLevel: 'off', ...options }), () => undefined).fetch;

async function check(endpoint: Endpoint, scheme?: SigningScheme, failingCode?: string) {
  const urls: string[] = [];
  const checks = await checkReceiver({
    url: URL,
    secret: SECRET,
    ...(scheme ? { scheme } : {}),
    ...(failingCode ? { failingCode } : {}),
    fetch: (request) => {
      urls.push(request.url);
      return endpoint(request);
    },
  });
  return {
    urls,
    byName: Object.fromEntries(checks.map((c) => [c.name, c])),
    failed: checks.filter((c) => c.status === 'fail').map((c) => c.name),
  };
}

describe('acme-identity check-receiver', () => {
  test("the SDK's receiver passes every check, and nothing is sent anywhere but the given URL", async () => {
    const { byName, failed, urls } = await check(sdkReceiver());
    expect(failed).toEqual([]);
    for (const name of ['first delivery', 'redelivery', 'bad signature', 'reformatted body']) expect(byName[name]?.status, name).toBe('ok');
    expect(byName['stale timestamp']?.status).toBe('skip');
    expect(new Set(urls)).toEqual(new Set([URL]));
  });

  test.each<'stripe' | 'standard'>(['stripe', 'standard'])('with the %s scheme, a stale timestamp is checked too', async (scheme) => {
    const { byName, failed } = await check(sdkReceiver({ scheme }), scheme);
    expect(failed).toEqual([]);
    expect(byName['stale timestamp']?.status).toBe('ok');
    // A receiver that ignores the timestamp is caught.
    const lax = await check(sdkReceiver({ scheme, toleranceSeconds: 86_400 }), scheme);
    expect(lax.byName['stale timestamp']).toMatchObject({ status: 'fail', advice: expect.stringContaining('an hour ago') });
  });

  test("an identity inbox behind the receiver answers check-receiver's deliveries without storing them: nothing pending, nothing set aside (#41)", async () => {
    const outcomes: string[] = [];
    const inbox = createIdentityInbox({
      client: {
        identityResponses: { getVerified: () => Promise.reject(new Error('a test delivery is never fetched')) },
        identityRequests: { get: async () => ({ data: {} }) },
      },
      logLevel: 'off',
      hooks: { onInbox: (event) => void outcomes.push(event.outcome) },
      onIdentity: () => undefined,
    });
    const receiver = createWebhookReceiver(createWebhookVerifier({ secret: SECRET, logLevel: 'off', replayStore: false }), inbox.receive);
    const { failed } = await check(receiver.fetch);
    expect(failed).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(0);
    expect(new Set(outcomes)).toEqual(new Set(['test']));
    expect(await inbox.runOnce()).toBe(0);
    expect(await inbox.stats()).toMatchObject({ pending: 0, inFlight: 0, dead: 0 });
  });

  test('the test marker is part of what is signed: the same delivery without it is an ordinary one, and the marker added after signing is refused', async () => {
    const inbox = createIdentityInbox({
      client: { identityResponses: { getVerified: async () => ({}) as never }, identityRequests: { get: async () => ({ data: {} }) } },
      logLevel: 'off',
      reconcileIntervalMs: false,
      onIdentity: () => undefined,
    });
    const verifier = createWebhookVerifier({ secret: SECRET, logLevel: 'off', replayStore: false });
    const token = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ exp: Math.floor(Date.now() / 1000) + 600 })).toString('base64url')}.`;
    const plain = JSON.stringify({ event: 'approved', access_request_code: 'arc_real', access_token: token });
    const signature = signDelivery(SECRET, plain, 'prefixed-hex', Math.floor(Date.now() / 1000));
    expect(await inbox.receive(await verifier.verify(plain, signature))).toBe('added');
    const marked = JSON.stringify({ ...JSON.parse(plain), acme_identity_test: 'check-receiver' });
    await expect(verifier.verify(marked, signature)).rejects.toMatchObject({ code: 'ERR_WEBHOOK_SIGNATURE' });
  });

  test('a receiver that skips verification is caught: it accepted a bad signature', async () => {
    const { byName, failed } = await check(async () => new Response(null, { status: 200 }));
    expect(failed).toEqual(['bad signature', 'reformatted body']);
    expect(byName['bad signature']?.advice).toContain('it is not verifying');
  });

  test('a receiver that parses the body before verifying is caught: it accepted a reformatted body', async () => {
    const parsesFirst: Endpoint = async (request) => {
      const body = JSON.stringify(await request.json());
      const expected = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      return new Response(null, { status: request.headers.get('x-webhook-signature') === expected ? 200 : 400 });
    };
    const { byName, failed } = await check(parsesFirst);
    expect(failed).toEqual(['reformatted body']);
    expect(byName['reformatted body']?.advice).toContain('raw bytes');
  });

  test('a receiver with another secret is caught at the first delivery; one that processes redeliveries as new 500s is caught', async () => {
    const other = await check(
      createWebhookReceiver(createWebhookVerifier({ secret: `${SECRET}-other`, logLevel: 'off' }), () => undefined).fetch,
    );
    expect(other.byName['first delivery']).toMatchObject({ status: 'fail', advice: expect.stringContaining("endpoint's secret") });
    let seen = 0;
    const failsSecondTime: Endpoint = async (request) => {
      const answer = await sdkReceiver({ replayStore: false })(request);
      if (answer.status === 200 && ++seen > 1) return new Response(null, { status: 500 });
      return answer;
    };
    expect((await check(failsSecondTime)).byName['redelivery']).toMatchObject({ status: 'fail' });
  });

  test('a handler failure: answered 5xx by the SDK receiver; a receiver that answers 200 anyway is caught; skipped without a failing code', async () => {
    const failing = 'arc_check_fail';
    const handler = (event: { accessRequestCode: string }) => {
      if (event.accessRequestCode === failing) throw new Error('database down');
    };
    const sdk = createWebhookReceiver(createWebhookVerifier({ secret: SECRET, logLevel: 'off' }), handler).fetch;
    expect((await check(sdk, undefined, failing)).byName['handler failure']).toMatchObject({ status: 'ok', detail: 'answered 500' });
    const swallows: Endpoint = async (request) => {
      const answer = await sdk(request);
      return answer.status === 500 ? new Response(null, { status: 200 }) : answer;
    };
    expect((await check(swallows, undefined, failing)).byName['handler failure']).toMatchObject({
      status: 'fail',
      advice: expect.stringContaining('will not retry'),
    });
    expect((await check(sdk)).byName['handler failure']?.status).toBe('skip');
  });

  test('a URL with no route (404, 405): one failing line that says so, not a receiver "accepting a bad signature" (#43)', async () => {
    for (const status of [404, 405]) {
      const { byName, failed } = await check(async () => new Response('no such route', { status }));
      expect(failed).toEqual(['first delivery']);
      expect(byName['first delivery']).toMatchObject({
        detail: expect.stringContaining('no webhook route'),
        advice: expect.stringContaining('check the URL'),
      });
      expect(byName['bad signature']).toBeUndefined();
    }
  });

  test('each answer graded: the right one ok, a near one (another 2xx, 409, another 4xx, a 4xx for a failed handler) a warning, anything else a failure; every delivery sent as JSON', async () => {
    const scripted = (statuses: number[]): Endpoint => {
      let next = 0;
      return async (request) => {
        expect(request.headers.get('content-type')).toBe('application/json');
        return new Response(null, { status: statuses[next++] ?? 599 });
      };
    };
    // In order: first delivery, redelivery, bad signature, reformatted body, stale timestamp (Stripe's scheme signs one), handler failure.
    const grades = async (statuses: number[]) => {
      const { byName } = await check(scripted(statuses), 'stripe', 'arc_fails');
      return ['first delivery', 'redelivery', 'bad signature', 'reformatted body', 'stale timestamp', 'handler failure'].map(
        (name) => byName[name]?.status,
      );
    };
    expect(await grades([200, 200, 400, 400, 400, 500])).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(await grades([202, 409, 401, 422, 403, 400])).toEqual(['warn', 'warn', 'warn', 'warn', 'warn', 'warn']);
    expect(await grades([302, 500, 200, 500, 204, 200])).toEqual(['fail', 'fail', 'fail', 'fail', 'fail', 'fail']);
    // A redelivery refused as an error (not 409, "still in hand") makes the service retry it: a failure.
    expect((await grades([200, 400]))[1]).toBe('fail');
    expect((await grades([200, 404]))[1]).toBe('fail');
    // Advice only where something is to be mended.
    const { byName } = await check(scripted([200, 200, 400, 400, 400, 500]), 'stripe', 'arc_fails');
    for (const [name, line] of Object.entries(byName)) expect(line, name).not.toHaveProperty('advice');
    // A correctly signed first delivery refused (400, 401, 403) points at the secret and the scheme; any other failure at the answer.
    for (const status of [400, 401, 403]) {
      expect((await check(scripted([status]), 'stripe')).byName['first delivery']?.advice, String(status)).toContain('secret');
    }
    expect((await check(scripted([500]), 'stripe')).byName['first delivery']?.advice).toContain('answer 200 once the delivery is stored');
  });

  test('an endpoint that cannot be reached fails the checks with the reason', async () => {
    const { byName } = await check(() => Promise.reject(new TypeError('connect ECONNREFUSED 127.0.0.1:3000')));
    expect(byName['first delivery']).toMatchObject({ status: 'fail', detail: expect.stringContaining('ECONNREFUSED') });
  });

  test('signDelivery writes each scheme as the verifier reads it', async () => {
    const body = '{"event":"approved","access_request_code":"arc_1","access_token":"a.b.c"}';
    for (const scheme of ['prefixed-hex', 'hex', 'base64', 'stripe', 'standard'] as const) {
      const verifier = createWebhookVerifier({
        secret: SECRET,
        scheme: scheme === 'prefixed-hex' || scheme === 'hex' || scheme === 'base64' ? 'auto' : scheme,
        replayStore: false,
        logLevel: 'off',
      });
      const event = await verifier.verify(body, signDelivery(SECRET, body, scheme, Math.floor(Date.now() / 1000)));
      expect(event.accessRequestCode, scheme).toBe('arc_1');
    }
  });
});
