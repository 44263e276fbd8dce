/**
 * The client's options: what a caller may set (`ClientOptions`, `RequestOptions`), each checked
 * once when the client is made (a `ConfigurationError` naming the option), and the resolved form
 * the rest of the client reads, defaults filled in. Also how `X-Request-Timestamp` is written,
 * whose format the spec does not show.
 */
import { ConfigurationError } from '../errors/index.js';
import { nonNegativeOption } from '../errors/options.js';
import { isObject } from '../internal/guards.js';
import { isLoopbackHost } from '../internal/loopback.js';
import { Observer, type ObservabilityOptions } from '../internal/observe.js';
import { MAX_TIMER_MS } from '../internal/sleep.js';
import { Tracing, type OpenTelemetryApi } from '../internal/tracing.js';
import { VERSION } from '../version.js';
import { MemoryTokenStore, type TokenStore } from './tokens.js';

/** How `X-Request-Timestamp` is written. The spec does not show a format. */
export type TimestampFormat = 'unix-seconds' | 'unix-ms' | 'iso8601' | ((date: Date) => string);

/** What a create sends for `results_emails`, `download_email` and `expiry_hours` left unset: see {@link ClientOptions.unsetOptionals}. */
export type UnsetOptionals = 'auto' | 'omit' | 'fill';

/** Your application, named in the `User-Agent` after the SDK's (as stripe-node's `appInfo`). */
export interface AppInfo {
  name: string;
  version?: string;
  url?: string;
}

export interface ClientOptions extends ObservabilityOptions {
  /** `{base_url}`: the REST root, including `/api/v1`, for example `https://api.example.com/api/v1`; a `URL` is read as its `href`. */
  baseUrl: string | URL;
  /** API key pair from the operator's user portal. */
  clientId: string;
  clientSecret: string;
  /** Tenant ID issued by the operator; sent verbatim as `X-Tenant-Id` on every `/identity` call. */
  tenantId: string;
  /**
   * Format of `X-Request-Timestamp`. The spec does not show one; UNIX seconds matches the
   * service's other timestamps (`time_expires`, `exp`).
   * @default 'unix-seconds'
   */
  timestampFormat?: TimestampFormat;
  /**
   * `results_emails`, `download_email` and `expiry_hours` when a create leaves them unset: the
   * spec's schema requires them, its prose calls them optional, so a service may follow either.
   * - `auto`: not sent (nothing the caller did not give goes on the wire); a service that refuses
   *   their absence (a validation error naming only them) gets the create once more with them
   *   filled, and from then on this client fills them at once.
   * - `omit`: never sent when unset; a service that requires them refuses the create.
   * - `fill`: always sent when unset, as `""`, `""` and `24` (the spec's default expiry).
   * @default 'auto'
   */
  unsetOptionals?: UnsetOptionals;
  /**
   * Correct `X-Request-Timestamp` by the offset between this machine's clock and the service's,
   * learnt from the `Date` header of its answers.
   * @default true
   */
  correctClockSkew?: boolean;
  /**
   * Overall deadline of one call, all attempts and waits included, in ms. The SDK enforces it
   * whatever the `fetch` does: a `fetch` that ignores the abort signal cannot hold a call longer.
   * @default 60000
   */
  timeoutMs?: number;
  /**
   * Deadline of one token request (POST /auth/api-token or /refresh), in ms. Token renewal is
   * shared by every waiting call and runs under this deadline, not a caller's: a request that hangs
   * is dropped when it passes and tried again (up to `maxRetries` times), so a healthy service is
   * usable again without waiting for the hung socket to close. A caller still waits no longer than
   * its own `timeoutMs`.
   * @default 10000
   */
  tokenTimeoutMs?: number;
  /**
   * How long a token request may go unanswered before a call that needs a token sends a second
   * one beside it (the first good answer wins; never more than two in flight), in ms: a token
   * request lost on a dead socket then holds the calls after it for about this long, not
   * `tokenTimeoutMs`. Set it to `tokenTimeoutMs` or more to never send a second one.
   * @default three times the slowest of the last five token answers, within 1000 and 2000
   */
  tokenHedgeDelayMs?: number;
  /** Retries after the first attempt, for calls that are safe to repeat. @default 2 */
  maxRetries?: number;
  /**
   * The longest `Retry-After` the client waits out by itself, in ms. A longer one is not shortened:
   * the call fails with a `RateLimitError` carrying `retryAfterMs`.
   * @default 60000
   */
  maxRetryAfterMs?: number;
  /** Refresh the access token this many seconds before it expires (at most half its lifetime). @default 60 */
  refreshMarginSeconds?: number;
  /**
   * Where tokens are kept; share one across processes to share tokens. A store that offers
   * `lease()` (the Redis one does) gets one renewal across them all, under a lease of
   * `tokenTimeoutMs × (maxRetries + 1) + 5 s`: longer than a renewal whose every attempt times out.
   * @default an in-memory store
   */
  tokenStore?: TokenStore;
  /** The `fetch` used for every request. @default `globalThis.fetch`, looked up at each call */
  fetch?: (request: Request) => Promise<Response>;
  /** The clock, in ms. @default Date.now */
  now?: () => number;
  /**
   * Appended to the `User-Agent` the SDK sends in server runtimes
   * (`@acme/identity/0.1.0 node/22.12.0 my-app/1.2.3 (+https://my-app.example)`).
   */
  appInfo?: AppInfo;
  /**
   * OpenTelemetry tracing: pass the `@opentelemetry/api` module (`import * as api from
   * '@opentelemetry/api'`). A span per call and per attempt goes to the tracer provider registered
   * with it, and the trace context is propagated in each request's headers. Without it, nothing of
   * OpenTelemetry is loaded.
   */
  openTelemetry?: OpenTelemetryApi;
}

