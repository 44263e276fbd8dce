/**
 * The inbox's rules one by one, with a client the test scripts and a clock it moves: when an entry
 * is tried again and when it is set aside, which failures a retry can mend, the leases that keep
 * an entry to one worker, and what the memory store keeps. (inbox.test.ts runs them end to end
 * against the fake; test/redis/inbox.test.ts holds the Redis stores to the same rules.)
 */
import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  ConfigurationError,
  IdentityFlowError,
  JwksError,
  NotFoundError,
  ServiceUnavailableError,
  SdJwtVerificationError,
} from '../../src/index.js';
import {
  createIdentityInbox,
  MemoryInboxStore,
  type IdentityInboxOptions,
  type ExpectedRequest,
  type InboxClient,
  type InboxEvent,
  type InboxRecord,
} from '../../src/inbox/index.js';
import { apiErrorFrom } from '../../src/errors/index.js';
import { rejection } from '../helpers.js';

const T0 = Date.UTC(2026, 10, 26, 12);
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** An X-Access-Token as the webhook carries it (unsigned here: the inbox reads only its `exp`). */
const tokenExpiring = (expSeconds?: number) => `${b64({ alg: 'RS256' })}.${b64(expSeconds === undefined ? {} : { exp: expSeconds })}.c2ln`;

type Verify = InboxClient['identityResponses']['getVerified'];

/** An inbox on a memory store, a scripted client and one clock; `serviceAheadMs` puts the service's clock ahead. */
function setup(
  options: Partial<IdentityInboxOptions> & {
    verify?: Verify;
    serviceAheadMs?: number;
    /** What GET /identity/request answers for each request (the reconciler reads it). */
    details?: Record<string, { completed_at?: number; opened_at?: number; time_expires?: number } | Error>;
  } = {},
) {
  const clock = { now: T0 };
  const events: InboxEvent[] = [];
  const lines: { level: string; message: string; fields: object }[] = [];
  const handed: unknown[] = [];
  const at = (level: string) => (message: string, fields: object) => {
    lines.push({ level, message: message.replace(/^\[acme-identity\] /, ''), fields });
  };
  const logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  const verify = vi.fn<Verify>(options.verify ?? (async () => ({ claims: {} }) as never));
  const client: InboxClient = {
    identityResponses: { getVerified: verify },
    identityRequests: {
      get: async (codes) => {
        const data = options.details?.[codes.accessRequestCode] ?? {};
        if (data instanceof Error) throw data;
        return { data };
      },
    },
    serviceTime: () => clock.now + (options.serviceAheadMs ?? 0),
  };
  const store = options.store ?? new MemoryInboxStore();
  const inbox = createIdentityInbox({
    client,
    store,
    onIdentity: (delivery) => {
      handed.push(delivery);
    },
    now: () => clock.now,
    hooks: { onInbox: (event) => events.push(event) },
    logger,
    logLevel: 'debug',
    ...options,
  });
  return { inbox, store, clock, events, lines, handed, verify };
}

/** A delivery for request `id` whose token expires `ttlSeconds` after T0 on the service's clock. */
async function received(inbox: ReturnType<typeof setup>['inbox'], id = 'arc_1', ttlSeconds = 3_600) {
  await inbox.expect({ accessRequestCode: id, identitySessionCode: `isc_${id}` });
  return inbox.receive({ kind: 'approved', accessRequestCode: id, accessToken: tokenExpiring(T0 / 1000 + ttlSeconds) });
}

const unavailable = () =>
  new IdentityFlowError(
    'fetch',
    'GET /identity/response failed',
    new ServiceUnavailableError({ status: 503, body: undefined, requestCorrelationId: undefined, headers: new Headers() }),
  );

afterEach(() => {
  vi.restoreAllMocks();
});

