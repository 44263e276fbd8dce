/**
 * Hedged token requests (#31), on the token manager alone: token endpoints that answer when the
 * test says, and a clock and timers the test moves. Each rule is pinned by the case that breaks
 * only it: when the second request is sent (the delay learnt from earlier answers), that it is sent
 * once, for a waiting caller only, and which answer settles the race. Over real sockets, the same
 * is in network/token-renewal.test.ts.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { type ApiError, ConnectionError, TimeoutError, apiErrorFrom } from '../../src/errors/index.js';
import { MemoryTokenStore, TokenManager, type TokenGrant } from '../../src/client/tokens.js';
import { Observer } from '../../src/internal/observe.js';
import { recorder } from '../helpers.js';

const T0 = Date.UTC(2026, 10, 26, 12);

/** Token endpoints whose every request waits until the test answers it. */
function answeredByHand() {
  const requests: { resolve: (grant: TokenGrant) => void; reject: (error: unknown) => void }[] = [];
  const request = () => new Promise<TokenGrant>((resolve, reject) => requests.push({ resolve, reject }));
  return { requests, api: { authenticate: request, refresh: request } };
}

const grant = (n: number): TokenGrant => ({ access_token: `access-${n}`, expires_in: 900 });

let clock: { now: number };
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  clock = { now: T0 };
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * Moves the clock and the timers on together, running what falls due. `advance(0)` after a call
 * lets its renewal reach its token request (a few promise turns) before the clock moves.
 */
async function advance(ms: number) {
  clock.now += ms;
  await vi.advanceTimersByTimeAsync(ms);
}

function manager(api: ReturnType<typeof answeredByHand>['api'], extra: Partial<ConstructorParameters<typeof TokenManager>[0]> = {}) {
  return new TokenManager({
    endpoints: api,
    store: new MemoryTokenStore(),
    key: 'client@https://api.example',
    refreshMarginSeconds: 60,
    now: () => clock.now,
    ...extra,
  });
}

/** Renewals answered after each of `latencies` ms, one after the other: what the manager learns its delay from. */
async function renewalsTaking(m: TokenManager, e: ReturnType<typeof answeredByHand>, latencies: readonly number[]) {
  for (const [i, latency] of latencies.entries()) {
    const waiting = m.accessToken();
    await advance(0);
    await advance(latency);
    e.requests.at(-1)!.resolve(grant(i));
    const token = await waiting;
    await m.invalidate(token);
  }
}

