/**
 * Readings: the choices the spec leaves open, each one the fake can make the way the real service
 * might. The defaults are the fake's own reading (docs/spec-choices.md); every
 * other value is one a service written from the spec alone could choose. The SDK is tested
 * against each (`test/readings/`), so it and the fake never silently agree on one reading.
 */

/** How the fake reads each choice the spec leaves open. Every field is optional: the default is the fake's own reading. */
export interface FakeReadings {
  /**
   * Where the webhook payload says what happened ("kinds of event and the complete payload
   * schema: not shown"): `event: 'approved'` (`event`, the default), `type: 'cancelled'` (`type`),
   * `event_type: 'identity.request.approved'` (`dotted`), `status: 'APPROVED'` (`status`), no
   * field at all (`none`), Standard Webhooks' envelope `{type, timestamp, data: {…}}` (`envelope`),
   * an event object as Stripe writes one, `{id, object: 'event', type, created, data: {object:
   * {…}}}` (`object`), or `{event, payload: {…}}` (`payload`).
   */
  webhookKind?: 'event' | 'type' | 'dotted' | 'status' | 'none' | 'envelope' | 'object' | 'payload';
  /**
   * How the webhook is signed ("HMAC algorithm, signed content … not shown"): `sha256=` and hex
   * of the body (`prefixed-hex`, the default), bare hex (`hex`), base64 (`base64`), Stripe's
   * `t=…,v1=…` over `"<t>.<body>"` (`stripe`), Standard Webhooks' headers (`standard`), or two
   * Stripe sets separated by a space, the first by a secret the client never had (`rotation`: a
   * sender in the middle of rotating its secret), or `sha256=` and hex of `"<t>.<body>"` with the
   * timestamp in a header of its own, `X-Webhook-Timestamp` (`timestamped`), or Slack's `v0=` and
   * hex of `"v0:<t>:<body>"`, the timestamp in a header of its own (`slack`, Zoom's form too).
   */
  webhookSignature?: 'prefixed-hex' | 'hex' | 'base64' | 'stripe' | 'standard' | 'rotation' | 'timestamped' | 'slack';
  /** Status records: at the top level, as the spec's status tables show them (`bare`, the default), or inside the general `{data, correlation_id}` rule (`wrapped`). */
  statusEnvelope?: 'bare' | 'wrapped';
  /** Token responses: inside `{data, correlation_id}` (`wrapped`, the default, the spec's general rule) or at the top level (`bare`). */
  tokenEnvelope?: 'wrapped' | 'bare';
  /** The spec's integers (`expires_in`, `exp`, `nbf`, `iat`, `time_expires`, timestamps…): JSON numbers (`number`, the default) or strings of digits (`string`). */
  numbers?: 'number' | 'string';
  /** The UNIX times of REST answers (`exp`, `nbf`, `iat`, `time_expires`, `opened_at`, `completed_at`, status `timestamp`): in seconds (the default, as the spec types them), milliseconds or microseconds. */
  timeUnit?: 'seconds' | 'milliseconds' | 'microseconds';
  /** Error bodies: `{error: {…}}` (`envelope`, the default, the spec's) or the error object's fields at the top level (`bare`). */
  errorBody?: 'envelope' | 'bare';
  /** The identity response's `_sd_alg`: `sha256` (the default, the spec's example), RFC 9901's `sha-256`, or Web Crypto's `SHA-256`. */
  sdAlg?: 'sha256' | 'sha-256' | 'SHA-256';
  /**
   * Claim values ("claim value types are not uniform"): as the spec names them (`spec`, the
   * default: booleans, `is_pep` "Yes"/"No", `name` and `matches` JSON strings), every value a
   * string (`strings`: "true", "Yes"), or JSON values already decoded (`decoded`: `name` and
   * `matches` as objects, `is_pep` a boolean).
   */
  claimValues?: 'spec' | 'strings' | 'decoded';
  /** Whether answers carry a `Date` header (`sent`, the default) or none (`omitted`). */
  dateHeader?: 'sent' | 'omitted';
  /** How far the service's clock is from the fake's `now`, in seconds (a service whose clock is off). @default 0 */
  clockSkewSeconds?: number;
  /** Which lifetime fields a token response carries (all four fields are optional): the option `tokenLifetime`, as a reading. @default 'both' */
  tokenLifetime?: 'both' | 'expires_in' | 'expires' | 'none';
  /** How disclosure JSON is written before it is hashed ("the exact input of the hash: not shown"): the option `disclosureEncoding`, as a reading. @default 'compact' */
  disclosureEncoding?: 'compact' | 'spaced';
  /**
   * The `X-Request-Timestamp` format the service demands ("not shown"): the option
   * `timestampFormat`, as a reading. The SDK sends UNIX seconds unless its `timestampFormat` says
   * otherwise; another reading is an `AuthenticationError` that names that option.
   * @default 'unix-seconds'
   */
  timestampFormat?: 'unix-seconds' | 'unix-ms' | 'iso8601';
  /** Which code `request_code` (request details, identity response) carries, the spec's "original request code": the `identity_session_code` (the default) or the `access_request_code`. */
  requestCode?: 'identity_session_code' | 'access_request_code';
  /**
   * The success envelope of REST results ("`{data, correlation_id, meta?}`"): the spec's (`spec`,
   * the default), with `success: true` beside it (`success`), JSend's `status: 'success'` beside it
   * (`jsend`), or wrapped once more by a gateway, `{data: {data, correlation_id}}` (`nested`).
   */
  envelope?: 'spec' | 'success' | 'jsend' | 'nested';
  /** An absent optional: left out (`omitted`, the default) or written as `null` (`null`: `meta`, `opened_at`, `completed_at`…, an error's `message` and `details`). */
  absent?: 'omitted' | 'null';
  /** The issuer identifier in discovery and in the `iss` of what the service signs: `{auth_url}` (`origin`, the default) or with a trailing slash (`slash`), as a URL's `href` writes an origin. */
  issuer?: 'origin' | 'slash';
  /**
   * Where an identity response's claims are when a credential was requested: in `disclosures` and
   * in the signed `*.credential_jwt` (`both`, the default), only inside the signed credential,
   * `disclosures` empty (`credential`), inside it and as plain fields of `data` beside it,
   * `disclosures` empty (`flat`), or in both with the envelope's own salts and digests, the same
   * values as the signed credential's (`resalted`: an envelope written apart from the credential).
   */
  claimPlacement?: 'both' | 'credential' | 'flat' | 'resalted';
  /** The token response's `expires`: RFC 2822 (`rfc2822`, the spec's), ISO 8601 with its zone (`iso8601`), or ISO 8601 without one (`naive`: Python's `utcnow().isoformat()`), the one form no reader can place in time. */
  expiresForm?: 'rfc2822' | 'iso8601' | 'naive';
  /** The unit of the token response's `expires_in`: seconds (`seconds`, the spec's) or milliseconds (`milliseconds`). */
  expiresInUnit?: 'seconds' | 'milliseconds';
  /** What a webhook redelivery carries: the same bytes (`same`, the default) or a freshly minted `access_token` in each attempt (`fresh-token`). */
  redelivery?: 'same' | 'fresh-token';
  /**
   * Whether a cancellation's webhook carries an `access_token` (`sent`, the default) or none
   * (`omitted`): "Payload includes access_request_code and access_token" is written for the events
   * in general, and a cancelled request has no identity to fetch with one.
   */
  cancelledToken?: 'sent' | 'omitted';
  /**
   * The codes a webhook's payload carries: the spec's `access_request_code` alone (`access`), or
   * the request's `identity_session_code` beside it (`both`: "the complete payload schema: not
   * shown"). The SDK reads the second as the event's `identitySessionCode`, and the identity inbox
   * fetches with it a request nobody recorded with `expect()`.
   */
  webhookCodes?: 'access' | 'both';
  /** The service's signing key: one (`stable`, the default), or rotated after its JWKS was first read (`rotated`): what it signs from then on names a new `kid`. */
  keyRotation?: 'stable' | 'rotated';
  /**
   * `results_emails`, `download_email` and `expiry_hours`, "yes in schema … described as optional":
   * optional (`prose`, the default; an empty `results_emails` or `download_email` is refused as no
   * email address) or required as the schema says (`schema`; any string, `""` included).
   */
  optionalInputs?: 'prose' | 'schema';
  /**
   * The form of the UNIX times of REST answers: whole seconds (`integer`, the spec's), seconds with
   * a fraction (`decimal`: Python's `time.time()`), or ISO 8601 dates with their zone (`iso8601`).
   */
  times?: 'integer' | 'decimal' | 'iso8601';
  /**
   * The booleans of REST answers (`send_email`, `partially_complete`, `maintenance_mode`,
   * `revoked`): JSON booleans (`json`), the strings `"true"`/`"false"` (`strings`), or the words
   * `"Yes"`/`"No"` (`words`), as the spec writes `sanctionscheck.is_pep`.
   */
  booleans?: 'json' | 'strings' | 'words';
  /** How the identity response's `_sd` digests are written ("the exact input of the hash: not shown", nor its output): RFC 9901's base64url (`base64url`), padded base64 (`base64`), or hex (`hex`). */
  digestEncoding?: 'base64url' | 'base64' | 'hex';
  /** How a request that never expires (`expiry_hours: 0`, "disables expiry") writes `time_expires`, which is not shown: left out (`omitted`, the default) or 0 (`zero`). */
  neverExpires?: 'omitted' | 'zero';
  /**
   * What the request details' `time_expires` ("expiry time", an integer) holds: the UNIX time the
   * request expires (`instant`, the default, as the credential's `time_expires` is "Unix timestamp
   * of expiry"), the seconds left until then (`remaining`), or the hours it was created for
   * (`hours`, its `expiry_hours`). The SDK cannot read the last two as a time: `identityRequests.get`
   * refuses such an answer (`ERR_INVALID_RESPONSE` naming `time_expires`), so a live request is never
   * taken as expired in 1970.
   */
  requestExpiry?: 'instant' | 'remaining' | 'hours';
  /** What `DELETE /identity/request/…` answers: the spec's `{data: {message}}` (`message`), 200 with no body (`empty`), or 204 No Content (`no-content`). */
  deleteAnswer?: 'message' | 'empty' | 'no-content';
  /**
   * What `POST /credentials/revoke/…` answers: the spec's `{data: {revoked: true}}` (`revoked`),
   * 200 with no body (`empty`), or 204 No Content (`no-content`), as many APIs answer an action.
   */
  revokeAnswer?: 'revoked' | 'empty' | 'no-content';
  /**
   * How `GET /credentials/verify/…` answers a credential that does not verify (expired, pending
   * acceptance, verification failed): the spec's 412 with E1009, E1011 or E1012 (`status`, the
   * default); 200 with the credential, its signature and the service's conditions checked and its
   * expiry left to the reader (`signature`: an expired one comes back, its `exp` past); or 200 with
   * a verdict beside the credential (`verdict`: `valid` false, or true when it verifies); or 200
   * with the verdict in words beside it (`word`: `status` `Expired`, `Pending Acceptance`,
   * `Verification Failed` or `Valid`); or as `signature` does, the credential written as a whole
   * decoded JWT, `{header, payload, signature}` (`decoded`: jsonwebtoken's `decode(token,
   * {complete: true})`, its expiry in `payload`); or as `signature` does, the credential under
   * `credential` beside `verified: true`, the verdict of its signature alone (`wrapped`: its expiry
   * in `credential`). Not found and revoked are 404 and 410 under each.
   */
  verifyAnswer?: 'status' | 'signature' | 'verdict' | 'word' | 'decoded' | 'wrapped';
  /**
   * The `iat` and `exp` of the JWTs the service issues for calling it (the access token, the
   * webhook's X-Access-Token) and of its sign-ins' ID tokens (their `auth_time` too): in seconds
   * (`seconds`, the default, as RFC 7519 has them), in milliseconds (`milliseconds`: an issuer
   * that signs `Date.now()`) or in microseconds (`microseconds`). The fake reads its own tokens'
   * `exp` the way it writes them.
   */
  tokenTimes?: 'seconds' | 'milliseconds' | 'microseconds';
  /**
   * The signed timestamp of the timestamped webhook forms (Stripe's `t=`, Standard Webhooks'
   * `webhook-timestamp`, the `timestamped` reading's `X-Webhook-Timestamp`), which the spec does
   * not show: in seconds (`seconds`, the default, as Stripe's and Standard Webhooks' conventions
   * have it), in milliseconds (`milliseconds`), in microseconds (`microseconds`), or as an ISO
   * 8601 date with its zone (`iso8601`: `2026-12-03T19:00:00.000Z`, a sender stamping with its
   * clock's text).
   */
  webhookTimestamp?: 'seconds' | 'milliseconds' | 'microseconds' | 'iso8601';
  /**
   * The header the `timestamped` and `slack` readings send their signed timestamp in (the spec shows no such
   * header): `X-Webhook-Timestamp` (`x-webhook-timestamp`, the default), the spec's own
   * `X-Request-Timestamp` (`x-request-timestamp`, the header its identity endpoints take), or
   * `X-Timestamp` (`x-timestamp`).
   */
  webhookStampHeader?: 'x-webhook-timestamp' | 'x-request-timestamp' | 'x-timestamp';
  /** An error's `code` and `type`: as the spec writes them (`upper`: `E1005`, `NOT_FOUND`) or in lower case (`lower`: `e1005`, `not_found`, as services modelled on Stripe's types write them). */
  errorCase?: 'upper' | 'lower';
  /**
   * What the identity response's `_sd` digests cover ("the exact input of the hash: not shown"):
   * the base64url of each disclosure's JSON (`base64url`, the default, RFC 9901's), or the JSON
   * itself (`json`: an issuer that skips the encoding). Signed credentials keep RFC 9901's.
   */
  disclosureHash?: 'base64url' | 'json';
  /**
   * How the identity response writes each entry of `disclosures`: as the spec's table shows it
   * (`object`, the default: `{claim, salt, value}`), or as RFC 9901 writes a disclosure, which a
   * service built on an SD-JWT library sends: its base64url string (`compact`), or the array that
   * string encodes (`array`: `[salt, claim, value]`).
   */
  disclosureForm?: 'object' | 'compact' | 'array';
  /**
   * How the identity response writes its dotted claim keys (`acmeidentity.credential_jwt`, and the
   * plain claims of the `flat` placement): as names (`dotted`, the default, as the spec's table
   * lists them) or as paths (`nested`: `{acmeidentity: {credential_jwt}}`, a writer that reads the
   * key form `{credential}.{field}` as one).
   */
  claimKeys?: 'dotted' | 'nested';
  /**
   * Where a sign-in's ID token and userinfo put the `acme` claims it requested (not shown): under
   * their dotted names beside the standard claims (`flat`, the default), inside an `acme` object as
   * the request named them (`acme`), or as paths (`nested`: `{acmeidentity: {name}}`).
   */
  signInClaims?: 'flat' | 'acme' | 'nested';
  /**
   * The `details` of E2002 (the request was created, the email failed): the spec's `code` and
   * `redirect_url` (`code`, the default: `code` is the identity_session_code), or both codes named
   * as the creation's answer names them, beside `redirect_url` (`codes`).
   */
  emailFailureDetails?: 'code' | 'codes';
  /**
   * The `details` of a 409 on identity-request create (an open request to the person exists): the
   * spec's `existing_code` (`existing_code`, the default: the access_request_code), or both codes
   * of the existing request named as the creation's answer names them (`codes`).
   */
  conflictDetails?: 'existing_code' | 'codes';
  /**
   * How `file_data` ("a base64 string") is written: standard base64 with padding (`base64`, the
   * default), URL-safe without padding (`base64url`), wrapped in lines of 76 characters as MIME
   * writes it (`mime`), or as a data URL (`data-url`: `data:application/pdf;base64,…`).
   */
  fileEncoding?: 'base64' | 'base64url' | 'mime' | 'data-url';
  /**
   * How discovery writes `acme_claims_supported`, "the complete current list of claim keys": a JSON
   * array (`array`, the default, as OIDC metadata writes lists) or one string of keys separated by
   * spaces (`string`, as OAuth writes a scope).
   */
  claimsSupported?: 'array' | 'string';
  /**
   * The hash of the webhook's plain HMAC (the `prefixed-hex`, `hex`, `base64` and `timestamped`
   * forms; Stripe's and Standard Webhooks' are SHA-256 by their definition), "HMAC algorithm: not
   * shown": `SHA-256` (the default), `SHA-384` or `SHA-512`, its `sha256=` prefix naming it.
   */
  webhookHash?: 'SHA-256' | 'SHA-384' | 'SHA-512';
  /**
   * How the prefix of the webhook's plain HMAC (the `prefixed-hex` and `timestamped` forms) names
   * its hash, "HMAC algorithm: not shown": `sha256=` (`sha256`, the default, as GitHub writes it),
   * `sha-256=` (`sha-256`, the hash's own name), `hmac-sha256=` (`hmac-sha256`) or `HMAC-SHA256=`
   * (`HMAC-SHA256`), each with the bits of the `webhookHash` reading.
   */
  webhookHashName?: 'sha256' | 'sha-256' | 'hmac-sha256' | 'HMAC-SHA256';
  /**
   * What joins the timestamp and the body in the `timestamped` form's signed content ("signed
   * content: not shown"): a dot, `"<t>.<body>"` (`dot`, the default, as Stripe joins them), a
   * colon, `"<t>:<body>"` (`colon`), or nothing, `"<t><body>"` (`none`, as Discord and Twitch sign).
   */
  webhookStampJoin?: 'dot' | 'colon' | 'none';
  /**
   * The key the webhook's HMAC is made with, "HMAC algorithm: not shown" (nor the secret's form):
   * `convention` (the default) keys each convention as its own definition does (the secret's text
   * for the plain HMAC and Stripe's sets; the base64 after `whsec_` for Standard Webhooks, when it
   * is base64); `decoded` keys every convention with the base64 (or base64url) after `whsec_`, as
   * a sender that issues Standard Webhooks' secrets may; `text` keys every one with the secret's
   * text, Standard Webhooks included; `hex` keys every one with the bytes the secret's hex digits
   * (after an optional `whsec_`) spell, as a service that shows its secrets in hex may (the default
   * registration's webhook secret is then `DEFAULT_HEX_WEBHOOK_SECRET`; a registration whose
   * secret is not hex is a `TypeError` when the fake is created).
   */
  webhookKey?: 'convention' | 'decoded' | 'text' | 'hex';
  /**
   * The form of `{base_url}/docs/spec`, "the machine-readable description of the REST API": an
   * OpenAPI document as JSON (`json`, the default) or as YAML (`yaml`, `application/yaml`), as
   * many services serve theirs.
   */
  specFormat?: 'json' | 'yaml';
  /**
   * The HTTP status of a REST error: the one the spec's table pairs with its code (`status`, the
   * default), or 200 for every error, its body unchanged (`ok`: a service, or a gateway before it,
   * that answers every call 200 and says in the body that it failed). A `status` fault on a REST
   * path is the service's own answer and is written so too, when the table has a code for its
   * status; any other status, and a gateway's `proxy-502`, keep the status they were given.
   */
  errorStatus?: 'status' | 'ok';
  /**
   * How the person is sent back to `return_url` (or `off_ramp_url`) once the journey ends, which
   * the spec does not show: to the URL as given (`as-given`, the default); with `status` and
   * `access_request_code` added as the URL API adds parameters (`appended`); with them added by
   * string concatenation, `?` and all, a second `?` when the URL has a query already
   * (`concatenated`); or with the URL's escapes decoded first, then them added after `&` or `?`
   * (`unescaped`: a `%2B` in a parameter comes back a raw `+`, which a query reads as a space).
   */
  returnUrl?: 'as-given' | 'appended' | 'concatenated' | 'unescaped';
  /**
   * What a sign-in's ID token does with the `nonce` of the authorization request, a parameter the
   * spec marks optional: carries it back (`echoed`, the default, as OpenID Connect Core requires of
   * a provider that received one) or leaves it out (`ignored`). The SDK must be told of the
   * second (`nonce: false`): its refusal, `ERR_OIDC_NONCE`, names the option.
   */
  idTokenNonce?: 'echoed' | 'ignored';
  /**
   * Where a sign-in delivers the claims it asked for (not shown: the spec names the userinfo
   * endpoint and nothing of its answer): in the ID token and from userinfo (`both`, the default),
   * from userinfo only, the ID token holding `sub` and its protocol claims (`userinfo`, as OpenID
   * Connect Core §5.4 has it for scope claims whenever an access token is issued, and as
   * node-oidc-provider does by default), in the ID token only, userinfo answering `sub`
   * (`id-token`), or split: the ID token holding the first half of the claims asked for and
   * userinfo every one (`split`, as a provider may put some claims in each, OpenID Connect Core
   * §5.5), so an `acme` object or a credential's object is in both, the ID token's with fewer
   * members. The SDK's `finishSignIn` reads userinfo when the ID token lacks a claim asked for.
   */
  signInClaimsAt?: 'both' | 'userinfo' | 'id-token' | 'split';
}

