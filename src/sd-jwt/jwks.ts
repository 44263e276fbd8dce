/** The issuer's signing keys: a JWKS given inline, or fetched through discovery and cached. */
import type { JSONWebKeySet, JWK } from 'jose';
import { MAX_KEY_CANDIDATES, fittingKeys, importVerifyKey } from '../internal/jws.js';
import { ConfigurationError, JwksError, SdJwtVerificationError } from '../errors/index.js';
import { nonNegativeOption } from '../errors/options.js';
import { liteLog, type LiteLogOptions } from '../internal/log-lite.js';
import { sameIssuer } from '../internal/issuer.js';
import { isFetchableUrl, isLoopbackHost } from '../internal/loopback.js';
import { printable } from '../internal/text.js';

/** Asymmetric JWS algorithms only: never `none`, never HMAC (RFC 9901 §7.1 step 2a). */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** The protected-header fields a key is chosen by. */
export interface KeyHeader {
  alg: string;
  kid?: string | undefined;
}

/** Where the verifier gets the issuer's public keys. {@link remoteJwks} is the usual one. */
export interface KeySource {
  /** The key for this header; throws `ERR_SD_JWT_KEY_NOT_FOUND` when there is none. */
  keyFor(header: KeyHeader): Promise<CryptoKey>;
  /**
   * Every key that fits a header naming no `kid`, at most {@link MAX_KEY_CANDIDATES}, in JWKS
   * order: a key set in rotation holds two, and the signature decides which. Optional: without it,
   * {@link KeySource.keyFor}'s one key is tried.
   */
  keysFor?(header: KeyHeader): Promise<CryptoKey[]>;
  /** The issuer these keys belong to, when known (from discovery). */
  readonly issuer?: string | undefined;
}

export { MAX_KEY_CANDIDATES };

/** The JWKs fitting `header`: the one rule every verifier chooses keys by (`internal/jws.ts`). */
function selectJwks(keys: readonly JWK[], header: KeyHeader): JWK[] {
  return fittingKeys(keys as (JWK & JsonWebKey)[], header.alg, header.kid);
}

function keysOf(jwks: unknown, url: string): JWK[] {
  const keys = (jwks as JSONWebKeySet | null)?.keys;
  if (!Array.isArray(keys)) throw new JwksError(url, 'not a JSON Web Key Set (no "keys" array)');
  return keys.filter((key): key is JWK => key !== null && typeof key === 'object' && !Array.isArray(key));
}

/** Imports and caches keys of a key set; one `CryptoKey` per JWK and algorithm. */
class KeyCache {
  #keys: JWK[] = [];
  /** Per JWK object: a set read again is new objects, so what was imported for the last goes with it. */
  readonly #imported = new WeakMap<JWK, Map<string, Promise<CryptoKey>>>();
  /** The fitting keys per `alg` and `kid` some key fits: bounded by the keys and the algorithms they fit (an unknown `kid` is never kept). */
  #fitting = new Map<string, Promise<CryptoKey[]>>();

  constructor(public url: string) {}

  set(keys: JWK[]): void {
    this.#keys = keys;
    this.#fitting = new Map();
  }

  /**
   * The fitting keys, imported, kept for the next token with this header (a verification after the
   * first looks up once); undefined when none fits. A key Web Crypto refuses is a `JwksError`.
   */
  fitting(header: KeyHeader): Promise<CryptoKey[]> | undefined {
    const id = header.kid === undefined ? header.alg : `${header.alg}\0${header.kid}`;
    let fitting = this.#fitting.get(id);
    if (!fitting) {
      const keys = selectJwks(this.#keys, header).map((jwk) => {
        let byAlg = this.#imported.get(jwk);
        if (!byAlg) {
          byAlg = new Map();
          this.#imported.set(jwk, byAlg);
        }
        let key = byAlg.get(header.alg);
        if (!key) {
          const kid = typeof jwk.kid === 'string' ? ` "${printable(jwk.kid)}"` : '';
          key = importVerifyKey(jwk as JsonWebKey, header.alg).catch((cause: unknown) => {
            throw new JwksError(this.url, `key${kid} cannot be imported as a ${header.alg} verification key`, { cause });
          });
          byAlg.set(header.alg, key);
        }
        return key;
      });
      if (keys.length === 0) return undefined;
      fitting = Promise.all(keys);
      // Reported to each caller; kept, never an unhandled rejection.
      fitting.catch(() => undefined);
      this.#fitting.set(id, fitting);
    }
    return fitting;
  }
}

