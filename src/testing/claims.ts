/**
 * The fake service's claim registry: what its discovery document lists as `acme_claims_supported`
 * and what its identity endpoints accept. Independent of the SDK's own rules on purpose: the fake
 * answers as the spec says, whatever the client does.
 */
import { OBTAINABLE_CREDENTIALS } from '../contract/claims.js';

export { OBTAINABLE_CREDENTIALS };

/**
 * The standard OIDC claims of each standard scope (OpenID Connect Core §5.4; `openid` holds `sub`):
 * what the `claims` parameter may name under a scope key, and what discovery's `claims_supported`
 * lists beside them.
 */
export const STANDARD_SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = {
  openid: ['sub'],
  profile: [
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
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
};

/** Why a claims request is refused, or `undefined` when the service accepts it. */
export function claimsProblem(claims: unknown, supported: ReadonlySet<string>): string | undefined {
  let entries: [string, unknown][];
  if (Array.isArray(claims)) {
    entries = claims.map((key) => [key, null]);
  } else if (claims !== null && typeof claims === 'object') {
    entries = Object.entries(claims);
  } else {
    return 'must be an array of claim keys or an object of claim keys';
  }
  if (entries.length === 0) return 'must request at least one claim';
  for (const [key, marker] of entries) {
    if (typeof key !== 'string' || !supported.has(key)) return `unrecognised claim key ${JSON.stringify(key)}`;
    if (marker === null) continue;
    const essential =
      typeof marker === 'object' && Object.keys(marker).length === 1 && (marker as { essential?: unknown }).essential === true;
    if (!essential) return `${key}: the value must be null or {"essential": true}`;
    const credential = key.split('.')[0] ?? '';
    if (key.startsWith('document.') || !(OBTAINABLE_CREDENTIALS as readonly string[]).includes(credential)) {
      return `${key}: cannot be essential; ${credential} is not obtainable during a journey`;
    }
  }
  return undefined;
}

/** The claims a request asked for, as keys, and which of them were marked essential. */
export function requestedClaimKeys(claims: unknown): string[] {
  if (Array.isArray(claims)) return claims.filter((key): key is string => typeof key === 'string');
  return claims !== null && typeof claims === 'object' ? Object.keys(claims) : [];
}
