/**
 * Remembers webhook deliveries in two states, so each is processed once and never zero times:
 * *processing* (a short lease while the handler runs) and *done* (kept for the replay TTL).
 */
import { countOption } from '../errors/options.js';

/** What {@link ReplayStore.claim} found. */
export type ReplayClaim =
  /** Nobody had it: it is yours to process, under a lease of `leaseSeconds`. */
  | 'claimed'
  /** Another attempt holds its lease now: answer non-200 so the service retries later. */
  | 'processing'
  /** Processed already, within the TTL: answer 200 and do not process it again. */
  | 'done';

/**
 * Where deliveries are kept. Share one between processes (`@acme/identity/redis`, or a database
 * with a unique key) so a redelivery reaching another instance is caught too. Every method is
 * atomic per id.
 */
export interface ReplayStore {
  /**
   * Takes delivery `id` for processing for `leaseSeconds`, unless it is being processed or was
   * processed. A lease that runs out (its holder died) lets the next claim take it.
   */
  claim(id: string, leaseSeconds: number): ReplayClaim | Promise<ReplayClaim>;
  /** The delivery was processed: remembered as done for `ttlSeconds`. */
  complete(id: string, ttlSeconds: number): void | Promise<void>;
  /** Processing failed: forgotten, so the service's next attempt processes it. */
  release(id: string): void | Promise<void>;
}

interface Entry {
  done: boolean;
  until: number;
}

/**
 * The default {@link ReplayStore}: one process's memory, at most `maxEntries` deliveries (the
 * oldest are forgotten first). Use a shared store when several instances receive webhooks.
 * @example
 * ```ts
 * const verifier = createWebhookVerifier({ secret, replayStore: new MemoryReplayStore({ maxEntries: 50_000 }) });
 * ```
 */
export class MemoryReplayStore implements ReplayStore {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  /**
   * @param options.maxEntries @default 100000
   * @throws {ConfigurationError} when `maxEntries` is not a whole number, 1 or more.
   */
  constructor(options: { maxEntries?: number; now?: () => number } = {}) {
    // A bound of NaN or 0 would keep nothing, and every redelivery would be processed again.
    this.#maxEntries = countOption('maxEntries', options.maxEntries, 100_000);
    this.#now = options.now ?? (() => Date.now());
  }

  claim(id: string, leaseSeconds: number): ReplayClaim {
    const now = this.#now();
    const entry = this.#entries.get(id);
    if (entry && entry.until > now) return entry.done ? 'done' : 'processing';
    this.#set(id, { done: false, until: now + leaseSeconds * 1000 });
    return 'claimed';
  }

  complete(id: string, ttlSeconds: number): void {
    this.#set(id, { done: true, until: this.#now() + ttlSeconds * 1000 });
  }

  release(id: string): void {
    this.#entries.delete(id);
  }

  #set(id: string, entry: Entry): void {
    // Re-inserted, so the map's order stays oldest first for eviction.
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(oldest);
    }
  }
}