/** The refusal of a token no key fits. Its `kid` is the token's text (anyone can present one): named printable and cut. */
function keyNotFound(header: KeyHeader): SdJwtVerificationError {
  const kid = header.kid === undefined ? 'without a kid' : `with kid "${printable(header.kid)}"`;
  return new SdJwtVerificationError('ERR_SD_JWT_KEY_NOT_FOUND', `no ${header.alg} key ${kid} in the issuer's JWKS`);
}

/** `keyFor` of a source with `keysFor`: the first fitting key, in JWKS order. */
function firstKey(keysFor: (header: KeyHeader) => Promise<CryptoKey[]>): KeySource['keyFor'] {
  return async (header) => {
    const [key] = await keysFor(header);
    if (!key) throw keyNotFound(header);
    return key;
  };
}

/**
 * A key source over a JWKS you already have (for example from your own cache or configuration).
 *
 * @example
 * ```ts
 * const keys = localJwks({ keys: [publicJwk] }, 'https://auth.acme.example');
 * ```
 */
export function localJwks(jwks: JSONWebKeySet, issuer?: string): KeySource {
  const cache = new KeyCache('(local JWKS)');
  cache.set(keysOf(jwks, cache.url));
  // Not an async function: the kept promise itself, without a wrapper's ticks on every verification.
  const keysFor = (header: KeyHeader) => {
    try {
      return cache.fitting(header) ?? Promise.reject(keyNotFound(header));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return { issuer, keysFor, keyFor: firstKey(keysFor) };
}

export interface RemoteJwksOptions extends LiteLogOptions {
  /** The `fetch` to use; looked up on `globalThis` at call time when absent. */
  fetch?: (input: string, init?: RequestInit) => Promise<Response>;
  /** How long a fetched key set is used before it is fetched again, in ms. @default 600000 (10 minutes) */
  maxAgeMs?: number;
  /**
   * The least time between two fetches caused by an unknown `kid`, in ms. The first unknown `kid`
   * after a fetch is always fetched for at once (a key rotated a second ago verifies); only the
   * fetches that unknown kids cause are bounded. @default 30000
   */
  cooldownMs?: number;
  /** The clock, in ms. @default Date.now */
  now?: () => number;
  /**
   * Read discovery and the key set over plain `http:` too. Keys read over `http:` can be swapped
   * by anyone on the path, and every credential signed with theirs would then verify as the
   * issuer's. @default true for a loopback `authUrl` (`localhost`, `127.0.0.0/8`, `[::1]`: the
   * fake served locally), else false: `authUrl` and the discovery document's `jwks_uri` must be `https:`.
   */
  allowInsecureRequests?: boolean;
}

/** A {@link KeySource} that also says where its keys come from and can be refreshed. */
export interface RemoteKeySource extends KeySource {
  readonly issuer: string;
  /** Fetches discovery and the JWKS again now. */
  refresh(): Promise<void>;
}

/**
 * Which URLs a remote key source may read, from its `authUrl`: `https:` ones, and `http:` ones too
 * where allowed (a loopback `authUrl` by default). Refuses an `authUrl` it could not read from.
 */
function fetchableUrls(issuer: string, allowInsecureRequests: boolean | undefined): (url: string) => boolean {
  const url = URL.canParse(issuer) ? new URL(issuer) : undefined;
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:') throw new ConfigurationError('authUrl', 'must be an absolute https: URL');
  const insecure = allowInsecureRequests ?? isLoopbackHost(url.hostname);
  if (url.protocol === 'http:' && !insecure) {
    throw new ConfigurationError(
      'authUrl',
      'must be https: (http: only for localhost, or with allowInsecureRequests): keys read over http: can be swapped on the way',
    );
  }
  return (candidate) => isFetchableUrl(candidate, insecure);
}

/**
 * The issuer's keys through discovery: `{authUrl}/.well-known/openid-configuration` (whose `issuer`
 * must equal `authUrl`), then its `jwks_uri`, each `https:` (`http:` for a loopback `authUrl`, or
 * with `allowInsecureRequests`). The key set is cached for `maxAgeMs`, fetched once
 * more when a token names an unknown `kid` (key rotation), and fetched by one request however many
 * verifications wait on it.
 *
 * @throws {ConfigurationError} naming `authUrl` when it is not an absolute URL, or is `http:` where that is not allowed.
 * @throws {JwksError} `ERR_JWKS` when discovery or the JWKS cannot be fetched or read, or `jwks_uri` is not `https:` (where `http:` is not allowed).
 * @example
 * ```ts
 * const keys = remoteJwks('https://auth.acme.example');
 * const verified = await verifySdJwt(credentialJwt, { keys });
 * ```
 * @see {@link https://github.com/acme/identity-sdk/blob/main/docs/service-spec.md | the service specification}, "What the service does" (discovery)
 */
export function remoteJwks(authUrl: string | URL, options: RemoteJwksOptions = {}): RemoteKeySource {
  if (typeof authUrl !== 'string' && !(authUrl instanceof URL))
    throw new ConfigurationError('authUrl', 'must be a URL, as a string or a URL');
  const issuer = String(authUrl).replace(/\/+$/, '');
  const fetchable = fetchableUrls(issuer, options.allowInsecureRequests);
  const maxAge = nonNegativeOption('maxAgeMs', options.maxAgeMs, 600_000);
  const cooldown = nonNegativeOption('cooldownMs', options.cooldownMs, 30_000);
  const now = () => (options.now ?? Date.now)();
  const cache = new KeyCache(`${issuer}/.well-known/openid-configuration`);
  const log = liteLog(options);
  let fetchedAt = -Infinity;
  /** When an unknown `kid` last caused a fetch: they are bounded to one per `cooldown`. */
  let rekeyedAt = -Infinity;
  let inFlight: Promise<void> | undefined;

  async function getJson(url: string): Promise<unknown> {
    let response: Response;
    try {
      response = await (options.fetch ?? globalThis.fetch)(url, { headers: { accept: 'application/json' } });
    } catch (cause) {
      throw new JwksError(url, 'could not be fetched', { cause });
    }
    if (!response.ok) throw new JwksError(url, `answered HTTP ${response.status}`);
    // A redirect followed to where keys may not be read (https: down to http:) reads nothing. (An
    // answer made by hand, with no url of its own, was not redirected.)
    if (!fetchable(response.url || url)) throw new JwksError(url, 'was redirected to a URL that is not https:');
    try {
      return await response.json();
    } catch (cause) {
      throw new JwksError(url, 'is not JSON', { cause });
    }
  }

  async function load(): Promise<void> {
    const discoveryUrl = `${issuer}/.well-known/openid-configuration`;
    const metadata = (await getJson(discoveryUrl)) as { issuer?: unknown; jwks_uri?: unknown } | null;
    // `{auth_url}` and `{auth_url}/` name one issuer; the tokens are held to the form discovery writes.
    if (!sameIssuer(metadata?.issuer, issuer))
      throw new JwksError(discoveryUrl, `issuer is not "${issuer}" (with or without a trailing slash)`);
    if (!metadata || typeof metadata.jwks_uri !== 'string') throw new JwksError(discoveryUrl, 'has no jwks_uri');
    if (!fetchable(metadata.jwks_uri))
      throw new JwksError(discoveryUrl, `has a jwks_uri that is not https: (${printable(metadata.jwks_uri)})`);
    cache.url = metadata.jwks_uri;
    cache.set(keysOf(await getJson(metadata.jwks_uri), metadata.jwks_uri));
    fetchedAt = now();
  }

  function refresh(): Promise<void> {
    inFlight ??= load().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  async function keysFor(header: KeyHeader): Promise<CryptoKey[]> {
    // A set read for this very token is not read again for it.
    const readNow = now() - fetchedAt > maxAge;
    if (readNow) await refresh();
    let found = cache.fitting(header);
    if (!found && !readNow && now() - rekeyedAt >= cooldown) {
      // An unknown kid: the issuer may have rotated its keys, or someone presents a forged token.
      rekeyedAt = now();
      log('warn', 'no cached key fits a token: fetching the JWKS again', { alg: header.alg, kid: header.kid?.slice(0, 64) });
      await refresh();
      found = cache.fitting(header);
    }
    if (!found) throw keyNotFound(header);
    return found;
  }

  return {
    issuer,
    refresh,
    keysFor,
    keyFor: firstKey(keysFor),
  };
}
