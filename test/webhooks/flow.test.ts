/** The whole asynchronous flow against the fake: request, approval, webhook, verification, identity. */
import { decodeJwt } from 'jose';
import { http, HttpResponse } from 'msw';
import { describe, expect, test } from 'vitest';
import { IdentityFlowError, NotFoundError, type VerifiedIdentityOptions } from '../../src/index.js';
import { readClaim, remoteJwks } from '../../src/sd-jwt/index.js';
import { DEFAULT_CLIENT, signWebhook } from '../../src/testing/index.js';
import { createWebhookReceiver, createWebhookVerifier, type IdentityActionsEvent } from '../../src/webhooks/index.js';
import { harness, person, rejection, server } from '../helpers.js';

const WEBHOOK_URL = 'https://rp.example/webhooks/acme';

/** A fake with its webhooks going to a receiver (reached through msw) that keeps the events. */
async function receiving(answers: number[] = []) {
  const h = await harness({ fake: { webhookRetry: { attempts: 3, baseDelayMs: 1 } } });
  h.service.setWebhookUrl(WEBHOOK_URL);
  const events: IdentityActionsEvent[] = [];
  const receiver = createWebhookReceiver(createWebhookVerifier({ secret: DEFAULT_CLIENT.webhookSecret }), (event) => {
    events.push(event);
  });
  server.use(
    http.post(WEBHOOK_URL, async ({ request }) => {
      const forced = answers.shift();
      if (forced !== undefined) return new HttpResponse(null, { status: forced });
      return receiver.fetch(request);
    }),
  );
  return { ...h, events };
}

/**
 * An approved request on a clock of the test's own (fake and client alike), its identity response
 * outliving the webhook's token, so that only the token's expiry is at stake; `exp` is the token's.
 */
async function approvedOnOwnClock() {
  const clock = { ms: Date.now() };
  const h = await harness({ fake: { now: () => clock.ms, identityResponseTtlSeconds: 86_400 }, client: { now: () => clock.ms } });
  const { data } = await h.client.identityRequests.create(person());
  const payload = await h.service.approve(data.access_request_code);
  const exp = decodeJwt(payload.access_token).exp as number;
  return { h, data, payload, exp, clock };
}