describe('inbox: when an entry is tried again', () => {
  test('the wait doubles from backoffMs with each attempt, within ±25% jitter, up to maxBackoffMs', async () => {
    for (const [random, factor] of [
      [0, 0.75],
      [0.5, 1],
      [0.98, 1.24],
    ] as const) {
      vi.spyOn(Math, 'random').mockReturnValue(random);
      const { inbox, clock, events } = setup({
        verify: async () => Promise.reject(unavailable()),
        backoffMs: 1_000,
        maxBackoffMs: 5_000,
        maxAttempts: 10,
      });
      await received(inbox);
      for (let attempt = 0; attempt < 5; attempt++) {
        await inbox.runOnce();
        clock.now += 10_000;
      }
      const waits = events.filter((e) => e.outcome === 'retry').map((e) => e.waitMs);
      expect(waits).toEqual([1_000, 2_000, 4_000, 5_000, 5_000].map((ms) => Math.floor(ms * factor)));
      vi.restoreAllMocks();
    }
  });

  test('a failure with the token far from expiry is tried again, never set aside as expired, whatever the backoff and its jitter (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0.001, max: 10_000, noNaN: true }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 60, max: 86_400 }),
        async (backoffMs, random, ttlSeconds) => {
          vi.spyOn(Math, 'random').mockReturnValue(random);
          const { inbox, events } = setup({ verify: async () => Promise.reject(unavailable()), backoffMs, maxBackoffMs: 10_000 });
          await received(inbox, 'arc_1', ttlSeconds);
          await inbox.runOnce();
          expect(events.at(-1)).toMatchObject({ outcome: 'retry' });
          expect(await inbox.stats()).toMatchObject({ pending: 1, dead: 0 });
          vi.restoreAllMocks();
        },
      ),
      { seed: 40, numRuns: 200 },
    );
  });

  test('the last try goes just before the token expires (4 s short, on the service clock), never after; then the entry is set aside as expired', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    // The service's clock runs 60 s ahead: the token's exp is read on it.
    const { inbox, clock, events } = setup({
      verify: async () => Promise.reject(unavailable()),
      backoffMs: 100_000,
      maxAttempts: 10,
      serviceAheadMs: 60_000,
    });
    await received(inbox, 'arc_1', 150);
    await inbox.runOnce();
    // Expires at T0 + 150 s service time = T0 + 90 s local; the next try at 4 s before it.
    expect(events.at(-1)).toMatchObject({ outcome: 'retry', waitMs: 86_000 });
    clock.now += 85_999;
    expect(await inbox.runOnce()).toBe(0);
    clock.now += 1;
    expect(await inbox.runOnce()).toBe(1);
    expect(events.at(-1)).toMatchObject({ outcome: 'dead', reason: 'ERR_INBOX_TOKEN_EXPIRED', errorCode: 'ERR_SERVICE_UNAVAILABLE' });
    expect((await inbox.deadLetters())[0]).toMatchObject({ reason: 'ERR_INBOX_TOKEN_EXPIRED', record: { attempts: 2 } });
  });

  test("a token without exp lives assumedTokenLifetimeSeconds from its arrival on the service's clock, not the local one", async () => {
    // The service's clock runs 10 minutes ahead; the token is assumed to live 5.
    const { inbox, verify } = setup({
      verify: async () => Promise.reject(unavailable()),
      maxAttempts: 1,
      serviceAheadMs: 600_000,
      assumedTokenLifetimeSeconds: 300,
    });
    await inbox.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_arc_1' });
    await inbox.receive({ kind: 'approved', accessRequestCode: 'arc_1', accessToken: tokenExpiring() });
    await inbox.runOnce();
    // Fetched (on the local clock it would have expired 5 minutes before it came), then set aside for its one attempt.
    expect(verify).toHaveBeenCalledTimes(1);
    expect((await inbox.deadLetters())[0]).toMatchObject({
      reason: 'ERR_INBOX_RETRIES_EXHAUSTED',
      record: { tokenExpiresAt: T0 + 900_000 },
    });
  });

  test("a replay is judged on the service's clock, and starts again from the first attempt", async () => {
    let down = true;
    // The service's clock runs 10 minutes behind: its token, 5 minutes from expiry on that clock,
    // expired 5 minutes ago on the local one.
    const { inbox, handed } = setup({
      verify: async () => (down ? Promise.reject(unavailable()) : ({ claims: {} } as never)),
      maxAttempts: 1,
      serviceAheadMs: -600_000,
    });
    await inbox.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_arc_1' });
    await inbox.receive({ kind: 'approved', accessRequestCode: 'arc_1', accessToken: tokenExpiring(T0 / 1000 - 300) });
    await inbox.runOnce();
    expect((await inbox.deadLetters())[0]).toMatchObject({ reason: 'ERR_INBOX_RETRIES_EXHAUSTED', record: { attempts: 1 } });
    down = false;
    await inbox.replay('arc_1');
    expect(await inbox.runOnce()).toBe(1);
    expect(handed).toMatchObject([{ id: 'arc_1', attempts: 0 }]);
  });

  test('a replay starts afresh: when its token then expires untried, the dead letter says so, not the error of its earlier life', async () => {
    const { inbox, clock } = setup({ verify: async () => Promise.reject(unavailable()), maxAttempts: 1 });
    await received(inbox, 'arc_1', 60);
    await inbox.runOnce();
    expect((await inbox.deadLetters())[0]).toMatchObject({ errorCode: 'ERR_SERVICE_UNAVAILABLE' });
    await inbox.replay('arc_1');
    clock.now += 60_000;
    await inbox.runOnce();
    expect((await inbox.deadLetters())[0]).toMatchObject({ reason: 'ERR_INBOX_TOKEN_EXPIRED', errorCode: 'ERR_INBOX_TOKEN_EXPIRED' });
  });

  test('an entry whose token is within 2 s of expiry is set aside without a fetch; at 2 s and 1 ms, it is fetched', async () => {
    for (const [leftMs, fetched] of [
      [2_000, false],
      [2_001, true],
    ] as const) {
      const { inbox, clock, verify, events } = setup();
      await received(inbox, 'arc_1', 60);
      clock.now = T0 + 60_000 - leftMs;
      await inbox.runOnce();
      expect(verify).toHaveBeenCalledTimes(fetched ? 1 : 0);
      expect(events.at(-1)?.outcome).toBe(fetched ? 'handed-over' : 'dead');
      if (!fetched) expect(events.at(-1)).toMatchObject({ reason: 'ERR_INBOX_TOKEN_EXPIRED', errorCode: 'ERR_INBOX_TOKEN_EXPIRED' });
    }
  });

  test('a token without exp is assumed to live assumedTokenLifetimeSeconds from its arrival; one with an exp of 0 or less too', async () => {
    for (const token of [tokenExpiring(), tokenExpiring(0), tokenExpiring(-5), 'not-a-jwt']) {
      const store = new MemoryInboxStore();
      const { inbox } = setup({ store, assumedTokenLifetimeSeconds: 600 });
      await inbox.receive({ accessRequestCode: 'arc_1', accessToken: token });
      const [claim] = await store.claim('test', 1, 1_000, T0);
      expect(claim?.record.tokenExpiresAt).toBe(T0 + 600_000);
    }
  });

  test('a token whose exp is in milliseconds, or written as digits, expires at the instant it names (never thousands of years away)', async () => {
    const exp = T0 / 1000 + 900;
    for (const written of [exp, exp * 1000, String(exp), `${exp * 1000}`]) {
      const store = new MemoryInboxStore();
      const { inbox } = setup({ store, assumedTokenLifetimeSeconds: 600 });
      await inbox.receive({ accessRequestCode: 'arc_1', accessToken: `${b64({ alg: 'RS256' })}.${b64({ exp: written })}.c2ln` });
      const [claim] = await store.claim('test', 1, 1_000, T0);
      expect(claim?.record.tokenExpiresAt, String(written)).toBe(exp * 1000);
    }
  });
});

describe('inbox: which failures a retry can mend', () => {
  const cases: [string, () => unknown, 'retry' | 'dead', string][] = [
    ['a 503 while fetching', unavailable, 'retry', 'ERR_SERVICE_UNAVAILABLE'],
    [
      'a 404 while fetching (a final status)',
      () =>
        new IdentityFlowError(
          'fetch',
          'x',
          new NotFoundError({ status: 404, body: undefined, requestCorrelationId: undefined, headers: new Headers() }),
        ),
      'dead',
      'ERR_NOT_FOUND',
    ],
    [
      'a connection failure while fetching',
      () => new IdentityFlowError('fetch', 'x', new TypeError('fetch failed')),
      'retry',
      'ERR_IDENTITY_FLOW',
    ],
    ['a token that does not name the request', () => new IdentityFlowError('token', 'x', undefined), 'dead', 'ERR_IDENTITY_FLOW'],
    [
      'a refused verification',
      () => new IdentityFlowError('verify', 'x', new SdJwtVerificationError('ERR_SD_JWT_SIGNATURE', 'x')),
      'dead',
      'ERR_SD_JWT_SIGNATURE',
    ],
    [
      "the issuer's keys not fetched",
      () => new IdentityFlowError('verify', 'x', new JwksError('https://auth.example/jwks', 'x')),
      'retry',
      'ERR_JWKS',
    ],
    [
      'an answer that holds no claim yet (a service still writing it)',
      () => new IdentityFlowError('verify', 'x', new SdJwtVerificationError('ERR_SD_JWT_NO_CLAIMS', 'x')),
      'retry',
      'ERR_SD_JWT_NO_CLAIMS',
    ],
    ['an error from outside the flow', () => new TypeError('boom'), 'retry', 'ERR_UNKNOWN'],
  ];
  test.each(cases.map(([name, error, outcome, code]) => [name, outcome, code, error] as const))(
    '%s: %s (%s)',
    async (_name, outcome, errorCode, error) => {
      const { inbox, events } = setup({ verify: async () => Promise.reject(error()) });
      await received(inbox);
      await inbox.runOnce();
      expect(events.at(-1)).toMatchObject({ outcome, errorCode });
      if (outcome === 'dead') expect(events.at(-1)).toMatchObject({ reason: 'ERR_INBOX_REFUSED' });
    },
  );

  test('every error status of the fetch, 400 to 599: set aside at once when no retry changes it (400, 401, 403, 404, 410 revoked, 412, 422), tried again otherwise (408, 409, 429, 5xx…)', async () => {
    const final = new Set([400, 401, 403, 404, 410, 412, 422]);
    for (let status = 400; status < 600; status++) {
      const answer = apiErrorFrom({ status, body: undefined, requestCorrelationId: undefined, headers: new Headers() });
      const { inbox, events } = setup({ verify: async () => Promise.reject(new IdentityFlowError('fetch', 'x', answer)) });
      await received(inbox);
      await inbox.runOnce();
      expect([status, events.at(-1)?.outcome]).toEqual([status, final.has(status) ? 'dead' : 'retry']);
    }
  });
});

