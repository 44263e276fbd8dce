/** The reconciler's races (reconcile-races.ts) on the memory store, and its timer. */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createIdentityInbox, MemoryInboxStore } from '../../src/inbox/index.js';
import { reconcilerRaces } from './reconcile-races.js';

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
    const off = started(new MemoryInboxStore(), clock, false);
    const byDefault = started(store, clock);
    await vi.advanceTimersByTimeAsync(299_000);
    expect(byDefault.reads).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(byDefault.reads).toEqual(['arc_1']);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(off.reads).toEqual([]);
    await Promise.all([off.inbox.stop(), byDefault.inbox.stop()]);
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
