/**
 * `@acme/identity/return-page`: the person's side of the return page, for the browser. The person
 * comes back to your `return_url` (or `off_ramp_url`) while the webhook may not have come yet;
 * `awaitIdentity` asks your status endpoint (`createReturnPage` from `@acme/identity/inbox`) where
 * the request stands and tells you each change, until a final state: by Server-Sent Events, and by
 * long polling where they fail. No framework, a few hundred bytes.
 *
 * @example
 * ```ts
 * import { awaitIdentity } from '@acme/identity/return-page';
 *
 * const final = await awaitIdentity('/identity/status', {
 *   onUpdate: (update) => {
 *     document.querySelector('#state')!.textContent = update.state;
 *   },
 * });
 * ```
 * @module
 */
import type { ReturnPageState } from '../inbox/return-page.js';
import { RETURN_PARAMETER } from '../internal/return-reference.js';

export type { ReturnPageState };

export interface AwaitIdentityOptions {
  /** Called with the state at first, then at each change. */
  onUpdate?(state: ReturnPageState): void;
  /** Stops waiting: the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The sealed reference. @default the page's own `acme_ref` query parameter */
  reference?: string;
  /** How long each long poll may wait, in seconds (the endpoint answers sooner on a change). @default 25 */
  waitSeconds?: number;
}

/** The status endpoint's error for a reference it does not know (forged, altered, expired): it says no more. */
export class ReturnPageError extends Error {
  override readonly name = 'ReturnPageError';
  constructor(readonly status: number) {
    super(status === 404 ? 'the status endpoint knows no request for this reference' : `the status endpoint answered ${status}`);
  }
}

/**
 * Resolves with the request's final state (`verified`, `partial`, `invalid`, `cancelled`, `failed`,
 * `missing` or `unknown`), calling `onUpdate` on the way.
 * @throws {ReturnPageError} when the endpoint knows no request for the reference (404), or answers another error status that lasts.
 * @example
 * ```ts
 * // On the page at your return_url: the reference is read from its own acme_ref.
 * const final = await awaitIdentity('/identity/status', { onUpdate: (update) => console.log(update.state) });
 * if (final.state === 'verified') location.assign('/welcome');
 * ```
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one loop over the page's two ways to wait (Server-Sent Events, then long polling) and the stop conditions they share; split, the conditions would be written twice
export async function awaitIdentity(statusUrl: string | URL, options: AwaitIdentityOptions = {}): Promise<ReturnPageState> {
  // A signal aborted already: an EventSource would never hear of it.
  options.signal?.throwIfAborted();
  const here = typeof location === 'undefined' ? undefined : location.href;
  const url = new URL(statusUrl, here);
  const reference = options.reference ?? (here ? new URL(here).searchParams.get(RETURN_PARAMETER) : null);
  if (reference) url.searchParams.set(RETURN_PARAMETER, reference);
  const started = Date.now();
  let last: string | undefined;
  /** Tells `onUpdate` of a change; true once the state is final. */
  const seen = (state: ReturnPageState): boolean => {
    const text = JSON.stringify(state);
    if (text !== last) options.onUpdate?.(state);
    last = text;
    return state.final;
  };
  const final = typeof EventSource === 'undefined' ? undefined : await streamed(url, seen, options.signal);
  if (final) return final;
  // Long polling: where EventSource is missing or its stream failed.
  let failures = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const poll = new URL(url);
    poll.searchParams.set('waited', String(Math.floor((Date.now() - started) / 1000)));
    // The state now first; then a long poll for a change from the state last seen.
    if (last) {
      poll.searchParams.set('wait', String(options.waitSeconds ?? 25));
      poll.searchParams.set('since', (JSON.parse(last) as ReturnPageState).state);
    }
    let response: Response | undefined;
    try {
      response = await fetch(poll, { headers: { accept: 'application/json' }, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      options.signal?.throwIfAborted();
      if (++failures > 5) throw error;
    }
    if (response?.ok) {
      failures = 0;
      const state = (await response.json()) as ReturnPageState;
      if (seen(state)) return state;
    } else if (response) {
      if (response.status === 404 || ++failures > 5) throw new ReturnPageError(response.status);
    }
    // After a failure, a pause before the next try (1 s, 2 s, 4 s…); after an answer, none.
    if (failures > 0) await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** (failures - 1)));
  }
}

/** The Server-Sent Events stream, until a final state (resolved with it) or a failure (resolved undefined: poll instead). */
function streamed(url: URL, seen: (state: ReturnPageState) => boolean, signal?: AbortSignal): Promise<ReturnPageState | undefined> {
  return new Promise((resolve) => {
    const source = new EventSource(url);
    const finish = (state?: ReturnPageState) => {
      source.close();
      signal?.removeEventListener('abort', stop);
      resolve(state);
    };
    const stop = () => finish();
    signal?.addEventListener('abort', stop, { once: true });
    source.addEventListener('state', (event) => {
      const state = JSON.parse((event as MessageEvent<string>).data) as ReturnPageState;
      if (seen(state)) finish(state);
    });
    // A stream the endpoint closed is opened again by the browser; one that cannot be opened (a 404, no SSE) is polled instead.
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) finish();
    };
  });
}