describe('inbox: one worker at a time', () => {
  test('a worker whose lease was taken over hands nothing over and settles nothing', async () => {
    class LostLease extends MemoryInboxStore {
      override async renew() {
        return false;
      }
    }
    const { inbox, handed, events, store } = setup({ store: new LostLease() });
    await received(inbox);
    expect(await inbox.runOnce()).toBe(1);
    expect(handed).toEqual([]);
    expect(events.at(-1)).toMatchObject({ outcome: 'taken-over' });
    // Still there for the worker that holds it.
    expect(await store.stats(T0)).toMatchObject({ inFlight: 1, dead: 0 });
  });

  test('a store that fails while an entry is settled: logged, the other entries go on, and the entry waits out its lease', async () => {
    class Flaky extends MemoryInboxStore {
      override async complete(...args: Parameters<MemoryInboxStore['complete']>) {
        if (args[0].record.id === 'arc_1') throw new RangeError('store down');
        return super.complete(...args);
      }
    }
    const { inbox, lines, handed, clock } = setup({ store: new Flaky(), leaseMs: 5_000 });
    await received(inbox, 'arc_1');
    await received(inbox, 'arc_2');
    expect(await inbox.runOnce()).toBe(2);
    expect(handed).toHaveLength(2);
    expect(lines).toContainEqual({
      level: 'error',
      message:
        'inbox store unreachable while settling an entry (it is tried again after its lease): store down; logged once until it answers again',
      fields: { error: 'RangeError' },
    });
    expect(await inbox.runOnce()).toBe(0);
    // The store answered the next claim: the outage is over, and says how long it lasted.
    expect(lines.filter((line) => line.message.startsWith('inbox store answers again'))).toHaveLength(1);
    clock.now += 5_000;
    expect(await inbox.runOnce()).toBe(1);
  });

  test('start polls every pollIntervalMs until stop; a store that cannot be reached is logged, and polling goes on', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let claims = 0;
      class Unreachable extends MemoryInboxStore {
        override async claim(): Promise<never> {
          claims += 1;
          throw new RangeError('connection refused');
        }
      }
      const { inbox, lines } = setup({ store: new Unreachable(), pollIntervalMs: 1_000 });
      inbox.start();
      inbox.start(); // a second start changes nothing
      await vi.advanceTimersByTimeAsync(3_500);
      expect(claims).toBe(4);
      // Four failed polls, one line: the cause, once per outage.
      expect(lines.filter((line) => line.level === 'error')).toEqual([
        {
          level: 'error',
          message:
            'inbox store unreachable while looking for due entries (polling goes on): connection refused; logged once until it answers again',
          fields: { error: 'RangeError' },
        },
      ]);
      await inbox.stop();
      await vi.advanceTimersByTimeAsync(5_000);
      expect(claims).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });

  test('stop while a poll is under way: it waits for it, and nothing is polled after', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let claims = 0;
      let release: () => void = () => undefined;
      class Slow extends MemoryInboxStore {
        override async claim(...args: Parameters<MemoryInboxStore['claim']>) {
          claims += 1;
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          return super.claim(...args);
        }
      }
      const { inbox } = setup({ store: new Slow(), pollIntervalMs: 1_000 });
      inbox.start();
      let stopped = false;
      const stopping = inbox.stop().then(() => (stopped = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(stopped).toBe(false);
      release();
      await stopping;
      await vi.advanceTimersByTimeAsync(5_000);
      expect(claims).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  test("the heartbeat renews the lease every third of it while the handler runs, stops once the entry is another's, and stops with the work", async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const renewals: boolean[] = [];
      class Counting extends MemoryInboxStore {
        held = true;
        override async renew(...args: Parameters<MemoryInboxStore['renew']>) {
          const result = this.held && (await super.renew(...args));
          renewals.push(result);
          return result;
        }
      }
      // Each fetch waits for the test to let it go (whether it was asked for yet or not).
      const opened = () => {
        let open: () => void = () => undefined;
        const promise = new Promise<void>((resolve) => {
          open = resolve;
        });
        return { promise, open };
      };
      let gate = opened();
      const release = () => gate.open();
      const store = new Counting();
      const { inbox } = setup({
        store,
        leaseMs: 3_000,
        verify: async () => {
          await gate.promise;
          return { claims: {} } as never;
        },
      });
      await received(inbox, 'arc_1');
      const running = inbox.runOnce();
      await vi.advanceTimersByTimeAsync(2_000);
      expect(renewals).toEqual([true, true]);
      store.held = false;
      await vi.advanceTimersByTimeAsync(5_000);
      // Taken over at the third beat: no beat after it.
      expect(renewals).toEqual([true, true, false]);
      release();
      await running;
      store.held = true;
      gate = opened();
      await received(inbox, 'arc_2');
      const second = inbox.runOnce();
      await vi.advanceTimersByTimeAsync(1_000);
      release();
      await second;
      const beats = renewals.length;
      await vi.advanceTimersByTimeAsync(10_000);
      expect(renewals).toHaveLength(beats);
    } finally {
      vi.useRealTimers();
    }
  });

  test('a store that settles in a transaction and finds the entry taken over: the handler ran there and is rolled back, said at warn, not as handed over', async () => {
    class TakenOver extends MemoryInboxStore {
      async completeWith(_claim: unknown, _ttl: number, _now: number, handOver: (transaction: unknown) => Promise<void>) {
        await handOver('tx');
        return false;
      }
    }
    const { inbox, lines, handed, events } = setup({ store: new TakenOver() });
    await received(inbox);
    await inbox.runOnce();
    expect(handed).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ outcome: 'taken-over' });
    expect(lines.filter((line) => /handed over|taken over/.test(line.message)).map((line) => [line.level, line.message])).toEqual([
      ['warn', 'entry taken over by another worker while the handler ran: its writes rolled back here'],
    ]);
  });

  test('the outage line says how long the store did not answer, in whole seconds', async () => {
    let failing = true;
    class Down extends MemoryInboxStore {
      override async add(...args: Parameters<MemoryInboxStore['add']>) {
        if (failing) throw new RangeError('connection refused');
        return super.add(...args);
      }
    }
    const { inbox, lines, clock } = setup({ store: new Down() });
    await expect(received(inbox, 'arc_1')).rejects.toThrow();
    clock.now += 2_600;
    failing = false;
    expect(await received(inbox, 'arc_1')).toBe('added');
    expect(lines.filter((line) => line.message.startsWith('inbox store answers again')).map((line) => line.message)).toEqual([
      'inbox store answers again, after 3 s',
    ]);
  });

  test("property: the store's error message in the outage line is cut at 200 characters and carries no control character or line separator (no forged log line)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 400 }), async (message) => {
        class Down extends MemoryInboxStore {
          override async add(): Promise<never> {
            throw new Error(message);
          }
        }
        const { inbox, lines } = setup({ store: new Down() });
        await expect(received(inbox, 'arc_1')).rejects.toThrow();
        const [line] = lines.filter((entry) => entry.level === 'error').map((entry) => entry.message);
        const cause = /^inbox store unreachable [^:]*: (.*); logged once until it answers again$/su.exec(line ?? '')?.[1];
        expect(cause).toBeDefined();
        expect(cause).not.toMatch(/[\p{Cc}\p{Zl}\p{Zp}]/u);
        expect([...(cause ?? '')].length).toBeLessThanOrEqual(201);
      }),
      { numRuns: 60 },
    );
  });

  test("an entry is known by the delivery's id (its first 16 characters in events), or by its request when the delivery has none", async () => {
    const { inbox, events } = setup({ verify: async () => Promise.reject(unavailable()), maxAttempts: 1 });
    await inbox.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_arc_1' });
    await inbox.receive({
      kind: 'approved',
      accessRequestCode: 'arc_1',
      accessToken: tokenExpiring(T0 / 1000 + 60),
      deliveryId: 'dlv_0123456789abcdef',
    });
    await inbox.receive({ kind: 'approved', accessRequestCode: 'arc_2', accessToken: tokenExpiring(T0 / 1000 + 60) });
    expect(events.map((event) => event.delivery)).toEqual(['dlv_0123456789ab', 'arc_2']);
    await inbox.runOnce();
    const letters = await inbox.deadLetters();
    expect(letters.map((letter) => letter.record.deliveryId).sort()).toEqual(['arc_2', 'dlv_0123456789abcdef']);
  });

  test("an expected request is awaited from when expect() was called on this machine's clock (the store's times are local)", async () => {
    const { inbox, clock } = setup({ serviceAheadMs: 600_000, doneTtlSeconds: 60 });
    await inbox.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_arc_1' });
    expect(await inbox.outcome('arc_1')).toMatchObject({ state: 'awaiting', at: T0 });
    clock.now += 59_999;
    expect(await inbox.outcome('arc_1')).toMatchObject({ state: 'awaiting' });
    clock.now += 1;
    expect(await inbox.outcome('arc_1')).toMatchObject({ state: 'unknown' });
  });

  test('each inbox is a worker of its own name: the process and a random part', async () => {
    const workers: string[] = [];
    class Named extends MemoryInboxStore {
      override claim(worker: string, ...rest: [number, number, number]) {
        workers.push(worker);
        return super.claim(worker, ...rest);
      }
    }
    for (let i = 0; i < 2; i++) await setup({ store: new Named() }).inbox.runOnce();
    expect(workers[0]).toMatch(new RegExp(`^pid${process.pid}-[0-9a-f]{8}$`));
    expect(workers[1]).not.toBe(workers[0]);
  });
});

