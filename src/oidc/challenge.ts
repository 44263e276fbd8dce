/** OAuth errors carried by a `WWW-Authenticate` challenge, for the entries that can meet one. */
import { WWWAuthenticateChallengeError } from 'oauth4webapi';
import type { OidcErrorCode, OidcError } from '../errors/index.js';
import { mapFailure, oauthError } from './failures.js';

/**
 * {@link mapFailure}, and a 401 answered with a `WWW-Authenticate` challenge (a wrong client
 * secret under `client_secret_basic`, a revoked access token at userinfo) as an `OidcError`
 * carrying the challenge's `error`, `error_description` and the `status`, as a JSON error body's.
 * A challenge without an `error` parameter is `invalid_client` at the token endpoint and
 * `invalid_token` at userinfo, as RFC 6749 §5.2 and RFC 6750 §3.1 name a 401 there.
 */
export function mapChallenge(e: unknown, fallback: OidcErrorCode): OidcError {
  if (!(e instanceof WWWAuthenticateChallengeError)) return mapFailure(e, fallback);
  // Several challenges (`Basic realm="…", Bearer error="…"`): the first that names an error says it.
  const challenge = e.cause.find((each) => each.parameters['error'] !== undefined) ?? e.cause[0];
  // Without an `error` parameter (`Basic realm="…"`), a 401 is what RFC 6749 §5.2 and RFC 6750 §3.1 name it.
  const { error = fallback === 'ERR_OIDC_TOKEN' ? 'invalid_client' : 'invalid_token', error_description } = challenge?.parameters ?? {};
  return oauthError(fallback, { error, ...(error_description !== undefined ? { error_description } : {}), status: e.status });
}
