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
import { readClaim } from '../claims/decoders.js';
import { ConfigurationError } from '../errors/index.js';
import { createOidcClient, type SignInParams } from '../oidc/index.js';

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
  signIn?: Pick<
    SignInParams,
    'scope' | 'claims' | 'ruleset' | 'aobo' | 'email' | 'phone' | 'phoneCountryCode' | 'prompt' | 'uiLocales' | 'acrValues'
  >;
  /** The provider's id in Auth.js's routes (`/auth/signin/{id}`, `/auth/callback/{id}`). @default 'acme-identity' */
  id?: string;
  /** @default 'acme identity' */
  name?: string;
}

/** The ID token's claims as Auth.js hands them to `profile` (and to the `jwt` callback, as `profile`). */
export type AcmeIdentityProfile = Readonly<Record<string, unknown>>;

/** The user Auth.js keeps: its standard fields, and every claim the service sent, decoded. */
export interface AcmeIdentityUser {
  id: string;
  name: string | null;
  email: string | null;
  image: null;
  /** Each requested claim key, decoded by the SDK's claim decoders (`readClaim`). */
  acme: Record<string, unknown>;
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
  profile(profile: AcmeIdentityProfile): AcmeIdentityUser;
}

const STANDARD = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'nbf',
  'auth_time',
  'nonce',
  'acr',
  'amr',
  'azp',
  'at_hash',
  'c_hash',
  'sid',
  'jti',
]);

/** The claims of an ID token as the user Auth.js keeps: `name` from the service's name claim, and every claim decoded. */
export function acmeIdentityProfile(profile: AcmeIdentityProfile): AcmeIdentityUser {
  const acme: Record<string, unknown> = {};
  for (const key of Object.keys(profile)) {
    if (STANDARD.has(key)) continue;
    try {
      acme[key] = readClaim(profile, key);
    } catch {
      // A value the decoder cannot read is kept as the service sent it (readClaim says why, if called).
      acme[key] = profile[key];
    }
  }
  const decoded = acme['acmeidentity.name'];
  const name = typeof decoded === 'object' && decoded !== null ? (decoded as { first_name?: unknown; last_name?: unknown }) : undefined;
  const given = typeof profile['given_name'] === 'string' ? profile['given_name'] : undefined;
  const family = typeof profile['family_name'] === 'string' ? profile['family_name'] : undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const full = [text(name?.first_name) ?? given, text(name?.last_name) ?? family].filter(Boolean).join(' ');
  return {
    id: String(profile['sub']),
    name: full || null,
    email: typeof profile['email'] === 'string' ? profile['email'] : null,
    image: null,
    acme,
  };
}

/** The authorization parameters Auth.js sends, as the SDK's OIDC helper would send them (Auth.js writes `claims` as JSON itself). */
function authorizationParams(signIn: NonNullable<AcmeIdentityProviderOptions['signIn']>): Record<string, unknown> {
  const scope = signIn.scope === undefined ? ['openid'] : typeof signIn.scope === 'string' ? signIn.scope.split(' ') : [...signIn.scope];
  const params: Record<string, unknown> = { scope: scope.join(' ') };
  if (signIn.claims) params['claims'] = signIn.claims;
  const text = { ruleset: signIn.ruleset, aobo: signIn.aobo, email: signIn.email, phone: signIn.phone, prompt: signIn.prompt } as const;
  for (const [key, value] of Object.entries(text)) if (value !== undefined) params[key] = value;
  if (signIn.phoneCountryCode !== undefined) params['phone_country_code'] = String(signIn.phoneCountryCode);
  if (signIn.uiLocales !== undefined) params['ui_locales'] = [signIn.uiLocales].flat().join(' ');
  if (signIn.acrValues !== undefined) params['acr_values'] = [signIn.acrValues].flat().join(' ');
  return params;
}

/**
 * The provider, without a network check: for configurations built synchronously. Prefer
 * {@link acmeIdentityProvider}, which checks the claims against the live service first.
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
    checks: ['pkce', 'state', 'nonce'],
    authorization: { params: authorizationParams(options.signIn ?? {}) },
    client: { token_endpoint_auth_method: 'client_secret_basic' },
    profile: acmeIdentityProfile,
  };
}

/**
 * The provider, once its sign-in parameters are checked against the live service (discovery's
 * `acme_claims_supported` and `claims_supported`, the essential-claim rule, the scope, the
 * pre-seeded phone): a mistake the service would answer with an error page is an error at startup.
 * @throws {InvalidInputError} `ERR_INVALID_INPUT`, naming each parameter the service would refuse.
 * @throws {OidcError} `ERR_OIDC_DISCOVERY` when the issuer's discovery cannot be read.
 */
export async function acmeIdentityProvider(options: AcmeIdentityProviderOptions): Promise<AcmeIdentityProviderConfig> {
  const provider = AcmeIdentity(options);
  // The SDK's own check of an authorization request (it discards the URL it makes).
  await createOidcClient({ authUrl: options.authUrl, clientId: options.clientId, redirectUri: `${provider.issuer}/unused` }).startSignIn(
    options.signIn,
  );
  return provider;
}

export { readClaim } from '../claims/decoders.js';
export { ConfigurationError, InvalidInputError, OidcError } from '../errors/index.js';