describe('inbox: what a hand-over records', () => {
  test('an identity the service marks partially complete is handed over as partial, a full one as verified', async () => {
    for (const [partiallyComplete, state] of [
      [true, 'partial'],
      [false, 'verified'],
    ] as const) {
      const { inbox } = setup({ verify: async () => ({ claims: {}, partiallyComplete }) as never });
      await received(inbox);
      await inbox.runOnce();
      expect(await inbox.outcome('arc_1')).toMatchObject({ state });
    }
  });

  test("the request's own session code is the one verified against, whatever the verification options carry", async () => {
    const { inbox, verify } = setup({ verification: { identitySessionCode: 'isc_another' } as never });
    await received(inbox);
    await inbox.runOnce();
    expect(verify).toHaveBeenCalledWith(expect.anything(), expect.objectContaining({ identitySessionCode: 'isc_arc_1' }));
  });

  test("a handler that throws one of the SDK's errors is recorded with that error's code; anything else as ERR_HANDLER", async () => {
    for (const [thrown, errorCode] of [
      [new ConfigurationError('table', 'is missing'), 'ERR_INVALID_CONFIG'],
      [new Error('disk full'), 'ERR_HANDLER'],
    ] as const) {
      const { inbox, events } = setup({
        maxAttempts: 1,
        onIdentity: () => {
          throw thrown;
        },
      });
      await received(inbox);
      await inbox.runOnce();
      expect(events.at(-1)).toMatchObject({ outcome: 'dead', reason: 'ERR_INBOX_HANDLER', errorCode });
    }
  });
});

describe('inbox: where the session code comes from (#44)', () => {
  /** A memory store whose claims carry `expected`, as a store across a network reads it with the claim. */
  class ClaimReading extends MemoryInboxStore {
    constructor(readonly carried: (id: string) => ExpectedRequest | null | undefined) {
      super();
    }
    override async claim(...args: Parameters<MemoryInboxStore['claim']>) {
      return (await super.claim(...args)).map((claim) => {
        const expected = this.carried(claim.record.id);
        return expected === undefined ? claim : { ...claim, expected };
      });
    }
  }
  const sessionCodes = (verify: ReturnType<typeof setup>['verify']) => verify.mock.calls.map(([, options]) => options?.identitySessionCode);

  test("the claim's expected record when the store read it with the claim: expected() is not asked", async () => {
    const store = new ClaimReading((id) => ({ accessRequestCode: id, identitySessionCode: 'isc_from_claim', createdAt: T0 }));
    const expected = vi.spyOn(store, 'expected');
    const { inbox, verify, handed } = setup({ store });
    await received(inbox, 'arc_c');
    await inbox.runOnce();
    expect(sessionCodes(verify)).toEqual(['isc_from_claim']);
    expect(expected).not.toHaveBeenCalled();
    expect(handed).toHaveLength(1);
  });

  test('a claim that found no record (null) goes to the sessionCode option, or fails as an unknown request, without asking expected()', async () => {
    for (const sessionCode of [async () => 'isc_from_option', undefined]) {
      const store = new ClaimReading(() => null);
      const expected = vi.spyOn(store, 'expected');
      const { inbox, verify, events } = setup({ store, ...(sessionCode ? { sessionCode } : {}) });
      await received(inbox, 'arc_n');
      await inbox.runOnce();
      expect(expected).not.toHaveBeenCalled();
      if (sessionCode) expect(sessionCodes(verify)).toEqual(['isc_from_option']);
      else {
        expect(verify).not.toHaveBeenCalled();
        expect(events.map((event) => event.errorCode)).toContain('ERR_INBOX_UNKNOWN_REQUEST');
      }
    }
  });

  test('a claim without it (a store that does not read it) asks expected()', async () => {
    const store = new ClaimReading(() => undefined);
    const expected = vi.spyOn(store, 'expected');
    const { inbox, verify } = setup({ store });
    await received(inbox, 'arc_u');
    await inbox.runOnce();
    expect(expected).toHaveBeenCalledWith('arc_u');
    expect(sessionCodes(verify)).toEqual(['isc_arc_u']);
  });
});

