import { AbortError, ConnectionError, TimeoutError } from '../errors/index.js';
import { formatTimestamp, type RequestOptions, type ResolvedOptions } from './options.js';
import type { TokenManager } from './tokens.js';

/**
 * How a request may be repeated.
 * - `safe`: repeating it changes nothing (reads, deletes, revoke, token requests): retried after
 *   network errors, 408, 429 and 5xx.
 * - `rate-limit-only`: it creates something, so it is repeated only after a 429, which the service
 *   answers before doing anything. After a network error or a 5xx the outcome is unknown and the
 *   error goes to the caller (see the README, "Retries").
 */
export type RetryMode = 'safe' | 'rate-limit-only';

export interface SendPolicy {
  /** Send `Authorization: Bearer <access token>`, and replay once after a 401. */
  auth: boolean;
  retry: RetryMode;
}

/** One logical call: its correlation id, deadline and signal, shared by all its attempts. */
export interface CallContext {
  readonly correlationId: string;
  readonly signal: AbortSignal;
  /** The deadline, on the local clock, in ms. */
  readonly deadline: number;
  readonly maxRetries: number;
}

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** Offsets smaller than this are within the `Date` header's one-second resolution: ignored. */
const MIN_SKEW_MS = 2_000;

/** Backoff before retry number `attempt + 1`: capped exponential, with jitter over its upper half. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const cap = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return cap / 2 + random() * (cap / 2);
}

/** The wait a response asks for (`Retry-After` in seconds or as an HTTP date, or `Retry-After-Ms`). */
export function retryAfterMs(headers: Headers, nowMs: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms);
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

/**
 * Lets go of a body the client will not read. Not awaited: with some fetch implementations (msw's
 * interceptor among them) the cancel never settles, and a retry must not wait on it.
 */
