/** The last leg of the asynchronous flow: from a verified webhook event to a verified identity. */
import { decodeJwt } from 'jose/jwt/decode';
import { AcmeIdentityError, IdentityFlowError } from '../errors/index.js';
import type { KeySource, VerifiedIdentityResponse } from '../sd-jwt/index.js';
import type { ApiResult, IdentityResponseRequest } from './client.js';
import type { Schemas } from './schemas.js';
import type { RequestOptions } from './options.js';

/** What the flow needs of a webhook event: `IdentityActionsEvent` from `@acme/identity/webhooks` fits. */
export interface WebhookEventLike {
  /** The webhook's `event`: only `approved` has an identity response; without one, the fetch is tried. */
  readonly kind?: string | undefined;
  readonly accessRequestCode: string;
  /** The webhook's `access_token`, exactly as received. */
  readonly accessToken: string;
}

export interface VerifiedIdentityOptions extends RequestOptions {
  /** The `identity_session_code` returned when you created the request (look it up by `event.accessRequestCode`). */
  identitySessionCode: string;
  /** The service's keys (`remoteJwks(authUrl)`), to prove the claims by the issuer's signature. */
  keys?: KeySource;
  /** Refuse claims that are not proven by a signature. @default false */
  requireSignature?: boolean;
  /** Seconds of leeway on `exp` and `nbf`. @default 0 */
  clockToleranceSeconds?: number;
}

/**
 * Checks that the webhook's X-Access-Token names the event's request, fetches the identity
 * response with it, and verifies the response (expiry, digests, `request_code`, signature when
 * present). Each failure is an {@link IdentityFlowError} whose `step` says where, with the step's
 * own error as `cause`.
 */
export async function verifiedIdentity(
  get: (request: IdentityResponseRequest, options?: RequestOptions) => Promise<ApiResult<Schemas['IdentityResponseData']>>,
  event: WebhookEventLike,
  options: VerifiedIdentityOptions,
  now: () => number,
): Promise<VerifiedIdentityResponse> {
  if (event.kind !== undefined && event.kind !== 'approved') {
    throw new IdentityFlowError('event', `the request was ${JSON.stringify(event.kind).slice(0, 40)}, not approved: it has no identity response to fetch`, undefined);
  }
  let named: unknown;
  try {
    named = decodeJwt(event.accessToken)['access_request_code'];
  } catch (cause) {
    throw new IdentityFlowError('token', 'the webhook access_token is not a JWT', cause);
  }
  if (named !== event.accessRequestCode) {
    throw new IdentityFlowError('token', "the webhook access_token does not name the event's access_request_code", undefined);
  }
  const { identitySessionCode, keys, requireSignature, clockToleranceSeconds, ...request } = options;
  let response: ApiResult<Schemas['IdentityResponseData']>;
  try {
    response = await get({ accessRequestCode: event.accessRequestCode, identitySessionCode, accessToken: event.accessToken }, request);
  } catch (cause) {
    const code = cause instanceof AcmeIdentityError ? ` (${cause.code})` : '';
    throw new IdentityFlowError('fetch', `GET /identity/response failed${code}`, cause);
  }
  try {
    // Loaded on the first verification: a client that never verifies never loads the SD-JWT verifier.
    const { verifyIdentityResponse } = await import('../sd-jwt/response.js');
    return await verifyIdentityResponse(response, {
      requestCode: identitySessionCode,
      now,
      ...(keys !== undefined ? { keys } : {}),
      ...(requireSignature !== undefined ? { requireSignature } : {}),
      ...(clockToleranceSeconds !== undefined ? { clockToleranceSeconds } : {}),
    });
  } catch (cause) {
    const code = cause instanceof AcmeIdentityError ? ` (${cause.code})` : '';
    throw new IdentityFlowError('verify', `the identity response was refused${code}`, cause);
  }
}
