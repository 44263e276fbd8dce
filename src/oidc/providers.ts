/**
 * What the framework integrations (`authjs/`, `better-auth/`) share: the sign-in parameters as the
 * SDK's OIDC helper sends them, their check against the live service at startup, and the decoding
 * of an ID token's claims into the user a framework keeps. No framework is imported.
 * @module
 */
import { claimKeysIn, placesOf, readClaim } from '../claims/decoders.js';
import { InvalidInputError } from '../errors/index.js';
import { setOwn } from '../internal/guards.js';
import { wireOidcClaims } from './flow.js';
import { createOidcClient, type SignInParams } from './index.js';
import { PROTOCOL_CLAIMS } from './userinfo.js';

/** What each sign-in asks for, as an integration's options take it. */
export type ProviderSignIn = Pick<
  SignInParams,
  'scope' | 'claims' | 'ruleset' | 'aobo' | 'email' | 'phone' | 'phoneCountryCode' | 'prompt' | 'uiLocales' | 'acrValues'
>;

/** An ID token's claims (or userinfo's) as a framework hands them over. */
export type AcmeIdentityProfile = Readonly<Record<string, unknown>>;

/** The user a framework keeps: its standard fields, and every claim the service sent, decoded. */
export interface AcmeIdentityUser {
  id: string;
  name: string | null;
  email: string | null;
  image: null;
  /** Each requested claim key, decoded by the SDK's claim decoders (`readClaim`). */
  acme: Record<string, unknown>;
}

/**
 * The claims of an ID token as the user a framework keeps: `name` from the service's name claim, and every claim decoded.
 * @example
 * ```ts
 * acmeIdentityProfile({ sub: 'p', 'sanctionscheck.is_pep': 'No' }).acme; // { 'sanctionscheck.is_pep': false }
 * ```
 * @throws {InvalidInputError} when `profile` is not an object, or has no subject (`sub`) to keep the user under.
 */
export function acmeIdentityProfile(profile: AcmeIdentityProfile): AcmeIdentityUser {
  if (profile === null || typeof profile !== 'object') {
    throw new InvalidInputError([{ field: 'profile', message: 'must be the claims object of an ID token or of userinfo' }]);
  }
  // The user's id: without a subject, every such profile would be one user named "undefined".
  const sub = profile['sub'];
  if (!((typeof sub === 'string' && sub !== '') || (typeof sub === 'number' && Number.isFinite(sub)))) {
    throw new InvalidInputError([
      { field: 'profile.sub', message: 'must be the subject the user is kept under: a non-empty string (or a number)' },
    ]);
  }
  const acme: Record<string, unknown> = {};
  // Every claim wherever the issuer wrote it: its dotted name, an `acme` object, or its path.
  for (const key of claimKeysIn(profile)) {
    if (PROTOCOL_CLAIMS.has(key)) continue;
    let value: unknown;
    try {
      value = readClaim(profile, key);
    } catch {
      // A value the decoder cannot read is kept as the service sent it, where it sent it first (readClaim says why, if called).
      value = placesOf(profile, key)[0];
    }
    // A claim named `__proto__` is a claim, never the prototype the other claims are read through.
    setOwn(acme, key, value);
  }
  const decoded = acme['acmeidentity.name'];
  const name = typeof decoded === 'object' && decoded !== null ? (decoded as { first_name?: unknown; last_name?: unknown }) : undefined;
  const given = typeof profile['given_name'] === 'string' ? profile['given_name'] : undefined;
  const family = typeof profile['family_name'] === 'string' ? profile['family_name'] : undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const full = [text(name?.first_name) ?? given, text(name?.last_name) ?? family].filter(Boolean).join(' ');
  return {
    id: String(sub),
    name: full || null,
    email: typeof profile['email'] === 'string' ? profile['email'] : null,
    image: null,
    acme,
  };
}

/** A sign-in's scopes as a list: given as a list or a space-separated string; `['openid']` when absent. */
export function scopeList(signIn: ProviderSignIn): string[] {
  if (signIn.scope === undefined) return ['openid'];
  return typeof signIn.scope === 'string' ? signIn.scope.split(' ') : [...signIn.scope];
}

/**
 * The authorization parameters, as the SDK's OIDC helper sends them: `claims` with its `acme` keys
 * in the spec's forms (`{essential: false}` as `null`), left as an object for each framework to write.
 */
export function authorizationParams(signIn: ProviderSignIn): Record<string, unknown> {
  const scope = scopeList(signIn);
  const params: Record<string, unknown> = { scope: scope.join(' ') };
  if (signIn.claims) params['claims'] = wireOidcClaims(signIn.claims);
  const text = { ruleset: signIn.ruleset, aobo: signIn.aobo, email: signIn.email, phone: signIn.phone, prompt: signIn.prompt } as const;
  for (const [key, value] of Object.entries(text)) if (value !== undefined) params[key] = value;
  if (signIn.phoneCountryCode !== undefined) params['phone_country_code'] = String(signIn.phoneCountryCode);
  if (signIn.uiLocales !== undefined) params['ui_locales'] = [signIn.uiLocales].flat().join(' ');
  if (signIn.acrValues !== undefined) params['acr_values'] = [signIn.acrValues].flat().join(' ');
  return params;
}

/**
 * Checks a sign-in's parameters against the live service with the SDK's own check of an
 * authorization request (it discards the URL it makes): discovery's `acme_claims_supported` and
 * `claims_supported`, the essential-claim rule, the scope, the pre-seeded phone.
 * @throws {InvalidInputError} `ERR_INVALID_INPUT`, naming each parameter the service would refuse.
 * @throws {OidcError} `ERR_OIDC_DISCOVERY` when the issuer's discovery cannot be read.
 */
export async function checkSignIn(issuer: string, clientId: string, signIn: ProviderSignIn | undefined): Promise<void> {
  await createOidcClient({ authUrl: issuer, clientId, redirectUri: `${issuer}/unused` }).startSignIn(signIn);
}
