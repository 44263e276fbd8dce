/**
 * The stores of `@acme/identity/redis`: tokens shared with a renewal lease, webhook deliveries in
 * two states, and finished sign-ins, across processes and machines.
 */
import { ConfigurationError } from '../errors/index.js';
import { positiveOption } from '../errors/options.js';
import { importAesKey, open, seal } from '../internal/sealing.js';
import type { StoredToken, TokenLease, TokenStore } from '../client/tokens.js';
import type { ReplayClaim, ReplayStore } from '../webhooks/replay.js';
import type { StateStore } from '../oidc/index.js';
import { COMPARE_AND_DELETE, checkPrefix, evaluate, holderToken, sender, type RedisClientLike, type Send } from './commands.js';

export interface RedisStoreOptions {
  /** Prepended to every key. @default 'acme-identity:' */
  prefix?: string;
  /**
   * How long a command may take before the store treats Redis as unreachable, in ms (a client
   * queues commands while disconnected). @default 2000
   */
  commandTimeoutMs?: number;
}

const DEFAULT_PREFIX = 'acme-identity:';

/**
 * Webhook deliveries in Redis, in the two states of {@link ReplayStore}: `processing` under a
 * lease (`SET … PX`, its holder's token as the value) and `done` for the replay TTL. Claims are
 * one Lua script, so two instances receiving the same delivery at once never both process it.
 * @example
 * ```ts
 * const verifier = createWebhookVerifier({ secret, replayStore: new RedisReplayStore(redis) });
 * ```
 */
export class RedisReplayStore implements ReplayStore {
  readonly #send: Send;
  readonly #prefix: string;
  /** This process's holder tokens, so a release never drops a lease another instance took over. */
  readonly #held = new Map<string, string>();

  constructor(client: RedisClientLike, options: RedisStoreOptions = {}) {
    this.#send = sender(client, options.commandTimeoutMs);
    this.#prefix = `${checkPrefix(options.prefix ?? DEFAULT_PREFIX)}webhook:`;
  }

  async claim(id: string, leaseSeconds: number): Promise<ReplayClaim> {
    const token = holderToken();
    const value = `processing:${token}`;
    const result = await undoIfLate(this.#send, this.#prefix + id, value, () =>
      evaluate(this.#send, CLAIM, [this.#prefix + id], [value, String(Math.ceil(leaseSeconds * 1000))]),
    );
    if (result === 'claimed') this.#held.set(id, `processing:${token}`);
    return result === 'claimed' || result === 'done' ? result : 'processing';
  }

  async complete(id: string, ttlSeconds: number): Promise<void> {
    this.#held.delete(id);
    await this.#send('SET', this.#prefix + id, 'done', 'PX', String(Math.ceil(ttlSeconds * 1000)));
  }

  async release(id: string): Promise<void> {
    const token = this.#held.get(id);
    this.#held.delete(id);
    if (token !== undefined) await evaluate(this.#send, COMPARE_AND_DELETE, [this.#prefix + id], [token]);
  }
}

/**
 * Runs a command that writes `value` to `key`; when it fails or times out (Redis unreachable, the
 * client queueing it for later), a compare-and-delete of `value` is queued behind it, so a write
 * that runs late, after its caller gave up, is undone at once instead of holding a lease or a
 * state nobody owns.
 */
async function undoIfLate<T>(send: Send, key: string, value: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    evaluate(send, COMPARE_AND_DELETE, [key], [value]).catch(() => undefined);
    throw error;
  }
}

const CLAIM = `local v = redis.call('GET', KEYS[1])
if v == 'done' then return 'done' end
if v then return 'processing' end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 'claimed'`;

/**
 * Finished OIDC sign-ins in Redis (`SET NX PX`): a callback is used once across every instance.
 * @example
 * ```ts
 * const oidc = createOidcClient({ ...options, stateStore: new RedisStateStore(redis) });
 * ```
 */
export class RedisStateStore implements StateStore {
  readonly #send: Send;
  readonly #prefix: string;

  constructor(client: RedisClientLike, options: RedisStoreOptions = {}) {
    this.#send = sender(client, options.commandTimeoutMs);
    this.#prefix = `${checkPrefix(options.prefix ?? DEFAULT_PREFIX)}oidc-state:`;
  }