function discard(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const DEADLINE = Symbol('deadline');

/**
 * What openapi-fetch builds instead of a `Request` (its `Request` option): the URL and init only.
 * A real `Request` costs an `AbortController` in undici; the transport builds exactly one per
 * attempt, with the signal and fresh headers, and re-sends the serialized body on a retry.
 */
export class PreparedRequest {
  readonly url: string;
  readonly init: RequestInit;
  constructor(url: string, init: RequestInit = {}) {
    this.url = url;
    this.init = init;
  }
  get method(): string {
    return this.init.method ?? 'GET';
  }
  static from(request: Request): PreparedRequest {
    if (request instanceof PreparedRequest) return request;
    throw new TypeError('the transport expects the PreparedRequest openapi-fetch was configured with');
  }
}

export class Transport {
  readonly #options: ResolvedOptions;
  #tokens: TokenManager | undefined;
  /** Service clock minus local clock, in ms, learnt from `Date` headers. */
  #offsetMs = 0;
  /** The last `Date` header learnt from. */
  #lastDate: string | null = null;

  constructor(options: ResolvedOptions) {
    this.#options = options;
  }

  set tokens(tokens: TokenManager) {
    this.#tokens = tokens;
  }

  /** The service's time as this client best knows it, in ms. */
  serviceNow(): number {
    return this.#options.now() + this.#offsetMs;
  }

  timestamp(): string {
    return formatTimestamp(this.#options.timestampFormat, this.serviceNow());
  }

  /**
   * Runs one logical call under one deadline and the caller's signal. An abort becomes an
   * `AbortError`, the deadline a `TimeoutError`, whatever attempt or wait was under way.
   * Chained with `then` rather than written `async`: one promise layer less on every call.
   */
  call<T>(options: RequestOptions | undefined, run: (ctx: CallContext) => Promise<T>): Promise<T> {
    const timeoutMs = options?.timeoutMs ?? this.#options.timeoutMs;
    const correlationId = options?.correlationId ?? crypto.randomUUID();
    const caller = options?.signal;
    if (caller?.aborted) return Promise.reject(new AbortError(correlationId, caller.reason));
    const controller = new AbortController();
    const onAbort = () => controller.abort(caller?.reason);
    caller?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(DEADLINE), timeoutMs);
    const settle = () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    };
    let running: Promise<T>;
    try {
      running = run({
        correlationId,
        signal: controller.signal,
        deadline: this.#options.now() + timeoutMs,
        maxRetries: options?.maxRetries ?? this.#options.maxRetries,
      });
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.then(
      (value) => {
        settle();
        return value;
      },
      (error: unknown) => {
        settle();
        if (controller.signal.aborted) {
          if (controller.signal.reason === DEADLINE) throw new TimeoutError(correlationId, timeoutMs);
          throw new AbortError(correlationId, caller?.reason);
        }
        throw error;
      },
    );
  }

  /**
   * A `fetch` for openapi-fetch that sends one request with every attempt it is allowed: a fresh
   * token and `X-Request-Timestamp` on each, the same `X-Correlation-Id`, one replay after a 401
   * on a token believed valid, and backoff (or `Retry-After`) between retries. Returns the last
   * response; the caller turns an error status into a typed error.
   */
  fetchFor(ctx: CallContext, policy: SendPolicy): (request: Request) => Promise<Response> {
    return async (request) => {
      const { url, init } = PreparedRequest.from(request);
      let attempt = 0;
      let replayed = false;
      for (;;) {
        // openapi-fetch hands over a Headers of its own: re-stamped in place, copied by fetch on each attempt.
        const headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
        // The resource layer stamped X-Request-Timestamp an instant ago: the first attempt keeps it
        // unless it had to wait for a token; a retry or a replay is stamped afresh.
        let stale = attempt > 0 || replayed;
        let token: string | undefined;
        if (policy.auth) {
          if (!this.#tokens) throw new Error('Transport used before its token manager was set');
          const current = this.#tokens.accessToken(ctx.signal);
          if (typeof current === 'string') token = current;
          else {
            token = await current;
            stale = true;
          }
          headers.set('authorization', `Bearer ${token}`);
        }
        if (stale && headers.has('x-request-timestamp')) headers.set('x-request-timestamp', this.timestamp());
        init.headers = headers;
        init.signal = ctx.signal;
        let response: Response;
        try {
          response = await this.#options.send(url, init);
        } catch (error) {
          if (ctx.signal.aborted) throw error;
          const wait = backoffMs(attempt);
          if (policy.retry === 'safe' && attempt < ctx.maxRetries && this.#fits(ctx, wait)) {
            await sleep(wait, ctx.signal);
            attempt += 1;
            continue;
          }
          throw new ConnectionError(ctx.correlationId, error);
        }
        this.#learnClock(response);
        if (response.status === 401 && token !== undefined && !replayed) {
          replayed = true;
          discard(response);
          await this.#tokens?.invalidate(token);
          continue;
        }
        const retryable =
          response.status === 429 || (policy.retry === 'safe' && isRetryableStatus(response.status));
        if (retryable && attempt < ctx.maxRetries) {
          const asked = retryAfterMs(response.headers, this.serviceNow());
          const wait = asked ?? backoffMs(attempt);
          // A wait longer than allowed is not shortened: the caller gets the error with the wait on it.
          if (wait <= this.#options.maxRetryAfterMs && this.#fits(ctx, wait)) {
            discard(response);
            await sleep(wait, ctx.signal);
            attempt += 1;
            continue;
          }
        }
        return response;
      }
    };
  }

  /** Whether waiting `ms` still leaves the deadline ahead; if not, the last error is more useful than a timeout. */
  #fits(ctx: CallContext, ms: number): boolean {
    return this.#options.now() + ms < ctx.deadline;
  }

  #learnClock(response: Response): void {
    if (!this.#options.correctClockSkew) return;
    const date = response.headers.get('date');
    // The header changes once a second; within that second the offset learnt stands.
    if (date === this.#lastDate) return;
    this.#lastDate = date;
    const serverMs = date ? Date.parse(date) : Number.NaN;
    if (Number.isNaN(serverMs)) return;
    const offset = serverMs - this.#options.now();
    this.#offsetMs = Math.abs(offset) >= MIN_SKEW_MS ? offset : 0;
  }
}
