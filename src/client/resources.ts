/**
 * The resources of `AcmeIdentityClient`, one interface each: what `acme.identityRequests`,
 * `acme.identityResponses`, `acme.credentials`, `acme.status` and `acme.auth` offer. The client
 * implements them (`client.ts`); here they are named so that each has its own page in the API docs.
 */
import type { VerifiedIdentityResponse } from '../sd-jwt/index.js';
import type { CredentialSubmitInput, IdentityRequestInput } from './bodies.js';
import type { VerifiedIdentityOptions, WebhookEventLike } from './identity-flow.js';
import type { RequestOptions } from './options.js';
import type { ApiResult, IdentityRequestCodes, IdentityResponseRequest } from './results.js';
import type { Schemas } from './schemas.js';

/** Options of {@link IdentityRequestsResource.create}. */
export interface CreateIdentityRequestOptions extends RequestOptions {
  /**
   * The live `acme_claims_supported` list from discovery. When given, claim keys outside it are
   * refused before sending; otherwise keys are checked for form only.
   */
  supportedClaims?: Iterable<string>;
}

/** API tokens: usually managed for you; exposed for diagnostics and custom flows. */
export interface AuthResource {
  /** POST /auth/api-token with the client's key pair. The result holds secrets: never log it. */
  createToken(options?: RequestOptions): Promise<ApiResult<Schemas['TokenResponse']>>;
  /** POST /auth/api-token/refresh. The result holds secrets: never log it. */
  refreshToken(refreshToken: string, options?: RequestOptions): Promise<ApiResult<Schemas['TokenResponse']>>;
  /** The access token the client is using, fetched or refreshed when due. */
  accessToken(options?: RequestOptions): Promise<string>;
}

/** Identity requests: create, read, delete. */
export interface IdentityRequestsResource {
  /**
   * POST /identity/request. Validates the input first (`InvalidInputError` naming the field);
   * fills the spec's defaults (`expiry_hours` 24). Repeated only after a 429: see docs/client.md, "Retries".
   * @throws {ConflictError} an open request to this person exists: `existingCode` names it.
   * @throws {EmailDeliveryError} the request exists but the email failed: `requestCode`, `redirectUrl`.
   */
  create(input: IdentityRequestInput, options?: CreateIdentityRequestOptions): Promise<ApiResult<Schemas['IdentityRequestCreated']>>;
  /** GET /identity/request/{access_request_code}/{identity_session_code}. */
  get(codes: IdentityRequestCodes, options?: RequestOptions): Promise<ApiResult<Schemas['IdentityRequestDetails']>>;
  /**
   * DELETE /identity/request/{access_request_code}/{identity_session_code}: cancels and deletes.
   * An answer of `deleted: false` is an `InvalidResponseError` (`issues: ['data.deleted']`): nothing was deleted.
   */
  delete(codes: IdentityRequestCodes, options?: RequestOptions): Promise<ApiResult<Schemas['MessageData']>>;
}

/** Identity responses, after the approval webhook. */
export interface IdentityResponsesResource {
  /**
   * GET /identity/response/{access_request_code}/{identity_session_code} with `X-Access-Token`.
   * Refuses a response whose `exp` has elapsed (on the service's clock, as learnt from its `Date`
   * headers), as the spec requires of the client, and one without `exp`, which cannot be judged;
   * otherwise returns it as sent: verify its disclosures (`getVerified`, or
   * `verifyIdentityResponse`) before relying on its claims.
   * @throws {SdJwtVerificationError} `ERR_SD_JWT_EXPIRED`: the response's `exp` has elapsed;
   *   `ERR_SD_JWT_MISSING_CLAIM`: it has no `exp`.
   * @see {@link https://github.com/acme/identity-sdk/blob/main/docs/service-spec.md | the service specification}, "Identity response": "the client must not accept the response once `exp` has elapsed"
   */
  get(request: IdentityResponseRequest, options?: RequestOptions): Promise<ApiResult<Schemas['IdentityResponseData']>>;
  /**
   * The whole last leg after a verified webhook: checks that the event's `access_token` names its
   * `access_request_code`, fetches the response with that token, and verifies it (expiry,
   * digests, `request_code`, and the credential signature when `keys` is given).
   * @throws {IdentityFlowError} `step` is `token`, `fetch` or `verify`; `cause` is the step's error.
   * @example
   * ```ts
   * const event = await webhooks.verify(rawBody, headers);
   * const identity = await acme.identityResponses.getVerified(event, { identitySessionCode, keys: remoteJwks(authUrl) });
   * ```
   */
  getVerified(event: WebhookEventLike, options: VerifiedIdentityOptions): Promise<VerifiedIdentityResponse>;
}

/** Credentials issued by this client. `credentialRef` is used verbatim, as returned by `submit`. */
export interface CredentialsResource {
  /**
   * POST /credentials/submit. Takes the file as bytes and does the base64; refuses files over
   * 5 MB, files that are not PNG, JPG or PDF, and a `file_name` whose extension does not match,
   * before uploading. Repeated only after a 429.
   * @throws {ConflictError} the credential was already submitted.
   */
  submit(input: CredentialSubmitInput, options?: RequestOptions): Promise<ApiResult<Schemas['CredentialSubmitted']>>;
  /**
   * GET /credentials/verify/{credential_ref}: the decoded raw verifiable credential. A 200 whose
   * body says the credential did not verify is refused as the spec's status would be: a verdict
   * (`valid` or `verified` false: `CredentialVerificationFailedError`; `revoked` true:
   * `CredentialRevokedError`) or an expiry (`exp`, `expirationDate`, `validUntil`, in `data` or
   * its `vc`) already past on the service's clock (`CredentialExpiredError`), or a start (`nbf`,
   * `validFrom`) not yet come on it (`CredentialVerificationFailedError`); the answer's `data` is
   * on the error's `details.data`.
   * @throws {CredentialRevokedError} 410, or a 200 saying `revoked`.
   * @throws {CredentialExpiredError} 412 E1009, or a 200 whose credential has expired.
   * @throws {CredentialVerificationFailedError} 412, or a 200 saying it did not verify, or whose credential is not valid yet.
   */
  verify(credentialRef: string, options?: RequestOptions): Promise<ApiResult<Schemas['VerifiableCredential']>>;
  /** GET /credentials/file-data/{credential_ref}: the source file, base64 in `file_data`. */
  fileData(credentialRef: string, options?: RequestOptions): Promise<ApiResult<Schemas['CredentialFileData']>>;
  /**
   * The source file as bytes (GET /credentials/file-data, decoded): its base64 standard or
   * URL-safe, padded or not, in lines, or a `data:` URL.
   */
  download(credentialRef: string, options?: RequestOptions): Promise<Uint8Array>;
  /**
   * POST /credentials/revoke/{credential_ref}. A revoked credential answers 410 (`CredentialRevokedError`);
   * an answer of `revoked: false` is an `InvalidResponseError` (`issues: ['data.revoked']`): nothing was revoked.
   */
  revoke(credentialRef: string, options?: RequestOptions): Promise<ApiResult<Schemas['CredentialRevoked']>>;
}

/** Service status. These endpoints answer unwrapped records, without the `{data}` envelope. */
export interface StatusResource {
  /** GET /status/current. */
  current(options?: RequestOptions): Promise<Schemas['StatusCurrent']>;
  /** GET /status/health. A 503 throws `ServiceUnavailableError`. */
  health(options?: RequestOptions): Promise<Schemas['StatusHealth']>;
}
