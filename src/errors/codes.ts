/** The closed union of every code the SDK's errors carry: callers match on these, never on messages. */

export type ErrorCode =
  | 'ERR_API'
  | 'ERR_BAD_REQUEST'
  | 'ERR_VALIDATION'
  | 'ERR_AUTHENTICATION'
  | 'ERR_PERMISSION_DENIED'
  | 'ERR_NOT_FOUND'
  | 'ERR_CONFLICT'
  | 'ERR_PRECONDITION_FAILED'
  | 'ERR_CREDENTIAL_EXPIRED'
  | 'ERR_CREDENTIAL_REVOKED'
  | 'ERR_CREDENTIAL_PENDING_ACCEPTANCE'
  | 'ERR_CREDENTIAL_VERIFICATION_FAILED'
  | 'ERR_PAYLOAD_TOO_LARGE'
  | 'ERR_RATE_LIMITED'
  | 'ERR_INTERNAL'
  | 'ERR_EMAIL_DELIVERY'
  | 'ERR_DATABASE'
  | 'ERR_EXTERNAL_SERVICE'
  | 'ERR_SERVICE_UNAVAILABLE'
  | 'ERR_CONNECTION'
  | 'ERR_TIMEOUT'
  | 'ERR_ABORTED'
  | 'ERR_INVALID_RESPONSE'
  | 'ERR_INVALID_INPUT'
  | 'ERR_INVALID_CONFIG'
  | SdJwtErrorCode
  | 'ERR_JWKS'
  | 'ERR_CLAIM_DECODE'
  | WebhookErrorCode
  | OidcErrorCode
  | 'ERR_IDENTITY_FLOW'
  | InboxErrorCode;

/** Why the identity inbox set an entry aside (its dead-letter reason) or refused a call. */
export type InboxErrorCode =
  /** The webhook's X-Access-Token expired before the identity was fetched: only a fresh delivery can fetch it now. */
  | 'ERR_INBOX_TOKEN_EXPIRED'
  /** Every attempt allowed failed; the last failure is the error's `cause`. */
  | 'ERR_INBOX_RETRIES_EXHAUSTED'
  /** The fetch failed in a way no retry changes (a tampered response, a token for another request). */
  | 'ERR_INBOX_REFUSED'
  /** Your handler kept failing; its last error is the `cause`. */
  | 'ERR_INBOX_HANDLER'
  /** The identity session code of the request is not known (neither \`expect\`ed nor found by \`sessionCode\`). */
  | 'ERR_INBOX_UNKNOWN_REQUEST'
  /** No entry has that id (replay, discard). */
  | 'ERR_INBOX_NOT_FOUND';

/** Why an OIDC sign-in failed; one code per check, so a caller (and a test) can tell them apart. */
export type OidcErrorCode =
  /** The discovery document could not be fetched or read, or names another issuer. */
  | 'ERR_OIDC_DISCOVERY'
  /** The callback's `state` is missing, is not the one sent, or its sign-in was already finished (used twice). */
  | 'ERR_OIDC_STATE'
  /** The callback's RFC 9207 `iss` is not the issuer's, or is missing although the issuer advertises it. */
  | 'ERR_OIDC_ISSUER'
  /** The service redirected back with an OAuth `error` (the person cancelled, say): see `error` and `errorDescription`. */
  | 'ERR_OIDC_AUTHORIZATION'
  /** The transaction given to the callback is not one the helper made, or is too old. */
  | 'ERR_OIDC_TRANSACTION'
  /** The token endpoint refused the code (a replayed code or a wrong verifier is `invalid_grant`). */
  | 'ERR_OIDC_TOKEN'
  /** The ID token is missing, or a claim (`iss`, `aud`, `azp`, `sub`, `iat`, `nbf`) is not what it must be: see `claim`. */
  | 'ERR_OIDC_ID_TOKEN'
  /** The ID token's `exp` has passed (beyond the clock tolerance). */
  | 'ERR_OIDC_ID_TOKEN_EXPIRED'
  /** The ID token's `nonce` is not the one sent. */
  | 'ERR_OIDC_NONCE'
  /** The ID token's signature does not verify against the issuer's JWKS, or its `alg` is not allowed (`none`, HMAC). */
  | 'ERR_OIDC_ID_TOKEN_SIGNATURE'
  /** The userinfo endpoint refused the access token, or answered for another subject. */
  | 'ERR_OIDC_USERINFO'
  /** An endpoint could not be reached or answered something that is not OAuth. */
  | 'ERR_OIDC_RESPONSE';

