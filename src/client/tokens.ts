/**
 * The access token: obtained with the key pair, refreshed before it expires, shared through a
 * `TokenStore` (memory here, Redis in redis/) under a renewal lease so that several instances
 * renew once, with a second request sent beside one that hangs (the hedge). Nothing here sends a
 * request itself: the endpoints are given (`TokenEndpoints`), so the rules are tested on their own.
 */
import type { components } from '../../generated/schema.js';
import { ERROR_TABLE, namedCode } from '../contract/errors.js';
import { AcmeIdentityError, ApiError, ConnectionError, InvalidResponseError, TimeoutError } from '../errors/index.js';
import type { Observer } from '../internal/observe.js';
import { sleep } from '../internal/sleep.js';
import { jwtTime } from '../internal/times.js';
import { tokenLifetime } from './lifetime.js';

/** Tokens as the client keeps them. Secret: never log a `StoredToken`. */
export interface StoredToken {
  accessToken: string | undefined;
  refreshToken: string | undefined;
  /** When the access token expires, in ms on the local clock. */
  expiresAt: number;
  /** When it was obtained, in ms on the local clock: with `expiresAt`, its lifetime. */
  obtainedAt: number;
  /**
   * The writer's offset to the service's clock (service minus local, ms) when it wrote the token:
   * a reader on another machine moves `expiresAt` and `obtainedAt` onto its own clock with it.
   */
  serviceOffsetMs?: number;
}

/** A renewal lease held by this instance; released when the renewal is over. */
export interface TokenLease {
  release(): Promise<void>;
}

/**
 * Where the client keeps its tokens. The default keeps them in memory; a shared store (Redis, a
 * database) lets several processes use one token instead of each fetching its own.
 */
export interface TokenStore {
  /**
   * The tokens kept under `key` (one key per client id and base URL), if any. `fresh`: the client
   * is about to renew, so a store with a local copy reads the shared one (another process may have
   * renewed meanwhile).
   */
  get(key: string, options?: { fresh?: boolean }): Promise<StoredToken | undefined> | StoredToken | undefined;
  /** Keeps `token` under `key`, replacing what was there. */
  set(key: string, token: StoredToken): Promise<void> | void;
  /**
   * Optional: takes the renewal lease of `key` for `ttlMs` across every process sharing the store,
   * resolving `undefined` when another holds it. With it, one instance renews per expiry and the
   * others wait for its token; a holder that dies holds the lease only until `ttlMs` passes.
   */
  lease?(key: string, ttlMs: number): Promise<TokenLease | undefined>;
}

/** A {@link TokenStore} that shares the renewal lease across processes. */
type LeasingTokenStore = TokenStore & Required<Pick<TokenStore, 'lease'>>;

function leasesRenewals(store: TokenStore): store is LeasingTokenStore {
  return store.lease !== undefined;
}

/**
 * The default {@link TokenStore}: this process's memory.
 * @example
 * ```ts
 * const tokens = new MemoryTokenStore(); // shared by two clients of the same process
 * const a = new AcmeIdentityClient({ ...options, tokenStore: tokens });
 * ```
 */
export class MemoryTokenStore implements TokenStore {
  readonly #tokens = new Map<string, StoredToken>();
  /** {@inheritDoc TokenStore.get} */
  get(key: string): StoredToken | undefined {
    return this.#tokens.get(key);
  }
  /** {@inheritDoc TokenStore.set} */
  set(key: string, token: StoredToken): void {
    this.#tokens.set(key, token);
  }
}

/** A token response, as the token endpoints answer it. */
export type TokenGrant = components['schemas']['TokenResponse'];

/**
 * The token endpoints. Each call is one attempt of a renewal, under the renewal's own deadline
 * (`tokenTimeoutMs`), never a caller's: a caller giving up does not cancel it.
 */
export interface TokenEndpoints {
  /** POST /auth/api-token with the key pair. */
  authenticate(): Promise<TokenGrant>;
  /** POST /auth/api-token/refresh. */
  refresh(refreshToken: string): Promise<TokenGrant>;
}