/**
 * Every reading filled in. (`tokenLifetime`, `disclosureEncoding` and `timestampFormat` are also
 * options of the fake; a reading given explicitly wins.)
 */
export type ResolvedReadings = Required<FakeReadings>;

export const DEFAULT_READINGS: Readonly<ResolvedReadings> = Object.freeze({
  webhookKind: 'event',
  webhookSignature: 'prefixed-hex',
  statusEnvelope: 'bare',
  tokenEnvelope: 'wrapped',
  numbers: 'number',
  timeUnit: 'seconds',
  errorBody: 'envelope',
  sdAlg: 'sha256',
  claimValues: 'spec',
  dateHeader: 'sent',
  clockSkewSeconds: 0,
  tokenLifetime: 'both',
  disclosureEncoding: 'compact',
  timestampFormat: 'unix-seconds',
  requestCode: 'identity_session_code',
  envelope: 'spec',
  absent: 'omitted',
  issuer: 'origin',
  claimPlacement: 'both',
  expiresForm: 'rfc2822',
  expiresInUnit: 'seconds',
  redelivery: 'same',
  cancelledToken: 'sent',
  webhookCodes: 'access',
  keyRotation: 'stable',
  optionalInputs: 'prose',
  times: 'integer',
  booleans: 'json',
  digestEncoding: 'base64url',
  deleteAnswer: 'message',
  revokeAnswer: 'revoked',
  verifyAnswer: 'status',
  neverExpires: 'omitted',
  requestExpiry: 'instant',
  tokenTimes: 'seconds',
  webhookTimestamp: 'seconds',
  webhookStampHeader: 'x-webhook-timestamp',
  errorCase: 'upper',
  disclosureHash: 'base64url',
  disclosureForm: 'object',
  claimKeys: 'dotted',
  signInClaims: 'flat',
  emailFailureDetails: 'code',
  conflictDetails: 'existing_code',
  fileEncoding: 'base64',
  claimsSupported: 'array',
  webhookHash: 'SHA-256',
  webhookHashName: 'sha256',
  webhookStampJoin: 'dot',
  webhookKey: 'convention',
  specFormat: 'json',
  errorStatus: 'status',
  returnUrl: 'as-given',
  idTokenNonce: 'echoed',
  signInClaimsAt: 'both',
});