describe('inbox: what it refuses and reports', () => {
  test('receive and expect refuse what is not a verified event or a pair of codes, with ConfigurationError', async () => {
    const { inbox } = setup();
    const token = tokenExpiring(T0 / 1000 + 60);
    for (const event of [
      undefined,
      {},
      { accessRequestCode: '', accessToken: token },
      { accessRequestCode: 7, accessToken: token },
      { accessRequestCode: 'arc' },
    ]) {
      expect(await rejection(inbox.receive(event as never))).toMatchObject({ name: 'ConfigurationError', option: 'event' });
    }
    for (const codes of [undefined, {}, { accessRequestCode: 'arc' }, { identitySessionCode: 'isc' }]) {
      expect(await rejection(inbox.expect(codes as never))).toMatchObject({ name: 'ConfigurationError', option: 'codes' });
    }
  });

  test('a client without getVerified, a store without add, an option that is not a number: ConfigurationError naming it', () => {
    const make = (options: object) => () => createIdentityInbox({ onIdentity: () => undefined, ...options } as never);
    const client = { identityResponses: { getVerified: async () => ({}) }, identityRequests: { get: async () => ({ data: {} }) } };
    for (const [options, option] of [
      [{ client: {} }, 'client'],
      [{ client, store: {} }, 'store'],
      [{ client, backoffMs: '5' }, 'backoffMs'],
    ] as const) {
      expect(make(options)).toThrow(ConfigurationError);
      expect(make(options)).toThrow(expect.objectContaining({ option }));
    }
  });

  test("a test delivery (a receiver check) is answered 'test': not stored, nothing fetched, said at info, its delivery id cut to 16 characters", async () => {
    const { inbox, lines, events, verify } = setup();
    const payload = { acme_identity_test: 'acme-identity doctor' };
    const delivery = { kind: 'approved', accessRequestCode: 'arc_t', accessToken: tokenExpiring(T0 / 1000 + 60), payload } as const;
    expect(await inbox.receive({ ...delivery, deliveryId: 'd'.repeat(40) })).toBe('test');
    expect(await inbox.receive(delivery)).toBe('test');
    expect(await inbox.stats()).toMatchObject({ pending: 0, inFlight: 0, dead: 0 });
    expect(await inbox.runOnce()).toBe(0);
    expect(verify).not.toHaveBeenCalled();
    expect(events).toEqual([
      { outcome: 'test', delivery: 'd'.repeat(16), attempts: 0 },
      { outcome: 'test', delivery: '', attempts: 0 },
    ]);
    expect(lines.filter((line) => line.level === 'info').map((line) => line.message)).toEqual([
      'a test delivery from acme-identity doctor: answered, not stored',
      'a test delivery from acme-identity doctor: answered, not stored',
    ]);
  });

  test("property: a delivery whose test field names no tool (empty text, or not text) is a delivery like any other: stored, not answered 'test'", async () => {
    const notATool = fc.oneof(
      fc.constant(''),
      fc.boolean(),
      fc.integer(),
      fc.constant(null),
      fc.array(fc.string({ minLength: 1 }), { minLength: 1 }),
      fc.object(),
    );
    await fc.assert(
      fc.asyncProperty(notATool, async (source) => {
        const { inbox, events } = setup();
        await inbox.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_arc_1' });
        const payload = { acme_identity_test: source };
        const delivery = { kind: 'approved', accessRequestCode: 'arc_1', accessToken: tokenExpiring(T0 / 1000 + 60), payload } as const;
        expect(await inbox.receive(delivery)).toBe('added');
        expect(await inbox.stats()).toMatchObject({ pending: 1 });
        expect(events.filter((event) => event.outcome === 'test')).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  test('a delivery for a request never recorded: tried once more, then set aside, said at warn with the reason and the error code', async () => {
    const { inbox, lines, clock } = setup();
    await inbox.receive({ kind: 'approved', accessRequestCode: 'arc_u', accessToken: tokenExpiring(T0 / 1000 + 3_600) });
    await inbox.runOnce();
    clock.now += 60_000;
    await inbox.runOnce();
    expect(await inbox.deadLetters()).toMatchObject([{ reason: 'ERR_INBOX_UNKNOWN_REQUEST' }]);
    expect(lines.find((line) => line.message.startsWith('a delivery for a request never recorded'))).toMatchObject({
      level: 'warn',
      fields: { reason: 'ERR_INBOX_UNKNOWN_REQUEST', errorCode: expect.stringMatching(/^ERR_/) },
    });
  });

  test('with allowPlaintext, the token is kept as it came and the identity fetched with it', async () => {
    const { inbox, verify, handed } = setup({ allowPlaintext: true });
    const token = tokenExpiring(T0 / 1000 + 3_600);
    await inbox.expect({ accessRequestCode: 'arc_p', identitySessionCode: 'isc_p' });
    await inbox.receive({ kind: 'approved', accessRequestCode: 'arc_p', accessToken: token });
    await inbox.runOnce();
    expect(verify.mock.calls[0]?.[0]).toMatchObject({ accessRequestCode: 'arc_p', accessToken: token });
    expect(handed).toHaveLength(1);
  });

  test('a redelivery is logged at debug, a new delivery at info', async () => {
    const { inbox, lines } = setup();
    await received(inbox);
    await received(inbox);
    expect(lines.filter((line) => line.message.startsWith('delivery ')).map((line) => [line.level, line.message])).toEqual([
      ['info', 'delivery added'],
      ['debug', 'delivery duplicate'],
    ]);
  });

  test('replay refuses a dead entry whose token is within 2 s of expiry; discard reports only what it removed', async () => {
    const { inbox, clock, events } = setup({ verify: async () => Promise.reject(new IdentityFlowError('token', 'x', undefined)) });
    await received(inbox, 'arc_1', 60);
    await received(inbox, 'arc_2', 60);
    await inbox.runOnce();
    clock.now = T0 + 58_000;
    expect(await rejection(inbox.replay('arc_1'))).toMatchObject({ code: 'ERR_INBOX_TOKEN_EXPIRED' });
    clock.now = T0 + 57_999;
    await inbox.replay('arc_1');
    await inbox.discard('arc_2');
    expect(events.filter((e) => e.outcome === 'replayed' || e.outcome === 'discarded')).toMatchObject([
      { outcome: 'replayed', delivery: 'arc_1' },
      { outcome: 'discarded', delivery: 'arc_2' },
    ]);
    expect((await inbox.stats()).dead).toBe(0);
    // The entry replayed or discarded is the one named, with its own record: not the first of the dead letters.
    const again = setup({ verify: async () => Promise.reject(new IdentityFlowError('token', 'x', undefined)) });
    for (const id of ['arc_1', 'arc_2', 'arc_3']) await received(again.inbox, id);
    await again.inbox.runOnce();
    await again.inbox.discard('arc_3');
    expect(again.events.at(-1)).toMatchObject({ outcome: 'discarded', delivery: 'arc_3' });
    await again.inbox.replay('arc_2');
    again.verify.mockImplementation(async () => ({ claims: {} }) as never);
    await again.inbox.runOnce();
    expect(again.handed).toMatchObject([{ id: 'arc_2', accessRequestCode: 'arc_2' }]);
  });

  test("reconcile: the grace period is counted on the service's clock, which completed_at is read on", async () => {
    // The service's clock runs 10 minutes ahead; it completed the request 301 s before its now.
    const { inbox } = setup({
      graceSeconds: 300,
      serviceAheadMs: 600_000,
      details: { arc_done: { completed_at: (T0 + 600_000 - 301_000) / 1000 } },
    });
    await inbox.expect({ accessRequestCode: 'arc_done', identitySessionCode: 'isc' });
    expect(await inbox.reconcile()).toEqual([{ accessRequestCode: 'arc_done', reason: 'completed', at: T0 + 299_000 }]);
  });

  test('reconcile: a completed request is reported once its grace period has passed (not a millisecond before), at its completed_at in ms; an expired one only if never opened', async () => {
    const reports: unknown[] = [];
    const { inbox, clock, lines } = setup({
      graceSeconds: 300,
      details: {
        arc_unreadable: new ServiceUnavailableError({
          status: 503,
          body: undefined,
          requestCorrelationId: undefined,
          headers: new Headers(),
        }),
        arc_done: { completed_at: T0 / 1000, opened_at: T0 / 1000 - 60 },
        arc_expired: { time_expires: T0 / 1000 + 100 },
        arc_opened: { opened_at: T0 / 1000, time_expires: T0 / 1000 + 100 },
        // A time of 0 is not set: expiry_hours: 0 disables expiry ("never"), and a column's default 0
        // says "not yet": never "expired" or "completed" in 1970.
        arc_never: { time_expires: 0 },
        arc_defaults: { completed_at: 0, opened_at: 0, time_expires: 0 },
        arc_opened_zero: { opened_at: 0, time_expires: T0 / 1000 + 100 },
      },
      onMissingDelivery: (missing) => {
        reports.push(missing);
        throw new Error('pager down');
      },
    });
    for (const code of ['arc_unreadable', 'arc_done', 'arc_expired', 'arc_opened', 'arc_never', 'arc_defaults', 'arc_opened_zero'])
      await inbox.expect({ accessRequestCode: code, identitySessionCode: 'isc' });
    clock.now = T0 + 99_999;
    expect(await inbox.reconcile()).toEqual([]);
    clock.now = T0 + 100_000;
    // An opened_at of 0 is no opening: that request expired unopened too.
    expect(await inbox.reconcile()).toEqual([
      { accessRequestCode: 'arc_expired', reason: 'expired', at: T0 + 100_000 },
      { accessRequestCode: 'arc_opened_zero', reason: 'expired', at: T0 + 100_000 },
    ]);
    clock.now = T0 + 299_999;
    expect(await inbox.reconcile()).toEqual([]);
    clock.now = T0 + 300_000;
    expect(await inbox.reconcile()).toEqual([{ accessRequestCode: 'arc_done', reason: 'completed', at: T0 }]);
    expect(reports).toHaveLength(3);
    expect(await inbox.reconcile()).toEqual([]);
    // Each report logged with a short digest of the code, never the code; a throwing callback logged and ignored.
    const reported = lines.filter((line) => line.message.startsWith('no webhook for a request'));
    expect(reported.map((line) => line.fields)).toEqual([
      { reason: 'expired', request: expect.stringMatching(/^[0-9a-f]{12}$/) },
      { reason: 'expired', request: expect.stringMatching(/^[0-9a-f]{12}$/) },
      { reason: 'completed', request: expect.stringMatching(/^[0-9a-f]{12}$/) },
    ]);
    expect(JSON.stringify(lines)).not.toContain('arc_done');
    // A request the service would not show is skipped with its error code, and the others go on.
    expect(lines).toContainEqual({
      level: 'warn',
      message: 'reconciler could not read a request',
      fields: { errorCode: 'ERR_SERVICE_UNAVAILABLE' },
    });
    expect(lines.filter((line) => line.message === 'onMissingDelivery threw; ignored').map((line) => line.fields)).toEqual([
      { error: 'Error' },
      { error: 'Error' },
      { error: 'Error' },
    ]);
  });
});

/** A record as the memory store's tests put it in: received at T0, due at once, its token good for a minute. */
const record = (id: string, overrides: Partial<InboxRecord> = {}): InboxRecord => ({
  id,
  kind: 'approved',
  deliveryId: id,
  token: 't',
  tokenExpiresAt: T0 + 60_000,
  receivedAt: T0,
  attempts: 0,
  nextAttemptAt: T0,
  ...overrides,
});

describe('MemoryInboxStore', () => {
  test('an entry claimed is not claimed again until its lease runs out; at most max entries a claim', async () => {
    const store = new MemoryInboxStore();
    for (const id of ['a', 'b', 'c']) await store.add(record(id), T0);
    expect((await store.claim('w1', 2, 1_000, T0)).map((c) => c.record.id)).toEqual(['a', 'b']);
    expect((await store.claim('w2', 5, 1_000, T0 + 999)).map((c) => c.record.id)).toEqual(['c']);
    expect(await store.stats(T0 + 999)).toMatchObject({ inFlight: 3, pending: 0 });
    expect((await store.claim('w2', 5, 1_000, T0 + 1_000)).map((c) => c.record.id)).toEqual(['a', 'b']);
    // Not due yet: not claimed.
    await store.add(record('later', { nextAttemptAt: T0 + 5_000 }), T0);
    expect((await store.claim('w3', 5, 1_000, T0 + 4_999)).map((c) => c.record.id)).not.toContain('later');
  });

  test('only the holder of the live lease renews or settles; a taken-over worker changes nothing', async () => {
    const store = new MemoryInboxStore();
    await store.add(record('a'), T0);
    const [first] = await store.claim('w1', 1, 1_000, T0);
    expect(await store.renew('w2', first!, 1_000, T0)).toBe(false);
    expect(await store.renew('w1', first!, 1_000, T0 + 500)).toBe(true);
    // Renewed to T0 + 1,500: still held at T0 + 1,499.
    expect(await store.claim('w2', 1, 1_000, T0 + 1_499)).toEqual([]);
    const [second] = await store.claim('w2', 1, 1_000, T0 + 1_500);
    expect(second).toBeDefined();
    expect(await store.renew('w1', first!, 1_000, T0 + 1_500)).toBe(false);
    await store.complete(first!, 10_000, T0 + 1_500);
    await store.reschedule(first!, record('a', { attempts: 9 }));
    await store.bury(first!, { record: record('a'), reason: 'ERR_INBOX_REFUSED', errorCode: 'x', message: 'x', deadAt: T0 });
    expect(await store.stats(T0 + 1_500)).toMatchObject({ inFlight: 1, dead: 0 });
    await store.complete(second!, 10_000, T0 + 1_500);
    expect(await store.stats(T0 + 1_500)).toEqual({ pending: 0, inFlight: 0, dead: 0, oldestAgeMs: 0 });
  });

  test('a handed-over request is a duplicate until doneTtl has passed, then new again', async () => {
    const store = new MemoryInboxStore();
    await store.add(record('a'), T0);
    const [claim] = await store.claim('w', 1, 1_000, T0);
    await store.complete(claim!, 10_000, T0);
    expect(await store.add(record('a'), T0 + 9_999)).toBe('duplicate');
    expect(await store.add(record('a'), T0 + 10_000)).toBe('added');
  });

  test('a redelivery of a pending entry keeps the token that expires later', async () => {
    const store = new MemoryInboxStore();
    await store.add(record('a', { token: 'first', tokenExpiresAt: T0 + 60_000 }), T0);
    expect(await store.add(record('a', { token: 'older', tokenExpiresAt: T0 + 30_000 }), T0)).toBe('duplicate');
    expect(await store.add(record('a', { token: 'same', tokenExpiresAt: T0 + 60_000 }), T0)).toBe('duplicate');
    expect((await store.claim('w', 1, 1_000, T0))[0]?.record.token).toBe('first');
    const store2 = new MemoryInboxStore();
    await store2.add(record('a', { token: 'first', tokenExpiresAt: T0 + 60_000 }), T0);
    await store2.add(record('a', { token: 'fresh', tokenExpiresAt: T0 + 90_000, kind: 'cancelled' }), T0);
    expect((await store2.claim('w', 1, 1_000, T0))[0]?.record).toMatchObject({
      token: 'fresh',
      tokenExpiresAt: T0 + 90_000,
      kind: 'cancelled',
    });
  });

  test('dead letters oldest first and at most limit; revive and discard act on dead entries only', async () => {
    const store = new MemoryInboxStore();
    for (const [id, deadAt] of [
      ['late', T0 + 2],
      ['early', T0 + 1],
      ['live', 0],
    ] as const) {
      await store.add(record(id), T0);
      if (id === 'live') continue;
      const [claim] = (await store.claim('w', 5, 1_000, T0)).filter((c) => c.record.id === id);
      await store.bury(claim!, { record: record(id), reason: 'r', errorCode: 'e', message: 'm', deadAt });
    }
    expect((await store.deadLetters(10)).map((l) => l.record.id)).toEqual(['early', 'late']);
    expect((await store.deadLetters(1)).map((l) => l.record.id)).toEqual(['early']);
    expect(await store.revive('live', record('live'))).toBe(false);
    expect(await store.discard('live')).toBe(false);
    expect(await store.revive('early', record('early'))).toBe(true);
    expect(await store.discard('late')).toBe(true);
    expect(await store.deadLetters(10)).toEqual([]);
  });

  test('stats: pending and in flight apart, the oldest age from the earliest arrival', async () => {
    const store = new MemoryInboxStore();
    await store.add(record('old', { receivedAt: T0 - 5_000 }), T0);
    await store.add(record('new', { receivedAt: T0 - 1_000 }), T0);
    await store.claim('w', 1, 1_000, T0);
    expect(await store.stats(T0)).toEqual({ pending: 1, inFlight: 1, dead: 0, oldestAgeMs: 5_000 });
    expect(await store.stats(T0 + 1_000)).toEqual({ pending: 2, inFlight: 0, dead: 0, oldestAgeMs: 6_000 });
  });

  test('awaiting: the requests recorded with no entry yet, oldest first, at most limit, until their ttl', async () => {
    const store = new MemoryInboxStore();
    await store.expect({ accessRequestCode: 'b', identitySessionCode: 'x', createdAt: T0 + 2 }, 10_000);
    await store.expect({ accessRequestCode: 'a', identitySessionCode: 'x', createdAt: T0 + 1 }, 10_000);
    await store.expect({ accessRequestCode: 'c', identitySessionCode: 'x', createdAt: T0 }, 10_000);
    await store.add(record('c'), T0);
    expect((await store.awaiting(10, T0)).map((r) => r.accessRequestCode)).toEqual(['a', 'b']);
    expect((await store.awaiting(1, T0)).map((r) => r.accessRequestCode)).toEqual(['a']);
    expect((await store.awaiting(10, T0 + 10_001)).map((r) => r.accessRequestCode)).toEqual(['b']);
    expect(await store.awaiting(10, T0 + 10_002)).toEqual([]);
    expect(await store.expected('a')).toBeUndefined();
  });
});

describe('MemoryInboxStore: every time ends at its millisecond (#45)', () => {
  const expected = (code: string, createdAt = T0) => ({ accessRequestCode: code, identitySessionCode: `isc_${code}`, createdAt });

  test('a claim takes the entry whose token expires first, first, whatever the order they came in (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 8 }), async (lifetimes) => {
        const store = new MemoryInboxStore();
        for (const [i, ms] of lifetimes.entries()) await store.add(record(`arc_${i}`, { tokenExpiresAt: T0 + ms }), T0);
        const claimed = [];
        for (let i = 0; i < lifetimes.length; i++) claimed.push((await store.claim('w', 1, 60_000, T0))[0]!.record.tokenExpiresAt - T0);
        expect(claimed).toEqual([...lifetimes].sort((a, b) => a - b));
      }),
      { seed: 45, numRuns: 100 },
    );
  });

  test("a request's state: its outcome through the last millisecond of doneTtl; awaiting through the last of its ttl; a dead entry at its deadAt", async () => {
    const store = new MemoryInboxStore();
    await store.add(record('arc_done'), T0);
    const [claim] = await store.claim('w', 1, 1_000, T0);
    await store.complete(claim!, 10_000, T0, 'verified');
    expect(await store.state('arc_done', T0 + 9_999)).toEqual({ state: 'verified', at: T0 });
    expect(await store.state('arc_done', T0 + 10_000)).toBeUndefined();
    await store.expect(expected('arc_wait'), 5_000);
    expect(await store.state('arc_wait', T0 + 4_999)).toEqual({ state: 'awaiting', at: T0 });
    expect(await store.state('arc_wait', T0 + 5_000)).toBeUndefined();
    await store.add(record('arc_dead'), T0);
    const [dying] = await store.claim('w', 1, 1_000, T0);
    await store.bury(dying!, { record: dying!.record, reason: 'ERR_INBOX_REFUSED', errorCode: 'x', message: 'x', deadAt: T0 + 7 });
    expect(await store.state('arc_dead', T0 + 50)).toEqual({ state: 'failed', at: T0 + 7 });
  });

  test('reported missing: through the last millisecond of its ttl, not at it; not while its hand-over is remembered, and again after', async () => {
    const store = new MemoryInboxStore();
    await store.expect(expected('arc_a'), 5_000);
    await store.expect(expected('arc_b'), 5_000);
    expect(await store.reportMissing('arc_a', T0 + 5_000)).toBe(false);
    expect(await store.reportMissing('arc_b', T0 + 4_999)).toBe(true);
    await store.add(record('arc_h'), T0);
    const [claim] = await store.claim('w', 1, 1_000, T0);
    await store.complete(claim!, 1_000, T0);
    await store.expect(expected('arc_h'), 60_000);
    expect(await store.reportMissing('arc_h', T0 + 999)).toBe(false);
    expect(await store.reportMissing('arc_h', T0 + 1_000)).toBe(true);
  });

  test('a reference names its request through the last millisecond before its until; a lease is held through its last millisecond', async () => {
    const store = new MemoryInboxStore();
    await store.refer('ref', 'arc_1', T0 + 10);
    expect(await store.referred('ref', T0 + 9)).toBe('arc_1');
    expect(await store.referred('ref', T0 + 10)).toBeUndefined();
    // Read again after it ended (and was dropped): still nothing.
    expect(await store.referred('ref', T0 + 9)).toBeUndefined();
    expect(await store.lease('reconciler', 'a', 300, T0)).toBe(true);
    expect(await store.lease('reconciler', 'b', 300, T0 + 299)).toBe(false);
    expect(await store.lease('reconciler', 'b', 300, T0 + 300)).toBe(true);
  });
});

describe('inbox: a sealed token is bound to its entry (#45)', () => {
  test("a token sealed for one request, moved into another's entry, does not open: nothing is fetched with another request's token", async () => {
    class Swapping extends MemoryInboxStore {
      sealed = new Map<string, string>();
      override async add(record: InboxRecord, now: number) {
        this.sealed.set(record.id, record.token);
        // The store hands arc_2 the token sealed for arc_1, as a tampered or mixed-up store could.
        const token = record.id === 'arc_2' ? (this.sealed.get('arc_1') ?? record.token) : record.token;
        return super.add({ ...record, token }, now);
      }
    }
    const { inbox, verify } = setup({ store: new Swapping() });
    await received(inbox, 'arc_1');
    await received(inbox, 'arc_2');
    await inbox.runOnce();
    // arc_1 opened its own token; arc_2's holds arc_1's and is refused, never sent.
    expect(verify.mock.calls.map(([event]) => event.accessRequestCode)).toEqual(['arc_1']);
    expect(await inbox.deadLetters()).toMatchObject([
      { record: { id: 'arc_2' }, reason: 'ERR_INBOX_REFUSED', errorCode: 'ERR_INVALID_CONFIG' },
    ]);
  });

  test('the memory store forgets handed-over requests only once their time is over: a redelivery inside the window is a duplicate after the sweep', async () => {
    const store = new MemoryInboxStore();
    const now = T0;
    // 1,000 hand-overs trigger a sweep; the first of them is still inside its window.
    for (let i = 0; i < 1_000; i++) {
      await store.add(record(`arc_${i}`), now);
      const [claim] = await store.claim('w', 1, 60_000, now);
      await store.complete(claim!, 60_000, now);
    }
    expect(await store.add(record('arc_0'), now + 1)).toBe('duplicate');
    expect(await store.add(record('arc_0'), now + 60_000)).toBe('added');
  });
});

describe('inbox: each documented default is the one an instance made without the option uses (#45)', () => {
  /** A memory store that shows the lease each claim asks for and the limit each read of the dead letters asks for. */
  class Recording extends MemoryInboxStore {
    readonly leases: number[] = [];
    readonly limits: number[] = [];
    override claim(...args: Parameters<MemoryInboxStore['claim']>) {
      this.leases.push(args[2]);
      return super.claim(...args);
    }
    override deadLetters(limit: number) {
      this.limits.push(limit);
      return super.deadLetters(limit);
    }
  }

  test('maxAttempts 8: a delivery the service keeps refusing is set aside after its eighth attempt', async () => {
    const { inbox, clock, verify } = setup({ verify: async () => Promise.reject(unavailable()) });
    await received(inbox, 'arc_1', 86_400);
    for (let i = 0; i < 200 && (await inbox.stats()).dead === 0; i++) {
      await inbox.runOnce();
      clock.now += 5_000;
    }
    expect(verify).toHaveBeenCalledTimes(8);
    expect((await inbox.deadLetters())[0]).toMatchObject({ reason: 'ERR_INBOX_RETRIES_EXHAUSTED', record: { attempts: 8 } });
  });

  test('leaseMs 15 s: every claim holds its entries for 15 s; deadLetters() reads at most 100', async () => {
    const store = new Recording();
    const { inbox } = setup({ store });
    await received(inbox);
    await inbox.runOnce();
    expect(store.leases.length).toBeGreaterThan(0);
    expect(new Set(store.leases)).toEqual(new Set([15_000]));
    await inbox.deadLetters();
    expect(store.limits).toEqual([100]);
  });

  test("assumedTokenLifetimeSeconds 3600: a token without exp lives an hour from its arrival on the service's clock", async () => {
    const { inbox } = setup({ verify: async () => Promise.reject(unavailable()), maxAttempts: 1, serviceAheadMs: 600_000 });
    await inbox.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_arc_1' });
    await inbox.receive({ kind: 'approved', accessRequestCode: 'arc_1', accessToken: tokenExpiring() });
    await inbox.runOnce();
    expect((await inbox.deadLetters())[0]).toMatchObject({ record: { tokenExpiresAt: T0 + 600_000 + 3_600_000 } });
  });

  test('graceSeconds 600: a completed request whose webhook never came is reported once 600 s have passed since completed_at, not before', async () => {
    const { inbox, clock } = setup({ details: { arc_1: { completed_at: T0 / 1000 } } });
    await inbox.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_arc_1' });
    clock.now = T0 + 599_000;
    expect(await inbox.reconcile()).toEqual([]);
    clock.now = T0 + 601_000;
    expect(await inbox.reconcile()).toMatchObject([{ accessRequestCode: 'arc_1', reason: 'completed' }]);
  });

  test('an event that names no kind is kept as unknown: getVerified is asked with kind unknown, never told it was approved', async () => {
    const { inbox, verify } = setup();
    await inbox.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_arc_1' });
    await inbox.receive({ accessRequestCode: 'arc_1', accessToken: tokenExpiring(T0 / 1000 + 3_600) } as never);
    await inbox.runOnce();
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify.mock.calls[0]?.[0]).toMatchObject({ kind: 'unknown', accessRequestCode: 'arc_1' });
  });

  test('a test delivery whose source holds line breaks or controls is said on one printable line', async () => {
    const { inbox, lines } = setup();
    const payload = { acme_identity_test: 'doctor\nERROR forged\u2028line\u0007' };
    const delivery = { kind: 'approved', accessRequestCode: 'arc_t', accessToken: tokenExpiring(T0 / 1000 + 60), payload } as const;
    expect(await inbox.receive(delivery)).toBe('test');
    const said = lines.filter((line) => line.level === 'info').map((line) => line.message);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^a test delivery from doctor.*: answered, not stored$/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be there
    expect(said[0]).not.toMatch(/[\n\u2028\u0007]/);
  });
});
