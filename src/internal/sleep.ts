/** The longest delay a timer holds (2^31 - 1 ms, about 24.8 days): a longer one fires at once, in Node and browsers alike. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Waits `ms`, or rejects with the signal's reason when `signal` aborts first (its timer cleared). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