/** Options every call accepts. */
export interface RequestOptions {
  /** Aborts the call, all attempts included. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /** Sent as `X-Correlation-Id` (identity endpoints) and carried on errors. @default a random UUID */
  correlationId?: string;
}

export interface ResolvedOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  tenantId: string;
  timestampFormat: TimestampFormat;
  unsetOptionals: UnsetOptionals;
  correctClockSkew: boolean;
  timeoutMs: number;
  tokenTimeoutMs: number;
  tokenHedgeDelayMs: number | undefined;
  maxRetries: number;
  maxRetryAfterMs: number;
  refreshMarginSeconds: number;
  tokenStore: TokenStore;
  /** Sends one attempt: the caller's `fetch` with a `Request`, or `globalThis.fetch(url, init)`. */
  send: (url: string, init: RequestInit) => Promise<Response>;
  now: () => number;
  observer: Observer;
  /** Sent as `User-Agent`, except in browsers (which send their own). */
  userAgent: string | undefined;
  tracing: Tracing | undefined;
}

/** Printable ASCII without spaces: safe in a header, and what a tenant id or correlation id looks like. */
const HEADER_TOKEN = /^[\x21-\x7e]+$/;

function requireString(options: Record<string, unknown>, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') throw new ConfigurationError(name, 'is required and must be a non-empty string');
  return value;
}

/** A duration in ms: a finite number, 0 or more (`nonNegativeOption`), that a timer can hold. */
function duration(name: string, value: number | undefined, fallback: number): number {
  const ms = nonNegativeOption(name, value, fallback);
  if (ms > MAX_TIMER_MS) throw new ConfigurationError(name, `must be at most ${MAX_TIMER_MS} ms (about 24.8 days)`);
  return ms;
}

/**
 * Checks the options of one call; a mistake is a `ConfigurationError` naming the option, before
 * anything is sent.
 */
export function checkRequestOptions(options: RequestOptions | undefined): void {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object') throw new ConfigurationError('options', 'must be an object');
  if (options.timeoutMs !== undefined) duration('timeoutMs', options.timeoutMs, 0);
  if (options.maxRetries !== undefined && !Number.isInteger(nonNegativeOption('maxRetries', options.maxRetries, 0))) {
    throw new ConfigurationError('maxRetries', 'must be a whole number');
  }
  const signal = options.signal as Partial<AbortSignal> | undefined | null;
  if (signal !== undefined && (typeof signal?.aborted !== 'boolean' || typeof signal.addEventListener !== 'function')) {
    throw new ConfigurationError('signal', 'must be an AbortSignal');
  }
  if (options.correlationId !== undefined) {
    if (typeof options.correlationId !== 'string') throw new ConfigurationError('correlationId', 'must be a string');
    checkHeaderToken('correlationId', options.correlationId);
  }
}

function checkHeaderToken(name: string, value: string): void {
  if (!HEADER_TOKEN.test(value)) throw new ConfigurationError(name, 'must be printable ASCII without spaces');
}

