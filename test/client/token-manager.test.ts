/**
 * The token manager on its own, with a store and endpoints of the test's making and a clock it
 * moves by hand: the renewal lease that several instances share, where an expiry comes from, and
 * when a token is due. The end-to-end behaviour is in tokens.test.ts; Redis in test/redis.
 */
import fc from 'fast-check';
import { describe, expect, test, vi } from 'vitest';
import { recorder, rejection } from '../helpers.js';
import { TimeoutError, apiErrorFrom } from '../../src/errors/index.js';
import { TokenManager, type StoredToken, type TokenGrant, type TokenLease, type TokenStore } from '../../src/client/tokens.js';
import { Observer } from '../../src/internal/observe.js';
import { ERROR_TABLE, type ServiceErrorCode } from '../../src/contract/errors.js';

const T0 = Date.UTC(2026, 10, 24, 12);
const KEY = 'client-id@https://api.example';

/** A shared store with a renewal lease, on the test's clock: what Redis gives several instances. */
class LeasingStore implements TokenStore {
  readonly tokens = new Map<string, StoredToken>();
  /** The lease's TTL each time one was asked for. */
  readonly asked: number[] = [];
  released = 0;
  /** Until when (test clock) the lease is held, by us or by an instance the test plays. */
  heldUntil = -Infinity;
  /** Runs as a lease is granted, before the holder reads the store again. */
  onGrant: (() => void) | undefined;
  failSet = 0;
  constructor(private readonly clock: { now: number }) {}
  get(key: string): StoredToken | undefined {
    return this.tokens.get(key);
  }
  set(key: string, token: StoredToken): void {
    if (this.failSet > 0) {
      this.failSet -= 1;
      throw Object.assign(new Error('store down'), { code: 'ECONNREFUSED' });
    }
    this.tokens.set(key, token);
  }
  async lease(_key: string, ttlMs: number): Promise<TokenLease | undefined> {
    this.asked.push(ttlMs);
    if (this.clock.now < this.heldUntil) return undefined;
    this.heldUntil = this.clock.now + ttlMs;
    this.onGrant?.();
    return {
      release: async () => {
        this.released += 1;
        this.heldUntil = -Infinity;
      },
    };
  }
}

/** Token endpoints that count their calls; `hold` keeps the next key-pair answer until released. */
function endpoints(
  grant: (n: number) => TokenGrant = (n) => ({ access_token: `access-${n}`, refresh_token: `refresh-${n}`, expires_in: 900 }),
) {
  let issued = 0;
  const calls = { authenticate: 0, refresh: [] as string[] };
  let gate: Promise<void> | undefined;
  let open: (() => void) | undefined;
  let failWith: unknown;
  return {
    calls,
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    release() {
      open?.();
      gate = undefined;
    },
    fail(error: unknown) {
      failWith = error;
    },
    api: {
      authenticate: async () => {
        calls.authenticate += 1;
        if (gate) await gate;
        if (failWith) throw failWith;
        return grant(++issued);
      },
      refresh: async (refreshToken: string) => {
        calls.refresh.push(refreshToken);
        if (failWith) throw failWith;
        return grant(++issued);
      },
    },
  };
}

function manager(
  store: TokenStore,
  api: ReturnType<typeof endpoints>['api'],
  clock: { now: number },
  extra: Partial<ConstructorParameters<typeof TokenManager>[0]> = {},
) {
  return new TokenManager({ endpoints: api, store, key: KEY, refreshMarginSeconds: 60, now: () => clock.now, ...extra });
}

const token = (clock: { now: number }, fields: Partial<StoredToken> = {}): StoredToken => ({
  accessToken: 'access-old',
  refreshToken: undefined,
  obtainedAt: clock.now - 850_000,
  expiresAt: clock.now + 50_000,
  ...fields,
});

/** `m` returns the token it holds, `kept`, until the clock reads `due`, and from then renews to `renewed`. */
async function expectDueAt(m: TokenManager, clock: { now: number }, due: number, kept: string, renewed: string) {
  clock.now = due - 1;
  expect(m.accessToken()).toBe(kept);
  clock.now = due;
  expect(await m.accessToken()).toBe(renewed);
}

