/**
 * Whether `actual` names the issuer `expected`: the same identifier, or the same but for one
 * trailing slash. A URL's `href` writes an origin with one (`https://auth.example/`), the spec's
 * `{auth_url}` without; both name one issuer, and nothing else is read as equal.
 */
export function sameIssuer(actual: unknown, expected: string): boolean {
  if (typeof actual !== 'string') return false;
  return withoutSlash(actual) === withoutSlash(expected);
}

const withoutSlash = (identifier: string) => (identifier.endsWith('/') ? identifier.slice(0, -1) : identifier);
