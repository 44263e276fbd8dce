/**
 * `@acme/identity/oidc`: sign a person in with the service's Authorization Code + PKCE flow from a
 * backend (Node, Deno, Bun, edge runtimes). The backend keeps the transaction (verifier, state,
 * nonce) in its session between the redirect and the callback; the client authenticates at the
 * token endpoint as a public client or with a secret or a private key. On oauth4webapi.
 *
 * For a browser page, use `@acme/identity/oidc/browser`.
 *
 * @example
 * ```ts
 * import { createOidcClient } from '@acme/identity/oidc';
 *
 * const oidc = createOidcClient({ authUrl, clientId, redirectUri, clientAuthentication: { method: 'client_secret_basic', clientSecret } });
 * // GET /login
 * const { url, transaction } = await oidc.startSignIn({ scope: ['openid', 'profile'], claims: { acme: ['acmeidentity.name'] } });
 * session.signIn = transaction;
 * redirect(url);
 * // GET /callback
 * const { claims } = await oidc.finishSignIn(request.url, session.signIn);
 * delete session.signIn;
 * ```
 * @module
 */
import {
  ClientSecretBasic,
  ClientSecretPost,
  None,
  PrivateKeyJwt,
  authorizationCodeGrantRequest,
  validateAuthResponse,
  type AuthorizationServer,
  type ClientAuth,
} from 'oauth4webapi';
import { ConfigurationError, OidcError } from '../errors/index.js';
import { claimList } from '../claims/index.js';
import { isString } from './failures.js';
import { createCore, type OidcCore, type OidcOptions, type OidcTransaction, type SignInParams, type SignInResult } from './flow.js';
import { verifySignature } from '../internal/jws-node.js';
import { mapChallenge } from './challenge.js';
import { cachedKeys, jwsVerifier } from './jws.js';
import { completedClaims, http, lacksRequestedClaims, userinfo, type UserInfo } from './userinfo.js';

/**
 * How the client authenticates at the token endpoint. The spec does not show it; the fake
 * service supports all four. A public client (`none`) relies on PKCE alone.
 */
export type ClientAuthentication =
  | { method: 'none' }
  | { method: 'client_secret_basic' | 'client_secret_post'; clientSecret: string }
  /** RFC 7523 client assertion signed with `privateKey` (an `RS256`, `PS256`, `ES256` or `EdDSA` key); `kid` names its public key. */
  | { method: 'private_key_jwt'; privateKey: CryptoKey; kid?: string };

export interface OidcClientOptions extends OidcOptions {
  /** @default { method: 'none' } */
  clientAuthentication?: ClientAuthentication;
  /**
   * Where finished sign-ins are remembered, so a callback is used once. Share one across instances
   * (`RedisStateStore` from `@acme/identity/redis`): a callback replayed to another instance is
   * then refused before it reaches the service. @default this process's memory
   */
  stateStore?: StateStore;
}

/** Remembers finished sign-in states. */
export interface StateStore {
  /**
   * Marks `state` used for `ttlMs`. Resolves `true` the first time, `false` when it was used
   * already. Must be atomic across everything sharing the store.
   */
  use(state: string, ttlMs: number): boolean | Promise<boolean>;
}

/**
 * The default {@link StateStore}: one process's memory, forgotten as transactions expire. With
 * several instances, use a shared one (`RedisStateStore` from `@acme/identity/redis`).
 * @example
 * ```ts
 * const oidc = createOidcClient({ ...options, stateStore: new MemoryStateStore() });
 * ```
 */