/** An observer with `options`; a configuration mistake in a test is a plain error. */
const observing = (options: ConstructorParameters<typeof Observer>[0]) =>
  new Observer(options, (option, message) => new Error(`${option} ${message}`));

/** An observer logging at `logLevel` (warn unless given) to a recorder; `at(level)` lists that level's lines. */
function logging(logLevel?: 'info') {
  const log = recorder();
  const observer = observing({ logger: log.logger, ...(logLevel ? { logLevel } : {}) });
  return { observer, lines: log.lines, at: (level: string) => log.lines.filter((line) => line.level === level) };
}

function serverError(status: number) {
  return apiErrorFrom({ status, body: undefined, requestCorrelationId: undefined, headers: new Headers() });
}

describe('the renewal lease shared by several instances', () => {
  test('two instances due at once renew once: the one without the lease waits for the holder’s token', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    const e = endpoints();
    const a = manager(store, e.api, clock);
    const b = manager(store, e.api, clock);
    e.hold();
    const first = a.accessToken();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = b.accessToken();
    await new Promise((resolve) => setTimeout(resolve, 60));
    e.release();
    expect(await first).toBe('access-1');
    expect(await second).toBe('access-1');
    expect(e.calls.authenticate).toBe(1);
    expect(store.released).toBe(1);
  });

  test('an instance whose token is due but unexpired keeps using it while another holds the lease', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    store.tokens.set(KEY, token(clock));
    store.heldUntil = clock.now + 30_000; // another instance is renewing
    const e = endpoints();
    expect(await manager(store, e.api, clock).accessToken()).toBe('access-old');
    expect(e.calls.authenticate).toBe(0);
    expect(store.asked).toHaveLength(1);
  });

  // A waiter whose own token expired takes what the holder writes: a fresh token, or one due
  // (within the refresh margin) but usable for 50 s more, rather than wait on for a better one.
  test.each<[string, (clock: { now: number }) => StoredToken]>([
    ['a fresh one', (clock) => token(clock, { accessToken: 'access-landed', obtainedAt: clock.now, expiresAt: clock.now + 900_000 })],
    ['one due but not yet expired', (clock) => token(clock, { accessToken: 'access-landed' })],
  ])('an expired token is not used while another instance holds the lease; the holder’s token is, %s', async (_name, landed) => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    store.tokens.set(KEY, token(clock, { expiresAt: clock.now, obtainedAt: clock.now - 900_000 }));
    store.heldUntil = clock.now + 30_000;
    const e = endpoints();
    const waiting = manager(store, e.api, clock).accessToken();
    await new Promise((resolve) => setTimeout(resolve, 40));
    store.tokens.set(KEY, landed(clock));
    expect(await waiting).toBe('access-landed');
    expect(e.calls.authenticate).toBe(0);
  });

  test('the holder renews nothing when the previous holder’s token landed just before it took the lease', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    store.onGrant = () =>
      store.tokens.set(KEY, token(clock, { accessToken: 'access-previous', obtainedAt: clock.now, expiresAt: clock.now + 900_000 }));
    const e = endpoints();
    expect(await manager(store, e.api, clock).accessToken()).toBe('access-previous');
    expect(e.calls.authenticate).toBe(0);
    expect(store.released).toBe(1);
  });

  test('the lease is asked for leaseMs (35 s unless set), and released after a renewal that failed', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    const e = endpoints();
    e.fail(serverError(503));
    await expect(manager(store, e.api, clock).accessToken()).rejects.toMatchObject({ status: 503 });
    expect(store.released).toBe(1);
    e.fail(undefined);
    expect(await manager(store, e.api, clock, { leaseMs: 4_000 }).accessToken()).toBe('access-1');
    expect(store.asked).toEqual([35_000, 4_000]);
  });

  test('a waiter asks for the lease again after 25 ms, then twice as long each time up to 500 ms; once free, it takes it and renews', async () => {
    vi.useFakeTimers({ now: T0 });
    try {
      const clock = {
        get now() {
          return Date.now();
        },
      };
      const store = new LeasingStore(clock);
      store.heldUntil = Infinity; // another instance holds the lease for now
      const asked: number[] = [];
      const lease = store.lease.bind(store);
      store.lease = (key, ttlMs) => {
        asked.push(Date.now() - T0);
        return lease(key, ttlMs);
      };
      const e = endpoints();
      const token = Promise.resolve(manager(store, e.api, clock).accessToken());
      await vi.advanceTimersByTimeAsync(2_800);
      expect(asked).toEqual([0, 25, 75, 175, 375, 775, 1_275, 1_775, 2_275, 2_775]);
      store.heldUntil = -Infinity;
      await vi.advanceTimersByTimeAsync(500);
      expect(await token).toBe('access-1');
      expect(e.calls.authenticate).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  test('a waiter gives up with a TimeoutError after twice the lease time when no token comes', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    store.heldUntil = Infinity; // a holder that never finishes and never lets go
    const e = endpoints();
    // Each look at the clock moves it 400 ms on; the waits themselves are short and real.
    const m = new TokenManager({
      endpoints: e.api,
      store,
      key: KEY,
      refreshMarginSeconds: 60,
      leaseMs: 1_000,
      now: () => (clock.now += 400),
    });
    const error = await Promise.resolve(m.accessToken()).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ timeoutMs: 2_000 });
    // Given up at the first look at or past two lease times, not before and not a look later.
    expect(clock.now - T0).toBeGreaterThanOrEqual(2_000);
    expect(clock.now - T0).toBeLessThan(2_000 + 2 * 400);
    expect(e.calls.authenticate).toBe(0);
  });

  test('a store whose lease fails: the instance renews alone and says so at warn', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    store.lease = async () => {
      throw Object.assign(new Error('lease unreachable'), { code: 'ECONNRESET' });
    };
    const { observer, at } = logging();
    const e = endpoints();
    expect(await manager(store, e.api, clock, { observer }).accessToken()).toBe('access-1');
    expect(e.calls.authenticate).toBe(1);
    expect(
      at('warn')
        .map((line) => line.message)
        .join('\n'),
    ).toContain('take the renewal lease');
    expect(store.tokens.get(KEY)?.accessToken).toBe('access-1');
  });

  test('while the store cannot keep a token, renewals skip the lease; once it can, they take it again', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    store.failSet = 1;
    const e = endpoints();
    const m = manager(store, e.api, clock);
    expect(await m.accessToken()).toBe('access-1');
    expect(store.asked).toHaveLength(1);
    // This process's own token carries it while the store keeps nothing: no second request.
    expect(await m.accessToken()).toBe('access-1');
    expect(e.calls.authenticate).toBe(1);
    clock.now += 900_000;
    expect(await m.accessToken()).toBe('access-2');
    expect(store.asked).toHaveLength(1);
    clock.now += 900_000;
    expect(await m.accessToken()).toBe('access-3');
    expect(store.asked).toHaveLength(2);
  });
});