/**
 * Every value of every reading the fake can serve, each other than the default: one fake per
 * entry reads the spec differently in that one choice. `--reading name=value` on the sandbox.
 */
export const READING_CHOICES: { readonly [K in keyof FakeReadings]-?: readonly NonNullable<FakeReadings[K]>[] } = Object.freeze({
  webhookKind: ['event', 'type', 'dotted', 'status', 'none', 'envelope', 'object', 'payload'],
  webhookSignature: ['prefixed-hex', 'hex', 'base64', 'stripe', 'standard', 'rotation', 'timestamped', 'slack'],
  statusEnvelope: ['bare', 'wrapped'],
  tokenEnvelope: ['wrapped', 'bare'],
  numbers: ['number', 'string'],
  timeUnit: ['seconds', 'milliseconds', 'microseconds'],
  errorBody: ['envelope', 'bare'],
  sdAlg: ['sha256', 'sha-256', 'SHA-256'],
  claimValues: ['spec', 'strings', 'decoded'],
  dateHeader: ['sent', 'omitted'],
  clockSkewSeconds: [0, -600, 600],
  tokenLifetime: ['both', 'expires_in', 'expires', 'none'],
  disclosureEncoding: ['compact', 'spaced'],
  timestampFormat: ['unix-seconds', 'unix-ms', 'iso8601'],
  requestCode: ['identity_session_code', 'access_request_code'],
  envelope: ['spec', 'success', 'jsend', 'nested'],
  absent: ['omitted', 'null'],
  issuer: ['origin', 'slash'],
  claimPlacement: ['both', 'credential', 'flat', 'resalted'],
  expiresForm: ['rfc2822', 'iso8601', 'naive'],
  expiresInUnit: ['seconds', 'milliseconds'],
  redelivery: ['same', 'fresh-token'],
  cancelledToken: ['sent', 'omitted'],
  webhookCodes: ['access', 'both'],
  keyRotation: ['stable', 'rotated'],
  optionalInputs: ['prose', 'schema'],
  times: ['integer', 'decimal', 'iso8601'],
  booleans: ['json', 'strings', 'words'],
  digestEncoding: ['base64url', 'base64', 'hex'],
  deleteAnswer: ['message', 'empty', 'no-content'],
  revokeAnswer: ['revoked', 'empty', 'no-content'],
  verifyAnswer: ['status', 'signature', 'verdict', 'word', 'decoded', 'wrapped'],
  neverExpires: ['omitted', 'zero'],
  requestExpiry: ['instant', 'remaining', 'hours'],
  tokenTimes: ['seconds', 'milliseconds', 'microseconds'],
  webhookTimestamp: ['seconds', 'milliseconds', 'microseconds', 'iso8601'],
  webhookStampHeader: ['x-webhook-timestamp', 'x-request-timestamp', 'x-timestamp'],
  errorCase: ['upper', 'lower'],
  disclosureHash: ['base64url', 'json'],
  disclosureForm: ['object', 'compact', 'array'],
  claimKeys: ['dotted', 'nested'],
  signInClaims: ['flat', 'acme', 'nested'],
  emailFailureDetails: ['code', 'codes'],
  conflictDetails: ['existing_code', 'codes'],
  fileEncoding: ['base64', 'base64url', 'mime', 'data-url'],
  claimsSupported: ['array', 'string'],
  webhookHash: ['SHA-256', 'SHA-384', 'SHA-512'],
  webhookHashName: ['sha256', 'sha-256', 'hmac-sha256', 'HMAC-SHA256'],
  webhookStampJoin: ['dot', 'colon', 'none'],
  webhookKey: ['convention', 'decoded', 'text', 'hex'],
  specFormat: ['json', 'yaml'],
  errorStatus: ['status', 'ok'],
  returnUrl: ['as-given', 'appended', 'concatenated', 'unescaped'],
  idTokenNonce: ['echoed', 'ignored'],
  signInClaimsAt: ['both', 'userinfo', 'id-token', 'split'],
});

