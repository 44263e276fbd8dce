/**
 * `@acme/identity/better-auth`: the service as a provider of better-auth's Generic OAuth plugin
 * (`better-auth/plugins/generic-oauth`). Discovery from `{auth_url}`, PKCE S256, state and nonce as
 * better-auth does them, the ID token verified against the service's JWKS (`requireIdTokenVerification`);
 * the service's `claims` parameter built from typed options and checked with the SDK's claim rules
 * against the live `acme_claims_supported`, and the user's name and email read from the decoded
 * claims. better-auth is not imported: the provider is a plain configuration object.
 *
 * better-auth keeps an email for every user: when the claims name none, the provider asks for the
 * standard `email` claims; a person who still shares no email is sent back with `?error=email_not_found`.
 *
 * @example
 * ```ts
 * import { betterAuth } from 'better-auth';
 * import { genericOAuth } from 'better-auth/plugins/generic-oauth';
 * import { acmeIdentityProvider } from '@acme/identity/better-auth';
 *
 * const acme = await acmeIdentityProvider({
 *   authUrl, clientId, clientSecret,
 *   signIn: { scope: ['openid', 'email'], claims: { acme: ['acmeidentity.name', 'acmeidentity.birth_date'] } },
 * });
 * export const auth = betterAuth({ plugins: [genericOAuth({ config: [acme] })] });
 * ```
 * @module
 */
import { readClaim } from '../claims/decoders.js';
import { ConfigurationError } from '../errors/index.js';
import { acmeIdentityProfile, authorizationParams, checkSignIn, type ProviderSignIn, scopeList } from '../oidc/providers.js';

export interface AcmeIdentityGenericOAuthOptions {
  /** `{auth_url}`, the issuer: its discovery document is read from here. */
  authUrl: string;
  clientId: string;
  /** The confidential client's secret (`client_secret_basic`). */
  clientSecret: string;
  /**
   * What each sign-in asks for: scopes, the service's `claims` (standard names and `acme` claim
   * keys, `{essential: true}` where obtainable), `ruleset`, `aobo`, a pre-seeded `email` or
   * `phone`. Scopes a sign-in adds at request time (`signIn.social({ scopes })`) are not checked.
   * When the claims name no email, `email` and `email_verified` are asked for (with the `email`
   * scope): better-auth keeps an email for every user. @default { scope: ['openid'] }
   */
  signIn?: ProviderSignIn;
  /** The provider's id in better-auth's routes (`/callback/{providerId}`) and in `signIn.social({ provider })`. @default 'acme-identity' */
  providerId?: string;
  /** @default 'acme identity' */
  name?: string;
  /** Where the service sends the person back, when not better-auth's `{baseURL}/callback/{providerId}`. */
  redirectURI?: string;
  /**
   * `false` for a service that leaves the optional `nonce` out of its ID tokens: better-auth then
   * sends none and binds no ID token to its request (`disableIdTokenNonceBinding`), and PKCE and
   * `state` still bind the callback to it. Without it every sign-in is refused. @default true
   */
  nonce?: boolean;
}

/** The user fields better-auth stores (`OAuthMappedUser`): a name and email from the decoded claims. */
// A type alias, not an interface: better-auth's OAuthMappedUser has an index signature, which only aliases meet implicitly.
export type AcmeIdentityMappedUser = {
  name?: string;
  email?: string;
  emailVerified?: boolean;
};

/** A provider of better-auth's Generic OAuth plugin (`GenericOAuthConfig` of `better-auth/plugins/generic-oauth`). */
export interface AcmeIdentityGenericOAuthConfig {
  providerId: string;
  name: string;
  discoveryUrl: string;
  requireIdTokenVerification: true;
  clientId: string;
  clientSecret: string;
  authentication: 'basic';
  pkce: true;
  scopes: string[];
  authorizationUrlParams: Record<string, string>;
  redirectURI?: string;
  /** Set (by `nonce: false`) for a service whose ID tokens leave the nonce out. */
  disableIdTokenNonceBinding?: true;
  mapProfileToUser(profile: Readonly<Record<string, unknown>>): AcmeIdentityMappedUser;
}

