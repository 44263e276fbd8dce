import { http, HttpResponse } from 'msw';
import { describe, expect, test, vi } from 'vitest';
import fc from 'fast-check';
import {
  AcmeIdentityClient,
  AuthenticationError,
  MemoryTokenStore,
  NotFoundError,
  responseOf,
  type StoredToken,
  type TokenStore,
} from '../../src/index.js';
import { DEFAULT_CLIENT, type FakeServiceOptions } from '../../src/testing/index.js';
import { harness, person, received, recorder, rejection, server, type Harness } from '../helpers.js';

const T0 = Date.UTC(2026, 10, 22, 12);

/** A fake and client sharing a clock the test moves by hand. */
async function clocked(fake: FakeServiceOptions = {}) {
  const clock = { now: T0 };
  const now = () => clock.now;
  const h = await harness({ fake: { now, accessTokenTtlSeconds: 900, ...fake }, client: { now, refreshMarginSeconds: 60 } });
  return { ...h, clock };
}

async function openRequest(h: Harness) {
  const { data } = await h.client.identityRequests.create(person());
  return { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
}

const tokenRequests = (h: Harness) => received(h.service, /^\/auth\/api-token$/);
const refreshRequests = (h: Harness) => received(h.service, /^\/auth\/api-token\/refresh$/);

/**
 * The token endpoint held: each request is counted as it is sent, and none is answered until the
 * test calls `answer()` (an order of events, not a time).
 */
function heldTokenEndpoint(h: Harness) {
  let sent = 0;
  let answer: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  server.use(
    http.post(/\/auth\/api-token$/, async ({ request }) => {
      sent += 1;
      await answered;
      return h.service.fetch(request);
    }),
  );
  return { sent: () => sent, answer: () => answer() };
}

/** The client's lines about a second token request: decided for later (`debug`), or sent (`info`). */
const hedgeLines = (log: ReturnType<typeof recorder>, level: 'debug' | 'info') =>
  log.lines.filter((line) => line.level === level && /second one/.test(line.message));

describe('a base URL without its /api/v1 (#27)', () => {
  test.each(['', '/api'])('baseUrl ending in %j: the token endpoint is not found, and the error says where to look', async (path) => {
    const h = await harness();
    const wrong = h.makeClient({ baseUrl: `${new URL(h.service.baseUrl).origin}${path}` });
    const error = await rejection(wrong.auth.accessToken());
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toContain('check that baseUrl is the REST root, ending with /api/v1');
    expect((error as Error).message).not.toContain(DEFAULT_CLIENT.clientSecret);
  });

  test.each(['health', 'current'] as const)(
    'status.%s(): the same 404 says the same thing, not a bare "not found" (#43)',
    async (method) => {
      const h = await harness();
      const wrong = h.makeClient({ baseUrl: new URL(h.service.baseUrl).origin });
      const error = await rejection(wrong.status[method]());
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as Error).message).toContain('no status endpoint at');
      expect((error as Error).message).toContain('ending with /api/v1');
    },
  );

  test('only a 404 says where to look: a refused secret at the right base URL is an AuthenticationError that names no base URL', async () => {
    const h = await harness();
    const error = await rejection(h.makeClient({ clientSecret: 'not-the-secret-0123456789' }).auth.accessToken());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).not.toMatch(/baseUrl|api\/v1|no token endpoint/);
  });

  test('a client made with no options says what it needs and where the examples read it (#43)', () => {
    expect(() => new AcmeIdentityClient(undefined as never)).toThrow(/baseUrl .*clientId, clientSecret and tenantId .*ACME_BASE_URL/);
  });
});

