/**
 * Token renewal on a bad network, over real sockets: a hung token request holds nobody for long.
 * How long is shown by the order of events, never by a wall-clock bound (which a loaded machine
 * breaks): each caller's outcome and each renewal's (the client's `onTokenRenewal` hook), as they
 * happen.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AbortError, TimeoutError, type ClientOptions } from '../../../src/index.js';
import { served, type Served } from './localhost.js';

/** A client whose renewals, and the callers' outcomes given to `settle`, are written to `order` as they happen. */
function timeline(options: Partial<ClientOptions>) {
  const order: string[] = [];
  const client = s.client({
    ...options,
    hooks: { onTokenRenewal: (event) => void order.push(`renewal ${event.outcome}${event.errorCode ? ` ${event.errorCode}` : ''}`) },
  });
  const settle = <T>(name: string, promise: Promise<T>): Promise<{ value?: T; error?: unknown }> =>
    promise.then(
      (value) => {
        order.push(`${name} ok`);
        return { value };
      },
      (error: unknown) => {
        order.push(`${name} ${(error as { code?: string }).code}`);
        return { error };
      },
    );
  return { client, order, settle };
}

const tokenRequests = (s: Served, since = 0) => s.service.requests.slice(since).filter((r) => r.path === '/auth/api-token').length;

let s: Served;
beforeAll(async () => {
  s = await served();
});
afterAll(() => s.running.close());

