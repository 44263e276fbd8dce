/**
 * A sign-in's failures as typed errors: the service's OAuth `error` pair, and oauth4webapi's
 * refusals sorted by their codes and causes (never their messages) into one `OidcError` code per
 * check, naming the ID-token claim at fault.
 */
import { INVALID_RESPONSE, JWT_CLAIM_COMPARISON, JWT_TIMESTAMP_CHECK, OperationProcessingError, ResponseBodyError } from 'oauth4webapi';
import { OidcError, type OidcErrorCode } from '../errors/index.js';
import { printable } from '../internal/text.js';

export const fail = (code: OidcErrorCode, message: string, details?: ConstructorParameters<typeof OidcError>[2]) =>
  new OidcError(code, message, details);

/**
 * The service's `error`/`error_description` pair, as the error's fields (as sent) and message.
 * The message holds them {@link printable}: a callback's are anyone's to write (a link with
 * `error_description=%0A…`), and a line break there would forge a line of the log the message is
 * written to.
 */
export function oauthError(code: OidcErrorCode, e: { error: string; error_description?: string | undefined; status?: number }) {
  const { error, error_description: description, status } = e;
  const said = printable(error) ?? '';
  return fail(code, description ? `${said}: ${printable(description, 256)}` : said, {
    error,
    ...(description ? { errorDescription: description } : {}),
    ...(status ? { status } : {}),
  });
}

/**
 * An oauth4webapi failure as a typed error. Its `cause` can hold the token response or the ID
 * token's claims, so it is never attached: the message says what failed. A network failure
 * (fetch's `TypeError`) carries no secret and is kept as the cause.
 */
export function mapFailure(e: unknown, fallback: OidcErrorCode): OidcError {
  if (e instanceof OidcError) return e;
  if (e instanceof ResponseBodyError) return oauthError(fallback, e);
  if (!(e instanceof OperationProcessingError)) return fail(fallback, e instanceof Error ? e.message : 'failed', { cause: e });
  const cause = (e.cause ?? {}) as FailureCause;
  const [code, claim] = idTokenFailure(e.code, cause) ?? [fallback];
  return fail(
    code,
    code === 'ERR_OIDC_NONCE' && cause.claims?.['nonce'] === undefined ? NO_NONCE : e.message,
    claim === undefined ? {} : { claim },
  );
}

/** Why an ID token without the nonce the sign-in sent is refused, and what to set when the service is meant to ignore it. */
const NO_NONCE =
  'the ID token carries no nonce, though the sign-in sent one: the service ignores nonce (the spec marks it optional). ' +
  'If it is meant to, set nonce: false on the OIDC client; PKCE still binds the code to the sign-in';

/** What oauth4webapi puts in an `OperationProcessingError`'s `cause`, as far as the sorting reads it. */
interface FailureCause {
  claim?: string;
  claims?: Record<string, unknown>;
  header?: unknown;
  body?: { access_token?: unknown; token_type?: unknown; id_token?: unknown };
}

/**
 * The claims oauth4webapi requires of every ID token this SDK receives, in the order it looks for
 * them: the registered ones, then `nonce` (required whenever the sign-in sent one, as it does unless
 * `nonce: false`).
 * `auth_time` is required only when `max_age` was sent.
 */
const REQUIRED_CLAIMS = ['aud', 'exp', 'iat', 'iss', 'sub', 'nonce'] as const;

export const isString = (v: unknown): v is string => typeof v === 'string' && v !== '';
const isNumber = (value: unknown) => typeof value === 'number';

/** What each claim's value must be, in the order oauth4webapi checks them once all are present. */
const CLAIM_TYPES: readonly (readonly [claim: string, valid: (value: unknown) => boolean])[] = [
  ['exp', isNumber],
  ['iat', isNumber],
  ['iss', isString],
  ['nbf', (value) => value === undefined || isNumber(value)],
  ['aud', (value) => isString(value) || Array.isArray(value)],
  ['sub', isString],
];

/**
 * The claim an ID token was refused for, when the refusal's cause holds its claims (oauth4webapi
 * names the claim only in its message, which is not read): the first required claim missing, else
 * the first claim of the wrong type, else the one refusal left, a missing `auth_time` that
 * `max_age` made required.
 */
function faultyClaim(claims: Record<string, unknown>): string {
  const missing = REQUIRED_CLAIMS.find((claim) => claims[claim] === undefined);
  if (missing) return missing;
  return CLAIM_TYPES.find(([claim, valid]) => !valid(claims[claim]))?.[0] ?? 'auth_time';
}

/**
 * Which ID-token refusal an oauth4webapi failure is, by its code and `cause` (never its message),
 * or undefined when it is none: a timestamp (`exp` is the expiry), a claim compared (`nonce`), an
 * `alg` not allowed (the header), a required claim missing (the claims), an `id_token` that is not
 * a string (the token response's body).
 */
function idTokenFailure(code: string | undefined, cause: FailureCause): [OidcErrorCode, (string | undefined)?] | undefined {
  if (code === JWT_TIMESTAMP_CHECK) return [cause.claim === 'exp' ? 'ERR_OIDC_ID_TOKEN_EXPIRED' : 'ERR_OIDC_ID_TOKEN', cause.claim];
  if (code === JWT_CLAIM_COMPARISON) return [cause.claim === 'nonce' ? 'ERR_OIDC_NONCE' : 'ERR_OIDC_ID_TOKEN', cause.claim];
  if (code !== INVALID_RESPONSE) return undefined;
  if (cause.header) return ['ERR_OIDC_ID_TOKEN_SIGNATURE'];
  const { claims, body } = cause;
  if (claims) {
    const claim = faultyClaim(claims);
    // A missing nonce is the nonce check's failure, as a different one is (JWT_CLAIM_COMPARISON).
    return [claim === 'nonce' ? 'ERR_OIDC_NONCE' : 'ERR_OIDC_ID_TOKEN', claim];
  }
  // The token response's members are checked in order, the ID token's last: a response whose
  // access_token and token_type passed was refused for its id_token.
  if (body && isString(body.access_token) && isString(body.token_type) && !isString(body.id_token)) return ['ERR_OIDC_ID_TOKEN'];
  return undefined;
}
