/**
 * What an operator sees of the SDK: leveled logs to any `console`-like logger and structured hook
 * events, both redacted by construction. Events carry methods, path templates, statuses, timings,
 * attempt numbers, correlation ids, error codes and reasons; never a header, a body, a token, a
 * secret, a code of a request, a path value or a claim.
 */
import { LOG_LEVELS, rankOf, type LogLevel, type Logger } from './log-lite.js';

export type { LogLevel, Logger };

/** One attempt about to be sent. */
export interface RequestEvent {
  readonly method: string;
  /** The path template below the base URL (`/identity/request/{access_request_code}/{identity_session_code}`): never a path value. */
  readonly path: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  readonly correlationId: string;
}

/** One attempt finished: with a status, or with the error that ended it. */
export interface ResponseEvent extends RequestEvent {
  /** The HTTP status, when an answer came. */
  readonly status?: number;
  /** From sending to the answer's headers (or to the failure), in ms. */
  readonly durationMs: number;
  /** The SDK error code of a failure without an answer (`ERR_CONNECTION`, `ERR_TIMEOUT`, `ERR_ABORTED`). */
  readonly errorCode?: string;
  /** The system error code of a connection failure (`ECONNRESET`, `UND_ERR_SOCKET`, …). */
  readonly systemCode?: string;
}

/** The SDK waits and tries again. */
export interface RetryEvent extends RequestEvent {
  /** `status`: a retryable status (`status` says which); `rate-limit`: a 429; `connection`: no complete answer. */
  readonly reason: 'status' | 'rate-limit' | 'connection';
  /**
   * The status the answer stands for: its own, or for a 200 whose body carries a rate limit or a
   * server error (a service that answers errors 200), the status that error's code stands for.
   */
  readonly status?: number;
  /** How long it waits before the next attempt, in ms. */
  readonly waitMs: number;
  /** Whether the wait is the service's `Retry-After` (else the SDK's backoff). */
  readonly retryAfter: boolean;
}

/** An access token was renewed (or a renewal failed). */
export interface TokenRenewalEvent {
  /** `refresh`: with the refresh token; `key-pair`: with the client id and secret. */
  readonly grant: 'refresh' | 'key-pair';
  readonly outcome: 'ok' | 'failed';
  readonly durationMs: number;
  /** A refused refresh that fell back to the key pair. */
  readonly fallback?: boolean;
  /** The SDK error code of a failed renewal. */
  readonly errorCode?: string;
}

/** Something happened to an entry of the identity inbox (`@acme/identity/inbox`). */
export interface InboxEvent {
  /**
   * `added`, `revived` or `duplicate` (a delivery stored); `handed-over`; `retry` (after a
   * failure); `dead` (set aside); `unknown-request` (set aside at once: a delivery for a request
   * never recorded with `expect`, such as a test delivery); `replayed`; `discarded`; `taken-over`
   * (another worker holds it); `test` (a delivery `acme-identity check-receiver` sent: answered,
   * not stored).
   */
  readonly outcome:
    | 'added'
    | 'revived'
    | 'duplicate'
    | 'handed-over'
    | 'retry'
    | 'dead'
    | 'unknown-request'
    | 'replayed'
    | 'discarded'
    | 'taken-over'
    | 'test';
  /** The first 16 characters of the delivery id (a hash of the body): never the request's code. */
  readonly delivery: string;
  /** Attempts made so far. */
  readonly attempts: number;
  /** For `dead`: the reason (`ERR_INBOX_*`). */
  readonly reason?: string;
  /** For `retry` and `dead`: the code of the failure. */
  readonly errorCode?: string;
  /** For `retry`: the wait before the next attempt, in ms. */
  readonly waitMs?: number;
  /** For `handed-over`: what was handed over. */
  readonly kind?: 'approved' | 'invalid' | 'cancelled';
}

/**
 * Structured events for metrics and tracing of your own. A hook that throws is logged (at `warn`)
 * and ignored: it never changes what the SDK does.
 */
