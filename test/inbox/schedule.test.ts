/**
 * When the inbox's passes run (inbox/schedule.ts), on fake timers: a pass at start and every poll
 * interval; one at once on a store's wake-up, or right after the pass under way (several wake-ups
 * during it: one more); nothing after stop, which waits for what is under way and stops
 * listening; one reconciliation per interval by the instance holding the store's lease.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { ConfigurationError } from '../../src/errors/index.js';
import { Observer } from '../../src/internal/observe.js';
import { outageLog } from '../../src/inbox/rules.js';
import { createSchedule } from '../../src/inbox/schedule.js';
import { held } from './reconcile-races.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const POLL = 1_000;
const RECONCILE = 60_000;

/** A schedule over a store that can wake it, counting passes and reconciliations; `pass` may hold a pass open. */
function setup(
  options: { subscribe?: 'works' | 'fails' | 'none'; leaseHeld?: boolean; reconcileFails?: boolean; passTakesATurn?: boolean } = {},
) {
  const lines: { level: string; message: string; fields: unknown }[] = [];
  // Each line as it reads without the SDK's `[acme-identity] ` prefix.
  const at = (level: string) => (message: string, fields: unknown) =>
    lines.push({ level, message: message.replace('[acme-identity] ', ''), fields });
  const observer = new Observer(
    { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, logLevel: 'debug' },
    (option, message) => new ConfigurationError(option, message),
  );
  let wake: (() => void) | undefined;
  let unsubscribed = 0;
  let passes = 0;
  let reconciles = 0;
  let gate: Promise<void> | undefined;
  let reconcileGate: Promise<void> | undefined;
  const subscribe = options.subscribe ?? 'works';
  const store = {
    lease: async () => options.leaseHeld ?? true,
    warnings: async () => ['no persistence'],
    ...(subscribe === 'none'
      ? {}
      : {
          subscribe: async (listener: () => void) => {
            if (subscribe === 'fails') throw new TypeError('no pub/sub here');
            wake = listener;
            return async () => {
              unsubscribed += 1;
            };
          },
        }),
  };
  const schedule = createSchedule({
    store,
    observer,
    outage: outageLog(observer, () => Date.now()),
    worker: 'worker-1',
    now: () => Date.now(),
    runOnce: async () => {
      passes += 1;
      await gate;
      // A pass that takes a turn of the (fake) event loop, as a store's round trip does.
      if (options.passTakesATurn) await new Promise<void>((resolve) => setImmediate(resolve));
      return 0;
    },
    reconcile: async () => {
      reconciles += 1;
      await reconcileGate;
      if (options.reconcileFails) throw new RangeError('the service is down');
    },
    pollIntervalMs: POLL,
    reconcileIntervalMs: RECONCILE,
  });
  return {
    schedule,
    lines,
    wake: () => wake?.(),
    passes: () => passes,
    reconciles: () => reconciles,
    unsubscribed: () => unsubscribed,
    holdReconcile: () => {
      const reconciling = held<void>();
      reconcileGate = reconciling.promise;
      return () => reconciling.release();
    },
    hold: () => {
      const pass = held<void>();
      gate = pass.promise;
      return () => {
        gate = undefined;
        pass.release();
      };
    },
  };
}

