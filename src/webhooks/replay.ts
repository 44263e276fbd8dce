/** Remembers webhook deliveries, so a redelivery is not processed twice. */

/**
 * Where seen deliveries are kept. Share one between processes (Redis `SET NX EX`, a database
 * unique key) so a redelivery reaching another instance is caught too.
 */
export interface ReplayStore {
  /**
   * Records delivery `id` for `ttlSeconds`. Resolves `true` when it was not recorded yet, `false`
   * when it was (a duplicate). Must be atomic: two concurrent claims of one id, one `true`.
   */
  claim(id: string, ttlSeconds: number): boolean | Promise<boolean>;
  /** Forgets `id`, so its redelivery is accepted (processing the first one failed). */
  release(id: string): void | Promise<void>;
}

/**
 * The default {@link ReplayStore}: one process's memory, at most `maxEntries` deliveries (the
 * oldest are forgotten first).
 * @example
 * ```ts
 * const verifier = createWebhookVerifier({ secret, replayStore: new MemoryReplayStore({ maxEntries: 50_000 }) });
 * ```
 */
export class MemoryReplayStore implements ReplayStore {
  readonly #seen = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  /** @param options.maxEntries @default 100000 */
  constructor(options: { maxEntries?: number; now?: () => number } = {}) {
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#now = options.now ?? (() => Date.now());
  }

  claim(id: string, ttlSeconds: number): boolean {
    const now = this.#now();
    const until = this.#seen.get(id);
    if (until !== undefined && until > now) return false;
    this.#seen.delete(id);
    this.#seen.set(id, now + ttlSeconds * 1000);
    while (this.#seen.size > this.#maxEntries) this.#seen.delete(this.#seen.keys().next().value!);
    return true;
  }

  release(id: string): void {
    this.#seen.delete(id);
  }
}