/** Why a webhook delivery was refused; each is its own code so a handler can answer accordingly. */
export type WebhookErrorCode =
  /** The body was already parsed into an object: the HMAC needs the exact raw bytes. */
  | 'ERR_WEBHOOK_PARSED_BODY'
  | 'ERR_WEBHOOK_EMPTY_BODY'
  | 'ERR_WEBHOOK_BODY_TOO_LARGE'
  | 'ERR_WEBHOOK_MISSING_SIGNATURE'
  /** The signature header is not hex or base64 of a MAC of the configured algorithm's length (truncated, say), or lists more than `maxSignatures`. */
  | 'ERR_WEBHOOK_MALFORMED_SIGNATURE'
  /** The signature is in an encoding other than the one configured. */
  | 'ERR_WEBHOOK_SIGNATURE_ENCODING'
  /** The signature does not match the body with any configured secret. */
  | 'ERR_WEBHOOK_SIGNATURE'
  | 'ERR_WEBHOOK_MISSING_TIMESTAMP'
  /** The timestamp is neither a UNIX time in digits nor an ISO 8601 date with its zone (sent twice, say), or is outside the tolerance, in either direction. */
  | 'ERR_WEBHOOK_TIMESTAMP'
  /** The verified body is not the documented payload. */
  | 'ERR_WEBHOOK_PAYLOAD'
  /** This delivery was processed before (a redelivery): answer 200, it must not be processed twice. */
  | 'ERR_WEBHOOK_DUPLICATE'
  /** Another attempt is processing this delivery now: answer non-200 (409), so the service retries it later. */
  | 'ERR_WEBHOOK_IN_PROGRESS';

/**
 * Why an SD-JWT, a credential JWT or an identity response was refused: one code per rule, so a
 * caller (and a test) can tell a tampered digest from an expired response.
 * @see RFC 9901, section 7
 */
export type SdJwtErrorCode =
  /** Not a compact SD-JWT or JWT; a segment or disclosure is not base64url (JSON); a field has the wrong type; nested deeper than 64; an SD-JWT without its `~`; a plain JWT as `credential_jwt`. */
  | 'ERR_SD_JWT_MALFORMED'
  /** The JWS algorithm is `none`, symmetric (HMAC) or not in the allowed list. */
  | 'ERR_SD_JWT_ALG_NOT_ALLOWED'
  /** No usable key of the issuer's JWKS matches the header (`kid`, `alg`, `use`, `key_ops`; never a private JWK), even after one refetch. */
  | 'ERR_SD_JWT_KEY_NOT_FOUND'
  /** The signature does not verify. */
  | 'ERR_SD_JWT_SIGNATURE'
  /** `iss` is not the expected issuer. */
  | 'ERR_SD_JWT_ISSUER'
  /** `_sd_alg` is not sha-256, sha-384 or sha-512. */
  | 'ERR_SD_JWT_HASH_ALG'
  /** A disclosure names `_sd` or `...`. */
  | 'ERR_SD_JWT_RESERVED_NAME'
  /** A three-element disclosure referenced from an array, or a two-element one from `_sd`. */
  | 'ERR_SD_JWT_DISCLOSURE_FORM'
  /** A digest appears more than once in the payload (directly or through disclosures). */
  | 'ERR_SD_JWT_DUPLICATE_DIGEST'
  /** The same disclosure (or the same claim, in a response envelope) was sent twice. */
  | 'ERR_SD_JWT_DUPLICATE_DISCLOSURE'
  /** A disclosure that no digest in the payload references. */
  | 'ERR_SD_JWT_UNREFERENCED_DISCLOSURE'
  /** A disclosed claim name that already exists as a plaintext claim at the same level (or as a field of the response envelope). */
  | 'ERR_SD_JWT_CLAIM_COLLISION'
  /** A disclosure in a response envelope whose digest is not in `_sd`. */
  | 'ERR_SD_JWT_DIGEST_MISMATCH'
  /** The envelope's decoded `disclosures` disagree with the compact ones of a `credential_jwt`. */
  | 'ERR_SD_JWT_ENVELOPE_MISMATCH'
  /** A claim the verifier requires (for example `exp`) is absent. */
  | 'ERR_SD_JWT_MISSING_CLAIM'
  /** `exp` has elapsed. */
  | 'ERR_SD_JWT_EXPIRED'
  /** `nbf` is in the future. */
  | 'ERR_SD_JWT_NOT_YET_VALID'
  /** The response's `request_code` is not the code of the request the caller created. */
  | 'ERR_SD_JWT_REQUEST_CODE'
  /** A key-binding JWT is missing, or its `typ`, signature, `sd_hash`, `aud`, `nonce` or `iat` is wrong. */
  | 'ERR_SD_JWT_KEY_BINDING'
  /** A signature was required, but the claims are only consistent with the unsigned envelope. */
  | 'ERR_SD_JWT_SIGNATURE_REQUIRED'
  /** A `credential_jwt` whose `sub` is not the identity response's `sub`: another person's credential. */
  | 'ERR_SD_JWT_SUBJECT_MISMATCH'
  /** An identity response with no claim, no credential and nothing in `disclosures_missing` (or claims only in credential JWTs no `keys` could verify). */
  | 'ERR_SD_JWT_NO_CLAIMS';
