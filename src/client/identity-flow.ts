/** The last leg of the asynchronous flow: from a verified webhook event to a verified identity. */
import { decodeJwt } from 'jose/jwt/decode';
import { AcmeIdentityError, AuthenticationError, IdentityFlowError, NotFoundError } from '../errors/index.js';
import type { VerifiedIdentityResponse, VerifyIdentityResponseOptions } from '../sd-jwt/index.js';
import type { ApiResult, IdentityRequestCodes, IdentityResponseRequest } from './results.js';
import type { Schemas } from './schemas.js';
import type { RequestOptions } from './options.js';
import { numericDate } from '../internal/times.js';

/** What the flow needs of a webhook event: `IdentityActionsEvent` from `@acme/identity/webhooks` fits. */
export interface WebhookEventLike {
  /**
   * What the event reports: `cancelled` has no identity response; `approved` and anything else
   * (`unknown`, or no kind) is fetched, and the service's answer says whether it was cancelled.
   */
  readonly kind?: string | undefined;
  readonly accessRequestCode: string;
  /** The webhook's `access_token`, exactly as received. */
  readonly accessToken: string;
}

/**
 * What `getVerified` takes: every option of `verifyIdentityResponse`, the request's
 * `identitySessionCode`, and the call's options.
 */
export interface VerifiedIdentityOptions extends RequestOptions, Omit<VerifyIdentityResponseOptions, 'requestCode' | 'now'> {
  /** The `identity_session_code` returned when you created the request (look it up by `event.accessRequestCode`). */
  identitySessionCode: string;
  /**
   * The codes the response's `request_code` may equal. @default both codes of the request: the
   * `identitySessionCode` and the event's `accessRequestCode` (the spec's "original request code"
   * may be either; both name this request)
   */
  requestCode?: string | readonly string[];
  /** The clock `exp` and `nbf` are judged on, in ms. @default the service's clock, as learnt from its `Date` headers */
  now?: () => number;
}

const cancelled = (how: string, cause?: unknown) =>
  new IdentityFlowError('cancelled', `the request was cancelled (${how}): it has no identity to fetch`, cause);

/**
 * Checks that the webhook's X-Access-Token names the event's request, fetches the identity
 * response with it, and verifies the response (expiry, digests, `request_code`, signature when
 * present). Each failure is an {@link IdentityFlowError} whose `step` says where, with the step's
 * own error as `cause`. A cancelled request is `step: 'cancelled'`, whether the event said so or,
 * for an event of another or no kind, the service did (a 404 for a request that exists): never a
 * verified identity. Nothing is concluded from what an answer lacks: one with no claim, no
 * credential and nothing missing is refused at `step: 'verify'` (`ERR_SD_JWT_NO_CLAIMS`), whatever
 * the event's kind, so an approval is never handed over as a cancellation or as an empty identity.
 */
export async function verifiedIdentity(
  get: (request: IdentityResponseRequest, options?: RequestOptions) => Promise<ApiResult<Schemas['IdentityResponseData']>>,
  details: (codes: IdentityRequestCodes, options?: RequestOptions) => Promise<unknown>,
  event: WebhookEventLike,
  options: VerifiedIdentityOptions,
  now: () => number,
): Promise<VerifiedIdentityResponse> {
  if (event.kind === 'cancelled') throw cancelled('the webhook says so');
  let claims: ReturnType<typeof decodeJwt>;
  try {
    claims = decodeJwt(event.accessToken);
  } catch (cause) {
    throw new IdentityFlowError('token', 'the webhook access_token is not a JWT', cause);
  }
  if (claims['access_request_code'] !== event.accessRequestCode) {
    throw new IdentityFlowError('token', "the webhook access_token does not name the event's access_request_code", undefined);
  }
  // An expired X-Access-Token is refused by the service as bad authentication: say what it is, before asking.
  const expired = expiredSince(claims['exp'], now());
  if (expired) throw new IdentityFlowError('token', expired, undefined);
  const { identitySessionCode, signal, timeoutMs, maxRetries, correlationId, ...verification } = options;
  const approved = event.kind === 'approved';
  const call = defined({ signal, timeoutMs, maxRetries, correlationId });
  const codes = { accessRequestCode: event.accessRequestCode, identitySessionCode };
  let response: ApiResult<Schemas['IdentityResponseData']>;
  try {
    response = await get({ ...codes, accessToken: event.accessToken }, call);
  } catch (cause) {
    // For an event that does not say, a 404 is a cancellation only if the request itself exists:
    // with codes that name no request (a wrong identitySessionCode) it is a failed fetch.
    if (
      !approved &&
      cause instanceof NotFoundError &&
      (await details(codes, call).then(
        () => true,
        () => false,
      ))
    ) {
      throw cancelled('the service has no identity response for it', cause);
    }
    // Refused as unauthenticated: if the service's clock (learnt by now, from its answers) says the
    // X-Access-Token has expired, that is the cause, not the client's credentials.
    const expiredNow = cause instanceof AuthenticationError ? expiredSince(claims['exp'], now()) : undefined;
    if (expiredNow) throw new IdentityFlowError('token', expiredNow, cause);
    const code = cause instanceof AcmeIdentityError ? ` (${cause.code})` : '';
    throw new IdentityFlowError('fetch', `GET /identity/response failed${code}`, cause);
  }
  try {
    // Loaded on the first verification: a client that never verifies never loads the SD-JWT verifier.
    const { verifyIdentityResponse } = await import('../sd-jwt/response.js');
    return await verifyIdentityResponse(response, {
      requestCode: [identitySessionCode, event.accessRequestCode],
      now,
      ...defined(verification),
    });
  } catch (cause) {
    const code = cause instanceof AcmeIdentityError ? ` (${cause.code})` : '';
    throw new IdentityFlowError('verify', `the identity response was refused${code}`, cause);
  }
}

/**
 * Why an X-Access-Token cannot be used any more, when its `exp` (read, not verified: the service
 * verifies it) has passed on the service's clock; `undefined` while it is valid or states no `exp`.
 */
function expiredSince(written: unknown, serviceNowMs: number): string | undefined {
  // By the rule for a JWT's times (`internal/times.ts`): an `exp` in milliseconds is not one thousands of years away.
  const exp = numericDate(written);
  if (exp === undefined || exp * 1000 > serviceNowMs) return undefined;
  const ago = Math.round((serviceNowMs - exp * 1000) / 1000);
  return `the webhook's X-Access-Token expired at ${new Date(exp * 1000).toISOString()} (${ago} s ago, on the service's clock): ask the service to send the webhook again (the identity inbox fetches within the token's life)`;
}

/** `value` without its undefined fields (the options are exact: an undefined one would override a default). */
function defined<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
