/** The userinfo call, kept apart so a browser page that does not use it does not ship it. */
import { allowInsecureRequests, customFetch, processUserInfoResponse, userInfoRequest, type UserInfoResponse } from 'oauth4webapi';
import { claimKeysIn } from '../claims/decoders.js';
import type { IdTokenClaims, OidcCore, OidcTransaction, SignInResult } from './flow.js';
import { mapChallenge } from './challenge.js';
import { isObject, setOwn } from '../internal/guards.js';

/** The userinfo endpoint's claims: `sub`, plus the requested claims. */
export type UserInfo = UserInfoResponse & Readonly<Record<string, unknown>>;

/**
 * oauth4webapi's request options for `core`: its `fetch` and its `http:` rule. Here, not in the
 * core, so the browser sign-in page that never calls a request function does not ship it.
 */
export const http = (core: OidcCore) => ({
  [customFetch]: core.get as (url: string, init: object) => Promise<Response>,
  [allowInsecureRequests]: core.insecure,
});

/**
 * Calls the userinfo endpoint with the sign-in's access token and checks that it answers for the
 * ID token's subject.
 * @throws {OidcError} `ERR_OIDC_USERINFO` when the token is refused or the subject differs.
 */
export async function userinfo(core: OidcCore, result: Pick<SignInResult, 'claims' | 'tokens'>): Promise<UserInfo> {
  try {
    const as = await core.metadata();
    const client = core.client();
    const response = await userInfoRequest(as, client, result.tokens.access_token, http(core));
    return (await processUserInfoResponse(as, client, result.claims.sub as string, response)) as UserInfo;
  } catch (e) {
    throw mapChallenge(e, 'ERR_OIDC_USERINFO');
  }
}

/** The claims each standard scope asks for (OpenID Connect Core §5.4). */
const SCOPE_CLAIMS: ReadonlyMap<string, readonly string[]> = new Map([
  [
    'profile',
    [
      'name',
      'family_name',
      'given_name',
      'middle_name',
      'nickname',
      'preferred_username',
      'profile',
      'picture',
      'website',
      'gender',
      'birthdate',
      'zoneinfo',
      'locale',
      'updated_at',
    ],
  ],
  ['email', ['email', 'email_verified']],
  ['phone', ['phone_number', 'phone_number_verified']],
  ['address', ['address']],
]);

/**
 * The ID token's own claims (OpenID Connect Core §2, §3.1.3.6; RFC 7519 §4.1): never taken from
 * userinfo, and never one of the service's claims a framework's user keeps (`providers.ts`).
 */
export const PROTOCOL_CLAIMS: ReadonlySet<string> = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'nbf',
  'jti',
  'nonce',
  'auth_time',
  'acr',
  'amr',
  'azp',
  'at_hash',
  'c_hash',
  's_hash',
  'sid',
]);

/** The names in a transaction's list, when it is one: a transaction comes back from a session store. */
const names = (list: unknown): string[] => (Array.isArray(list) ? list.filter((name): name is string => typeof name === 'string') : []);

/**
 * Whether the ID token lacks a claim the sign-in asked for: a name the `claims` parameter named, or
 * every claim of a standard scope asked for. Where the service delivers requested claims is not
 * shown, and OpenID Connect Core §5.4 has a provider that issues an access token return the scope
 * claims from userinfo only.
 */
export function lacksRequestedClaims(transaction: Pick<OidcTransaction, 'scope' | 'claims'>, claims: IdTokenClaims): boolean {
  const present = new Set(claimKeysIn(claims));
  const scopeUnanswered = names(transaction.scope).some((scope) => SCOPE_CLAIMS.get(scope)?.every((name) => !present.has(name)));
  return scopeUnanswered || names(transaction.claims).some((name) => !present.has(name));
}

/**
 * The ID token's claims completed from userinfo: each member userinfo holds and the ID token lacks,
 * but the ID token's own protocol claims. Where both hold a member, the signed ID token's value is
 * kept; where both hold an object there (an `acme` object, a credential's), the two are merged the
 * same way, as a provider may put some of its claims in each (OpenID Connect Core §5.5).
 */
export function completedClaims(claims: IdTokenClaims, info: UserInfo): IdTokenClaims {
  const added = Object.fromEntries(Object.entries(info).filter(([name]) => !PROTOCOL_CLAIMS.has(name)));
  return merged(claims, added) as IdTokenClaims;
}

/** `info`'s members with `ours` over them: ours kept wherever both hold one, objects both hold merged alike. */
function merged(ours: Record<string, unknown>, info: Record<string, unknown>): Record<string, unknown> {
  // Userinfo's members first, then each of ours over its own: a member named `__proto__` is a claim.
  const out = { ...info };
  for (const [name, value] of Object.entries(ours)) {
    const theirs = Object.hasOwn(out, name) ? out[name] : undefined;
    setOwn(out, name, isObject(value) && isObject(theirs) ? merged(value, theirs) : value);
  }
  return out;
}
