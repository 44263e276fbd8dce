/**
 * Every request of the client on its way to the service and back: the bearer token and the one
 * replay after a 401, `X-Request-Timestamp` stamped afresh on the service's clock for each attempt
 * that needs it, the retries retry.ts decides, one deadline over all attempts, the caller's
 * signal, the observability events and spans. It hands each answer's `Date` to the service's
 * clock (clock.ts), and turns what went wrong on the way (refused, reset, timed out, aborted)
 * into typed errors.
 */
import { AbortError, ConnectionError, InvalidResponseError, TimeoutError, systemCode } from '../errors/index.js';
import type { RequestEvent, ResponseEvent } from '../internal/observe.js';
import type { Span, Tracing } from '../internal/tracing.js';
import { sleep } from '../internal/sleep.js';
import { checkRequestOptions, formatTimestamp, type RequestOptions, type ResolvedOptions } from './options.js';
import { backoffMs, decide, retryAfterMs, type RetryMode } from './retry.js';
import { statusCarried } from './failure.js';
import type { ServiceClock } from './clock.js';
import type { TokenManager } from './tokens.js';

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
  /** The call's span, the tracing that opened it and how many attempts it made, when tracing is on. */
  readonly trace?: { tracing: Tracing; span: Span; attempts: number } | undefined;
}

/**
 * Lets go of a body the client will not read. Not awaited: with some fetch implementations (msw's
 * interceptor among them) the cancel never settles, and a retry must not wait on it.
 */
function discard(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}

/**
 * A redirect is an answer, never followed: each request goes out with `redirect: 'manual'`, since
 * fetch would send the token request's client secret (a 307 or 308 repeats the body), the
 * identity headers (`X-Access-Token`, `X-Tenant-Id`; it drops only `Authorization` across origins)
 * and the request itself to wherever a `Location` points. A browser's fetch shows such an answer
 * as an `opaqueredirect` of status 0.
 */
function isRedirect(response: Response): boolean {
  return (response.status >= 300 && response.status < 400) || response.type === 'opaqueredirect';
}

/** What a redirect is refused as: the status, and where it pointed (its origin only: a path may hold codes). */
function redirectRefused(response: Response, url: string, correlationId: string): InvalidResponseError {
  const location = response.headers.get('location');
  const target = location !== null && URL.canParse(location, url) ? ` to ${new URL(location, url).origin}` : '';
  return new InvalidResponseError(
    response.status,
    response.headers.get('x-correlation-id') ?? correlationId,
    `a redirect${target}, which the SDK does not follow (the request's secrets would go with it): set baseUrl to the address the service answers at`,
  );
}

/** Bodies of successful answers must be UTF-8 (they are JSON); error bodies are read leniently. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const LENIENT = new TextDecoder('utf-8');

/**
 * A response whose body was read within its attempt, so that a body cut mid-stream is a failure of
 * the attempt (retried like one before the headers) rather than of openapi-fetch's parsing later.
 * A real `Response` (openapi-fetch and the client read its status, headers and text) with an empty
 * body of its own: the text read is kept beside it, and the answer's own headers are handed out
 * as they came, not copied.
 */
export class ReadResponse extends Response {
  /** How many attempts the call made, this one included. */
  readonly attempts: number;
  readonly #text: string;
  readonly #answer: Response;
  constructor(response: Response, text: string, attempts: number) {
    super(null, { status: response.status });
    this.attempts = attempts;
    this.#answer = response;
    this.#text = text;
  }
  override get headers(): Headers {
    return this.#answer.headers;
  }
  override get statusText(): string {
    return this.#answer.statusText;
  }
  override text(): Promise<string> {
    return Promise.resolve(this.#text);
  }
}

const DEADLINE = Symbol('deadline');

/** Why an attempt got no answer: the call's deadline passed, its caller aborted it, or the connection failed. */
function noAnswerCode(signal: AbortSignal): 'ERR_TIMEOUT' | 'ERR_ABORTED' | 'ERR_CONNECTION' {
  if (!signal.aborted) return 'ERR_CONNECTION';
  return signal.reason === DEADLINE ? 'ERR_TIMEOUT' : 'ERR_ABORTED';
}

function errorCodeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_') ? code : 'ERR_UNKNOWN';
}

/**
 * What openapi-fetch builds instead of a `Request` (its `Request` option): the URL and init only.
 * A real `Request` costs an `AbortController` in undici; the transport builds exactly one per
 * attempt, with the signal and fresh headers, and re-sends the serialized body on a retry.
 */
class PreparedRequest {
  readonly url: string;
  /** Optional in its type only, so that a `Request` fits this shape and the class can stand in for `Request` below. */
  readonly init?: RequestInit;
  constructor(url: string, init: RequestInit = {}) {
    this.url = url;
    this.init = init;
  }
  get method(): string {
    return this.init?.method ?? 'GET';
  }
}