describe('token renewal is isolated from its callers', () => {
  test('after a token request that never answers, a healthy service is usable once the token deadline passes', async () => {
    const { client, order, settle } = timeline({ tokenTimeoutMs: 500, timeoutMs: 5_000 });
    const since = s.service.requests.length;
    s.service.injectFault({ kind: 'hang', path: '/auth/api-token' });
    // The first caller gives up on its own deadline, before the token request's.
    const codes = { accessRequestCode: 'arc_unknown', identitySessionCode: 'isc_unknown' };
    const first = await settle('first', client.identityRequests.get(codes, { timeoutMs: 200 }));
    expect(first.error).toBeInstanceOf(TimeoutError);
    expect(first.error).toMatchObject({ timeoutMs: 200 });
    // The next call, with the service healthy, waits only for the hung request's own deadline: the
    // renewal's retry answers long before the call's 5 s.
    const next = await settle('next', client.auth.accessToken({ timeoutMs: 5_000 }));
    expect(next.error).toBeUndefined();
    expect(order).toEqual(['first ERR_TIMEOUT', 'renewal ok', 'next ok']);
    expect(tokenRequests(s, since)).toBe(2);
  });

  test('a healthy service is usable at once after a hung token request: a second request is sent beside it (#31)', async () => {
    // The default token deadline (10 s): without the hedge, the next call would wait for it.
    const { client, settle } = timeline({ timeoutMs: 5_000 });
    const since = s.service.requests.length;
    s.service.injectFault({ kind: 'hang', path: '/auth/api-token' });
    const codes = { accessRequestCode: 'arc_unknown', identitySessionCode: 'isc_unknown' };
    const first = await settle('first', client.identityRequests.get(codes, { timeoutMs: 300 }));
    expect(first.error).toBeInstanceOf(TimeoutError);
    // The service answers again; the next caller has 1.5 s, and the hedge (one second, with no
    // answer yet to learn from) is sent within it.
    const next = await settle('next', client.auth.accessToken({ timeoutMs: 1_500 }));
    expect(next.error).toBeUndefined();
    expect(tokenRequests(s, since)).toBe(2);
  });

  test('never more than two token requests in flight, however many callers find one unanswered', async () => {
    const { client, settle } = timeline({ tokenHedgeDelayMs: 100, tokenTimeoutMs: 1_000, maxRetries: 0, timeoutMs: 5_000 });
    const since = s.service.requests.length;
    // The first request and the one sent beside it both hang: nothing more is sent until the deadline.
    s.service.injectFault({ kind: 'hang', path: '/auth/api-token', times: 3 });
    try {
      const first = settle('first', client.auth.accessToken());
      await new Promise((resolve) => setTimeout(resolve, 200));
      const later = await Promise.all([1, 2, 3].map((n) => settle(`later ${n}`, client.auth.accessToken())));
      expect((await first).error).toMatchObject({ code: 'ERR_TIMEOUT', timeoutMs: 1_000 });
      for (const call of later) expect(call.error).toMatchObject({ code: 'ERR_TIMEOUT', timeoutMs: 1_000 });
      expect(tokenRequests(s, since)).toBe(2);
    } finally {
      s.service.clearFaults();
    }
  });

  test('the first good answer wins: an unanswered first request holds neither the later caller nor the first', async () => {
    // The first request is never answered: without the request sent beside it, both callers would
    // end at their 5 s deadline, however loaded the machine.
    const { client, order, settle } = timeline({ tokenHedgeDelayMs: 100, timeoutMs: 5_000 });
    const since = s.service.requests.length;
    s.service.injectFault({ kind: 'hang', path: '/auth/api-token', times: 1 });
    const first = settle('first', client.auth.accessToken());
    await new Promise((resolve) => setTimeout(resolve, 200));
    const later = await settle('later', client.auth.accessToken());
    expect(later.error).toBeUndefined();
    await first;
    expect(order).toEqual(['renewal ok', 'first ok', 'later ok']);
    expect(tokenRequests(s, since)).toBe(2);
  });

  test('a lone caller sends no second request: a slow answer is waited for', async () => {
    const client = s.client({ tokenHedgeDelayMs: 100, timeoutMs: 5_000 });
    const since = s.service.requests.length;
    s.service.injectFault({ kind: 'delay', ms: 500, path: '/auth/api-token' });
    await expect(client.auth.accessToken()).resolves.toMatch(/^ey/);
    expect(tokenRequests(s, since)).toBe(1);
  });

  test('a refusal settles the race at once: only a timeout or a lost connection leaves it to the other request', async () => {
    const { client, order, settle } = timeline({ tokenHedgeDelayMs: 100, timeoutMs: 5_000 });
    // The first request is never answered; the one sent beside it is refused.
    s.service.injectFault({ kind: 'hang', path: '/auth/api-token', times: 1 });
    s.service.injectFault({ kind: 'status', status: 400, path: '/auth/api-token' });
    try {
      const first = settle('first', client.auth.accessToken());
      await new Promise((resolve) => setTimeout(resolve, 200));
      const refused = await settle('refused', client.auth.accessToken());
      expect(refused.error).toMatchObject({ status: 400 });
      expect((await first).error).toMatchObject({ status: 400 });
      // Settled by the refusal, not left to the unanswered request's deadline (which would end in ERR_TIMEOUT).
      expect(order).toEqual(['renewal failed ERR_VALIDATION', 'first ERR_VALIDATION', 'refused ERR_VALIDATION']);
    } finally {
      s.service.clearFaults();
    }
  });

  test('a caller that gives up does not cancel the renewal the others wait on', async () => {
    const client = s.client({ tokenTimeoutMs: 5_000 });
    const since = s.service.requests.length;
    s.service.injectFault({ kind: 'delay', ms: 300, path: '/auth/api-token' });
    const controller = new AbortController();
    const leaving = client.auth.accessToken({ signal: controller.signal });
    const staying = client.auth.accessToken();
    controller.abort();
    await expect(leaving).rejects.toBeInstanceOf(AbortError);
    await expect(staying).resolves.toMatch(/^ey/);
    expect(tokenRequests(s, since)).toBe(1);
  });

  test('no caller waits on a token longer than its own deadline', async () => {
    const { client, order, settle } = timeline({ tokenTimeoutMs: 5_000 });
    s.service.injectFault({ kind: 'hang', path: '/auth/api-token' });
    const deadlines = [400, 100, 250];
    const waits = await Promise.all(deadlines.map((timeoutMs) => settle(`${timeoutMs} ms`, client.auth.accessToken({ timeoutMs }))));
    // Each ends on its own deadline, in the order of the deadlines, and before the token request's (5 s).
    for (const [i, timeoutMs] of deadlines.entries()) expect(waits[i]!.error).toMatchObject({ code: 'ERR_TIMEOUT', timeoutMs });
    expect(order).toEqual(['100 ms ERR_TIMEOUT', '250 ms ERR_TIMEOUT', '400 ms ERR_TIMEOUT']);
    s.service.clearFaults();
  });

  test('a token request that hangs on every try fails the renewal after its retries, and the next call starts afresh', async () => {
    const { client, order, settle } = timeline({ tokenTimeoutMs: 200, maxRetries: 1, timeoutMs: 5_000 });
    const since = s.service.requests.length;
    s.service.injectFault({ kind: 'hang', path: '/auth/api-token', times: 2 });
    // The token request's deadline (200 ms) ends the call, not the call's own (5 s).
    const failed = await settle('failed', client.auth.accessToken());
    expect(failed.error).toBeInstanceOf(TimeoutError);
    expect(failed.error).toMatchObject({ timeoutMs: 200 });
    expect(tokenRequests(s, since)).toBe(2);
    expect((await settle('next', client.auth.accessToken())).value).toMatch(/^ey/);
    expect(tokenRequests(s, since)).toBe(3);
    expect(order).toEqual(['renewal failed ERR_TIMEOUT', 'failed ERR_TIMEOUT', 'renewal ok', 'next ok']);
  });
});
