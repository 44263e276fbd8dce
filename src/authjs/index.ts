/**
 * `@acme/identity/authjs`: the service as an Auth.js (`@auth/core`) provider, for Next.js, Express
 * (`@auth/express`), SvelteKit and every other Auth.js integration. Discovery from `{auth_url}`,
 * PKCE S256, state and nonce as Auth.js does them, the ID token verified by Auth.js; the service's
 * `claims` parameter built from typed options and checked with the SDK's claim rules against the
 * live `acme_claims_supported`, and the profile's values decoded (`name` from its JSON, `is_pep`
 * from "Yes"/"No"). Auth.js is not imported: the provider is a plain configuration object.
 *
 * @example
 * ```ts
 * import { ExpressAuth } from '@auth/express';
 * import { acmeIdentityProvider } from '@acme/identity/authjs';
 *
 * const acme = await acmeIdentityProvider({
 *   authUrl, clientId, clientSecret,
 *   signIn: { scope: ['openid', 'email'], claims: { acme: ['acmeidentity.name', 'acmeidentity.birth_date'] } },
 * });
 * app.use('/auth/*', ExpressAuth({ providers: [acme], secret: process.env.AUTH_SECRET }));
 * ```
 * @module
 */
import { decodeJwt } from 'jose/jwt/decode';
import { ConfigurationError } from '../errors/index.js';
import type { IdTokenClaims } from '../oidc/flow.js';
import {
  type AcmeIdentityProfile,
  type AcmeIdentityUser,
  acmeIdentityProfile,
  authorizationParams,
  checkSignIn,
  type ProviderSignIn,
} from '../oidc/providers.js';
import { completedClaims, type UserInfo } from '../oidc/userinfo.js';

export interface AcmeIdentityProviderOptions {
  /** `{auth_url}`, the issuer: its discovery document is read from here. */
  authUrl: string;
  clientId: string;
  /** The confidential client's secret (`client_secret_basic`). */
  clientSecret: string;
  /**
   * What each sign-in asks for: scopes, the service's `claims` (standard names and `acme` claim
   * keys, `{essential: true}` where obtainable), `ruleset`, `aobo`, a pre-seeded `email` or
   * `phone`. @default { scope: ['openid'] }
   */
  signIn?: ProviderSignIn;
  /** The provider's id in Auth.js's routes (`/auth/signin/{id}`, `/auth/callback/{id}`). @default 'acme-identity' */
  id?: string;
  /** @default 'acme identity' */
  name?: string;
  /**
   * Auth.js's `nonce` check: a nonce sent and required back in the ID token. `false` for a service
   * that ignores the optional nonce (its ID tokens carry none, and Auth.js refuses every sign-in);
   * PKCE and state still bind the callback to the sign-in, as with the OIDC client's `nonce: false`.
   * @default true
   */
  nonce?: boolean;
  /**
   * Where Auth.js reads the person's claims. Where the service delivers the claims a sign-in asked
   * for is not shown: in the ID token, from the userinfo endpoint, or some in each (OpenID Connect
   * Core §5.4 has a provider that issues an access token return scope claims from userinfo only).
   * - `'both'`: Auth.js verifies the ID token, then calls userinfo (Auth.js's `idToken: false`,
   *   checking userinfo answers for the ID token's subject); `profile` gets userinfo's answer,
   *   and the provider's `profile` completes it with the ID token's claims (the ID token's value
   *   kept where both hold one, objects both hold merged member by member). One request more per sign-in.
   * - `'id-token'`: the ID token's claims only; claims the service sends from userinfo alone are missed.
   * @default 'both'
   */
  claimsFrom?: 'both' | 'id-token';
}

/** An Auth.js OIDC provider configuration (`OIDCConfig` of `@auth/core/providers`). */
export interface AcmeIdentityProviderConfig {
  id: string;
  name: string;
  type: 'oidc';
  issuer: string;
  clientId: string;
  clientSecret: string;
  checks: ('pkce' | 'state' | 'nonce')[];
  authorization: { params: Record<string, unknown> };
  client: { token_endpoint_auth_method: 'client_secret_basic' };
  /** `false`: Auth.js reads userinfo after verifying the ID token (`claimsFrom: 'both'`). */
  idToken: boolean;
  /** The user Auth.js keeps, from its profile completed with the ID token's claims (see {@link AcmeIdentityProviderOptions.claimsFrom}). */
  profile(profile: AcmeIdentityProfile, tokens?: { readonly id_token?: unknown }): AcmeIdentityUser;
}

/**
 * The user from the profile Auth.js hands over (userinfo's answer, or the ID token's claims) with
 * each member the ID token holds and the profile lacks. Auth.js verified the ID token before.
 */
function userOf(profile: AcmeIdentityProfile, tokens?: { readonly id_token?: unknown }): AcmeIdentityUser {
  if (typeof tokens?.id_token !== 'string') return acmeIdentityProfile(profile);
  return acmeIdentityProfile(completedClaims(decodeJwt(tokens.id_token) as IdTokenClaims, profile as UserInfo));
}

/**
 * The provider, without a network check: for configurations built synchronously. Prefer
 * {@link acmeIdentityProvider}, which checks the claims against the live service first.
 * @example
 * ```ts
 * export const { handlers } = NextAuth({ providers: [AcmeIdentity({ authUrl, clientId, clientSecret })] });
 * ```
 * @throws {ConfigurationError} for a missing authUrl, clientId or clientSecret.
 */
export function AcmeIdentity(options: AcmeIdentityProviderOptions): AcmeIdentityProviderConfig {
  for (const option of ['authUrl', 'clientId', 'clientSecret'] as const) {
    if (typeof options?.[option] !== 'string' || options[option] === '') throw new ConfigurationError(option, 'is required');
  }
  return {
    id: options.id ?? 'acme-identity',
    name: options.name ?? 'acme identity',
    type: 'oidc',
    issuer: options.authUrl.replace(/\/+$/, ''),
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    checks: options.nonce === false ? ['pkce', 'state'] : ['pkce', 'state', 'nonce'],
    authorization: { params: authorizationParams(options.signIn ?? {}) },
    client: { token_endpoint_auth_method: 'client_secret_basic' },
    idToken: options.claimsFrom === 'id-token',
    profile: userOf,
  };
}

/**
 * The provider, once its sign-in parameters are checked against the live service (discovery's
 * `acme_claims_supported` and `claims_supported`, the essential-claim rule, the scope, the
 * pre-seeded phone): a mistake the service would answer with an error page is an error at startup.
 * @throws {InvalidInputError} `ERR_INVALID_INPUT`, naming each parameter the service would refuse.
 * @throws {OidcError} `ERR_OIDC_DISCOVERY` when the issuer's discovery cannot be read.
 * @example
 * ```ts
 * const acme = await acmeIdentityProvider({ authUrl, clientId, clientSecret, signIn: { claims: { acme: ['acmeidentity.name'] } } });
 * app.use('/auth', ExpressAuth({ providers: [acme] }));
 * ```
 */
export async function acmeIdentityProvider(options: AcmeIdentityProviderOptions): Promise<AcmeIdentityProviderConfig> {
  const provider = AcmeIdentity(options);
  await checkSignIn(provider.issuer, options.clientId, options.signIn);
  return provider;
}

export { readClaim } from '../claims/decoders.js';
export { type AcmeIdentityProfile, type AcmeIdentityUser, acmeIdentityProfile, type ProviderSignIn } from '../oidc/providers.js';
export { ConfigurationError, InvalidInputError, OidcError } from '../errors/index.js';