describe('token lifecycle', () => {
  test('gets a token on first need, not when the client is made', async () => {
    const h = await clocked();
    expect(tokenRequests(h)).toHaveLength(0);
    await openRequest(h);
    expect(tokenRequests(h)).toHaveLength(1);
  });

  test('reuses the token while it is valid', async () => {
    const h = await clocked();
    const codes = await openRequest(h);
    h.clock.now += 800_000;
    await h.client.identityRequests.get(codes);
    expect(tokenRequests(h)).toHaveLength(1);
    expect(refreshRequests(h)).toHaveLength(0);
  });

  test('refreshes early, within the margin before expiry', async () => {
    const h = await clocked();
    const codes = await openRequest(h);
    h.clock.now += (900 - 59) * 1000;
    await h.client.identityRequests.get(codes);
    expect(refreshRequests(h)).toHaveLength(1);
    expect(tokenRequests(h)).toHaveLength(1);
  });

  test('unless refreshMarginSeconds is set, the margin is 60 s: not renewed 61 s before expiry, renewed 59 s before', async () => {
    const clock = { now: T0 };
    const now = () => clock.now;
    const h = await harness({ fake: { now, accessTokenTtlSeconds: 900 }, client: { now } });
    const codes = await openRequest(h);
    clock.now += (900 - 61) * 1000;
    await h.client.identityRequests.get(codes);
    expect(refreshRequests(h)).toHaveLength(0);
    clock.now += 2_000;
    await h.client.identityRequests.get(codes);
    expect(refreshRequests(h)).toHaveLength(1);
  });

  test('1,000 concurrent calls on an expired token make exactly one refresh', async () => {
    const h = await clocked();
    const codes = await openRequest(h);
    h.clock.now += 901_000;
    const results = await Promise.all(Array.from({ length: 1000 }, () => h.client.identityRequests.get(codes)));
    expect(results).toHaveLength(1000);
    expect(refreshRequests(h)).toHaveLength(1);
    expect(tokenRequests(h)).toHaveLength(1);
  });

  test('calls that arrive while the first token request is on its way wait for it: one request, without a tokenHedgeDelayMs of its own (the hedge waits at least a second)', async () => {
    const h = await harness();
    const log = recorder();
    const client = h.makeClient({ logger: log.logger, logLevel: 'debug' });
    const endpoint = heldTokenEndpoint(h);
    const first = client.auth.accessToken();
    await vi.waitFor(() => expect(endpoint.sent()).toBe(1));
    // The others arrive once the first request is out: the client decides then to hedge it, and when.
    const others = Array.from({ length: 4 }, () => client.auth.accessToken());
    const decided = await vi.waitFor(() => hedgeLines(log, 'debug')[0] ?? Promise.reject(new Error('no hedge decided yet')));
    expect(decided.fields['hedgeMs']).toBeGreaterThanOrEqual(1_000);
    // Decided for later, not now: nothing more went, and no second request was announced.
    expect(endpoint.sent()).toBe(1);
    expect(hedgeLines(log, 'info')).toEqual([]);
    endpoint.answer();
    const results = await Promise.all([first, ...others]);
    expect(new Set(results).size).toBe(1);
    expect(endpoint.sent()).toBe(1);
    expect(hedgeLines(log, 'info')).toEqual([]);
  });

  test("the client's tokenHedgeDelayMs reaches the token manager: with 0, a caller that finds the first token request unanswered sends a second at once (the default waits at least a second)", async () => {
    const h = await harness();
    const log = recorder();
    const client = h.makeClient({ tokenHedgeDelayMs: 0, logger: log.logger, logLevel: 'debug' });
    const endpoint = heldTokenEndpoint(h);
    const first = client.auth.accessToken();
    await vi.waitFor(() => expect(endpoint.sent()).toBe(1));
    const second = client.auth.accessToken();
    // Sent at once, with no wait decided first: the line names the option's 0, not the default's second.
    const sent = await vi.waitFor(() => hedgeLines(log, 'info')[0] ?? Promise.reject(new Error('no second request yet')));
    expect(sent.fields).toEqual({ hedgeMs: 0 });
    expect(hedgeLines(log, 'debug')).toEqual([]);
    await vi.waitFor(() => expect(endpoint.sent()).toBe(2));
    endpoint.answer();
    const results = await Promise.all([first, second]);
    expect(new Set(results).size).toBe(1);
  });

  test('a refused refresh re-authenticates with the key pair', async () => {
    const h = await clocked({ refreshTokenTtlSeconds: 600 });
    const codes = await openRequest(h);
    h.clock.now += 901_000;
    await h.client.identityRequests.get(codes);
    expect(refreshRequests(h)).toHaveLength(1);
    expect(tokenRequests(h)).toHaveLength(2);
  });

  test('a refresh refused by a service that answers errors 200 (the errorStatus reading) re-authenticates with the key pair too: the refusal is its code', async () => {
    const h = await clocked({ refreshTokenTtlSeconds: 600, readings: { errorStatus: 'ok' } });
    const codes = await openRequest(h);
    h.clock.now += 901_000;
    await h.client.identityRequests.get(codes);
    expect(refreshRequests(h)).toHaveLength(1);
    expect(tokenRequests(h)).toHaveLength(2);
  });

  test('a rotated refresh token is the one used next', async () => {
    const h = await clocked();
    const codes = await openRequest(h);
    for (let i = 0; i < 3; i++) {
      h.clock.now += 901_000;
      await h.client.identityRequests.get(codes);
    }
    // The fake accepts each refresh token once: reusing an old one would have forced a re-authentication.
    expect(refreshRequests(h)).toHaveLength(3);
    expect(tokenRequests(h)).toHaveLength(1);
  });

  test.each([
    ['a 401', 'status'],
    ["a 200's body (the errorStatus reading)", 'ok'],
  ] as const)('a token believed valid but refused in %s is invalidated and the call replayed once', async (_, errorStatus) => {
    const h = await clocked({ readings: { errorStatus } });
    const codes = await openRequest(h);
    h.service.revokeAccessTokens();
    const { data } = await h.client.identityRequests.get(codes);
    expect(data.first_name).toBe('Jane');
    const gets = received(h.service, /^\/identity\/request\//, 'GET');
    expect(gets).toHaveLength(2);
    expect(gets[0]!.headers['authorization']).not.toBe(gets[1]!.headers['authorization']);
  });

  test('refused in the body again with the fresh token (a timestamp format the service does not take): an AuthenticationError after one replay, never a loop', async () => {
    const h = await clocked({ readings: { errorStatus: 'ok', timestampFormat: 'unix-ms' } });
    const error = await rejection(h.client.identityRequests.get({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_1' }));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 200 });
    expect(received(h.service, /^\/identity\/request\//, 'GET')).toHaveLength(2);
  });

  test("only a 2xx whose failure is the token's (E1003 or AUTHENTICATION_FAILED, any case) is replayed: the words elsewhere, another code, an error status are not", async () => {
    const h = await clocked();
    const codes = await openRequest(h);
    const cases: [body: Record<string, unknown>, status: number, replayed: boolean][] = [
      [{ error: { type: 'authentication_failed', message: 'token revoked' } }, 200, true],
      [{ success: false, code: 'e1003' }, 200, true],
      [{ data: { first_name: 'E1003', last_name: 'authentication_failed' }, correlation_id: 'c' }, 200, false],
      [{ error: { code: 'E1005', message: 'not E1003, not AUTHENTICATION_FAILED' } }, 200, false],
      [{ error: { code: 'E1003', type: 'AUTHENTICATION_FAILED' } }, 400, false],
    ];
    for (const [body, status, replayed] of cases) {
      let calls = 0;
      server.use(
        http.get(/\/api\/v1\/identity\/request\//, () => {
          calls += 1;
          return HttpResponse.json(body, { status });
        }),
      );
      await h.client.identityRequests.get(codes).catch(() => undefined);
      expect(calls, JSON.stringify(body)).toBe(replayed ? 2 : 1);
    }
  });

  test("the replay after a 401 is the call's second attempt: its result and every event say so", async () => {
    const h = await clocked();
    const codes = await openRequest(h);
    const attempts: { hook: string; path: string; attempt: number }[] = [];
    const client = h.makeClient({
      now: () => h.clock.now,
      hooks: {
        onRequest: ({ path, attempt }) => attempts.push({ hook: 'request', path, attempt }),
        onResponse: ({ path, attempt }) => attempts.push({ hook: 'response', path, attempt }),
      },
    });
    await client.status.current();
    await client.auth.accessToken();
    h.service.revokeAccessTokens();
    attempts.length = 0;
    const result = await client.identityRequests.get(codes);
    expect(responseOf(result)).toMatchObject({ status: 200, attempts: 2 });
    // (The token's refresh, between them, is a call of its own: its first attempt.)
    const read = '/identity/request/{access_request_code}/{identity_session_code}';
    expect(attempts.filter(({ path }) => path === read).map(({ hook, attempt }) => `${hook} ${attempt}`)).toEqual([
      'request 1',
      'response 1',
      'request 2',
      'response 2',
    ]);
    expect(attempts.filter(({ path }) => path !== read).map(({ path, attempt }) => `${path} ${attempt}`)).toEqual([
      '/auth/api-token/refresh 1',
      '/auth/api-token/refresh 1',
    ]);
  });

  test('a second 401 is an AuthenticationError after exactly one replay', async () => {
    const h = await clocked();
    const codes = await openRequest(h);
    h.service.injectFault({ kind: 'status', status: 401, path: /^\/identity\/request\//, times: 5 });
    const error = await rejection(h.client.identityRequests.get(codes));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, type: 'AUTHENTICATION_FAILED', serviceCode: 'E1003' });
    expect(received(h.service, /^\/identity\/request\//, 'GET')).toHaveLength(2);
  });

  test('wrong client credentials are an AuthenticationError, without a replay loop', async () => {
    const h = await clocked();
    const client = h.makeClient({ clientSecret: 'not-the-secret' });
    expect(await rejection(client.status.current().then(() => client.identityRequests.create(person())))).toBeInstanceOf(
      AuthenticationError,
    );
    expect(tokenRequests(h)).toHaveLength(1);
  });

  test('when an early refresh fails for a passing reason, the still-valid token is used', async () => {
    const h = await clocked();
    const codes = await openRequest(h);
    h.clock.now += (900 - 30) * 1000;
    h.service.injectFault({ kind: 'network', path: '/auth/api-token/refresh', times: 3 });
    await expect(h.client.identityRequests.get(codes)).resolves.toBeDefined();
    expect(refreshRequests(h)).toHaveLength(3); // the refresh was tried, with its two retries
    expect(tokenRequests(h)).toHaveLength(1);
  });

  test.each([429, 500, 503])(
    'a refresh answered %i is a passing failure: the still-valid token is used, the key pair is not',
    async (status) => {
      const h = await clocked();
      const codes = await openRequest(h);
      h.clock.now += (900 - 30) * 1000;
      h.service.injectFault({ kind: 'status', status, path: '/auth/api-token/refresh', times: 3 });
      await expect(h.client.identityRequests.get(codes, { maxRetries: 0 })).resolves.toBeDefined();
      expect(refreshRequests(h)).toHaveLength(3); // the refresh, with the renewal's own two retries
      expect(tokenRequests(h)).toHaveLength(1);
    },
  );

  test.each([400, 401, 499])('a refresh answered %i is a refusal: the key pair is used at once', async (status) => {
    const h = await clocked();
    const codes = await openRequest(h);
    h.clock.now += (900 - 30) * 1000;
    h.service.injectFault({ kind: 'status', status, path: '/auth/api-token/refresh' });
    await expect(h.client.identityRequests.get(codes, { maxRetries: 0 })).resolves.toBeDefined();
    expect(refreshRequests(h)).toHaveLength(1);
    expect(tokenRequests(h)).toHaveLength(2);
  });

  test('an expired token is never sent again after its refresh failed for a passing reason: the call fails with that failure', async () => {
    const h = await clocked();
    const codes = await openRequest(h);
    const reads = () => received(h.service, /^\/identity\/request\/[^/]+\/[^/]+$/).length;
    h.clock.now += 900_000; // the token's expiry, exactly
    h.service.injectFault({ kind: 'status', status: 503, path: '/auth/api-token/refresh', times: 3 });
    const error = await rejection(h.client.identityRequests.get(codes, { maxRetries: 0 }));
    expect(error).toMatchObject({ status: 503 });
    expect(reads()).toBe(0);
    expect(tokenRequests(h)).toHaveLength(1);
  });

  test('clients sharing a token store share one token', async () => {
    const h = await clocked();
    const tokenStore = new MemoryTokenStore();
    const a = h.makeClient({ tokenStore });
    const b = h.makeClient({ tokenStore });
    await a.auth.accessToken();
    await b.auth.accessToken();
    expect(tokenRequests(h)).toHaveLength(1);
  });

  test('an asynchronous store (Redis, a database) is awaited: clients share its token and see its refresh', async () => {
    const h = await clocked();
    const kept = new Map<string, StoredToken>();
    const tokenStore: TokenStore = {
      get: async (key) => kept.get(key),
      set: async (key, token) => void kept.set(key, token),
    };
    const a = h.makeClient({ tokenStore });
    const b = h.makeClient({ tokenStore });
    const codes = await openRequest({ ...h, client: a });
    await b.identityRequests.get(codes);
    expect(tokenRequests(h)).toHaveLength(1);
    h.clock.now += 870_000; // within the refresh margin
    await a.identityRequests.get(codes);
    await b.identityRequests.get(codes);
    expect(refreshRequests(h)).toHaveLength(1);
    expect(tokenRequests(h)).toHaveLength(1);
  });

  test('a store that fails (a shared Redis unreachable): the process carries on with its own token, and says so at warn', async () => {
    const h = await clocked();
    const broken = Object.assign(new Error('store unreachable'), { code: 'ECONNREFUSED' });
    const warnings: { message: string; fields: object }[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string, fields: object) => warnings.push({ message, fields }) };
    const a = h.makeClient({ logger, tokenStore: { get: async () => Promise.reject(broken), set: () => Promise.reject(broken) } });
    const b = h.makeClient({
      logger,
      tokenStore: {
        get: () => {
          throw broken;
        },
        set: () => {
          throw broken;
        },
      },
    });
    for (const client of [a, b]) {
      const { data } = await client.identityRequests.create(person());
      // The second call reuses the process's own token: no second token request.
      await client.identityRequests.get({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });
      await client.identityRequests.delete({
        accessRequestCode: data.access_request_code,
        identitySessionCode: data.identity_session_code,
      });
    }
    expect(tokenRequests(h)).toHaveLength(2);
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]!.message).toContain('the token store could not');
    expect(warnings[0]!.fields).toMatchObject({ error: 'Error', code: 'ECONNREFUSED' });
    expect(JSON.stringify(warnings)).not.toContain('store unreachable');
  });

  test('token requests carry no bearer token and no identity headers', async () => {
    const h = await clocked();
    await h.client.auth.accessToken();
    const [sent] = tokenRequests(h);
    expect(sent!.headers['authorization']).toBeUndefined();
    expect(sent!.headers['x-tenant-id']).toBeUndefined();
    expect(sent!.headers['content-type']).toBe('application/json');
  });
});

describe("a shared store's renewal lease", () => {
  test('property: the lease a leasing store is asked for outlasts the longest renewal (every token attempt timing out) by 5 s', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 120_000 }), fc.integer({ min: 0, max: 10 }), async (tokenTimeoutMs, maxRetries) => {
        const leases: number[] = [];
        const kept = new Map<string, StoredToken>();
        const tokenStore: TokenStore = {
          get: async (key) => kept.get(key),
          set: async (key, token) => void kept.set(key, token),
          lease: async (_key, ttlMs) => {
            leases.push(ttlMs);
            return { release: async () => undefined };
          },
        };
        const client = new AcmeIdentityClient({
          ...DEFAULT_CLIENT,
          baseUrl: 'https://api.acme.test/api/v1',
          tokenStore,
          tokenTimeoutMs,
          maxRetries,
          fetch: async () => Response.json({ data: { access_token: 'a.b.c', expires_in: 900 } }),
        });
        await client.auth.accessToken();
        expect(leases).toEqual([tokenTimeoutMs * (maxRetries + 1) + 5_000]);
      }),
    );
  });
});
