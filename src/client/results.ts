/** What the client's calls return and take: shared by the client and the identity flow. */

/** A successful REST result: the envelope's `data`, and its correlation id to log. */
export interface ApiResult<T> {
  data: T;
  correlationId: string;
  meta?: Record<string, unknown>;
  /**
   * The HTTP answer this result came from: status, headers and how many attempts the call made.
   * Always set by the client; not enumerable, so results compare, serialise and log as before.
   * `responseOf` reads it for every operation, status records included.
   */
  readonly response?: ResponseInfo;
}

/** The HTTP answer behind a successful result. */
export interface ResponseInfo {
  readonly status: number;
  readonly headers: Headers;
  /** How many attempts the call made, the successful one included. */
  readonly attempts: number;
}

/** The two codes that name an identity request (both returned by `create`). */
export interface IdentityRequestCodes {
  accessRequestCode: string;
  identitySessionCode: string;
}

export interface IdentityResponseRequest extends IdentityRequestCodes {
  /** The webhook's `access_token` JWT, exactly as received: sent as `X-Access-Token`. */
  accessToken: string;
}
