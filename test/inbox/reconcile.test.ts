/** The reconciler's races (reconcile-races.ts) on the memory store, its timer, and the lease's heartbeat. */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createIdentityInbox, MemoryInboxStore } from '../../src/inbox/index.js';
import { held, reconcilerRaces } from './reconcile-races.js';

describe('the reconciler on the memory store', () => {
  reconcilerRaces(async () => new MemoryInboxStore());
});

describe('the reconciler runs by itself (#40)', () => {
  const T0 = Date.UTC(2026, 10, 27, 12);

  /** An instance started on `store`, its clock `clock.now`; counts the requests its reconciler read. */
  function started(store: MemoryInboxStore, clock: { now: number }, reconcileIntervalMs?: number | false) {
    const reads: string[] = [];
    const reported: string[] = [];
    const inbox = createIdentityInbox({
      client: {
        identityResponses: { getVerified: async () => ({ claims: {} }) as never },
        identityRequests: {
          get: async (codes) => {
            reads.push(codes.accessRequestCode);
            return { data: { completed_at: T0 / 1000 - 3_600 } };
          },
        },
      },
      store,
      now: () => clock.now,
      logLevel: 'off',
      onIdentity: () => undefined,
      onMissingDelivery: (missing) => reported.push(missing.accessRequestCode),
      ...(reconcileIntervalMs === undefined ? {} : { reconcileIntervalMs }),
    });
    inbox.start();
    return { inbox, reads, reported };
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  test('every reconcileIntervalMs, by one of the started instances sharing the store, each request reported once', async () => {
    vi.useFakeTimers();
    const clock = { now: T0 };
    const store = new MemoryInboxStore();
    await store.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_1', createdAt: T0 }, 86_400_000);
    const a = started(store, clock, 60_000);
    const b = started(store, clock, 60_000);
    await vi.advanceTimersByTimeAsync(59_000);
    expect([...a.reads, ...b.reads]).toEqual([]);
    clock.now += 60_000;
    await vi.advanceTimersByTimeAsync(1_000);
    // One instance held the lease and read the request; the other did not run.
    expect(a.reads.length + b.reads.length).toBe(1);
    expect([...a.reported, ...b.reported]).toEqual(['arc_1']);
    clock.now += 60_000;
    await vi.advanceTimersByTimeAsync(60_000);
    expect([...a.reported, ...b.reported]).toEqual(['arc_1']);
    await Promise.all([a.inbox.stop(), b.inbox.stop()]);
  });

  test('by default every 5 minutes; reconcileIntervalMs: false leaves it to the application', async () => {
    vi.useFakeTimers();
    const clock = { now: T0 };
    const store = new MemoryInboxStore();
    await store.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_1', createdAt: T0 }, 86_400_000);
    // The same request awaits on the store of the inbox turned off: only the timer decides that it is not read.
    const offStore = new MemoryInboxStore();
    await offStore.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_1', createdAt: T0 }, 86_400_000);
    const off = started(offStore, clock, false);
    const byDefault = started(store, clock);
    await vi.advanceTimersByTimeAsync(299_000);
    expect(byDefault.reads).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(byDefault.reads).toEqual(['arc_1']);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(off.reads).toEqual([]);
    await Promise.all([off.inbox.stop(), byDefault.inbox.stop()]);
  });

  test('a service clock ahead of the local one does not make the reconciler forget a request early: the store keeps local times', async () => {
    const store = new MemoryInboxStore();
    const reported: string[] = [];
    const inbox = createIdentityInbox({
      client: {
        identityResponses: { getVerified: async () => ({ claims: {} }) as never },
        identityRequests: { get: async () => ({ data: { completed_at: T0 / 1000 } }) },
        // The service's clock two hours ahead of this machine's.
        serviceTime: () => T0 + 7_200_000,
      },
      store,
      now: () => T0,
      doneTtlSeconds: 3_600,
      logLevel: 'off',
      reconcileIntervalMs: false,
      onIdentity: () => undefined,
      onMissingDelivery: (missing) => reported.push(missing.accessRequestCode),
    });
    await inbox.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_1' });
    // Recorded for an hour of local time: read against the service's clock, it would be gone already.
    expect((await inbox.reconcile()).map((missing) => missing.accessRequestCode)).toEqual(['arc_1']);
    expect(reported).toEqual(['arc_1']);
  });

  test('reconcileIntervalMs that is not a positive number or false is a ConfigurationError naming it', () => {
    for (const value of [0, -1, Number.NaN, true]) {
      expect(() =>
        createIdentityInbox({
          client: { identityResponses: { getVerified: async () => ({}) as never }, identityRequests: { get: async () => ({ data: {} }) } },
          onIdentity: () => undefined,
          reconcileIntervalMs: value as never,
        }),
      ).toThrow(/reconcileIntervalMs/);
    }
  });
});

describe('leases inside the token’s life (#40): a heartbeat while a worker works', () => {
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const token = () => `${b64({ alg: 'RS256' })}.${b64({ exp: Math.floor(Date.now() / 1000) + 3_600 })}.c2ln`;

  /** An instance whose handler waits on `gate` (a slow handler), on the shared store, with a short lease. */
  function slow(store: MemoryInboxStore, gate: Promise<void>, handed: string[]) {
    return createIdentityInbox({
      client: {
        identityResponses: { getVerified: async () => ({ claims: { 'acmeidentity.valid': true } }) as never },
        identityRequests: { get: async () => ({ data: {} }) },
      },
      store,
      leaseMs: 150,
      logLevel: 'off',
      reconcileIntervalMs: false,
      onIdentity: async (delivery) => {
        await gate;
        handed.push(delivery.accessRequestCode);
      },
    });
  }

  // On a controlled clock (#45: no test of a lease may depend on how busy the machine is): a loaded
  // machine once delayed the real heartbeat past the 150 ms lease, and the other instance took over.
  test('a live worker keeps its entry past leaseMs however long its handler takes; no other worker takes it over', async () => {
    vi.useFakeTimers();
    try {
      const store = new MemoryInboxStore();
      const gate = held<void>();
      const handed: string[] = [];
      const a = slow(store, gate.promise, handed);
      const b = slow(store, Promise.resolve(), handed);
      await a.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_1' });
      await a.receive({ kind: 'approved', accessRequestCode: 'arc_1', accessToken: token() });
      const working = a.runOnce();
      // Four leases' worth of time, the other instance polling all along: the heartbeat keeps the entry a's.
      for (let i = 0; i < 12; i++) {
        await vi.advanceTimersByTimeAsync(50);
        expect(await b.runOnce()).toBe(0);
      }
      gate.release();
      await working;
      expect(handed).toEqual(['arc_1']);
      expect(await store.stats(Date.now())).toMatchObject({ pending: 0, inFlight: 0, dead: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  test('a dead worker’s entry (no heartbeat) is taken over once its lease runs out, and handed over once', async () => {
    vi.useFakeTimers();
    try {
      const store = new MemoryInboxStore();
      const handed: string[] = [];
      const b = slow(store, Promise.resolve(), handed);
      await b.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_1' });
      await b.receive({ kind: 'approved', accessRequestCode: 'arc_1', accessToken: token() });
      // A worker claims it and dies: nothing renews its lease.
      expect(await store.claim('dead-worker', 1, 150, Date.now())).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(149);
      expect(await b.runOnce()).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(await b.runOnce()).toBe(1);
      expect(handed).toEqual(['arc_1']);
    } finally {
      vi.useRealTimers();
    }
  });
});
