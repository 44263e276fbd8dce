/**
 * A value read from the network and kept: the OpenID discovery document, an issuer's key set.
 * One rule for all of them: a read is shared by every caller while it runs, and a read that failed
 * is forgotten (unless a newer read has taken its place meanwhile), so the next caller reads again
 * rather than being handed the old failure.
 */
export interface Kept<T> {
  /** The kept value; `read` afresh when `reread` is true or nothing is kept. */
  get(reread: boolean, read: () => Promise<T>): Promise<T>;
  /** How long ago the kept value was read, in ms; `Infinity` when nothing is kept. */
  age(): number;
}

/**
 * A place to keep a value, timed by `now`.
 * @example
 * ```ts
 * const discovery = kept<AuthorizationServer>(Date.now);
 * const as = await discovery.get(discovery.age() >= 3_600_000, () => fetchDiscovery(issuer));
 * ```
 */
export function kept<T>(now: () => number): Kept<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return {
    get(reread, read) {
      if (reread || !last) {
        const current = { at: now(), value: read() };
        last = current;
        current.value.catch(() => {
          if (last === current) last = undefined;
        });
      }
      return last.value;
    },
    age: () => (last ? now() - last.at : Number.POSITIVE_INFINITY),
  };
}