/** A boolean claim as the service sends it (`true`, `"true"`), or undefined when absent or unreadable. */
function flag(profile: Readonly<Record<string, unknown>>, key: string): boolean | undefined {
  try {
    const value = readClaim(profile, key);
    return typeof value === 'boolean' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The user better-auth keeps, from the ID token's (or userinfo's) claims: the name from the
 * service's `acmeidentity.name` (JSON) or `given_name`/`family_name`, the email from `email` or
 * `acmeidentity.email`, and whether the service verified it. Every decoded claim stays available
 * through {@link acmeIdentityProfile} on the account's ID token.
 * @example
 * ```ts
 * acmeIdentityUser({ sub: 'p', 'acmeidentity.name': '{"first_name":"Ola","last_name":"N"}', email: 'o@example.com' });
 * // { name: 'Ola N', email: 'o@example.com' }
 * ```
 */
export function acmeIdentityUser(profile: Readonly<Record<string, unknown>>): AcmeIdentityMappedUser {
  const user = acmeIdentityProfile(profile);
  const acmeEmail = user.acme['acmeidentity.email'];
  const email = user.email ?? (typeof acmeEmail === 'string' && acmeEmail !== '' ? acmeEmail : undefined);
  // Verified only when a claim says so and none says otherwise: two that disagree are no verified email.
  const said = [flag(profile, 'email_verified'), flag(profile, 'acmeidentity.email_verified')].filter((flagged) => flagged !== undefined);
  const verified = said.length === 0 ? undefined : !said.includes(false);
  return {
    ...(user.name === null ? {} : { name: user.name }),
    ...(email === undefined ? {} : { email }),
    ...(verified === undefined ? {} : { emailVerified: verified }),
  };
}

/** Whether a sign-in's claims request an email: `email` under the `email` scope's key, or `acmeidentity.email`. */
function asksForEmail(claims: ProviderSignIn['claims']): boolean {
  const acme = claims?.acme;
  const acmeKeys: readonly string[] = Array.isArray(acme) ? acme : Object.keys(acme ?? {});
  return claims?.email?.includes('email') === true || acmeKeys.includes('acmeidentity.email');
}

/**
 * The sign-in better-auth can finish: the service returns the claims the `claims` parameter names,
 * and better-auth refuses a user without an email, so a request that names no email asks for
 * `email` and `email_verified` (with the `email` scope).
 */
function withEmail(signIn: ProviderSignIn = {}): ProviderSignIn {
  const scope = scopeList(signIn);
  if (asksForEmail(signIn.claims)) return { ...signIn, scope };
  return {
    ...signIn,
    scope: scope.includes('email') ? scope : [...scope, 'email'],
    claims: { ...signIn.claims, email: [...new Set([...(signIn.claims?.email ?? []), 'email', 'email_verified'])] },
  };
}

/**
 * The provider, without a network check: for configurations built synchronously. Prefer
 * {@link acmeIdentityProvider}, which checks the claims against the live service first.
 * @example
 * ```ts
 * betterAuth({ plugins: [genericOAuth({ config: [acmeIdentity({ authUrl, clientId, clientSecret })] })] });
 * ```
 * @throws {ConfigurationError} for a missing authUrl, clientId or clientSecret.
 */
export function acmeIdentity(options: AcmeIdentityGenericOAuthOptions): AcmeIdentityGenericOAuthConfig {
  for (const option of ['authUrl', 'clientId', 'clientSecret'] as const) {
    if (typeof options?.[option] !== 'string' || options[option] === '') throw new ConfigurationError(option, 'is required');
  }
  const issuer = options.authUrl.replace(/\/+$/, '');
  const { scope, ...params } = authorizationParams(withEmail(options.signIn));
  // better-auth sends its own `scope` (from `scopes`); every other parameter goes as text, `claims` as JSON.
  const text: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) text[key] = typeof value === 'string' ? value : JSON.stringify(value);
  return {
    providerId: options.providerId ?? 'acme-identity',
    name: options.name ?? 'acme identity',
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    requireIdTokenVerification: true,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    authentication: 'basic',
    pkce: true,
    scopes: String(scope).split(' '),
    authorizationUrlParams: text,
    ...(options.redirectURI === undefined ? {} : { redirectURI: options.redirectURI }),
    ...(options.nonce === false ? { disableIdTokenNonceBinding: true } : {}),
    mapProfileToUser: acmeIdentityUser,
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
 * export const auth = betterAuth({ plugins: [genericOAuth({ config: [acme] })] });
 * ```
 */
export async function acmeIdentityProvider(options: AcmeIdentityGenericOAuthOptions): Promise<AcmeIdentityGenericOAuthConfig> {
  const provider = acmeIdentity(options);
  await checkSignIn(options.authUrl.replace(/\/+$/, ''), options.clientId, withEmail(options.signIn));
  return provider;
}

export { readClaim } from '../claims/decoders.js';
export { type AcmeIdentityProfile, type AcmeIdentityUser, acmeIdentityProfile, type ProviderSignIn } from '../oidc/providers.js';
export { ConfigurationError, InvalidInputError, OidcError } from '../errors/index.js';
