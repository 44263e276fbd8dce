/**
 * `@acme/identity/oidc/browser`: sign a person in from a browser page with Authorization Code +
 * PKCE, as a public client. The transaction waits in `sessionStorage`, keyed by its state, and is
 * used once; two tabs signing in at once each find their own.
 *
 * A browser cannot keep a secret: this entry takes no client secret, in its types and at run
 * time. A confidential client finishes the sign-in on its backend with `@acme/identity/oidc`.
 *
 * @example
 * ```ts
 * import { createBrowserSignIn } from '@acme/identity/oidc/browser';
 *
 * const signIn = createBrowserSignIn({ authUrl, clientId, redirectUri: `${location.origin}/callback` });
 * // On the sign-in button:
 * await signIn.redirect({ scope: ['openid', 'profile'], claims: { acme: ['acmeidentity.name'] } });
 * // On the callback page:
 * const { claims } = await signIn.handleCallback();
 * ```
 * @module
 */
import type { AuthorizationServer } from 'oauth4webapi';
import { ConfigurationError, OidcError } from '../errors/index.js';
import {
  createCore,
  type Exchange,
  type OidcCore,
  type OidcOptions,
  type OidcTransaction,
  type SignInParams,
  type SignInResult,
} from './flow.js';
import { userinfo, type UserInfo } from './userinfo.js';

/** Where transactions wait across the redirect: `sessionStorage` unless told otherwise. */
export type TransactionStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export interface BrowserSignInOptions extends OidcOptions {
  /** @default sessionStorage */
  storage?: TransactionStorage;
  /** Refused: a secret shipped to a browser is public. Finish the sign-in on a backend instead. */
  clientSecret?: never;
  /** Refused: the browser entry is a public client (`none`). */
  clientAuthentication?: never;
}

export interface BrowserSignIn {
  /** The issuer's discovery document (cached); `refresh` reads it again. */
  metadata(options?: { refresh?: boolean }): Promise<AuthorizationServer>;
  /**
   * Checks `params`, keeps the transaction in storage and returns the authorization URL.
   * @throws {InvalidInputError} `ERR_INVALID_INPUT` naming the key the service would refuse.
   */
  authorizationUrl(params?: SignInParams): Promise<URL>;
  /** {@link BrowserSignIn.authorizationUrl}, then sends the page there. */
  redirect(params?: SignInParams): Promise<void>;
  /**
   * Finishes the sign-in on the redirect URI's page: takes the transaction named by `state` out of
   * storage (so it works once), checks `state` and `iss`, exchanges the code with the verifier and
   * checks the ID token, signature included.
   * @param url The callback URL. @default location.href
   * @throws {OidcError} with the code of the failed check.
   */
  handleCallback(url?: URL | string): Promise<SignInResult>;
  /** @internal The shared machinery, for {@link fetchUserInfo}. */
  readonly core: OidcCore;
}

const PREFIX = 'acme-identity.oidc.';

/**
 * The token request of a public client (RFC 6749 §4.1.3 with the PKCE verifier): a form POST and
 * nothing else. oauth4webapi's `authorizationCodeGrantRequest` also carries client authentication,
 * DPoP and mTLS aliases a browser never uses, 0.8 KB of the 9 KB budget; its answer is still checked
 * by oauth4webapi's `processAuthorizationCodeResponse`.
 */
const publicExchange: Exchange = (core, as, callback, transaction) =>
  core.get(as.token_endpoint, {
    method: 'POST',
    headers: { accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.code,
      redirect_uri: transaction.redirectUri,
      code_verifier: transaction.codeVerifier,
      client_id: core.options.clientId,
    }),
  });

/**
 * Makes the browser sign-in helper.
 * @throws {ConfigurationError} `ERR_INVALID_CONFIG` for a client secret or a missing option.
 * @example
 * ```ts
 * const signIn = createBrowserSignIn({ authUrl: 'https://auth.acme.example', clientId, redirectUri });
 * ```
 */
export function createBrowserSignIn(options: BrowserSignInOptions): BrowserSignIn {
  for (const key of ['clientSecret', 'clientAuthentication'] as const) {
    if (options?.[key] !== undefined) {
      throw new ConfigurationError(key, 'a browser cannot keep a secret: finish the sign-in on a backend with @acme/identity/oidc');
    }
  }
  const core = createCore(options, publicExchange);
  const storage = () => options.storage ?? sessionStorage;

  async function authorizationUrl(params: SignInParams = {}) {
    const { url, transaction } = await core.start(params);
    storage().setItem(PREFIX + transaction.state, JSON.stringify(transaction));
    return url;
  }

  return {
    core,
    metadata: (o) => core.metadata(o?.refresh),
    authorizationUrl,
    async redirect(params) {
      location.assign(await authorizationUrl(params));
    },
    async handleCallback(url = location.href) {
      const params = new URL(url, options.redirectUri).searchParams;
      const key = PREFIX + params.get('state');
      const saved = storage().getItem(key);
      // Taken out before anything else: a second use of this state finds nothing.
      storage().removeItem(key);
      const transaction = saved === null ? undefined : storedTransaction(saved);
      if (!transaction) {
        throw new OidcError('ERR_OIDC_STATE', 'no sign-in waits for this state: finished, or started elsewhere');
      }
      return core.finish(params, transaction);
    },
  };
}

/**
 * Calls the userinfo endpoint with a finished sign-in's access token.
 * @throws {OidcError} `ERR_OIDC_USERINFO` when the token is refused or the subject differs.
 * @example
 * ```ts
 * const result = await signIn.handleCallback();
 * const info = await fetchUserInfo(signIn, result);
 * ```
 */
export function fetchUserInfo(signIn: BrowserSignIn, result: SignInResult): Promise<UserInfo> {
  if (!signIn?.core) return Promise.reject(new ConfigurationError('signIn', 'is required: what createBrowserSignIn returned'));
  if (!result?.tokens) return Promise.reject(new ConfigurationError('result', 'is required: what handleCallback resolved'));
  return userinfo(signIn.core, result);
}

export type { OidcClaimsRequest, OidcOptions, OidcTransaction, SignInParams, SignInResult, IdTokenClaims, StandardScope } from './flow.js';
export type { UserInfo } from './userinfo.js';
export { readClaim, readClaims } from '../claims/decoders.js';
export type { ClaimKey, ClaimValue, KnownClaimTypes, PersonName, ReadClaims } from '../claims/decoders.js';
export { InvalidInputError, OidcError, ConfigurationError } from '../errors/index.js';
export type { OidcErrorCode, InputIssue } from '../errors/index.js';

/** A stored sign-in, or `undefined` for an entry that is not one (unreadable, or `null`). */
function storedTransaction(saved: string): OidcTransaction | undefined {
  try {
    return (JSON.parse(saved) as OidcTransaction | null) ?? undefined;
  } catch {
    return undefined;
  }
}