/**
 * The readings `readings` sets, checked: an unknown name or value throws a `TypeError` naming it.
 * @example
 * ```ts
 * const service = await createFakeService({ readings: { webhookKind: 'none', numbers: 'string' } });
 * ```
 */
export function resolveReadings(readings: FakeReadings = {}): ResolvedReadings {
  const resolved: Record<string, unknown> = { ...DEFAULT_READINGS };
  for (const [name, value] of Object.entries(readings)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(READING_CHOICES, name)) throw new TypeError(`fake service: no reading named ${name}`);
    const choices = READING_CHOICES[name as keyof FakeReadings] as readonly unknown[];
    const valid = name === 'clockSkewSeconds' ? typeof value === 'number' && Number.isFinite(value) : choices.includes(value);
    if (!valid) throw new TypeError(`fake service: reading ${name} must be ${choices.join(', ')}`);
    resolved[name] = value;
  }
  return resolved as ResolvedReadings;
}

/**
 * `name=value` pairs (the sandbox's `--reading`) as readings.
 * @throws {TypeError} for a pair that is not `name=value` or names no reading.
 * @example
 * ```ts
 * parseReadings(['webhookKind=none', 'clockSkewSeconds=600']); // { webhookKind: 'none', clockSkewSeconds: 600 }
 * ```
 */
