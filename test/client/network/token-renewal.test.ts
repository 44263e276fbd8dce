/** Token renewal on a bad network, over real sockets: a hung token request holds nobody for long. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AbortError, TimeoutError } from '../../../src/index.js';
import { served, timed, type Served } from './localhost.js';

const MARGIN_MS = 400;
const tokenRequests = (s: Served, since = 0) => s.service.requests.slice(since).filter((r) => r.path === '/auth/api-token').length;

let s: Served;
beforeAll(async () => {
  s = await served();
});
afterAll(() => s.running.close());

describe('token renewal is isolated from its callers', () => {
  test('after a token request that never answers, a healthy service is usable once the token deadline passes', async () => {
    const client = s.client({ tokenTimeoutMs: 500, timeoutMs: 5_000 });
    const since = s.service.requests.length;
    s.service.injectFault({ kind: 'hang', path: '/auth/api-token' });
    // The first caller gives up on its own deadline, not the token request's.
    const codes = { accessRequestCode: 'arc_unknown', identitySessionCode: 'isc_unknown' };
    const first = await timed(() => client.identityRequests.get(codes, { timeoutMs: 200 }));
    expect(first.error).toBeInstanceOf(TimeoutError);
    expect(first.error).toMatchObject({ timeoutMs: 200 });
    expect(first.ms).toBeLessThan(200 + MARGIN_MS);
    // The next call, with the service healthy, waits only for the hung request's own deadline.
    const next = await timed(() => client.auth.accessToken({ timeoutMs: 5_000 }));
    expect(next.error).toBeUndefined();
    expect(next.ms).toBeLessThan(500 + MARGIN_MS);
    expect(tokenRequests(s, since)).toBe(2);
  });

  test('a healthy service is usable at once after a hung token request: a second request is sent beside it (#31)', async () => {
    // The default token deadline (10 s): without the hedge, the next call would wait for it.
    const client = s.client({ timeoutMs: 5_000 });
    const since = s.service.requests.length;
    s.service.injectFault({ kind: 'hang', path: '/auth/api-token' });
    const codes = { accessRequestCode: 'arc_unknown', identitySessionCode: 'isc_unknown' };
    const first = await timed(() => client.identityRequests.get(codes, { timeoutMs: 300 }));
    expect(first.error).toBeInstanceOf(TimeoutError);
    // The service answers again; the next caller has 1.5 s, and the hedge (one second, with no
    // answer yet to learn from) is sent within it.
    const next = await timed(() => client.auth.accessToken({ timeoutMs: 1_500 }));
    expect(next.error).toBeUndefined();
    expect(tokenRequests(s, since)).toBe(2);
  });

  test('never more than two token requests in flight, however many callers find one unanswered', async () => {
    const client = s.client({ tokenHedgeDelayMs: 100, tokenTimeoutMs: 1_000, maxRetries: 0, timeoutMs: 5_000 });
    const since = s.service.requests.length;
    // The first request and the one sent beside it both hang: nothing more is sent until the deadline.
    s.service.injectFault({ kind: 'hang', path: '/auth/api-token', times: 3 });
    try {
      const first = timed(() => client.auth.accessToken());
      await new Promise((resolve) => setTimeout(resolve, 200));
      const later = await Promise.all([1, 2, 3].map(() => timed(() => client.auth.accessToken())));
      expect((await first).error).toMatchObject({ code: 'ERR_TIMEOUT', timeoutMs: 1_000 });
      for (const call of later) expect(call.error).toMatchObject({ code: 'ERR_TIMEOUT', timeoutMs: 1_000 });
      expect(tokenRequests(s, since)).toBe(2);
    } finally {
      s.service.clearFaults();
    }
  });

  test('the first good answer wins: a slow first request holds neither the later caller nor the first', async () => {
    const client = s.client({ tokenHedgeDelayMs: 100, timeoutMs: 5_000 });
    const since = s.service.requests.length;
    s.service.injectFault({ kind: 'delay', ms: 2_000, path: '/auth/api-token' });
    const first = timed(() => client.auth.accessToken());
    await new Promise((resolve) => setTimeout(resolve, 200));
    const later = await timed(() => client.auth.accessToken());
    expect(later.error).toBeUndefined();
    expect(later.ms).toBeLessThan(1_000);
    expect((await first).ms).toBeLessThan(1_500);
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
    const client = s.client({ tokenHedgeDelayMs: 100, timeoutMs: 5_000 });
    s.service.injectFault({ kind: 'delay', ms: 2_000, path: '/auth/api-token' });
    s.service.injectFault({ kind: 'status', status: 400, path: '/auth/api-token' });
    try {
      const first = timed(() => client.auth.accessToken());
      await new Promise((resolve) => setTimeout(resolve, 200));
      const refused = await timed(() => client.auth.accessToken());
      expect(refused.error).toMatchObject({ status: 400 });
      expect((await first).error).toMatchObject({ status: 400 });
      expect(refused.ms).toBeLessThan(1_000);
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
    const client = s.client({ tokenTimeoutMs: 5_000 });
    s.service.injectFault({ kind: 'hang', path: '/auth/api-token' });
    const waits = await Promise.all([100, 250, 400].map((timeoutMs) => timed(() => client.auth.accessToken({ timeoutMs }))));
    for (const [i, timeoutMs] of [100, 250, 400].entries()) {
      expect(waits[i]!.error).toMatchObject({ code: 'ERR_TIMEOUT', timeoutMs });
      expect(waits[i]!.ms).toBeLessThan(timeoutMs + MARGIN_MS);
    }
    s.service.clearFaults();
  });

  test('a token request that hangs on every try fails the renewal after its retries, and the next call starts afresh', async () => {
    const client = s.client({ tokenTimeoutMs: 200, maxRetries: 1, timeoutMs: 5_000 });
    const since = s.service.requests.length;
    s.service.injectFault({ kind: 'hang', path: '/auth/api-token', times: 2 });
    const failed = await timed(() => client.auth.accessToken());
    expect(failed.error).toBeInstanceOf(TimeoutError);
    expect(failed.error).toMatchObject({ timeoutMs: 200 });
    expect(failed.ms).toBeLessThan(2 * 200 + MARGIN_MS);
    expect(tokenRequests(s, since)).toBe(2);
    await expect(client.auth.accessToken()).resolves.toMatch(/^ey/);
    expect(tokenRequests(s, since)).toBe(3);
  });
});