  async use(state: string, ttlMs: number): Promise<boolean> {
    const key = this.#prefix + state;
    const holder = holderToken();
    const answer = await undoIfLate(this.#send, key, holder, () =>
      this.#send('SET', key, holder, 'NX', 'PX', String(Math.max(1, Math.ceil(ttlMs)))),
    );
    return answer === 'OK';
  }
}

export interface RedisTokenStoreOptions extends RedisStoreOptions {
  /**
   * The AES-GCM key tokens are encrypted with before they reach Redis: 32 random bytes (a
   * `Uint8Array`, or their base64), or an AES-GCM `CryptoKey`. Every instance needs the same one.
   * Required unless `allowPlaintext` is set: tokens are secrets.
   */
  encryptionKey?: Uint8Array | string | CryptoKey;
  /** Write tokens to Redis as plain JSON. Only where Redis itself is as trusted as your secrets. @default false */
  allowPlaintext?: boolean;
  /** How long a stored token pair is kept after it was written, in seconds (the refresh token's life is not stated). @default 86400 */
  ttlSeconds?: number;
  /** The clock, in ms. @default Date.now */
  now?: () => number;
}

/**
 * Tokens shared by every instance of a client, on Redis, with one renewal per expiry:
 * - each process keeps its copy and reads Redis only when that copy nears expiry (a warm call
 *   makes no Redis round trip);
 * - the renewal runs under a lease (`SET NX PX` with a holder token, released by a
 *   compare-and-delete script), so across any number of processes one instance renews and the
 *   others wait for its result or keep using the still-valid token; a holder that dies releases
 *   nothing, and the lease expires;
 * - tokens are encrypted with AES-GCM (`encryptionKey`), bound to their key name;
 * - expiries travel with the writer's offset to the service's clock, so machines whose clocks
 *   differ agree on when a token expires.
 * @throws {ConfigurationError} without `encryptionKey` (unless `allowPlaintext`), or with a key that is not 32 bytes.
 * @example
 * ```ts
 * const acme = new AcmeIdentityClient({ ...options, tokenStore: new RedisTokenStore(redis, { encryptionKey: process.env.ACME_TOKEN_KEY }) });
 * ```
 */
export class RedisTokenStore implements TokenStore {
  readonly #send: Send;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #key: Promise<CryptoKey> | undefined;
  readonly #local = new Map<string, StoredToken>();

  constructor(client: RedisClientLike, options: RedisTokenStoreOptions = {}) {
    this.#send = sender(client, options.commandTimeoutMs);
    this.#prefix = `${checkPrefix(options.prefix ?? DEFAULT_PREFIX)}token:`;
    this.#ttlMs = positiveOption('ttlSeconds', options.ttlSeconds, 86_400) * 1000;
    this.#now = options.now ?? (() => Date.now());
    this.#key = aesKey(options);
    this.#key?.catch(() => undefined);
  }

  /** This process's copy while it is valid (no round trip); Redis when asked for `fresh` or when the copy has expired. */
  get(key: string, options?: { fresh?: boolean }): StoredToken | undefined | Promise<StoredToken | undefined> {
    const local = this.#local.get(key);
    if (!options?.fresh && local?.accessToken && local.expiresAt > this.#now()) return local;
    return this.#read(key);
  }

  async set(key: string, token: StoredToken): Promise<void> {
    this.#local.set(key, token);
    const json = JSON.stringify(token);
    const value = this.#key ? await seal(await this.#key, json, key) : json;
    await this.#send('SET', this.#prefix + key, value, 'PX', String(Math.ceil(Math.max(token.expiresAt - this.#now(), 0) + this.#ttlMs)));
  }

  async lease(key: string, ttlMs: number): Promise<TokenLease | undefined> {
    const name = `${this.#prefix + key}:lease`;
    const holder = holderToken();
    const taken = await undoIfLate(this.#send, name, holder, () =>
      this.#send('SET', name, holder, 'NX', 'PX', String(Math.max(1, Math.ceil(ttlMs)))),
    );
    if (taken !== 'OK') return undefined;
    return { release: async () => void (await evaluate(this.#send, COMPARE_AND_DELETE, [name], [holder])) };
  }

  async #read(key: string): Promise<StoredToken | undefined> {
    const value = await this.#send('GET', this.#prefix + key);
    if (typeof value !== 'string') return this.#local.get(key);
    let token: StoredToken;
    try {
      token = JSON.parse(this.#key ? await open(await this.#key, value, key) : value) as StoredToken;
    } catch (cause) {
      // Written with another key, or not by this store: treated as absent (a new token is fetched), never trusted.
      void cause;
      return undefined;
    }
    this.#local.set(key, token);
    return token;
  }
}

function aesKey(options: RedisTokenStoreOptions): Promise<CryptoKey> | undefined {
  if (options.encryptionKey === undefined) {
    if (options.allowPlaintext === true) return undefined;
    throw new ConfigurationError(
      'encryptionKey',
      'is required: tokens are secrets (32 random bytes; or set allowPlaintext: true to store them in clear)',
    );
  }
  const key = importAesKey(options.encryptionKey);
  if (typeof key === 'string') throw new ConfigurationError('encryptionKey', key);
  return key;
}