describe('when a token expires', () => {
  /** The expiry the manager stores for a grant, relative to the time it was obtained. */
  async function expiryOf(grant: TokenGrant, serviceOffsetMs = 0): Promise<number> {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    await manager(store, endpoints(() => grant).api, clock, { serviceOffsetMs: () => serviceOffsetMs }).accessToken();
    return store.tokens.get(KEY)!.expiresAt - T0;
  }
  const jwt = (payload: object) => `eyJhbGciOiJub25lIn0.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;

  test('expires_in, in seconds from now', async () => {
    expect(await expiryOf({ access_token: 'a', expires_in: 900 })).toBe(900_000);
  });

  test('expires, an instant on the service’s clock, moved onto the local one', async () => {
    const expires = new Date(T0 + 600_000).toUTCString();
    expect(await expiryOf({ access_token: 'a', expires })).toBe(600_000);
    expect(await expiryOf({ access_token: 'a', expires_in: 0, expires }, 30_000)).toBe(570_000);
  });

  test('the access token’s own exp when the answer states no lifetime, base64url read as such', async () => {
    // "~~~??>" in the payload encodes with the base64url-only characters "-" and "_".
    const access = jwt({ note: '~~~??>', exp: (T0 + 420_000) / 1000 });
    expect(access).toMatch(/[-_]/);
    expect(await expiryOf({ access_token: access })).toBe(420_000);
    expect(await expiryOf({ access_token: access, expires: 'not a date' }, -10_000)).toBe(430_000);
    // In milliseconds, or as digits, it is the same instant (the one rule of internal/times.ts).
    expect(await expiryOf({ access_token: jwt({ exp: T0 + 420_000 }) })).toBe(420_000);
    expect(await expiryOf({ access_token: jwt({ exp: String((T0 + 420_000) / 1000) }) })).toBe(420_000);
  });

  test('five minutes when nothing states a lifetime: no exp, an exp that names no instant, not a JWT', async () => {
    expect(await expiryOf({ access_token: jwt({ sub: 'x' }) })).toBe(300_000);
    expect(await expiryOf({ access_token: jwt({ exp: 'soon' }) })).toBe(300_000);
    expect(await expiryOf({ access_token: jwt({ exp: true }) })).toBe(300_000);
    expect(await expiryOf({ access_token: 'opaque-token' })).toBe(300_000);
    expect(await expiryOf({ access_token: 'a.!!!.b' })).toBe(300_000);
    expect(await expiryOf({ access_token: 'a', expires_in: -5 })).toBe(300_000);
  });

  test('an answer without access_token is an invalid response, and nothing is stored', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    await expect(manager(store, endpoints(() => ({ access_token: '' }) as TokenGrant).api, clock).accessToken()).rejects.toMatchObject({
      code: 'ERR_INVALID_RESPONSE',
    });
    expect(store.tokens.size).toBe(0);
  });

  test('a refresh answer without a refresh token keeps the one that was used', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    const e = endpoints((n) =>
      n === 1
        ? { access_token: 'access-1', refresh_token: 'refresh-1', expires_in: 900 }
        : { access_token: `access-${n}`, expires_in: 900 },
    );
    const m = manager(store, e.api, clock);
    await m.accessToken();
    for (let i = 0; i < 2; i++) {
      clock.now += 900_000;
      await m.accessToken();
    }
    expect(e.calls.refresh).toEqual(['refresh-1', 'refresh-1']);
  });
});

describe('when a token is due', () => {
  test('the margin before expiry is at most half the lifetime: a 100 s token is renewed at 50 s, not at 40 s', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    const e = endpoints((n) => ({ access_token: `access-${n}`, expires_in: 100 }));
    const m = manager(store, e.api, clock);
    await m.accessToken();
    await expectDueAt(m, clock, T0 + 50_000, 'access-1', 'access-2');
  });

  test('a long-lived token is renewed refreshMarginSeconds before it expires, not earlier', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    const e = endpoints();
    const m = manager(store, e.api, clock);
    await m.accessToken();
    await expectDueAt(m, clock, T0 + 840_000, 'access-1', 'access-2');
  });

  test('a token written on another machine is judged on this clock, through both offsets to the service', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    // Written by a machine 20 s behind the service; this one is 5 s behind it: 15 s apart.
    store.tokens.set(KEY, {
      accessToken: 'access-there',
      refreshToken: undefined,
      obtainedAt: T0 - 20_000,
      expiresAt: T0 - 20_000 + 900_000,
      serviceOffsetMs: 20_000,
    });
    const e = endpoints();
    const m = manager(store, e.api, clock, { serviceOffsetMs: () => 5_000 });
    // On this clock it expires at T0 - 5 s + 900 s; due 60 s before.
    await expectDueAt(m, clock, T0 + 835_000, 'access-there', 'access-1');
  });

  test('a token this machine writes carries its offset to the service: a machine 15 s apart judges it on its own clock', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    // Written by a machine 20 s behind the service: expiring at T0 + 900 s on its clock.
    const there = manager(store, endpoints().api, clock, { serviceOffsetMs: () => 20_000 });
    expect(await there.accessToken()).toBe('access-1');
    expect(store.tokens.get(KEY)).toMatchObject({ expiresAt: T0 + 900_000, serviceOffsetMs: 20_000 });
    // Read by one 5 s behind it: on this clock it expires at T0 + 915 s; due 60 s before.
    const here = manager(store, endpoints((n) => ({ access_token: `here-${n}`, expires_in: 900 })).api, clock, {
      serviceOffsetMs: () => 5_000,
    });
    await expectDueAt(here, clock, T0 + 855_000, 'access-1', 'here-1');
  });

  test('a refused token is forgotten, but a newer token stored meanwhile by another instance is kept', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    const e = endpoints();
    const m = manager(store, e.api, clock);
    await m.accessToken();
    await m.invalidate('access-1');
    expect(store.tokens.get(KEY)).toMatchObject({ accessToken: undefined, expiresAt: 0, refreshToken: 'refresh-1' });
    expect(await m.accessToken()).toBe('access-2');
    expect(e.calls.refresh).toEqual(['refresh-1']);
    await m.invalidate('access-1');
    expect(store.tokens.get(KEY)?.accessToken).toBe('access-2');
  });

  test('a store that fails while a refused token is forgotten: said at warn, and the token is still forgotten here', async () => {
    const clock = { now: T0 };
    const { observer, at } = logging();
    const store = new LeasingStore(clock);
    const e = endpoints();
    const m = manager(store, e.api, clock, { observer });
    expect(await m.accessToken()).toBe('access-1');
    store.get = () => {
      throw new Error('store down');
    };
    await m.invalidate('access-1');
    expect(at('warn').map((line) => line.message)).toEqual([expect.stringMatching(/could not forget a refused token/)]);
    expect(await m.accessToken()).toBe('access-2');
  });
});

describe('each renewal, told', () => {
  function watched() {
    const events: Record<string, unknown>[] = [];
    const observer = observing({ logLevel: 'off', hooks: { onTokenRenewal: (event) => void events.push({ ...event }) } });
    return { events, observer };
  }

  test('onTokenRenewal gets the grant and the outcome, and the SDK error code of a failure (ERR_UNKNOWN for any other error)', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    const { events, observer } = watched();
    const e = endpoints();
    const m = manager(store, e.api, clock, { observer });
    e.fail(new Error('not the SDK’s'));
    await expect(m.accessToken()).rejects.toThrow('not the SDK’s');
    e.fail(serverError(503));
    await expect(m.accessToken()).rejects.toMatchObject({ status: 503 });
    e.fail(undefined);
    await m.accessToken();
    clock.now += 900_000;
    await m.accessToken();
    for (const event of events) expect(event['durationMs']).toBeGreaterThanOrEqual(0);
    expect(events.map(({ durationMs: _, ...rest }) => rest)).toEqual([
      { grant: 'key-pair', outcome: 'failed', errorCode: 'ERR_UNKNOWN' },
      { grant: 'key-pair', outcome: 'failed', errorCode: 'ERR_SERVICE_UNAVAILABLE' },
      { grant: 'key-pair', outcome: 'ok' },
      { grant: 'refresh', outcome: 'ok' },
    ]);
  });

  test('a token request that timed out is tried again, `retries` times; any other failure is not', async () => {
    const clock = { now: T0 };
    for (const [retries, failure, calls] of [
      [undefined, new TimeoutError(undefined, 10_000), 3],
      [0, new TimeoutError(undefined, 10_000), 1],
      [5, new TimeoutError(undefined, 10_000), 6],
      [5, serverError(503), 1],
    ] as const) {
      const e = endpoints();
      e.fail(failure);
      await expect(manager(new LeasingStore(clock), e.api, clock, retries === undefined ? {} : { retries }).accessToken()).rejects.toBe(
        failure,
      );
      expect(e.calls.authenticate, `retries ${retries}, ${failure.name}`).toBe(calls);
    }
  });
});

describe('what the token manager asks of its store, and tells the operator', () => {
  test('a renewal, and forgetting a refused token, read the shared store afresh (fresh: true); an ordinary call does not', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    const reads: unknown[] = [];
    const get = store.get.bind(store);
    store.get = (key: string, options?: { fresh?: boolean }) => {
      reads.push(options);
      return get(key);
    };
    const m = manager(store, endpoints().api, clock);
    await m.accessToken();
    expect(reads).toEqual([undefined, { fresh: true }, { fresh: true }]);
    reads.length = 0;
    m.accessToken();
    await m.invalidate('access-1');
    expect(reads).toEqual([undefined, { fresh: true }]);
  });

  test('a token written on a machine 15 s behind keeps its lifetime here: a 100 s token is due at its half-life', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    store.tokens.set(KEY, {
      accessToken: 'access-there',
      refreshToken: undefined,
      obtainedAt: T0 - 15_000,
      expiresAt: T0 - 15_000 + 100_000,
      serviceOffsetMs: 15_000,
    });
    const m = manager(store, endpoints().api, clock);
    // On this clock it was obtained at T0 and expires at T0 + 100 s: due at T0 + 50 s, not before.
    await expectDueAt(m, clock, T0 + 50_000, 'access-there', 'access-1');
  });

  test('a token answer without access_token names the field', async () => {
    const clock = { now: T0 };
    const error = await rejection(
      Promise.resolve(manager(new LeasingStore(clock), endpoints(() => ({ expires_in: 900 }) as TokenGrant).api, clock).accessToken()),
    );
    expect(error).toMatchObject({ code: 'ERR_INVALID_RESPONSE', issues: ['access_token'] });
  });

  test('a refresh answered with a status under 400 is a passing failure, not a refusal: the key pair is not used', async () => {
    const clock = { now: T0 };
    const store = new LeasingStore(clock);
    store.tokens.set(KEY, token(clock, { refreshToken: 'refresh-old' }));
    const e = endpoints();
    e.fail(serverError(304));
    expect(await manager(store, e.api, clock).accessToken()).toBe('access-old');
    expect(e.calls).toMatchObject({ authenticate: 0, refresh: ['refresh-old'] });
  });

  test("a refresh failing with an error a 200 carried (a service that answers errors so) is a refusal when its code or type is a 4xx but 429 in the spec's table: property", async () => {
    const codes = Object.keys(ERROR_TABLE) as ServiceErrorCode[];
    await fc.assert(
      fc.asyncProperty(
        // `unknown`: a code and a type the table does not have, which say nothing of a refusal.
        fc.constantFrom<ServiceErrorCode | 'unknown'>(...codes, 'unknown'),
        fc.constantFrom('code', 'type', 'both'),
        fc.boolean(),
        fc.boolean(),
        async (code, named, lower, expired) => {
          const cased = (text: string) => (lower ? text.toLowerCase() : text);
          const { type, status } = code === 'unknown' ? { type: 'SOMETHING_ELSE', status: 200 } : ERROR_TABLE[code];
          const body = {
            ...(named !== 'type' ? { code: cased(code) } : {}),
            ...(named !== 'code' ? { type: cased(type) } : {}),
          };
          const clock = { now: T0 };
          const store = new LeasingStore(clock);
          // Due for renewal (in its margin), and still valid or already past.
          store.tokens.set(KEY, token(clock, { refreshToken: 'refresh-old', ...(expired ? { expiresAt: T0 - 1_000 } : {}) }));
          const e = endpoints();
          e.api.refresh = async (refreshToken: string) => {
            e.calls.refresh.push(refreshToken);
            throw apiErrorFrom({ status: 200, body, requestCorrelationId: undefined, headers: new Headers() });
          };
          const refused = status >= 400 && status < 500 && status !== 429;
          const got = await Promise.resolve(manager(store, e.api, clock).accessToken()).then(
            (value) => value,
            (error: unknown) => error,
          );
          if (refused) {
            expect(got).toBe('access-1');
            expect(e.calls.authenticate).toBe(1);
          } else {
            expect(e.calls.authenticate).toBe(0);
            if (expired) expect(got).toMatchObject({ status: 200 });
            else expect(got).toBe('access-old');
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  test('renewals are logged at info, a failure and a refused refresh token at warn, with the status and the error code only', async () => {
    const clock = { now: T0 };
    const { observer, lines } = logging('info');
    const store = new LeasingStore(clock);
    store.tokens.set(KEY, token(clock, { refreshToken: 'refresh-old', expiresAt: T0, obtainedAt: T0 - 900_000 }));
    const e = endpoints();
    const m = manager(store, e.api, clock, { observer });
    // A renewal's duration is read on performance.now(): here one that moves 12.34 ms a reading.
    let reading = 0;
    const timer = vi.spyOn(performance, 'now').mockImplementation(() => (reading += 12.34));
    try {
      e.fail(serverError(401));
      await expect(m.accessToken()).rejects.toMatchObject({ status: 401 });
      e.fail(undefined);
      await m.accessToken();
    } finally {
      timer.mockRestore();
    }
    expect(lines.map((l) => [l.level, l.message.replace(/ in [\d.]+ ms/, '')])).toEqual([
      ['warn', '[acme-identity] access token renewal failed (refresh)'],
      ['warn', '[acme-identity] the refresh token was refused (HTTP 401); renewing with the key pair'],
      ['warn', '[acme-identity] access token renewal failed (key-pair)'],
      ['info', '[acme-identity] access token renewed (refresh)'],
    ]);
    expect(lines.find((l) => l.message.includes('was refused'))?.fields).toEqual({ status: 401 });
    // A duration in milliseconds to a tenth (12.34 ms read as 12.3), in its fields and its line.
    const timed = lines.filter((l) => 'durationMs' in l.fields);
    expect(timed.map((l) => l.fields['durationMs'])).toEqual([12.3, 12.3, 12.3]);
    for (const line of timed) expect(line.message).toContain(' in 12.3 ms');
  });

  test('a renewal with the key pair after a refused refresh token is reported with fallback: true; others without it', async () => {
    const clock = { now: T0 };
    const events: Record<string, unknown>[] = [];
    const observer = observing({ logLevel: 'off', hooks: { onTokenRenewal: (event) => void events.push({ ...event }) } });
    const store = new LeasingStore(clock);
    store.tokens.set(KEY, token(clock, { refreshToken: 'refresh-old', expiresAt: T0, obtainedAt: T0 - 900_000 }));
    const e = endpoints();
    const m = manager(store, e.api, clock, { observer });
    // The refresh token is refused (401); the key pair is tried once the refresh endpoint fails.
    e.api.refresh = async () => {
      throw serverError(401);
    };
    await m.accessToken();
    expect(events.map(({ durationMs: _, ...rest }) => rest)).toEqual([
      { grant: 'refresh', outcome: 'failed', errorCode: 'ERR_AUTHENTICATION' },
      { grant: 'key-pair', outcome: 'ok', fallback: true },
    ]);
  });

  test('a renewal’s durationMs is how long the token request took, in milliseconds', async () => {
    const clock = { now: T0 };
    const { observer, at } = logging('info');
    const e = endpoints();
    // The monotonic clock stands still but for the 60.04 ms the token endpoint takes.
    let mono = 5_000;
    const monotonic = vi.spyOn(performance, 'now').mockImplementation(() => mono);
    const slow = {
      ...e.api,
      authenticate: async () => {
        mono += 60.04;
        return e.api.authenticate();
      },
    };
    await manager(new LeasingStore(clock), slow, clock, { observer }).accessToken();
    monotonic.mockRestore();
    const durations = at('info').map((line) => line.fields['durationMs'] as number);
    // Milliseconds, to a tenth.
    expect(durations).toEqual([60]);
  });

  test('a token response whose lifetime fields are ignored says which, and what it used, at warn; one whose fields all count says nothing', async () => {
    const clock = { now: T0 };
    const said = async (grant: TokenGrant) => {
      const { observer, at } = logging();
      await manager(new LeasingStore(clock), endpoints(() => grant).api, clock, { observer }).accessToken();
      return at('warn').map((line) => [line.message, line.fields]);
    };
    expect(await said({ access_token: 'a', expires_in: 'soon' as never })).toEqual([
      [expect.stringMatching(/token lifetime: using fallback; ignored: expires_in is not a number$/), { event: 'token.lifetime' }],
    ]);
    expect(await said({ access_token: 'a', expires_in: 900 })).toEqual([]);
  });

  test('a store failure is logged with the error’s name, and its code only when it has a string one', async () => {
    const clock = { now: T0 };
    const { observer, lines, at } = logging();
    const first: Record<string, unknown>[] = [];
    for (const failure of [
      new RangeError('no code'),
      Object.assign(new Error('numeric'), { code: 42 }),
      Object.assign(new Error('named'), { code: 'ECONNRESET' }),
    ]) {
      lines.length = 0;
      const store: TokenStore = { get: () => Promise.reject(failure), set: () => undefined };
      await manager(store, endpoints().api, clock, { observer }).accessToken();
      first.push(at('warn')[0]!.fields);
    }
    expect(first).toEqual([{ error: 'RangeError' }, { error: 'Error' }, { error: 'Error', code: 'ECONNRESET' }]);
  });

  test('a store whose read throws at once (not a rejected promise) fails like any read: this process’s own token serves, said at warn', async () => {
    const clock = { now: T0 };
    const { observer, at } = logging();
    const e = endpoints();
    let broken = false;
    let kept: StoredToken | undefined;
    const reads: string[] = [];
    const store: TokenStore = {
      get: (_key, options) => {
        reads.push(options?.fresh ? 'fresh' : 'plain');
        if (broken) throw new TypeError('the client is closed');
        return kept;
      },
      set: (_key, token) => {
        kept = token;
      },
    };
    const m = manager(store, e.api, clock, { observer });
    expect(await m.accessToken()).toBe('access-1');
    broken = true;
    reads.length = 0;
    expect(await m.accessToken()).toBe('access-1');
    expect(e.calls.authenticate).toBe(1);
    // One read, failed: not taken for an empty store and renewed (which would read again).
    expect(reads).toEqual(['plain']);
    expect(at('warn').map((line) => line.fields)).toEqual([{ error: 'TypeError' }]);
  });

  test('a renewal’s own read of the store that fails is logged too, and the renewal goes on', async () => {
    const clock = { now: T0 };
    const { observer, at } = logging();
    // Ordinary reads work (and find nothing); the renewal's fresh read fails.
    const store: TokenStore = {
      get: (_key, options) => (options?.fresh ? Promise.reject(new Error('replica down')) : undefined),
      set: () => undefined,
    };
    expect(await manager(store, endpoints().api, clock, { observer }).accessToken()).toBe('access-1');
    expect(at('warn').map((line) => line.message)).toEqual([expect.stringMatching(/token store could not read/)]);
  });

  test('a caller that gives up while a renewal is under way gets its abort reason at once; the renewal goes on for the others', async () => {
    const clock = { now: T0 };
    const e = endpoints();
    e.hold();
    const m = manager(new LeasingStore(clock), e.api, clock);
    const controller = new AbortController();
    const mine = Promise.resolve(m.accessToken(controller.signal));
    const other = Promise.resolve(m.accessToken());
    controller.abort(new Error('the user left'));
    await expect(mine).rejects.toThrow('the user left');
    e.release();
    expect(await other).toBe('access-1');
    expect(e.calls.authenticate).toBe(1);
  });

  test('a caller whose signal was aborted before it asked gets the abort reason, not the token renewed meanwhile', async () => {
    const clock = { now: T0 };
    const e = endpoints();
    e.hold();
    const m = manager(new LeasingStore(clock), e.api, clock);
    const other = Promise.resolve(m.accessToken());
    // An 'abort' event never comes for a signal aborted already: it is read as it stands.
    const late = Promise.resolve(m.accessToken(AbortSignal.abort(new Error('left before asking')))).then(
      (token) => ({ token }),
      (error: unknown) => ({ error }),
    );
    e.release();
    expect(await other).toBe('access-1');
    expect(await late).toEqual({ error: new Error('left before asking') });
  });
});
