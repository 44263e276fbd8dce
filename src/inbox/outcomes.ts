/**
 * Where a request stands, for the person's page (#42): its state from the store every instance
 * shares, a wait for it to change (woken at once by a settlement on this instance, by a bounded
 * poll of the store for one elsewhere), the service's view of a request whose webhook is late,
 * and the sealed references that name a request in `return_url` and `off_ramp_url` without
 * naming its code. `createIdentityInbox` wires these into the inbox; `return-page.ts` serves them.
 */
import { AcmeIdentityError, ConfigurationError } from '../errors/index.js';
import { nonNegativeOption, positiveOption } from '../errors/options.js';
import { fromBase64, randomId, toBase64 } from '../internal/encoding.js';
import type { Observer } from '../internal/observe.js';
import { RETURN_PARAMETER } from '../internal/return-reference.js';
import { MAX_TIMER_MS } from '../internal/sleep.js';
import { open, seal } from '../internal/sealing.js';
import type { ExpectedRequest, InboxStore, RequestState } from './store.js';
import { requestTimeMs } from './rules.js';

/** What `returnUrls` gives: the two URLs to create the request with, and the reference to `expect` it with. */
export interface ReturnUrls {
  readonly return_url: string;
  readonly off_ramp_url: string;
  readonly reference: string;
}

/**
 * Where a request stands, for the person's page: its `state` (`unknown` when the inbox keeps
 * nothing of it) and when it got there, and whether it is `final` (nothing more will change it:
 * the page stops waiting).
 */
export interface RequestOutcome {
  readonly state: RequestState['state'] | 'unknown';
  readonly at?: number;
  readonly final: boolean;
}

/** What a return page's sealed reference opened to: the request it names, and whether the person came by the off-ramp. */
export interface OpenedReference {
  readonly accessRequestCode: string;
  readonly offRamp: boolean;
}

/** What the service says of a request still awaiting its webhook. */
export type ServiceView = 'completed' | 'in-progress' | 'not-started' | 'expired';

export interface WaitOptions {
  /** Stops waiting (the page went away). */
  signal?: AbortSignal;
  /** The longest wait, in ms: a finite number, 0 or more. @default 25000 */
  timeoutMs?: number;
  /** Also resolves as soon as the state is no longer this one (a long poll's "since"). */
  since?: RequestOutcome['state'];
  /** How often the shared store is read while waiting, in ms, a finite number above 0 (a settlement on this instance is seen at once). @default 500 */
  pollMs?: number;
}

export { RETURN_PARAMETER };

/** The name references are sealed under: a sealed token of an entry does not open as one. */
const REFERENCE_NAME = 'acme-identity:return-reference';

/** The states after which nothing changes for the page. */
const FINAL_STATES = new Set<RequestOutcome['state']>(['verified', 'partial', 'invalid', 'cancelled', 'failed', 'missing', 'unknown']);

/** What the request's page side needs of the inbox. */
export interface OutcomesContext {
  store: InboxStore<unknown>;
  /** The inbox's sealing key; none with `allowPlaintext`. */
  key: Promise<CryptoKey> | undefined;
  /** GET /identity/request, as the inbox's client reads it. */
  readRequest(
    request: ExpectedRequest,
  ): Promise<{ data: { completed_at?: number | undefined; opened_at?: number | undefined; time_expires?: number | undefined } }>;
  observer: Observer;
  now(): number;
  serviceNow(): number;
  referenceTtlMs: number;
}

/** The inbox's page side: the public methods, `bind` for `expect`, and `settled` for the worker to call after each settlement. */
export function requestOutcomes(context: OutcomesContext) {
  const waiting = waiters();
  return {
    /** A settlement of `id` on this instance: its waiters read the store again now. */
    settled: (id: string) => waiting.notify(id),
    /** Binds `reference` (from `returnUrls`) to the request `expect` records. */
    bind: (reference: unknown, accessRequestCode: string) => bindReference(context, reference, accessRequestCode),
    returnUrls: (urls: { returnUrl: string | URL; offRampUrl: string | URL }) => returnUrls(context, urls),
    openReference: (sealed: string) => openReference(context, sealed),
    outcome: (accessRequestCode: string) => outcomeOf(context, accessRequestCode),
    waitFor: (accessRequestCode: string, options?: WaitOptions) => waitFor(context, waiting, accessRequestCode, options),
    askService: (accessRequestCode: string) => askService(context, accessRequestCode),
  };
}