export class MemoryStateStore implements StateStore {
  readonly #used = new Map<string, number>();
  readonly #now: () => number;
  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? (() => Date.now());
  }
  use(state: string, ttlMs: number): boolean {
    const now = this.#now();
    for (const [key, until] of this.#used) if (until <= now) this.#used.delete(key);
    if (this.#used.has(state)) return false;
    this.#used.set(state, now + ttlMs);
    return true;
  }
}

export interface FinishSignInOptions {
  /**
   * When to call the userinfo endpoint after the ID token is checked (userinfo's answer must be for
   * the ID token's subject):
   * - `'missing'`: when the ID token lacks a claim the sign-in asked for (a name in `claims`, or
   *   every claim of a standard scope asked for), and discovery lists a `userinfo_endpoint`. Where
   *   the service delivers requested claims is not shown, and OpenID Connect Core §5.4 has scope
   *   claims returned from userinfo only;
   * - `true`: always; `false`: never.
   *
   * Whenever it is called, its answer is `userinfo`, and each member it holds that the ID token
   * lacks (but the ID token's own protocol claims) completes `claims`; an object both hold (an
   * `acme` object, a credential's) is completed the same way, member by member.
   * @default 'missing'
   */
  userinfo?: boolean | 'missing';
}

/** A finished sign-in, with the userinfo claims when they were read. */
export interface FinishedSignIn extends SignInResult {
  readonly userinfo?: UserInfo;
}

/**
 * `result` with userinfo's claims when `when` says to read them: see {@link FinishSignInOptions.userinfo}.
 * @throws {OidcError} `ERR_OIDC_USERINFO` when the endpoint refuses the token or answers for another subject.
 */
async function withUserinfo(
  core: OidcCore,
  result: SignInResult,
  transaction: OidcTransaction,
  when: FinishSignInOptions['userinfo'] = 'missing',
): Promise<FinishedSignIn> {
  const read =
    when === true ||
    (when === 'missing' && lacksRequestedClaims(transaction, result.claims) && (await core.metadata()).userinfo_endpoint !== undefined);
  if (!read) return result;
  const info = await userinfo(core, result);
  return { ...result, claims: completedClaims(result.claims, info), userinfo: info };
}

export interface OidcClient {
  /** The issuer's discovery document, cached for `discoveryMaxAgeMs`; `refresh` reads it again. */
  metadata(options?: { refresh?: boolean }): Promise<AuthorizationServer>;
  /** The live `acme_claims_supported` list: the claim keys a request may name. */
  supportedClaims(): Promise<readonly string[]>;
  /**
   * Checks `params`, makes a fresh state, nonce and PKCE verifier, and returns the URL to send the
   * person to with the transaction to keep in the session until the callback.
   * @throws {InvalidInputError} `ERR_INVALID_INPUT`, naming the key the service would refuse.
   * @throws {OidcError} `ERR_OIDC_DISCOVERY` when the issuer's metadata cannot be read.
   */
  startSignIn(params?: SignInParams): Promise<{ url: URL; transaction: OidcTransaction }>;
  /**
   * Finishes the sign-in: checks `state` and `iss`, exchanges the code with the verifier, and
   * checks the ID token (signature against the JWKS, issuer, audience, nonce, expiry). A
   * transaction is finished once: a second call with the same state is refused.
   * @param callback The callback request's URL (absolute, or a path with its query), its query, or the `Request`.
   * @throws {OidcError} with the code of the failed check.
   */
  finishSignIn(
    callback: URL | URLSearchParams | Request | string,
    transaction: OidcTransaction,
    options?: FinishSignInOptions,
  ): Promise<FinishedSignIn>;
  /**
   * Calls the userinfo endpoint with a finished sign-in's access token.
   * @throws {OidcError} `ERR_OIDC_USERINFO` when the token is refused or the subject differs.
   */
  userinfo(result: SignInResult): Promise<UserInfo>;
}

/** The callback's parameters from a URL, a path with a query, a query string or a `Request`. */
function callbackParams(input: URL | URLSearchParams | Request | string, redirectUri: string): URLSearchParams {
  if (input instanceof URLSearchParams) return input;
  if (typeof input === 'string' && /^[?]?[^/?]*=/.test(input)) return new URLSearchParams(input);
  return new URL(input instanceof Request ? input.url : input, redirectUri).searchParams;
}

function clientAuth(auth: ClientAuthentication | undefined): ClientAuth {
  const method = auth?.method ?? 'none';
  if (method === 'none') return None();
  if (method === 'private_key_jwt') {
    const { privateKey, kid } = auth as Extract<ClientAuthentication, { method: 'private_key_jwt' }>;
    if (!(privateKey instanceof CryptoKey) || privateKey.type !== 'private') {
      throw new ConfigurationError(
        'clientAuthentication.privateKey',
        'must be a private CryptoKey (import a JWK or PEM with jose or crypto.subtle)',
      );
    }
    return PrivateKeyJwt(kid === undefined ? privateKey : { key: privateKey, kid });
  }
  const secret = (auth as { clientSecret?: unknown }).clientSecret;
  if (typeof secret !== 'string' || secret === '')
    throw new ConfigurationError('clientAuthentication.clientSecret', `is required for ${method}`);
  if (method === 'client_secret_basic') return ClientSecretBasic(secret);
  if (method === 'client_secret_post') return ClientSecretPost(secret);
  throw new ConfigurationError('clientAuthentication.method', 'must be none, client_secret_basic, client_secret_post or private_key_jwt');
}

/** A client authentication method's name, as discovery may list it: anything else is not repeated in a message. */
const METHOD_NAME = /^[a-z0-9_-]{1,40}$/;

/**
 * Makes an OIDC client for a backend.
 * @throws {ConfigurationError} `ERR_INVALID_CONFIG` for a missing option or an unusable client authentication.
 * @example
 * ```ts
 * const oidc = createOidcClient({ authUrl: 'https://auth.acme.example', clientId, redirectUri: 'https://rp.example/callback' });
 * ```
 */
export function createOidcClient(options: OidcClientOptions): OidcClient {
  const auth = clientAuth(options?.clientAuthentication);
  const method = options?.clientAuthentication?.method ?? 'none';
  /** The methods the discovery document the code was exchanged under lists, to name in an `invalid_client` refusal. */
  let listed: unknown;
  const core = createCore(
    options,
    // The callback was checked already (flow.ts); oauth4webapi's token request takes only parameters
    // its own check returned, and it passes where flow.ts's did.
    (c, as, callback, transaction) => {
      listed = as.token_endpoint_auth_methods_supported;
      return authorizationCodeGrantRequest(
        as,
        c.client(),
        auth,
        validateAuthResponse(as, c.client(), callback.params, transaction.state),
        transaction.redirectUri,
        transaction.codeVerifier,
        http(c),
      );
    },
    (e, fallback) => {
      const error = mapChallenge(e, fallback);
      // The service says only `invalid_client`: name the client and what to check (never the secret),
      // and the methods its discovery lists when the one configured is not among them ("not shown").
      if (error.error === 'invalid_client') {
        const methods =
          Array.isArray(listed) && !listed.includes(method)
            ? `; ${method} is not among the methods discovery lists: ${listed.filter((m) => METHOD_NAME.test(m)).join(', ')}`
            : '';
        error.message = `${error.message} (client ${JSON.stringify(options.clientId)}: check clientId, and that clientAuthentication's method and secret are the ones registered for it${methods})`;
      }
      return error;
    },
    (keysOf, now) => jwsVerifier(cachedKeys(keysOf, now), verifySignature),
  );
  /** States finished, until their transaction would have expired anyway. */
  const now = () => (options.now ?? Date.now)();
  const states = options.stateStore ?? new MemoryStateStore({ now });
  if (typeof (states as Partial<StateStore> | null)?.use !== 'function')
    throw new ConfigurationError('stateStore', 'must have a use(state, ttlMs) method');

  return {
    metadata: (o) => core.metadata(o?.refresh),
    async supportedClaims() {
      return claimList((await core.metadata())['acme_claims_supported']);
    },
    startSignIn: (params = {}) => core.start(params),
    async finishSignIn(callback, transaction, o = {}) {
      // The transaction comes back from a session store: check its shape before trusting it.
      const t = (transaction ?? {}) as Partial<OidcTransaction>;
      if (
        ![t.state, t.codeVerifier, t.redirectUri, t.issuer].every(isString) ||
        !(t.nonce === undefined || isString(t.nonce)) ||
        typeof t.createdAt !== 'number'
      ) {
        throw new OidcError('ERR_OIDC_TRANSACTION', 'the transaction is not one startSignIn returned');
      }
      const result = await core.finish(callbackParams(callback, options.redirectUri), transaction, async () => {
        // Marked before the exchange, so two callbacks racing with one state (on any instance) cannot both finish.
        let first: boolean;
        try {
          // The shape was checked above: `transaction` is what its type says.
          first = await states.use(transaction.state, Math.max(1, transaction.createdAt + core.transactionMaxAgeMs - now()));
        } catch (cause) {
          // The shared store is unreachable: fail closed, the callback may be a replay.
          throw new OidcError('ERR_OIDC_STATE', 'the state store could not be reached: the sign-in cannot be finished safely', { cause });
        }
        if (!first) throw new OidcError('ERR_OIDC_STATE', 'this sign-in was already finished: a state is used once');
      });
      return withUserinfo(core, result, transaction, o.userinfo);
    },
    userinfo: (result) => userinfo(core, result),
  };
}

export type { IdTokenClaims, OidcClaimsRequest, OidcOptions, OidcTransaction, SignInParams, SignInResult, StandardScope } from './flow.js';
export type { UserInfo } from './userinfo.js';
export { readClaim, readClaims } from '../claims/decoders.js';
export type { ClaimKey, ClaimValue, KnownClaimTypes, PersonName, ReadClaims } from '../claims/decoders.js';
export { ConfigurationError, InvalidInputError, OidcError } from '../errors/index.js';
export type { InputIssue, OidcErrorCode } from '../errors/index.js';