export function parseReadings(pairs: readonly string[]): FakeReadings {
  const readings: Record<string, unknown> = {};
  for (const pair of pairs) {
    const [name, value] = pair.split('=', 2);
    if (!name || value === undefined) throw new TypeError(`--reading ${pair}: expected name=value`);
    readings[name] = name === 'clockSkewSeconds' ? Number(value) : value;
  }
  resolveReadings(readings as FakeReadings);
  return readings as FakeReadings;
}

/** Whether a reading departs from the fake's OpenAPI document (numbers as strings, envelopes moved): tests hold only the others to it. */
export function departsFromDocument(readings: ResolvedReadings): boolean {
  return (
    readings.numbers !== 'number' ||
    readings.timeUnit !== 'seconds' ||
    readings.statusEnvelope !== 'bare' ||
    readings.tokenEnvelope !== 'wrapped' ||
    readings.errorBody !== 'envelope' ||
    readings.errorStatus !== 'status' ||
    readings.envelope !== 'spec' ||
    readings.absent !== 'omitted' ||
    readings.expiresInUnit !== 'seconds' ||
    readings.times !== 'integer' ||
    readings.booleans !== 'json' ||
    readings.deleteAnswer !== 'message' ||
    readings.revokeAnswer !== 'revoked' ||
    // The document's disclosures are objects ({claim, salt, value}).
    readings.disclosureForm !== 'object' ||
    // The document gives file_data `contentEncoding: base64`: a URL-safe text or a data: URL is not that.
    readings.fileEncoding !== 'base64'
  );
}