/** The key references are sealed with: the inbox's own; a ConfigurationError when there is none, or the store keeps no references. */
function referenceKey({ key, store }: OutcomesContext): Promise<CryptoKey> {
  if (!key)
    throw new ConfigurationError(
      'encryptionKey',
      "is needed to seal a return page's references (allowPlaintext leaves the inbox without one)",
    );
  if (typeof store.refer !== 'function' || typeof store.referred !== 'function')
    throw new ConfigurationError('store', 'keeps no references (refer(), referred()): a return page needs them');
  return key;
}

async function bindReference(context: OutcomesContext, reference: unknown, accessRequestCode: string): Promise<void> {
  if (typeof reference !== 'string' || reference === '') throw new ConfigurationError('reference', 'must be the reference returnUrls gave');
  await referenceKey(context);
  await context.store.refer?.(reference, accessRequestCode, context.now() + context.referenceTtlMs);
}

/** Both URLs with the same new reference, sealed with whether it is the off-ramp and until when it names the request. */
async function returnUrls(context: OutcomesContext, urls: { returnUrl: string | URL; offRampUrl: string | URL }): Promise<ReturnUrls> {
  const sealing = referenceKey(context);
  const reference = randomId(16);
  const expires = context.now() + context.referenceTtlMs;
  const withReference = async (given: string | URL, name: string, offRamp: boolean) => {
    const url = urlOf(given, name);
    const sealed = await seal(await sealing, JSON.stringify({ r: reference, o: offRamp ? 1 : 0, e: expires }), REFERENCE_NAME);
    url.searchParams.set(RETURN_PARAMETER, sealed);
    return url.href;
  };
  return {
    return_url: await withReference(urls?.returnUrl, 'returnUrl', false),
    off_ramp_url: await withReference(urls?.offRampUrl, 'offRampUrl', true),
    reference,
  };
}

/**
 * The reference in a query value as the person's browser brings it back: how the service sends the
 * person to `return_url` is not shown, and a sender may leave a `+` of the URL unescaped (read as
 * a space) or add its own parameters by concatenation (`…acme_ref=v1.…?status=completed`). A
 * reference's base64 holds neither a space nor a `?`: a space is read as the `+` it was, and what
 * follows the reference's characters is cut off. The seal still decides what opens.
 */
function referenceIn(text: string): string {
  return /^[A-Za-z0-9+/=.]*/.exec(text.replace(/ /g, '+'))?.[0] ?? '';
}

/** The request a sealed reference names, and whether it came by the off-ramp; `undefined` for anything forged, altered, expired or unknown. */
async function openReference({ key, store, now }: OutcomesContext, given: string): Promise<OpenedReference | undefined> {
  if (!key || typeof given !== 'string' || given.length > 1_000 || typeof store.referred !== 'function') return undefined;
  const sealed = referenceIn(given);
  // One spelling per reference: base64 leaves a few bits of its last character unused, and a
  // reference that differs there is not the one this inbox wrote.
  const bytes = fromBase64(sealed.slice(3));
  if (!sealed.startsWith('v1.') || !bytes || `v1.${toBase64(bytes)}` !== sealed) return undefined;
  let opened: { r?: unknown; o?: unknown; e?: unknown };
  try {
    opened = JSON.parse(await open(await key, sealed, REFERENCE_NAME)) as typeof opened;
  } catch {
    return undefined;
  }
  if (typeof opened.r !== 'string' || typeof opened.e !== 'number' || opened.e <= now()) return undefined;
  const accessRequestCode = await store.referred(opened.r, now());
  return accessRequestCode ? { accessRequestCode, offRamp: opened.o === 1 } : undefined;
}