export interface Hooks {
  onRequest?(event: RequestEvent): void;
  onResponse?(event: ResponseEvent): void;
  onRetry?(event: RetryEvent): void;
  onTokenRenewal?(event: TokenRenewalEvent): void;
  onInbox?(event: InboxEvent): void;
}

/** The options every client and verifier factory takes to be observed. */
export interface ObservabilityOptions {
  /** Where logs go. @default console */
  logger?: Logger;
  /**
   * How much is logged. When unset, `ACME_IDENTITY_LOG` is read where `process.env` exists, so an
   * operator can switch logging on without a code change (a value that is not a level is warned
   * about and `warn` is used). @default 'warn'
   */
  logLevel?: LogLevel;
  hooks?: Hooks;
}

const WARN = rankOf('warn');

function environmentLevel(): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.['ACME_IDENTITY_LOG'];
  return value === undefined || value === '' ? undefined : value.trim().toLowerCase();
}

/** Logs and hooks for one client or verifier. Cheap when off: a number comparison per event. */
export class Observer {
  readonly #logger: Logger;
  readonly #rank: number;
  readonly #hooks: Hooks | undefined;

  constructor(options: ObservabilityOptions = {}, configurationError: (option: string, message: string) => Error) {
    const fromEnvironment = options.logLevel === undefined ? environmentLevel() : undefined;
    const given = options.logLevel ?? fromEnvironment;
    let rank = given === undefined ? WARN : rankOf(given);
    // A wrong option is a mistake in code: refused. A wrong environment value must not stop a
    // deployment: warned about, and the default used.
    if (rank < 0 && fromEnvironment === undefined) throw configurationError('logLevel', `must be one of ${LOG_LEVELS.join(', ')}`);
    const misconfigured = rank < 0 ? fromEnvironment : undefined;
    if (misconfigured !== undefined) rank = WARN;
    const logger: Logger = options.logger ?? globalThis.console;
    for (const method of ['debug', 'info', 'warn', 'error'] as const) {
      if (typeof logger?.[method] !== 'function') throw configurationError('logger', `must have a ${method}(message, fields) method`);
    }
    const hooks = options.hooks;
    if (hooks !== undefined && (hooks === null || typeof hooks !== 'object'))
      throw configurationError('hooks', 'must be an object of functions');
    for (const [name, hook] of Object.entries(hooks ?? {})) {
      if (typeof hook !== 'function') throw configurationError(`hooks.${name}`, 'must be a function');
    }
    this.#logger = logger;
    this.#rank = rank;
    this.#hooks = hooks && Object.keys(hooks).length > 0 ? hooks : undefined;
    if (misconfigured !== undefined)
      this.log('warn', `ACME_IDENTITY_LOG is not one of ${LOG_LEVELS.join(', ')}: logging at warn`, {
        ACME_IDENTITY_LOG: misconfigured.slice(0, 16),
      });
  }

  /** Whether anything listens at `level` or through a hook: the caller skips building events otherwise. */
  watching(level: Exclude<LogLevel, 'off'>): boolean {
    return this.#hooks !== undefined || this.#rank >= rankOf(level);
  }

  enabled(level: Exclude<LogLevel, 'off'>): boolean {
    return this.#rank >= rankOf(level);
  }

  log(level: Exclude<LogLevel, 'off'>, message: string, fields: object = {}): void {
    if (!this.enabled(level)) return;
    try {
      this.#logger[level](`[acme-identity] ${message}`, fields);
    } catch {
      // A logger that throws must not break a call.
    }
  }

  /** Calls a hook; one that throws is logged and ignored. */
  emit<K extends keyof Hooks>(name: K, event: Parameters<NonNullable<Hooks[K]>>[0]): void {
    const hook = this.#hooks?.[name] as ((event: unknown) => void) | undefined;
    if (!hook) return;
    try {
      hook.call(this.#hooks, event);
    } catch (error) {
      this.log('warn', `hooks.${name} threw; ignored`, { hook: name, error: error instanceof Error ? error.name : typeof error });
    }
  }
}