export function resolveOptions(options: ClientOptions): ResolvedOptions {
  // Read as untyped data first: JavaScript callers may pass anything.
  const record: unknown = options;
  if (!isObject(record))
    throw new ConfigurationError(
      'options',
      'must be an object with baseUrl (ending with /api/v1), clientId, clientSecret and tenantId (the examples read ACME_BASE_URL, ACME_CLIENT_ID, ACME_CLIENT_SECRET and ACME_TENANT_ID)',
    );
  const baseUrl = (record['baseUrl'] instanceof URL ? record['baseUrl'].href : requireString(record, 'baseUrl')).replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigurationError('baseUrl', 'must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new ConfigurationError('baseUrl', 'must use https (plain http is allowed for localhost only)');
  }
  const tenantId = requireString(record, 'tenantId');
  checkHeaderToken('tenantId', tenantId);
  const format = options.timestampFormat ?? 'unix-seconds';
  if (typeof format !== 'function' && !['unix-seconds', 'unix-ms', 'iso8601'].includes(format)) {
    throw new ConfigurationError('timestampFormat', "must be 'unix-seconds', 'unix-ms', 'iso8601' or a function");
  }
  const unsetOptionals = options.unsetOptionals ?? 'auto';
  if (!['auto', 'omit', 'fill'].includes(unsetOptionals))
    throw new ConfigurationError('unsetOptionals', "must be 'auto', 'omit' or 'fill'");
  const maxRetries = nonNegativeOption('maxRetries', options.maxRetries, 2);
  if (!Number.isInteger(maxRetries)) throw new ConfigurationError('maxRetries', 'must be a whole number');
  // Like every numeric option, null is "not given": no hedge delay of its own, the token manager's default.
  const hedgeDelayMs = options.tokenHedgeDelayMs ?? undefined;
  return {
    baseUrl,
    clientId: requireString(record, 'clientId'),
    clientSecret: requireString(record, 'clientSecret'),
    tenantId,
    timestampFormat: format,
    unsetOptionals,
    correctClockSkew: options.correctClockSkew ?? true,
    timeoutMs: duration('timeoutMs', options.timeoutMs, 60_000),
    tokenTimeoutMs: duration('tokenTimeoutMs', options.tokenTimeoutMs, 10_000),
    tokenHedgeDelayMs: hedgeDelayMs === undefined ? undefined : duration('tokenHedgeDelayMs', hedgeDelayMs, 0),
    maxRetries,
    maxRetryAfterMs: duration('maxRetryAfterMs', options.maxRetryAfterMs, 60_000),
    refreshMarginSeconds: nonNegativeOption('refreshMarginSeconds', options.refreshMarginSeconds, 60),
    tokenStore: options.tokenStore ?? new MemoryTokenStore(),
    send: sender(options.fetch),
    // Looked up at each call, like fetch, so a clock installed later (fake timers) is the one used.
    now: options.now ?? (() => Date.now()),
    observer: new Observer(options, (option, message) => new ConfigurationError(option, message)),
    userAgent: userAgent(options.appInfo),
    tracing: tracing(options.openTelemetry, baseUrl),
  };
}

function tracing(api: OpenTelemetryApi | undefined, baseUrl: string): Tracing | undefined {
  if (api === undefined) return undefined;
  if (
    api === null ||
    typeof api !== 'object' ||
    typeof api.trace?.getTracer !== 'function' ||
    typeof api.propagation?.inject !== 'function'
  ) {
    throw new ConfigurationError('openTelemetry', "must be the @opentelemetry/api module (import * as api from '@opentelemetry/api')");
  }
  return new Tracing(api, baseUrl);
}

/** `@acme/identity/<version> <runtime>/<version>` and the app's name, in server runtimes; nothing in a browser page. */
function userAgent(app: AppInfo | undefined): string | undefined {
  if (app !== undefined) {
    if (app === null || typeof app !== 'object' || typeof app.name !== 'string' || !HEADER_TOKEN.test(app.name)) {
      throw new ConfigurationError('appInfo', 'must be { name, version?, url? } with a name of printable ASCII without spaces');
    }
    for (const key of ['version', 'url'] as const) {
      if (app[key] !== undefined && (typeof app[key] !== 'string' || !HEADER_TOKEN.test(app[key]))) {
        throw new ConfigurationError(`appInfo.${key}`, 'must be printable ASCII without spaces');
      }
    }
  }
  const g = globalThis as {
    document?: unknown;
    process?: { versions?: Record<string, string> };
    Deno?: { version?: { deno?: string } };
    navigator?: { userAgent?: string };
  };
  if (g.document !== undefined) return undefined;
  const versions = g.process?.versions;
  // Bun and Deno first: both also set process.versions.node.
  let runtime = 'unknown-runtime';
  if (versions?.['bun']) runtime = `bun/${versions['bun']}`;
  else if (g.Deno?.version?.deno) runtime = `deno/${g.Deno.version.deno}`;
  else if (versions?.['node']) runtime = `node/${versions['node']}`;
  else if (g.navigator?.userAgent === 'Cloudflare-Workers') runtime = 'workerd';
  const appPart = app ? ` ${app.name}${app.version ? `/${app.version}` : ''}${app.url ? ` (+${app.url})` : ''}` : '';
  return `@acme/identity/${VERSION} ${runtime}${appPart}`;
}

function sender(fetch: ClientOptions['fetch']): ResolvedOptions['send'] {
  if (fetch !== undefined && typeof fetch !== 'function') throw new ConfigurationError('fetch', 'must be a function');
  if (fetch) return (url, init) => fetch(new Request(url, init));
  // Looked up at each call, so a fetch patched after the client was made (msw, tests) is used.
  // (url, init) rather than a Request: undici copies a Request it is given, so this saves one.
  return (url, init) => globalThis.fetch(url, init);
}

export function formatTimestamp(format: TimestampFormat, ms: number): string {
  if (typeof format === 'function') return format(new Date(ms));
  if (format === 'unix-ms') return String(Math.floor(ms));
  if (format === 'iso8601') return new Date(ms).toISOString();
  return String(Math.floor(ms / 1000));
}