/** Where the request stands now, in the store every instance shares. */
async function outcomeOf({ store, now }: OutcomesContext, accessRequestCode: string): Promise<RequestOutcome> {
  if (typeof store.state !== 'function')
    throw new ConfigurationError('store', 'keeps no request states (state()): a return page needs them');
  const found = await store.state(accessRequestCode, now());
  const state = found?.state ?? 'unknown';
  return { state, ...(found ? { at: found.at } : {}), final: FINAL_STATES.has(state) };
}

/**
 * The outcome once it is final or no longer `since`, the wait is aborted, or `timeoutMs` has passed.
 * @throws {ConfigurationError} when `timeoutMs` or `pollMs` is not a finite number in range: a
 * `pollMs` of `NaN` or 0 would read the store in a tight loop, a `timeoutMs` of `NaN` would never end.
 */
async function waitFor(
  context: OutcomesContext,
  waiting: ReturnType<typeof waiters>,
  accessRequestCode: string,
  options: WaitOptions = {},
): Promise<RequestOutcome> {
  const { now } = context;
  const until = now() + nonNegativeOption('timeoutMs', options.timeoutMs, 25_000);
  const pollMs = positiveOption('pollMs', options.pollMs, 500);
  for (;;) {
    const current = await outcomeOf(context, accessRequestCode);
    const changed = options.since !== undefined && current.state !== options.since;
    if (current.final || changed || options.signal?.aborted || now() >= until) return current;
    // Woken at once by a settlement on this instance; by the next read for one elsewhere.
    await waiting.wait(accessRequestCode, Math.min(pollMs, until - now()), options.signal);
  }
}

/** What the service says of a request still awaiting its webhook; `undefined` when it is not expected here, or the read failed (logged by its code). */
async function askService(context: OutcomesContext, accessRequestCode: string): Promise<ServiceView | undefined> {
  const request = await context.store.expected(accessRequestCode);
  if (!request) return undefined;
  try {
    const { data } = await context.readRequest(request);
    if (requestTimeMs(data.completed_at) !== undefined) return 'completed';
    // No expiry time in the answer (or one that says "never"): never taken as expired.
    if ((requestTimeMs(data.time_expires) ?? Number.POSITIVE_INFINITY) <= context.serviceNow()) return 'expired';
    return requestTimeMs(data.opened_at) !== undefined ? 'in-progress' : 'not-started';
  } catch (error) {
    context.observer.log('warn', 'could not read a request for its return page', {
      errorCode: error instanceof AcmeIdentityError ? error.code : 'ERR_UNKNOWN',
    });
    return undefined;
  }
}

/** An absolute http(s) URL, or a ConfigurationError naming the option. */
function urlOf(given: unknown, name: string): URL {
  try {
    const url = new URL(String(given));
    if (url.protocol === 'https:' || url.protocol === 'http:') return url;
  } catch {
    // Said below.
  }
  throw new ConfigurationError(name, 'must be an absolute http(s) URL');
}

/**
 * Who waits for which request on this instance: a settlement here wakes them at once (one on
 * another instance is seen at their next read of the store).
 */
function waiters() {
  const waiting = new Map<string, Set<() => void>>();
  return {
    notify(id: string): void {
      for (const wake of waiting.get(id) ?? []) wake();
    },
    /** Resolves after `ms`, on a settlement of `id` here, or when `signal` aborts: whichever comes first. */
    wait(id: string, ms: number, signal?: AbortSignal): Promise<void> {
      return new Promise((resolve) => {
        const set = waiting.get(id) ?? new Set();
        waiting.set(id, set);
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          set.delete(done);
          if (set.size === 0) waiting.delete(id);
          resolve();
        };
        // A timer's delay is held in 32 bits: a longer one would fire at once, so it is capped.
        const timer = setTimeout(done, Math.min(MAX_TIMER_MS, Math.max(0, ms)));
        set.add(done);
        signal?.addEventListener('abort', done);
      });
    },
  };
}
