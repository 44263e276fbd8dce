/**
 * When the inbox's passes run: a pass over the due entries every poll interval, one more at once
 * when a delivery is stored somewhere (the store's wake-up), and a reconciliation once per interval
 * across every instance (the one that takes the store's lease runs it); then stopping, which waits
 * for the pass and the reconciliation under way. What a pass does is the worker's (worker.ts).
 */
import type { Observer } from '../internal/observe.js';
import type { outageLog } from './rules.js';
import type { InboxStore } from './store.js';

export interface ScheduleParts {
  store: Pick<InboxStore<unknown>, 'lease' | 'subscribe' | 'warnings'>;
  observer: Observer;
  outage: ReturnType<typeof outageLog>;
  /** The name this instance takes the reconciler's lease under. */
  worker: string;
  now(): number;
  /** One pass over the due entries. */
  runOnce(): Promise<unknown>;
  reconcile(): Promise<unknown>;
  pollIntervalMs: number;
  reconcileIntervalMs: number | false;
}

/** What the store's error says, by its name only (its message may hold the store's address or a key). */
const errorName = (error: unknown) => (error instanceof Error ? error.name : typeof error);

export function createSchedule(parts: ScheduleParts): { start(): void; stop(): Promise<void> } {
  const { store, observer, outage, worker, now, runOnce, reconcile } = parts;
  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: Promise<unknown> = Promise.resolve();
  /** A pass is under way (`ticking`), and a wake-up came during it (`woken`): one more pass follows at once. */
  let ticking = false;
  let woken = false;
  let unsubscribe: Promise<(() => Promise<void>) | undefined> = Promise.resolve(undefined);
  let reconcileTimer: ReturnType<typeof setTimeout> | undefined;
  let reconciling: Promise<unknown> = Promise.resolve();

  /** One reconciliation per interval across every instance: the one that takes the store's lease runs it. */
  function reconcileTick(interval: number): void {
    reconciling = store
      .lease('reconciler', worker, interval, now())
      .then((mine) => (mine ? reconcile() : undefined))
      .catch((error: unknown) => observer.log('warn', 'reconciler failed; it runs again next interval', { error: errorName(error) }))
      .finally(() => {
        if (running) reconcileTimer = setTimeout(() => reconcileTick(interval), interval);
      });
  }

  function tick(): void {
    ticking = true;
    woken = false;
    current = runOnce()
      .catch((error: unknown) => outage.failed(error, 'while looking for due entries (polling goes on)'))
      .finally(() => {
        ticking = false;
        if (!running) return;
        if (woken) tick();
        else timer = setTimeout(tick, parts.pollIntervalMs);
      });
  }

  /** A delivery was stored somewhere: a pass now, or right after the one under way. */
  function wake(): void {
    if (!running) return;
    if (ticking) {
      woken = true;
      return;
    }
    clearTimeout(timer);
    tick();
  }

  /** Listens for the store's wake-ups, when it has them; a store that cannot is polled, and says so. */
  function listen(): Promise<(() => Promise<void>) | undefined> {
    if (!store.subscribe) return Promise.resolve(undefined);
    return store.subscribe(wake).catch((error: unknown) => {
      observer.log('warn', 'inbox store: workers are not woken by new deliveries; they poll', { error: errorName(error) });
      return undefined;
    });
  }

  return {
    start() {
      if (running) return;
      running = true;
      // What the store says an operator should know (a Redis without persistence): once, at start.
      store.warnings?.().then(
        (warnings) => {
          for (const warning of warnings) observer.log('warn', `inbox store: ${warning}`);
        },
        () => undefined,
      );
      tick();
      unsubscribe = listen();
      const interval = parts.reconcileIntervalMs;
      // The first run one interval after the start: a request is reported only once its grace has passed anyway.
      if (interval !== false) reconcileTimer = setTimeout(() => reconcileTick(interval), interval);
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      clearTimeout(reconcileTimer);
      const stopListening = await unsubscribe;
      await Promise.all([current, reconciling, stopListening?.().catch(() => undefined)]);
    },
  };
}