/** The ms after a renewal started at which its second request goes out, a caller waiting from 1 ms on. */
async function hedgedAfter(m: TokenManager, e: ReturnType<typeof answeredByHand>): Promise<number> {
  const before = e.requests.length;
  void Promise.resolve(m.accessToken()).catch(() => undefined);
  await advance(0);
  expect(e.requests.length).toBe(before + 1);
  await advance(1);
  void Promise.resolve(m.accessToken()).catch(() => undefined);
  for (let at = 1; at <= 5_000; at++) {
    if (e.requests.length > before + 1) return at;
    await advance(1);
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * A renewal started at 0 ms and a second caller waiting from 1 ms, the clock then moved to 1,000 ms,
 * the learnt delay with nothing learnt yet: both token requests are out.
 */
async function race(m: TokenManager) {
  const first = Promise.resolve(m.accessToken());
  await advance(0);
  await advance(1);
  const second = Promise.resolve(m.accessToken());
  await advance(999);
  return { first, second };
}

describe('hedged token requests: when the second one is sent', () => {
  test.each<[string, number[], number]>([
    ['no answer yet to learn from: one second', [], 1_000],
    ['three times a quick answer is under a second: one second', [100], 1_000],
    ['three times the last answer, 500 ms', [500], 1_500],
    ['three times a slow answer is over two seconds: two seconds', [900], 2_000],
    ['the slowest of the last five answers counts', [600, 100, 100, 100, 100], 1_800],
    ['an answer six renewals back is forgotten', [600, 100, 100, 100, 100, 100], 1_000],
  ])('%s', async (_name, latencies, delay) => {
    const e = answeredByHand();
    const m = manager(e.api);
    await renewalsTaking(m, e, latencies);
    expect(await hedgedAfter(m, e)).toBe(delay);
  });

  test('hedgeDelayMs replaces the learnt delay; one as long as the token deadline sends no second request', async () => {
    let e = answeredByHand();
    expect(await hedgedAfter(manager(e.api, { hedgeDelayMs: 250 }), e)).toBe(250);
    e = answeredByHand();
    expect(await hedgedAfter(manager(e.api, { hedgeDelayMs: 4_999, tokenTimeoutMs: 5_000 }), e)).toBe(4_999);
    e = answeredByHand();
    expect(await hedgedAfter(manager(e.api, { hedgeDelayMs: 5_000, tokenTimeoutMs: 5_000 }), e)).toBe(Number.POSITIVE_INFINITY);
  });

  test('the delay learnt is how long the winning request took from its own sending, not the renewal', async () => {
    const e = answeredByHand();
    const m = manager(e.api);
    const { first, second } = await race(m);
    expect(e.requests).toHaveLength(2);
    // The second request, sent at 1,000 ms, answers at 1,500 ms: 500 ms, so the next delay is 1.5 s.
    await advance(500);
    e.requests[1]!.resolve(grant(1));
    expect(await first).toBe('access-1');
    expect(await second).toBe('access-1');
    await m.invalidate('access-1');
    expect(await hedgedAfter(m, e)).toBe(1_500);
  });

  test('a lone caller sends no second request, however long the answer takes', async () => {
    const e = answeredByHand();
    const m = manager(e.api);
    const lone = m.accessToken();
    await advance(5_000);
    expect(e.requests).toHaveLength(1);
    e.requests[0]!.resolve(grant(1));
    expect(await lone).toBe('access-1');
  });

  test('a caller arriving once the delay has passed sends the second request at once, and it is logged at info', async () => {
    const log = recorder();
    const observer = new Observer({ logger: log.logger, logLevel: 'info' }, (option, message) => new Error(`${option} ${message}`));
    const e = answeredByHand();
    const m = manager(e.api, { observer });
    void m.accessToken();
    await advance(0);
    await advance(1_000);
    expect(e.requests).toHaveLength(1);
    void m.accessToken();
    // Sent within the call itself: no timer, not even one of 0 ms.
    expect(e.requests).toHaveLength(2);
    const line = log.lines.find((l) => l.message.includes('second one'));
    expect(line).toMatchObject({ level: 'info', fields: { hedgeMs: 1_000 } });
    expect(line?.message).toContain('1000 ms');
  });
});

describe('hedged token requests: at most two, the first good answer wins', () => {
  test('never more than two in flight: the callers after the first waiting one, before or after the hedge, send nothing', async () => {
    const e = answeredByHand();
    const m = manager(e.api);
    const callers = [m.accessToken()];
    await advance(0);
    await advance(10);
    callers.push(m.accessToken(), m.accessToken());
    await advance(990);
    expect(e.requests).toHaveLength(2);
    callers.push(m.accessToken());
    await advance(3_000);
    callers.push(m.accessToken());
    expect(e.requests).toHaveLength(2);
    e.requests[0]!.resolve(grant(1));
    expect(await Promise.all(callers)).toEqual(Array(5).fill('access-1'));
  });

  test('the first good answer wins; the other one, answering later, changes nothing', async () => {
    const e = answeredByHand();
    const m = manager(e.api);
    const { first, second } = await race(m);
    e.requests[1]!.resolve(grant(2));
    e.requests[0]!.resolve(grant(1));
    expect([await first, await second]).toEqual(['access-2', 'access-2']);
    expect(m.accessToken()).toBe('access-2');
  });

  test("the losing request's late answer is not learnt from: the next delay is the winner's", async () => {
    const e = answeredByHand();
    const m = manager(e.api);
    const { first } = await race(m);
    // The second request wins after 100 ms; the first answers 2 s after it was sent.
    await advance(100);
    e.requests[1]!.resolve(grant(2));
    expect(await first).toBe('access-2');
    await advance(900);
    e.requests[0]!.resolve(grant(1));
    await advance(0);
    expect(m.accessToken()).toBe('access-2');
    await m.invalidate('access-2');
    expect(await hedgedAfter(m, e)).toBe(1_000);
  });

  test('many callers waiting on one renewal arm one hedge timer, and its answer leaves none behind', async () => {
    const e = answeredByHand();
    const m = manager(e.api);
    const first = m.accessToken();
    await advance(0);
    await advance(1);
    const before = vi.getTimerCount();
    const waiting = Array.from({ length: 100 }, () => m.accessToken());
    // One timer for the hedge, whatever the number of callers: not one per caller, each left to fire.
    expect(vi.getTimerCount()).toBe(before + 1);
    e.requests[0]!.resolve(grant(1));
    expect(await Promise.all([first, ...waiting])).toEqual(Array(101).fill('access-1'));
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a renewal answered before its delay sends nothing later: the armed hedge is dropped', async () => {
    const e = answeredByHand();
    const m = manager(e.api);
    const first = m.accessToken();
    await advance(0);
    await advance(1);
    void m.accessToken();
    await advance(499);
    e.requests[0]!.resolve(grant(1));
    expect(await first).toBe('access-1');
    await advance(5_000);
    expect(e.requests).toHaveLength(1);
  });

  test.each<[string, () => unknown]>([
    ['a timeout', () => new TimeoutError(undefined, 10_000)],
    ['a lost connection', () => new ConnectionError(undefined, new Error('socket hang up'))],
  ])('%s of one request leaves the race to the other, whichever failed', async (_name, failure) => {
    for (const failing of [0, 1]) {
      const e = answeredByHand();
      const m = manager(e.api, { retries: 0 });
      const { first, second } = await race(m);
      e.requests[failing]!.reject(failure());
      await advance(0);
      e.requests[1 - failing]!.resolve(grant(7));
      expect([await first, await second]).toEqual(['access-7', 'access-7']);
    }
  });

  test('both timing out fails the attempt: it is tried again as a new request, hedged again when a caller waits', async () => {
    const e = answeredByHand();
    const m = manager(e.api, { retries: 1 });
    const { first, second } = await race(m);
    e.requests[0]!.reject(new TimeoutError(undefined, 10_000));
    e.requests[1]!.reject(new TimeoutError(undefined, 10_000));
    await advance(0);
    expect(e.requests).toHaveLength(3);
    e.requests[2]!.resolve(grant(3));
    expect([await first, await second]).toEqual(['access-3', 'access-3']);
  });

  test('any other failure settles the race at once, though the other request is still out', async () => {
    const e = answeredByHand();
    const m = manager(e.api);
    const refusal: ApiError = apiErrorFrom({ status: 400, body: undefined, requestCorrelationId: undefined, headers: new Headers() });
    const { first, second } = await race(m);
    e.requests[1]!.reject(refusal);
    await expect(first).rejects.toBe(refusal);
    await expect(second).rejects.toBe(refusal);
    // The other request's later answer is not taken: the next caller renews afresh.
    e.requests[0]!.resolve(grant(1));
    const next = m.accessToken();
    await advance(0);
    expect(e.requests).toHaveLength(3);
    e.requests[2]!.resolve(grant(3));
    expect(await next).toBe('access-3');
  });
});