const INTEGER_FIELDS = new Set(['expires_in', 'exp', 'nbf', 'iat', 'time_expires', 'opened_at', 'completed_at', 'timestamp']);
const TIME_FIELDS = new Set(['exp', 'nbf', 'iat', 'time_expires', 'opened_at', 'completed_at', 'timestamp']);

/**
 * `value` with each field whose name is in `names` and whose value is of `type` rewritten by
 * `rewrite`, at every depth: one walk for every reading that writes a kind of field another way.
 */
function rewriteFields<T>(value: unknown, names: ReadonlySet<string>, type: 'number' | 'boolean', rewrite: (field: T) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteFields(item, names, type, rewrite));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key,
      names.has(key) && typeof field === type ? rewrite(field as T) : rewriteFields(field, names, type, rewrite),
    ]),
  );
}

/** The units the `timeUnit`, `tokenTimes` and `webhookTimestamp` readings write times in, each with how many make a second. */
export const UNITS_PER_SECOND = Object.freeze({ seconds: 1, milliseconds: 1e3, microseconds: 1e6 });

/** A unit the readings write times in. */
export type TimeUnitName = keyof typeof UNITS_PER_SECOND;

/** A JSON value with the spec's UNIX times written in the `timeUnit` reading's unit: seconds as they are, or milliseconds or microseconds. */
export function timesInUnit(unit: TimeUnitName, value: unknown): unknown {
  if (unit === 'seconds') return value;
  return rewriteFields<number>(value, TIME_FIELDS, 'number', (seconds) => seconds * UNITS_PER_SECOND[unit]);
}