/** Lifetime assumed when the service states none and the token carries no `exp`. */
const FALLBACK_LIFETIME_MS = 5 * 60_000;

/** Whether a failed renewal's status says the refresh token will not do (a 4xx but 429), not a failure that passes. */
const refusal = (status: number) => status >= 400 && status < 500 && status !== 429;

/**
 * The status a failed renewal stands for: its own, or, for an error a success status carried (a
 * service or a gateway that answers every call 200, client/failure.ts), the status the spec's
 * table pairs with its code or type: a refused refresh token is a refusal however it arrived.
 */
function statusMeant(error: ApiError): number {
  if (error.status >= 300) return error.status;
  const named = namedCode(error.serviceCode, error.type);
  return named ? ERROR_TABLE[named].status : error.status;
}

/**
 * Gets, caches and refreshes the API access token:
 * - one renewal in flight however many calls wait on it; each caller waits at most its own
 *   deadline, and none cancels the renewal for the others;
 * - a caller that finds a token request unanswered for longer than a short hedge delay sends a
 *   second one beside it, the first good answer winning; one that hangs is dropped at its own
 *   deadline and tried again (up to `retries` times), so one hung request holds no later call;
 * - every expiry is on the local clock: `expires` and a JWT's `exp` are the service's time,
 *   converted with the offset learnt from its `Date` headers;
 * - refreshed `refreshMarginSeconds` before expiry (at most half its lifetime), so calls rarely wait;
 * - a refused refresh falls back to the key pair; a rotated refresh token is the one used next;
 * - when an early refresh fails for a passing reason, the still-valid token keeps being used.
 */
export class TokenManager {
  readonly #endpoints: TokenEndpoints;
  readonly #store: TokenStore;
  readonly #key: string;
  readonly #marginMs: number;
  readonly #now: () => number;
  readonly #offsetMs: () => number;
  readonly #retries: number;
  readonly #observer: Observer | undefined;
  readonly #leaseMs: number;
  /** The last token this process obtained: what it uses while a shared store fails. */
  #last: StoredToken | undefined;
  /** The store failed its last write: renew without its lease until it works again. */
  #storeDown = false;
  #inflight: Promise<StoredToken> | undefined;
  readonly #hedgeMs: number | undefined;
  readonly #tokenTimeoutMs: number;
  /** How long the last few token requests took to answer, in ms. */
  #latencies: number[] = [];
  /** The pending token request a later caller may hedge. */
  #hedge: Hedge | undefined;

  constructor(options: {
    endpoints: TokenEndpoints;
    store: TokenStore;
    key: string;
    refreshMarginSeconds: number;
    now: () => number;
    /** The service's clock minus the local one, in ms, as learnt so far. @default () => 0 */
    serviceOffsetMs?: () => number;
    /** How many times a token request that timed out is tried again. @default 2 */
    retries?: number;
    /** Where renewals are logged (`info`, a fallback at `warn`) and reported (`onTokenRenewal`). */
    observer?: Observer;
    /** How long a renewal lease is held, when the store offers leases: longer than a renewal can take. @default 35000 */
    leaseMs?: number;
    /** The deadline of one token request, in ms: a hedge delay as long never sends a second one. @default 10000 */
    tokenTimeoutMs?: number;
    /** How long a token request goes unanswered before a second is sent beside it. @default from recent answers, 1000 to 2000 */
    hedgeDelayMs?: number;
  }) {
    this.#endpoints = options.endpoints;
    this.#store = options.store;
    this.#key = options.key;
    this.#marginMs = options.refreshMarginSeconds * 1000;
    this.#now = options.now;
    this.#offsetMs = options.serviceOffsetMs ?? (() => 0);
    this.#retries = options.retries ?? 2;
    this.#observer = options.observer;
    this.#leaseMs = options.leaseMs ?? 35_000;
    this.#tokenTimeoutMs = options.tokenTimeoutMs ?? 10_000;
    this.#hedgeMs = options.hedgeDelayMs;
  }