describe('asynchronous identity flow', () => {
  test('create → approve → signed webhook → 200 → fetch with its token → verified, signed claims', async () => {
    const { client, service, events } = await receiving();
    const { data } = await client.identityRequests.create(
      person({ claims: ['acmeidentity.name', 'sanctionscheck.is_pep', 'acmeidentity.credential'] }),
    );
    await service.approve(data.access_request_code);
    await service.webhooksSettled();

    expect(service.deliveries).toMatchObject([{ url: WEBHOOK_URL, status: 200, delivered: true, attempt: 1 }]);
    const [event] = events;
    expect(event).toMatchObject({ kind: 'approved', accessRequestCode: data.access_request_code });

    const identity = await client.identityResponses.getVerified(event!, {
      identitySessionCode: data.identity_session_code,
      keys: remoteJwks(service.authUrl),
      requireSignature: true,
    });
    expect(identity.proof).toBe('signature');
    expect(readClaim(identity.claims, 'acmeidentity.name')).toEqual({ first_name: 'Jane', last_name: 'Citizen' });
    expect(readClaim(identity.claims, 'sanctionscheck.is_pep')).toBe(false);
  });

  test('the cancelled path: the webhook says cancelled and there is no identity to fetch', async () => {
    const { client, service, events } = await receiving();
    const { data } = await client.identityRequests.create(person());
    await service.cancel(data.access_request_code);
    await service.webhooksSettled();
    expect(events[0]?.kind).toBe('cancelled');
    const error = await rejection(client.identityResponses.getVerified(events[0]!, { identitySessionCode: data.identity_session_code }));
    expect(error).toBeInstanceOf(IdentityFlowError);
    // Said before any request: the service would only answer 404.
    expect(error).toMatchObject({ step: 'cancelled', message: expect.stringContaining('the webhook says so') });
    expect(service.requests.filter((r) => r.path.startsWith('/identity/response'))).toHaveLength(0);
    // An event without a kind, or of a kind the SDK cannot read, is tried: the service's 404 says it was cancelled.
    for (const kind of [undefined, 'unknown', 'identity.request.closed']) {
      const unlabelled = { kind, accessRequestCode: events[0]!.accessRequestCode, accessToken: events[0]!.accessToken };
      const fetched = await rejection(
        client.identityResponses.getVerified(unlabelled, { identitySessionCode: data.identity_session_code }),
      );
      expect(fetched).toMatchObject({ code: 'ERR_IDENTITY_FLOW', step: 'cancelled' });
      expect((fetched as IdentityFlowError).cause).toBeInstanceOf(NotFoundError);
    }
    // With codes that name no request (a wrong identitySessionCode), a 404 is a failed fetch, not a cancellation.
    const unknown = { kind: 'unknown', accessRequestCode: events[0]!.accessRequestCode, accessToken: events[0]!.accessToken };
    const wrong = await rejection(client.identityResponses.getVerified(unknown, { identitySessionCode: 'isc_not_this_one' }));
    expect(wrong).toMatchObject({ code: 'ERR_IDENTITY_FLOW', step: 'fetch' });
    expect((wrong as IdentityFlowError).cause).toBeInstanceOf(NotFoundError);
    // An event that says approved is believed: a 404 then is a failed fetch, not a cancellation.
    const approved = { kind: 'approved', accessRequestCode: events[0]!.accessRequestCode, accessToken: events[0]!.accessToken };
    expect(
      await rejection(client.identityResponses.getVerified(approved, { identitySessionCode: data.identity_session_code })),
    ).toMatchObject({ step: 'fetch' });
  });

  test("the check that a cancelled request exists is made with the call's options: its correlation id is sent", async () => {
    const { client, service, events } = await receiving();
    const { data } = await client.identityRequests.create(person());
    await service.cancel(data.access_request_code);
    await service.webhooksSettled();
    const unlabelled = { kind: 'unknown', accessRequestCode: events[0]!.accessRequestCode, accessToken: events[0]!.accessToken };
    const error = await rejection(
      client.identityResponses.getVerified(unlabelled, {
        identitySessionCode: data.identity_session_code,
        correlationId: 'corr-cancelled',
      }),
    );
    expect(error).toMatchObject({ step: 'cancelled' });
    const asked = service.requests.filter((r) => r.path.startsWith('/identity/request/') && r.method === 'GET');
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.map((r) => r.headers['x-correlation-id'])).toEqual(asked.map(() => 'corr-cancelled'));
  });

  test('an event of unknown kind for an approved request gives the verified identity', async () => {
    const { client, service } = await receiving();
    const { data } = await client.identityRequests.create(person({ claims: ['acmeidentity.name'] }));
    const payload = await service.approve(data.access_request_code);
    await service.webhooksSettled();
    const event = { kind: 'unknown', accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
    const identity = await client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code });
    expect(readClaim(identity.claims, 'acmeidentity.name')).toEqual({ first_name: 'Jane', last_name: 'Citizen' });
  });

  test('an answer with nothing disclosed, nothing missing and no credential is refused for every kind: never a cancellation, never an empty identity', async () => {
    const { client, service } = await receiving();
    const { data } = await client.identityRequests.create(person());
    const payload = await service.approve(data.access_request_code);
    await service.webhooksSettled();
    const empty = { ...service.identityRequest(data.access_request_code)!.response!, disclosures: [], disclosures_missing: [], _sd: [] };
    server.use(http.get(/\/identity\/response\//, () => HttpResponse.json({ data: empty, correlation_id: 'cor_1' })));
    for (const kind of [undefined, 'unknown', 'approved']) {
      const event = { kind, accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
      const error = await rejection(client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code }));
      expect(error).toMatchObject({ code: 'ERR_IDENTITY_FLOW', step: 'verify' });
      expect((error as IdentityFlowError).cause).toMatchObject({ code: 'ERR_SD_JWT_NO_CLAIMS' });
    }
  });

  test('an approval that asked only for another credential (acicncchc) is that credential, whatever the event names (regression: handed over as cancelled)', async () => {
    const { client, service } = await receiving();
    const { data } = await client.identityRequests.create(person({ claims: ['acicncchc.credential'] }));
    const payload = await service.approve(data.access_request_code);
    await service.webhooksSettled();
    for (const kind of [undefined, 'unknown', 'approved']) {
      const event = { kind, accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
      const identity = await client.identityResponses.getVerified(event, {
        identitySessionCode: data.identity_session_code,
        keys: remoteJwks(service.authUrl),
      });
      expect(Object.keys(identity.credentials)).toEqual(['acicncchc.credential_jwt']);
      // Without keys the credential cannot be read: refused, saying which option to set, never "cancelled".
      const unkeyed = await rejection(client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code }));
      expect((unkeyed as IdentityFlowError).step).toBe('verify');
      expect((unkeyed as IdentityFlowError).cause).toMatchObject({
        code: 'ERR_SD_JWT_NO_CLAIMS',
        message: expect.stringContaining('pass keys'),
      });
    }
  });

  test('a receiver that does not answer 200 gets the webhook again, with backoff, a bounded number of times', async () => {
    const { client, service, events } = await receiving([500, 503]);
    const { data } = await client.identityRequests.create(person());
    await service.approve(data.access_request_code);
    await service.webhooksSettled();
    expect(service.deliveries.map((d) => d.status)).toEqual([500, 503, 200]);
    expect(events).toHaveLength(1);

    const failing = await receiving([500, 500, 500, 500]);
    const created = await failing.client.identityRequests.create(person());
    await failing.service.approve(created.data.access_request_code);
    await failing.service.webhooksSettled();
    expect(failing.service.deliveries.map((d) => d.delivered)).toEqual([false, false, false]);
  });

  test('a redelivered webhook is answered 200 but not processed twice', async () => {
    const { client, service, events } = await receiving();
    const { data } = await client.identityRequests.create(person());
    const payload = await service.approve(data.access_request_code);
    await service.webhooksSettled();
    const body = JSON.stringify(payload);
    const again = await fetch(WEBHOOK_URL, {
      method: 'POST',
      body,
      headers: { 'x-webhook-signature': await signWebhook(DEFAULT_CLIENT.webhookSecret, body) },
    });
    expect(again.status).toBe(200);
    expect(events).toHaveLength(1);
  });

  test('a token that names another request is refused at the token step, before anything is fetched', async () => {
    const { client, service, events } = await receiving();
    const a = await client.identityRequests.create(person());
    const b = await client.identityRequests.create(person({ email: 'b@example.com', phone: '400000002' }));
    await service.approve(a.data.access_request_code);
    await service.approve(b.data.access_request_code);
    await service.webhooksSettled();
    const mixed = { accessRequestCode: events[0]!.accessRequestCode, accessToken: events[1]!.accessToken };
    const before = service.requests.length;
    const error = await rejection(client.identityResponses.getVerified(mixed, { identitySessionCode: a.data.identity_session_code }));
    expect(error).toMatchObject({ code: 'ERR_IDENTITY_FLOW', step: 'token' });
    expect(service.requests.length).toBe(before);
  });

  test("the webhook's token is read before anything is fetched: one naming no request, or expired on the service's clock, is refused at the token step", async () => {
    const { client, service } = await receiving();
    const { data } = await client.identityRequests.create(person());
    const code = data.access_request_code;
    const unsigned = (payload: object) =>
      `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.c2ln`;
    const fetches = () => service.requests.filter((r) => r.path.startsWith('/identity/response')).length;
    for (const [payload, said] of [
      [{ exp: Math.floor(Date.now() / 1000) + 600 }, "does not name the event's access_request_code"],
      [{ access_request_code: code, exp: Math.floor(Date.now() / 1000) - 1 }, 'expired'],
      // By the rule for a JWT's times (numericDate): an exp in milliseconds, or as digits, is not one thousands of years away.
      [{ access_request_code: code, exp: (Math.floor(Date.now() / 1000) - 1) * 1000 }, 'expired'],
      [{ access_request_code: code, exp: String(Math.floor(Date.now() / 1000) - 1) }, 'expired'],
    ] as const) {
      const event = { kind: 'approved', accessRequestCode: code, accessToken: unsigned(payload) };
      const error = await rejection(client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code }));
      expect(error, said).toMatchObject({ code: 'ERR_IDENTITY_FLOW', step: 'token', message: expect.stringContaining(said) });
    }
    expect(fetches()).toBe(0);
    // A date is not a JWT's time (RFC 7519's NumericDate is a number): not judged here, the service decides.
    const dated = {
      kind: 'approved',
      accessRequestCode: code,
      accessToken: unsigned({ access_request_code: code, exp: new Date(0).toISOString() }),
    };
    const error = await rejection(client.identityResponses.getVerified(dated, { identitySessionCode: data.identity_session_code }));
    expect(error).toMatchObject({ code: 'ERR_IDENTITY_FLOW', step: 'fetch' });
    expect(fetches()).toBeGreaterThan(0);
  });

  test('a token expiring within the second is still used; one whose exp is now is refused before it is sent', async () => {
    const { h, data, payload, exp, clock } = await approvedOnOwnClock();
    const event = { kind: 'approved', accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
    clock.ms = exp * 1000 - 500;
    await expect(h.client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code })).resolves.toBeDefined();
    clock.ms = exp * 1000;
    const error = await rejection(h.client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code }));
    expect(error).toMatchObject({ step: 'token', message: expect.stringContaining('expired') });
    // It says when, and how long ago on the service's clock.
    clock.ms = exp * 1000 + 5_000;
    const later = await rejection(h.client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code }));
    expect((later as Error).message).toContain(`expired at ${new Date(exp * 1000).toISOString()} (5 s ago, on the service's clock)`);
  });

  test("the call's options reach the fetch: its correlation id is sent, maxRetries bounds the attempts, an aborted signal stops it", async () => {
    const { h, data, payload } = await approvedOnOwnClock();
    const event = { kind: 'approved', accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
    const fetched = () => h.service.requests.filter((r) => r.path.startsWith('/identity/response'));
    await h.client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code, correlationId: 'corr-flow-1' });
    expect(fetched().at(-1)?.headers['x-correlation-id']).toBe('corr-flow-1');
    let attempts = 0;
    server.use(
      http.get(/\/identity\/response\//, () => {
        attempts += 1;
        return HttpResponse.json({ error: 'unavailable' }, { status: 503 });
      }),
    );
    const error = await rejection(
      h.client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code, maxRetries: 0 }),
    );
    expect(error).toMatchObject({ step: 'fetch' });
    expect(attempts).toBe(1);
    const aborted = await rejection(
      h.client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code, signal: AbortSignal.abort() }),
    );
    expect(aborted).toMatchObject({ step: 'fetch', cause: { code: 'ERR_ABORTED' } });
  });

  test('a fetch that fails for another reason than authentication is a failed fetch, even if the token expired meanwhile', async () => {
    const { h, data, payload, exp, clock } = await approvedOnOwnClock();
    clock.ms = exp * 1000 - 1_000;
    // The service fails while the token runs out: its expiry did not cause the failure.
    server.use(
      http.get(/\/identity\/response\//, () => {
        clock.ms = exp * 1000 + 1_000;
        return HttpResponse.json({ error: 'unavailable' }, { status: 500 });
      }),
    );
    const event = { kind: 'approved', accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
    const error = await rejection(
      h.client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code, maxRetries: 0 }),
    );
    expect(error).toMatchObject({ code: 'ERR_IDENTITY_FLOW', step: 'fetch' });
  });

  test("a fetch refused as unauthenticated once the token has expired on the service's clock is the token's expiry, at the token step", async () => {
    const { h, data, payload, exp, clock } = await approvedOnOwnClock();
    clock.ms = exp * 1000 - 1_000;
    // The token runs out while it is being sent: the service refuses it as bad authentication (E1003).
    server.use(
      http.get(/\/identity\/response\//, () => {
        clock.ms = exp * 1000 + 1_000;
        return HttpResponse.json({ error: { type: 'AUTHENTICATION_FAILED', code: 'E1003', message: 'token expired' } }, { status: 401 });
      }),
    );
    const event = { kind: 'approved', accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
    const error = await rejection(
      h.client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code, maxRetries: 0 }),
    );
    expect(error).toMatchObject({ code: 'ERR_IDENTITY_FLOW', step: 'token', message: expect.stringContaining('expired') });
    expect((error as IdentityFlowError).cause).toMatchObject({ status: 401 });
  });

  test("a failed step's message names its cause's code; a token that is no JWT says so", async () => {
    const { h, data, payload } = await approvedOnOwnClock();
    const event = { kind: 'approved', accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
    server.use(http.get(/\/identity\/response\//, () => HttpResponse.json({ error: 'unavailable' }, { status: 500 }), { once: true }));
    const fetched = (await rejection(
      h.client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code, maxRetries: 0 }),
    )) as IdentityFlowError;
    expect(fetched.step).toBe('fetch');
    expect(fetched.message).toBe(`fetch: GET /identity/response failed (${(fetched.cause as { code: string }).code})`);
    const refused = (await rejection(
      h.client.identityResponses.getVerified(event, {
        identitySessionCode: data.identity_session_code,
        now: () => Date.now() + 2 * 86_400_000,
      }),
    )) as IdentityFlowError;
    expect(refused).toMatchObject({ step: 'verify', cause: { code: 'ERR_SD_JWT_EXPIRED' } });
    expect(refused.message).toBe('verify: the identity response was refused (ERR_SD_JWT_EXPIRED)');
    const garbled = (await rejection(
      h.client.identityResponses.getVerified({ ...event, accessToken: 'not-a-jwt' }, { identitySessionCode: data.identity_session_code }),
    )) as IdentityFlowError;
    expect(garbled).toMatchObject({ step: 'token', message: 'token: the webhook access_token is not a JWT' });
    expect(garbled.cause).toBeInstanceOf(Error);
  });

  test('the response\'s request_code may be either code of the request (the spec\'s "original request code"): both are accepted by default', async () => {
    for (const requestCode of ['identity_session_code', 'access_request_code'] as const) {
      const h = await harness({ fake: { readings: { requestCode } } });
      const { data } = await h.client.identityRequests.create(person());
      const payload = await h.service.approve(data.access_request_code);
      const event = { kind: 'approved', accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
      // The reading is in force: the response names the code it says.
      const { data: response } = await h.client.identityResponses.get({
        accessRequestCode: data.access_request_code,
        identitySessionCode: data.identity_session_code,
        accessToken: payload.access_token,
      });
      expect(response.request_code).toBe(requestCode === 'access_request_code' ? data.access_request_code : data.identity_session_code);
      await expect(
        h.client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code }),
        requestCode,
      ).resolves.toMatchObject({ proof: expect.any(String) });
    }
  });

  test('options given as null are passed on as given: the call and the verifier each judge them, as they would alone', async () => {
    const { h, data, payload } = await approvedOnOwnClock();
    const event = { kind: 'approved', accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
    const nulled = (extra: object) => ({ identitySessionCode: data.identity_session_code, ...extra }) as unknown as VerifiedIdentityOptions;
    expect(await rejection(h.client.identityResponses.getVerified(event, nulled({ signal: null })))).toMatchObject({
      step: 'fetch',
      cause: { code: 'ERR_INVALID_CONFIG', option: 'signal' },
    });
    expect(await rejection(h.client.identityResponses.getVerified(event, nulled({ requestCode: null })))).toMatchObject({
      step: 'verify',
      cause: { code: 'ERR_SD_JWT_REQUEST_CODE' },
    });
  });

  test('for an event of unknown kind, only a 404 can mean cancelled: a failing fetch of a request that exists is a failed fetch', async () => {
    const { client, service } = await receiving();
    const { data } = await client.identityRequests.create(person());
    const payload = await service.approve(data.access_request_code);
    server.use(http.get(/\/identity\/response\//, () => HttpResponse.json({ error: 'unavailable' }, { status: 500 })));
    const event = { kind: 'unknown', accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
    const error = await rejection(
      client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code, maxRetries: 0 }),
    );
    expect(error).toMatchObject({ code: 'ERR_IDENTITY_FLOW', step: 'fetch' });
  });

  test('an expired identity response is refused at the verify step', async () => {
    let clock = Date.now();
    const h = await harness({ fake: { now: () => clock, identityResponseTtlSeconds: 60 }, client: { now: () => clock } });
    const { data } = await h.client.identityRequests.create(person());
    const payload = await h.service.approve(data.access_request_code);
    clock += 61_000;
    const event = { accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
    const error = await rejection(h.client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code }));
    expect(error).toMatchObject({ code: 'ERR_IDENTITY_FLOW', step: 'verify' });
    expect((error as IdentityFlowError).cause).toMatchObject({ code: 'ERR_SD_JWT_EXPIRED' });
    // The verifier's options go through: a tolerance lets it pass, as verifyIdentityResponse's would.
    await expect(
      h.client.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code, clockToleranceSeconds: 5 }),
    ).resolves.toBeDefined();
  });

  test('getVerified takes every option verifyIdentityResponse takes: requestCode, credentialRequiredClaims, issuer, algorithms, now', async () => {
    const h = await harness();
    const { data } = await h.client.identityRequests.create(person({ claims: ['acmeidentity.name', 'acmeidentity.credential'] }));
    const payload = await h.service.approve(data.access_request_code);
    const event = { kind: 'approved', accessRequestCode: payload.access_request_code, accessToken: payload.access_token };
    const base = { identitySessionCode: data.identity_session_code, keys: remoteJwks(h.service.authUrl) };
    const verify = (extra: object) => h.client.identityResponses.getVerified(event, { ...base, ...extra });
    expect((await rejection(verify({ requestCode: 'another' }))) as IdentityFlowError).toMatchObject({
      step: 'verify',
      cause: { code: 'ERR_SD_JWT_REQUEST_CODE' },
    });
    expect(await rejection(verify({ credentialRequiredClaims: ['exp', 'nonexistent'] }))).toMatchObject({
      step: 'verify',
      cause: { code: 'ERR_SD_JWT_MISSING_CLAIM' },
    });
    expect(await rejection(verify({ issuer: 'https://another.example' }))).toMatchObject({
      step: 'verify',
      cause: { code: 'ERR_SD_JWT_ISSUER' },
    });
    expect(await rejection(verify({ algorithms: ['ES256'] }))).toMatchObject({
      step: 'verify',
      cause: { code: 'ERR_SD_JWT_ALG_NOT_ALLOWED' },
    });
    expect(await rejection(verify({ now: () => Date.now() + 86_400_000 }))).toMatchObject({
      step: 'verify',
      cause: { code: 'ERR_SD_JWT_EXPIRED' },
    });
    expect((await verify({ credentialRequiredClaims: [] })).proof).toBe('signature');
  });
});