/**
 * The class openapi-fetch is given as its `Request` option. openapi-fetch only constructs it with
 * (url, init) and passes the instance to the transport's `fetch`, the one reader (`prepared`).
 * A narrowing assertion, not a conversion: a `Request` has every member a `PreparedRequest` declares.
 */
export const PreparedRequestClass = PreparedRequest as typeof Request;

/** The URL and init openapi-fetch prepared. */
function prepared(request: object): { url: string; init: RequestInit } {
  if (request instanceof PreparedRequest) return { url: request.url, init: request.init ?? {} };
  throw new TypeError('the transport expects the PreparedRequest openapi-fetch was configured with');
}

/** Where the transport gets the bearer token, and says that one was refused. */
export type TokenSource = Pick<TokenManager, 'accessToken' | 'invalidate'>;

export class Transport {
  readonly #options: ResolvedOptions;
  readonly #clock: ServiceClock;
  readonly #tokens: TokenSource;

  /** The service's host, for messages: configuration, not a secret. */
  readonly #host: string;

  constructor(options: ResolvedOptions, clock: ServiceClock, tokens: TokenSource) {
    this.#options = options;
    this.#clock = clock;
    this.#tokens = tokens;
    this.#host = new URL(options.baseUrl).host;
  }

  /** `X-Request-Timestamp` for a request sent now: the service's time, in the configured format. */
  timestamp(): string {
    return formatTimestamp(this.#options.timestampFormat, this.#clock.now());
  }

  /**
   * Runs one logical call under one deadline and the caller's signal. The deadline is the SDK's
   * promise, not the `fetch`'s: the call settles with a `TimeoutError` (or an `AbortError`) when it
   * passes, whether or not the `fetch` honours the signal; whatever arrives later is discarded.
   */
  call<T>(options: RequestOptions | undefined, run: (ctx: CallContext) => Promise<T>): Promise<T> {
    try {
      checkRequestOptions(options);
    } catch (error) {
      return Promise.reject(error);
    }
    const timeoutMs = options?.timeoutMs ?? this.#options.timeoutMs;
    const correlationId = options?.correlationId ?? crypto.randomUUID();
    const caller = options?.signal;
    if (caller?.aborted) return Promise.reject(new AbortError(correlationId, caller.reason));
    const controller = new AbortController();
    return new Promise<T>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        caller?.removeEventListener('abort', onAbort);
      };
      const stop = (reason: unknown, error: Error) => {
        finish();
        reject(error);
        controller.abort(reason);
      };
      const onAbort = () => stop(caller?.reason, new AbortError(correlationId, caller?.reason));
      const timer = setTimeout(() => stop(DEADLINE, new TimeoutError(correlationId, timeoutMs)), timeoutMs);
      caller?.addEventListener('abort', onAbort);
      const tracing = this.#options.tracing;
      const trace = tracing ? { tracing, span: tracing.startCall(correlationId), attempts: 0 } : undefined;
      let running: Promise<T>;
      try {
        running = run({
          correlationId,
          signal: controller.signal,
          deadline: this.#options.now() + timeoutMs,
          maxRetries: options?.maxRetries ?? this.#options.maxRetries,
          trace,
        });
      } catch (error) {
        running = Promise.reject(error);
      }
      if (trace) {
        // The call's span ends when the call does: at its deadline or abort too.
        running.catch(() => undefined);
        const settle = (error?: unknown) =>
          trace.tracing.endCall(trace.span, trace.attempts, error === undefined ? undefined : errorCodeOf(error));
        const outcome = new Promise<T>((resolveOutcome, rejectOutcome) => {
          running.then(resolveOutcome, rejectOutcome);
          controller.signal.addEventListener('abort', () =>
            rejectOutcome(
              controller.signal.reason === DEADLINE
                ? new TimeoutError(correlationId, timeoutMs)
                : new AbortError(correlationId, controller.signal.reason),
            ),
          );
        });
        outcome.then(() => settle(), settle);
      }
      // After a stop, the promise is settled already: what `running` does later changes nothing.
      running.then(
        (value) => {
          finish();
          resolve(value);
        },
        (error: unknown) => {
          finish();
          reject(error);
        },
      );
    });
  }

  /**
   * A `fetch` for openapi-fetch that sends one request (of the operation whose path template is
   * `template`, which is all that events and spans say of the path) with every attempt it is allowed: a fresh
   * token and `X-Request-Timestamp` on each, the same `X-Correlation-Id`, one replay after a 401
   * on a token believed valid, and backoff (or `Retry-After`) between retries. Returns the last
   * response; the caller turns an error status into a typed error.
   */
  fetchFor(ctx: CallContext, policy: SendPolicy, template: string): (request: Request) => Promise<Response> {
    // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the attempt loop: each attempt, the token replay after a 401, the wait before a retry and the deadline, with retry.ts's decide() choosing what comes next
    return async (request) => {
      const { url, init } = prepared(request);
      const observer = this.#options.observer;
      let attempt = 0;
      let replayed = false;
      for (;;) {
        const number = attempt + (replayed ? 2 : 1);
        // The resource layer stamped X-Request-Timestamp an instant ago: the first attempt keeps it
        // (unless it has to wait for a token); a retry or a replay is stamped afresh.
        const sent = await this.#attempt(url, template, init, ctx, policy, number, attempt > 0 || replayed);
        const { response, token } = sent;
        let failure = sent.failure;
        const budget = () => ({
          attempt,
          replayed,
          maxRetries: ctx.maxRetries,
          retry: policy.retry,
          msLeft: ctx.deadline - this.#options.now(),
          maxRetryAfterMs: this.#options.maxRetryAfterMs,
          backoff: () => backoffMs(attempt),
        });
        if (response) {
          if (ctx.signal.aborted) {
            // A fetch that ignored the signal answered after the deadline: the call is over.
            discard(response);
            throw ctx.signal.reason;
          }
          if (isRedirect(response)) {
            discard(response);
            throw redirectRefused(response, url, ctx.correlationId);
          }
          this.#clock.learnFromDate(response.headers.get('date'));
          // A success is read before the decision: its body may carry a failure (from a service
          // that answers errors 200, client/failure.ts), weighed as the status its code stands for
          // (a token refused: replayed once, as a 401; a rate limit or a passing 5xx: retried). An
          // error status is weighed as it is; its body is read only when it is the answer.
          const early = response.ok ? await this.#read(response, ctx) : undefined;
          if (early?.read === false) failure = early.failure;
          else {
            const status = (early && statusCarried(early.text)) ?? response.status;
            const answered = response;
            const decision = decide(
              {
                kind: 'answer',
                status,
                retryAfter: () => retryAfterMs(answered.headers, this.#clock.now()),
                token,
              },
              budget(),
            );
            if (decision.action === 'replay') {
              replayed = true;
              discard(response);
              await this.#tokens.invalidate(decision.token);
              continue;
            }
            if (decision.action === 'retry') {
              discard(response);
              this.#retrying(this.#event(template, init, ctx, number + 1), decision.waitMs, decision.reason, status, decision.asked);
              await sleep(decision.waitMs, ctx.signal);
              attempt += 1;
              continue;
            }
            if (decision.action === 'accept' && decision.notRetried && observer.enabled('warn'))
              this.#notRetried(this.#event(template, init, ctx, number), status, decision.notRetried);
            // The body is read inside the attempt: a reset or a truncation mid-body is a network
            // failure like one before the headers, and is retried by the same rule. (Read after the
            // deadline or an abort, it goes nowhere: the call has settled already.)
            const body = early ?? (await this.#read(response, ctx));
            if (body.read) return new ReadResponse(response, body.text, attempt + (replayed ? 2 : 1));
            failure = body.failure;
          }
        }
        if (ctx.signal.aborted) throw ctx.signal.reason;
        // No answer, or an answer cut short: a network failure either way.
        const decision = decide({ kind: 'no-answer' }, budget());
        if (decision.action === 'retry') {
          this.#retrying(this.#event(template, init, ctx, number + 1), decision.waitMs, 'connection', undefined, false);
          await sleep(decision.waitMs, ctx.signal);
          attempt += 1;
          continue;
        }
        throw new ConnectionError(ctx.correlationId, failure, response ? 'body' : 'send', this.#host);
      }
    };
  }

  /**
   * One attempt: the token (waited for when it is being renewed), the headers stamped, the
   * attempt's span and events, the request sent. What it came to is for {@link decide}.
   */
  async #attempt(
    url: string,
    template: string,
    init: RequestInit,
    ctx: CallContext,
    policy: SendPolicy,
    number: number,
    stamp: boolean,
  ): Promise<{ response: Response | undefined; failure: unknown; token: string | undefined }> {
    const observer = this.#options.observer;
    // openapi-fetch hands over a Headers of its own: re-stamped in place, copied by fetch on each attempt.
    const headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    let stale = stamp;
    let token: string | undefined;
    if (policy.auth) {
      const current = this.#tokens.accessToken(ctx.signal);
      if (typeof current === 'string') token = current;
      else {
        token = await current;
        stale = true;
      }
      headers.set('authorization', `Bearer ${token}`);
    }
    if (stale && headers.has('x-request-timestamp')) headers.set('x-request-timestamp', this.timestamp());
    if (this.#options.userAgent !== undefined) headers.set('user-agent', this.#options.userAgent);
    init.headers = headers;
    init.signal = ctx.signal;
    init.redirect = 'manual';
    const trace = ctx.trace;
    let attemptTrace: { tracing: Tracing; span: Span } | undefined;
    if (trace) {
      const { method, path } = this.#event(template, init, ctx, number);
      // Named on every attempt (the same name and attributes): only a retry repeats it.
      trace.tracing.describeCall(trace.span, method, path);
      trace.attempts = number;
      attemptTrace = { tracing: trace.tracing, span: trace.tracing.startAttempt(trace.span, method, path, number, headers) };
    }
    // Events are built only when someone listens: at the default level, one check an attempt.
    const watched = observer.watching('debug');
    const started = watched ? performance.now() : 0;
    if (watched) observer.emit('onRequest', this.#event(template, init, ctx, number));
    let response: Response | undefined;
    let failure: unknown;
    try {
      response = await this.#options.send(url, init);
    } catch (error) {
      failure = error;
    }
    if (watched) this.#attempted(this.#event(template, init, ctx, number), performance.now() - started, response, failure, ctx);
    attemptTrace?.tracing.endAttempt(attemptTrace.span, response?.status, response ? undefined : noAnswerCode(ctx.signal));
    return { response, failure, token };
  }

  /** A retryable answer not retried, because of its wait: a `warn` line. */
  #notRetried(base: RequestEvent, status: number, { waitMs, why }: { waitMs: number; why: 'too-long' | 'past-deadline' }): void {
    const reason = why === 'too-long' ? `longer than maxRetryAfterMs (${this.#options.maxRetryAfterMs} ms)` : 'past the deadline';
    this.#options.observer.log(
      'warn',
      `not retrying ${base.method} ${base.path} after ${status}: the wait of ${Math.round(waitMs)} ms is ${reason}`,
      { ...base, status, waitMs },
    );
  }

  /** What an event says of an attempt: never a path value, header or body. */
  #event(template: string, init: RequestInit, ctx: CallContext, attempt: number): RequestEvent {
    return {
      method: init.method ?? 'GET',
      path: template,
      attempt,
      correlationId: ctx.correlationId,
    };
  }

  /** A retry about to wait: an `info` line and the `onRetry` hook. */
  #retrying(
    base: RequestEvent,
    waitMs: number,
    reason: 'status' | 'rate-limit' | 'connection',
    status: number | undefined,
    retryAfter: boolean,
  ): void {
    const observer = this.#options.observer;
    if (!observer.watching('info')) return;
    const event = { ...base, reason, ...(status !== undefined ? { status } : {}), waitMs, retryAfter };
    observer.log(
      'info',
      `retrying ${base.method} ${base.path} in ${Math.round(waitMs)} ms after ${status ?? 'a connection failure'}`,
      event,
    );
    observer.emit('onRetry', event);
  }

  /** One attempt done: a `debug` line and the `onResponse` hook. */
  #attempted(base: RequestEvent, durationMs: number, response: Response | undefined, failure: unknown, ctx: CallContext): void {
    const observer = this.#options.observer;
    const ms = Math.round(durationMs * 10) / 10;
    let done: ResponseEvent;
    if (response) done = { ...base, status: response.status, durationMs: ms };
    else {
      const errorCode = noAnswerCode(ctx.signal);
      const system = errorCode === 'ERR_CONNECTION' ? systemCode(failure) : undefined;
      done = { ...base, durationMs: ms, errorCode, ...(system ? { systemCode: system } : {}) };
    }
    observer.log(
      'debug',
      `${base.method} ${base.path} ${done.status ?? done.errorCode}${done.systemCode ? ` ${done.systemCode}` : ''} in ${ms} ms (attempt ${base.attempt}, correlation id ${base.correlationId})`,
      done,
    );
    observer.emit('onResponse', done);
  }

  /**
   * The body as text ({@link #decode}), or why it could not all be read (a reset, a truncation, a
   * stall cut by the deadline).
   */
  async #read(response: Response, ctx: CallContext): Promise<{ read: true; text: string } | { read: false; failure: unknown }> {
    let bytes: ArrayBuffer;
    try {
      bytes = await response.arrayBuffer();
    } catch (failure) {
      return { read: false, failure };
    }
    return { read: true, text: this.#decode(bytes, response, ctx) };
  }

  /** The body as text: UTF-8, strictly for a success (it must be JSON), leniently for an error page. */
  #decode(bytes: ArrayBuffer, response: Response, ctx: CallContext): string {
    if (!response.ok) return LENIENT.decode(bytes);
    try {
      return UTF8.decode(bytes);
    } catch {
      const correlationId = response.headers.get('x-correlation-id') ?? ctx.correlationId;
      throw new InvalidResponseError(response.status, correlationId, 'the body is not valid UTF-8');
    }
  }
}