  /**
   * A valid access token, fetching or refreshing one when needed. A valid token held by a
   * synchronous store (the default) is returned as is, not wrapped in a promise: the common case
   * waits on nothing.
   */
  accessToken(signal?: AbortSignal): string | Promise<string> {
    let stored: ReturnType<TokenStore['get']>;
    try {
      stored = this.#store.get(this.#key);
    } catch (error) {
      stored = Promise.reject(error);
    }
    if (isThenable(stored)) {
      return Promise.resolve(stored).then(
        (token) => this.#valid(this.#onOurClock(token), signal),
        (error: unknown) => this.#valid(this.#storeFailed('read', error), signal),
      );
    }
    return this.#valid(this.#onOurClock(stored), signal);
  }

  /**
   * A shared store that fails (Redis unreachable): this process carries on with its own last
   * token, as if alone, and says so at `warn`. The store is tried again on the next call.
   */
  #storeFailed(what: string, error: unknown): StoredToken | undefined {
    this.#observer?.log('warn', `the token store could not ${what}; using this process's own token meanwhile`, {
      error: error instanceof Error ? error.name : typeof error,
      ...(typeof (error as { code?: unknown } | null)?.code === 'string' ? { code: (error as { code: string }).code } : {}),
    });
    return this.#last;
  }

  /** A token another machine wrote, its times moved onto this clock by the two offsets to the service's. */
  #onOurClock(token: StoredToken | undefined): StoredToken | undefined {
    if (token?.serviceOffsetMs === undefined) return token;
    const delta = token.serviceOffsetMs - this.#offsetMs();
    return delta === 0
      ? token
      : { ...token, expiresAt: token.expiresAt + delta, obtainedAt: token.obtainedAt + delta, serviceOffsetMs: this.#offsetMs() };
  }

  async #fresh(): Promise<StoredToken | undefined> {
    try {
      return this.#onOurClock(await this.#store.get(this.#key, { fresh: true }));
    } catch (error) {
      return this.#storeFailed('read', error);
    }
  }

  #valid(stored: StoredToken | undefined, signal: AbortSignal | undefined): string | Promise<string> {
    if (stored?.accessToken && !this.#isDue(stored)) return stored.accessToken;
    return this.#renewShared(stored, signal);
  }

  async #renewShared(stored: StoredToken | undefined, signal: AbortSignal | undefined): Promise<string> {
    if (this.#inflight) this.#maybeHedge();
    this.#inflight ??= this.#renew(stored).finally(() => {
      this.#inflight = undefined;
    });
    const renewed = await abortable(this.#inflight, signal);
    return renewed.accessToken as string;
  }

  /** Forgets `accessToken` after the service refused it; a newer token already stored is kept. */
  async invalidate(accessToken: string): Promise<void> {
    if (this.#last?.accessToken === accessToken) this.#last = { ...this.#last, accessToken: undefined, expiresAt: 0 };
    try {
      const stored = await this.#store.get(this.#key, { fresh: true });
      if (stored?.accessToken === accessToken) {
        await this.#store.set(this.#key, { ...stored, accessToken: undefined, expiresAt: 0 });
      }
    } catch (error) {
      this.#storeFailed('forget a refused token', error);
    }
  }

  #isDue(token: StoredToken): boolean {
    const lifetime = token.expiresAt - token.obtainedAt;
    const margin = Math.min(this.#marginMs, lifetime / 2);
    return this.#now() >= token.expiresAt - margin;
  }

  async #renew(stored: StoredToken | undefined): Promise<StoredToken> {
    // Another process sharing the store may have renewed meanwhile. A store that keeps nothing
    // (its writes failing, or emptied) leaves this process's own last token.
    const latest = (await this.#fresh()) ?? stored ?? this.#last;
    if (latest?.accessToken && !this.#isDue(latest)) return latest;
    return leasesRenewals(this.#store) && !this.#storeDown ? this.#renewLeased(latest, this.#store) : this.#renewNow(latest);
  }

  /**
   * One renewal across every process sharing the store: the lease holder renews; the others keep
   * using a token that has not expired yet, or wait for the holder's. A holder that dies releases
   * nothing: its lease runs out and another instance takes it.
   */
  async #renewLeased(latest: StoredToken | undefined, store: LeasingTokenStore): Promise<StoredToken> {
    const giveUp = this.#now() + 2 * this.#leaseMs;
    for (let wait = 25; ; wait = Math.min(wait * 2, 500)) {
      let lease: TokenLease | undefined;
      try {
        lease = await store.lease(this.#key, this.#leaseMs);
      } catch (error) {
        // No lease to be had: renewed here, as a process alone would.
        this.#storeFailed('take the renewal lease', error);
        return this.#renewNow(latest);
      }
      if (lease) {
        try {
          // Renewed by the previous holder just before this one took the lease?
          const again = (await this.#fresh()) ?? latest;
          if (again?.accessToken && !this.#isDue(again)) return again;
          return await this.#renewNow(again);
        } finally {
          await lease.release().catch(() => undefined);
        }
      }
      if (latest?.accessToken && this.#now() < latest.expiresAt) return latest;
      if (this.#now() >= giveUp) throw new TimeoutError(undefined, 2 * this.#leaseMs);
      await sleep(wait);
      const seen = await this.#fresh();
      if (seen?.accessToken && !this.#isDue(seen)) return seen;
      latest = seen ?? latest;
    }
  }

  async #renewNow(latest: StoredToken | undefined): Promise<StoredToken> {
    let grant: TokenGrant;
    if (latest?.refreshToken) {
      const refreshToken = latest.refreshToken;
      try {
        grant = await this.#observed('refresh', false, () => this.#attempts(() => this.#endpoints.refresh(refreshToken)));
      } catch (error) {
        const refused = error instanceof ApiError && refusal(statusMeant(error));
        const stillValid = latest.accessToken && this.#now() < latest.expiresAt;
        if (!refused && stillValid) return latest;
        if (!refused) throw error;
        this.#observer?.log('warn', `the refresh token was refused (HTTP ${error.status}); renewing with the key pair`, {
          status: error.status,
        });
        grant = await this.#observed('key-pair', true, () => this.#attempts(() => this.#endpoints.authenticate()));
      }
    } else {
      grant = await this.#observed('key-pair', false, () => this.#attempts(() => this.#endpoints.authenticate()));
    }
    const token = this.#fromGrant(grant, latest?.refreshToken);
    this.#last = token;
    try {
      await this.#store.set(this.#key, token);
      this.#storeDown = false;
    } catch (error) {
      this.#storeDown = true;
      this.#storeFailed('keep the new token', error);
    }
    return token;
  }

  /** A renewal, logged at `info` (a failure at `warn`) and reported to `onTokenRenewal`. */
  async #observed(grant: 'refresh' | 'key-pair', fallback: boolean, renew: () => Promise<TokenGrant>): Promise<TokenGrant> {
    const observer = this.#observer;
    // Watched from `warn` up: a renewal that fails is a warn line even where a success goes unlogged.
    if (!observer?.watching('warn')) return renew();
    const started = performance.now();
    const report = (outcome: 'ok' | 'failed', error?: unknown) => {
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      let errorCode: string | undefined;
      if (error instanceof AcmeIdentityError) errorCode = error.code;
      else if (error !== undefined) errorCode = 'ERR_UNKNOWN';
      const event = { grant, outcome, durationMs, ...(fallback ? { fallback } : {}), ...(errorCode ? { errorCode } : {}) };
      observer.log(
        outcome === 'ok' ? 'info' : 'warn',
        `access token ${outcome === 'ok' ? 'renewed' : 'renewal failed'} (${grant}) in ${durationMs} ms`,
        event,
      );
      observer.emit('onTokenRenewal', event);
    };
    try {
      const result = await renew();
      report('ok');
      return result;
    } catch (error) {
      report('failed', error);
      throw error;
    }
  }

  /** A token request, tried again when it timed out (it hung: the next one may well not). */
  async #attempts(request: () => Promise<TokenGrant>): Promise<TokenGrant> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#hedged(request);
      } catch (error) {
        if (!(error instanceof TimeoutError) || attempt >= this.#retries) throw error;
      }
    }
  }

  /**
   * How long a token request may go unanswered before a second one is sent beside it: the option,
   * or three times the slowest of the last few answers, within one and two seconds.
   */
  #hedgeDelay(): number {
    return this.#hedgeMs ?? Math.min(2_000, Math.max(1_000, 3 * Math.max(0, ...this.#latencies)));
  }

  /**
   * A caller arrived while a renewal is pending: once its token request has gone unanswered for the
   * hedge delay (it may be lost on a dead socket), a second one is sent beside it, now or when
   * the delay is reached. Without such a caller (the first one alone, or gone) nothing is sent.
   */
  #maybeHedge(): void {
    const hedge = this.#hedge;
    if (!hedge || hedge.timer !== undefined) return;
    const delay = this.#hedgeDelay();
    const fire = () => {
      if (this.#hedge !== hedge) return;
      this.#hedge = undefined;
      this.#observer?.log('info', `a token request went unanswered for ${delay} ms; sending a second one beside it`, { hedgeMs: delay });
      hedge.send();
    };
    const wait = hedge.since + delay - this.#now();
    if (wait <= 0) {
      fire();
      return;
    }
    this.#observer?.log('debug', `a token request is unanswered: a second one goes beside it in ${Math.ceil(wait)} ms`, { hedgeMs: delay });
    hedge.timer = setTimeout(fire, wait);
    (hedge.timer as { unref?: () => void }).unref?.();
  }

  /**
   * One token request, which a later caller may hedge ({@link #maybeHedge}): the first good answer
   * of the two wins, and never more than two are in flight. An error settles the race unless it is
   * a timeout or a lost connection while the other request is still out.
   */
  #hedged(request: () => Promise<TokenGrant>): Promise<TokenGrant> {
    return new Promise<TokenGrant>((resolve, reject) => {
      let pending = 0;
      let settled = false;
      const finish = () => {
        settled = true;
        clearTimeout(hedge?.timer);
        if (this.#hedge === hedge) this.#hedge = undefined;
      };
      const send = () => {
        pending += 1;
        const started = this.#now();
        request().then(
          (grant) => {
            if (settled) return;
            finish();
            this.#latencies = [...this.#latencies.slice(-4), this.#now() - started];
            resolve(grant);
          },
          (error: unknown) => {
            pending -= 1;
            if (settled) return;
            // A timeout or a dropped connection leaves the race to the other request, if one is out.
            if ((error instanceof TimeoutError || error instanceof ConnectionError) && pending > 0) return;
            finish();
            reject(error);
          },
        );
      };
      const hedge: Hedge | undefined =
        this.#hedgeMs !== undefined && this.#hedgeMs >= this.#tokenTimeoutMs ? undefined : { since: this.#now(), send, timer: undefined };
      this.#hedge = hedge;
      send();
    });
  }

  #fromGrant(grant: TokenGrant, previousRefresh: string | undefined): StoredToken {
    if (!grant.access_token) {
      throw new InvalidResponseError(200, undefined, 'the token response has no access_token', ['access_token']);
    }
    const now = this.#now();
    // `expires` and `exp` are instants on the service's clock: tokenLifetime moves them onto the local one.
    const lifetime = tokenLifetime(grant, jwtTime(grant.access_token, 'exp'), now, this.#offsetMs(), FALLBACK_LIFETIME_MS);
    if (lifetime.ignored.length > 0) {
      this.#observer?.log('warn', `token lifetime: using ${lifetime.source}; ignored: ${lifetime.ignored.join('; ')}`, {
        event: 'token.lifetime',
      });
    }
    const { expiresAt } = lifetime;
    return {
      accessToken: grant.access_token,
      // A rotated refresh token replaces the old one; without a new one, the old one is kept.
      refreshToken: grant.refresh_token ?? previousRefresh,
      expiresAt,
      obtainedAt: now,
      serviceOffsetMs: this.#offsetMs(),
    };
  }
}

/** A pending token request: when it was sent, how to send its twin, and the twin's timer once a caller armed it. */
interface Hedge {
  since: number;
  send: () => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}

/** Waits for `promise`, or rejects with the signal's reason when it aborts first. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