describe('the inbox schedule', () => {
  test('a pass at start, then one every poll interval and none between', async () => {
    const s = setup();
    s.schedule.start();
    s.schedule.start(); // a second start changes nothing
    await vi.advanceTimersByTimeAsync(0);
    expect(s.passes()).toBe(1);
    await vi.advanceTimersByTimeAsync(POLL - 1);
    expect(s.passes()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.passes()).toBe(2);
    await s.schedule.stop();
  });

  test('stopped between passes, the next poll never comes', async () => {
    const s = setup();
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(s.passes()).toBe(1);
    await s.schedule.stop();
    await vi.advanceTimersByTimeAsync(10 * POLL);
    expect(s.passes()).toBe(1);
  });

  test('a wake-up runs a pass at once, not at the next poll', async () => {
    const s = setup();
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(10);
    s.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(s.passes()).toBe(2);
    // And the poll interval starts again from that pass.
    await vi.advanceTimersByTimeAsync(POLL - 1);
    expect(s.passes()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.passes()).toBe(3);
    await s.schedule.stop();
  });

  // Before the next test: a schedule that never stopped passing would hang a test whose passes take no turn.
  test('the pass a wake-up asked for is one pass: the schedule then waits for its poll, never passing again and again', async () => {
    // Immediates on the fake clock too: a pass's turn then comes at the time it was asked for.
    vi.useRealTimers();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'Date'] });
    const s = setup({ passTakesATurn: true });
    const release = s.hold();
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(0);
    s.wake();
    release();
    // A schedule that passed again and again would run the fake clock's immediates out here.
    await vi.advanceTimersByTimeAsync(POLL - 1);
    expect(s.passes()).toBe(2);
    const stopping = s.schedule.stop();
    await vi.advanceTimersByTimeAsync(0);
    await stopping;
  });

  test('wake-ups during a pass make one more pass right after it, however many came', async () => {
    const s = setup();
    const release = s.hold();
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 3; i++) s.wake();
    expect(s.passes()).toBe(1);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(s.passes()).toBe(2);
    await vi.advanceTimersByTimeAsync(POLL - 1);
    expect(s.passes()).toBe(2);
    await s.schedule.stop();
  });

  test('stop waits for the pass under way and stops listening; nothing runs after it, woken or not', async () => {
    const s = setup();
    const release = s.hold();
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = s.schedule.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(s.unsubscribed()).toBe(1);
    s.wake();
    await vi.advanceTimersByTimeAsync(10 * POLL);
    expect(s.passes()).toBe(1);
  });

  test('a store that cannot wake workers is polled, and says so once at warn', async () => {
    const s = setup({ subscribe: 'fails' });
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(POLL);
    expect(s.passes()).toBe(2);
    expect(s.lines.filter((line) => line.level === 'warn' && line.message.includes('they poll'))).toEqual([
      { level: 'warn', message: 'inbox store: workers are not woken by new deliveries; they poll', fields: { error: 'TypeError' } },
    ]);
    await s.schedule.stop();
  });

  test("the store's warnings are said once, at start", async () => {
    const s = setup({ subscribe: 'none' });
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(3 * POLL);
    expect(s.lines.filter((line) => line.message === 'inbox store: no persistence')).toHaveLength(1);
    await s.schedule.stop();
  });

  test('a reconciliation one interval after start and every interval after it, by the holder of the lease only', async () => {
    const s = setup();
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(RECONCILE - 1);
    expect(s.reconciles()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.reconciles()).toBe(1);
    await vi.advanceTimersByTimeAsync(RECONCILE);
    expect(s.reconciles()).toBe(2);
    await s.schedule.stop();
    await vi.advanceTimersByTimeAsync(3 * RECONCILE);
    expect(s.reconciles()).toBe(2);
    const other = setup({ leaseHeld: false });
    other.schedule.start();
    await vi.advanceTimersByTimeAsync(3 * RECONCILE);
    expect(other.reconciles()).toBe(0);
    await other.schedule.stop();
  });

  test('stop waits for a reconciliation under way, and none follows it', async () => {
    const s = setup();
    const release = s.holdReconcile();
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(RECONCILE);
    expect(s.reconciles()).toBe(1);
    let stopped = false;
    const stopping = s.schedule.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    await vi.advanceTimersByTimeAsync(3 * RECONCILE);
    expect(s.reconciles()).toBe(1);
  });

  test('a reconciliation that fails is logged by its error name and runs again next interval', async () => {
    const s = setup({ reconcileFails: true });
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(2 * RECONCILE);
    expect(s.reconciles()).toBe(2);
    expect(s.lines.filter((line) => line.message.startsWith('reconciler failed'))).toEqual([
      { level: 'warn', message: 'reconciler failed; it runs again next interval', fields: { error: 'RangeError' } },
      { level: 'warn', message: 'reconciler failed; it runs again next interval', fields: { error: 'RangeError' } },
    ]);
    await s.schedule.stop();
  });
});