/** A JSON value whose spec's UNIX times (in seconds) are written as the `times` reading says. */
export function timesAs(reading: ResolvedReadings['times'], value: unknown): unknown {
  if (reading === 'integer') return value;
  return rewriteFields<number>(value, TIME_FIELDS, 'number', (seconds) =>
    reading === 'decimal' ? seconds + 0.25 : new Date(seconds * 1000).toISOString(),
  );
}

const BOOLEAN_FIELDS = new Set(['send_email', 'partially_complete', 'maintenance_mode', 'revoked', 'valid']);

/** A JSON value with the booleans of REST answers written as the `booleans` reading says: `"true"`/`"false"` or `"Yes"`/`"No"`. */
export function booleansAs(reading: ResolvedReadings['booleans'], value: unknown): unknown {
  if (reading === 'json') return value;
  return rewriteFields<boolean>(value, BOOLEAN_FIELDS, 'boolean', (field) =>
    reading === 'strings' ? String(field) : BOOLEAN_WORDS[String(field)],
  );
}
const BOOLEAN_WORDS: Readonly<Record<string, string>> = { true: 'Yes', false: 'No' };

/** A JSON value with the spec's integer fields written as strings of digits (the `numbers: 'string'` reading). */
export function numbersAsStrings(value: unknown): unknown {
  return rewriteFields<number>(value, INTEGER_FIELDS, 'number', String);
}

/** A claim value written as the `claimValues` reading says. */
export function claimValueAs(reading: ResolvedReadings['claimValues'], value: unknown): unknown {
  if (reading === 'spec') return value;
  if (reading === 'strings') return typeof value === 'boolean' || typeof value === 'number' ? String(value) : value;
  // decoded: JSON strings become their values; "Yes"/"No" become booleans.
  if (value === 'Yes' || value === 'No') return value === 'Yes';
  if (typeof value === 'string' && /^[[{]/.test(value)) {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}
