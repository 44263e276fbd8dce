/**
 * The service's operations, each by its OpenAPI operation id: method and path template. The
 * client calls by them, the fake routes by them, and the observer logs the template the call
 * carries. The OpenAPI document has the same operations (a test holds them together).
 */
export const ROUTES = {
  createApiToken: { method: 'POST', path: '/auth/api-token' },
  refreshApiToken: { method: 'POST', path: '/auth/api-token/refresh' },
  createIdentityRequest: { method: 'POST', path: '/identity/request' },
  getIdentityRequest: { method: 'GET', path: '/identity/request/{access_request_code}/{identity_session_code}' },
  deleteIdentityRequest: { method: 'DELETE', path: '/identity/request/{access_request_code}/{identity_session_code}' },
  getIdentityResponse: { method: 'GET', path: '/identity/response/{access_request_code}/{identity_session_code}' },
  submitCredential: { method: 'POST', path: '/credentials/submit' },
  verifyCredential: { method: 'GET', path: '/credentials/verify/{credential_ref}' },
  getCredentialFileData: { method: 'GET', path: '/credentials/file-data/{credential_ref}' },
  revokeCredential: { method: 'POST', path: '/credentials/revoke/{credential_ref}' },
  getCurrentStatus: { method: 'GET', path: '/status/current' },
  getHealth: { method: 'GET', path: '/status/health' },
} as const;

/** An operation id of the service. */
export type OperationId = keyof typeof ROUTES;

/**
 * A pattern matching the concrete paths of a template, each parameter captured in order. A
 * `credential_ref` is opaque and sent verbatim, so it may hold slashes; the identity codes may not.
 */
export function routePattern(template: string): RegExp {
  const source = template.replace(/\{(\w+)\}/g, (_match, name: string) => (name === 'credential_ref' ? '(.+)' : '([^/]+)'));
  return new RegExp(`^${source}$`);
}

let patterns: [RegExp, string][] | undefined;

/** The template of a concrete path below the base URL (for logs), or the path without its query when it is no operation's. */
export function templateOf(path: string): string {
  patterns ??= Object.values(ROUTES).map((route): [RegExp, string] => [routePattern(route.path), route.path]);
  const [bare = ''] = path.split('?');
  return patterns.find(([pattern]) => pattern.test(bare))?.[1] ?? bare;
}
