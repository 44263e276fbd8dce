/**
 * The REST client's face: `AcmeIdentityClient`, one typed method per operation of the service,
 * grouped by resource. Each method checks its input (bodies.ts), sends it through openapi-fetch
 * and the transport (the headers, retries and deadline), and reads the answer into a typed result
 * (envelope.ts, schemas.ts) or a typed error (errors/). What it holds is the resolved options, the
 * service's clock, the token manager and the transport, made in that order and each handed the
 * ones before it; what a call does on the wire is the transport's.
 */
import createFetchClient from 'openapi-fetch';
import * as z from 'zod/mini';
import type { paths } from '../../generated/schema.js';
import {
  InvalidResponseError,
  NotFoundError,
  SdJwtVerificationError,
  ValidationError,
  apiErrorFrom,
  type ServiceErrorBody,
} from '../errors/index.js';
import { fromFileBase64 } from '../internal/encoding.js';
import { isObject } from '../internal/guards.js';
import {
  checkCode,
  checkCredentialRef,
  checkPathCode,
  credentialBody,
  identityRequestBody,
  refusesOnlyUnsetOptionals,
  type IdentityRequestInput,
} from './bodies.js';
import type { ApiResult, IdentityRequestCodes, IdentityResponseRequest, ResponseInfo } from './results.js';
import { verifiedIdentity } from './identity-flow.js';
import { resolveOptions, type ClientOptions, type RequestOptions, type ResolvedOptions } from './options.js';
import * as S from './schemas.js';
import { ServiceClock } from './clock.js';
import { TokenManager, type TokenGrant } from './tokens.js';
import { emptyRecordProblem, openAnswer, type OpenedAnswer } from './envelope.js';
import { pathSerializer, type PathSerializer } from './paths.js';
import type {
  AuthResource,
  CreateIdentityRequestOptions,
  CredentialsResource,
  IdentityRequestsResource,
  IdentityResponsesResource,
  StatusResource,
} from './resources.js';
import { ROUTES as R } from '../contract/routes.js';
import { retryAfterMs } from './retry.js';
import { PreparedRequestClass, ReadResponse, Transport, type CallContext, type SendPolicy } from './transport.js';
import { refuseNotDone, refuseUnverified } from './verdict.js';
import { errorFields, failureIn } from './failure.js';

type Schemas = S.Schemas;

const RESPONSES = new WeakMap<object, ResponseInfo>();

/** Records the answer behind `result` (non-enumerable `response` on an `ApiResult`). */
function withResponse<R extends object>(result: R, response: Response, apiResult: boolean): R {
  // The transport's ReadResponse already is { status, headers, attempts }: kept as it is, no copy.
  const info: ResponseInfo =
    response instanceof ReadResponse ? response : { status: response.status, headers: response.headers, attempts: 1 };
  RESPONSES.set(result, info);
  if (apiResult) Object.defineProperty(result, 'response', { value: info, enumerable: false, configurable: true });
  return result;
}

/**
 * The HTTP answer (status, headers, attempts) behind any result the client returned: an
 * `ApiResult` or a status record. `undefined` for an object the client did not return.
 * @example
 * ```ts
 * const health = await acme.status.health();
 * responseOf(health)?.headers.get('date');
 * ```
 */
export function responseOf(result: object): ResponseInfo | undefined {
  return RESPONSES.get(result);
}

type Fetch = (request: Request) => Promise<Response>;
/** An operation of the contract's route list: its method and path template. */
type Route = (typeof R)[keyof typeof R];
type Sent = { response: Response; data?: unknown; error?: unknown };

/** How a call is sent, and whether its errors follow the credential endpoints' rules (a 412 there is a failed verification). */
interface CallPolicy extends SendPolicy {
  credential?: boolean;
}

/** Authenticated, safe to repeat: reads and deletes. */
const AUTHED: CallPolicy = { auth: true, retry: 'safe' };
/** Authenticated, creates something: repeated only after a 429. */
const CREATE: CallPolicy = { auth: true, retry: 'rate-limit-only' };
/** The credential endpoints' reads and revoke (revoking twice leaves it revoked): safe to repeat. */
const CREDENTIAL: CallPolicy = { auth: true, retry: 'safe', credential: true };
/** The credential submission: creates something. */
const CREDENTIAL_CREATE: CallPolicy = { auth: true, retry: 'rate-limit-only', credential: true };
/** No token: token and status endpoints. */
const PUBLIC: CallPolicy = { auth: false, retry: 'safe' };

/** openapi-fetch's query serializer. An internal invariant: no method of this client passes a query. */
function noQuery(query: Record<string, unknown>): string {
  const names = Object.keys(query);
  if (names.length > 0) throw new TypeError(`no operation of the service takes query parameters (${names.join(', ')})`);
  return '';
}

/**
 * The REST client. Every operation of the service is a typed method grouped by resource; tokens,
 * identity headers, retries, deadlines and error typing are handled for you.
 *
 * @example
 * ```ts
 * const acme = new AcmeIdentityClient({ baseUrl, clientId, clientSecret, tenantId });
 * const { data } = await acme.identityRequests.create({ ...person, claims: ['acmeidentity.given_name'] });
 * ```
 */
export class AcmeIdentityClient {
  readonly #options: ResolvedOptions;
  readonly #clock: ServiceClock;
  readonly #transport: Transport;
  readonly #tokens: TokenManager;
  readonly #api: ReturnType<typeof createFetchClient<paths>>;
  /** Whether the service was found to require the unset optionals (`unsetOptionals: 'auto'`): they are filled from then on. */
  #fillsUnsetOptionals = false;

  /** API tokens: usually managed for you; exposed for diagnostics and custom flows. */
  readonly auth: AuthResource;

  /** Identity requests: create, read, delete. */
  readonly identityRequests: IdentityRequestsResource;

  /** Identity responses, after the approval webhook. */
  readonly identityResponses: IdentityResponsesResource;

  /** Credentials issued by this client. `credentialRef` is used verbatim, as returned by `submit`. */
  readonly credentials: CredentialsResource;

  /** Service status. These endpoints answer unwrapped records, without the `{data}` envelope. */
  readonly status: StatusResource;

  /**
   * The service's time as this client knows it, in ms: the local clock corrected by what the
   * service's `Date` headers (or, without them, its tokens' `iat`) said. Expiries the service set
   * (a webhook's X-Access-Token, an identity response) are judged on it.
   */
  serviceTime(): number {
    return this.#clock.now();
  }

  /** @throws {ConfigurationError} an option is missing or unusable. */
  constructor(options: ClientOptions) {
    this.#options = resolveOptions(options);
    // The service's clock first: the token manager and the transport both read it.
    this.#clock = new ServiceClock(this.#options.now, this.#options.correctClockSkew);
    this.#api = createFetchClient<paths>({
      baseUrl: this.#options.baseUrl,
      Request: PreparedRequestClass,
      pathSerializer: pathSerializer(encodeURIComponent),
      // No operation of the service takes query parameters (the generated types allow none); a
      // function here spares openapi-fetch building a serializer on every call.
      querySerializer: noQuery,
    });
    this.#tokens = this.#tokenManager();
    // The token manager's endpoints call through the transport only when a token is needed, after both exist.
    this.#transport = new Transport(this.#options, this.#clock, this.#tokens);
    this.auth = this.#authResource();
    this.identityRequests = this.#identityRequestsResource();
    this.identityResponses = this.#identityResponsesResource();
    this.credentials = this.#credentialsResource();
    this.status = this.#statusResource();
  }

  /** The token manager, whose token requests run under their own deadline, never a caller's. */
  #tokenManager(): TokenManager {
    const options = this.#options;
    const tokenRequest: RequestOptions = { timeoutMs: options.tokenTimeoutMs };
    return new TokenManager({
      endpoints: {
        authenticate: async () => (await this.#tokenCall(undefined, tokenRequest)).data,
        refresh: async (refreshToken) => (await this.#tokenCall(refreshToken, tokenRequest)).data,
      },
      store: options.tokenStore,
      key: `${options.baseUrl}#${options.clientId}`,
      refreshMarginSeconds: options.refreshMarginSeconds,
      now: options.now,
      serviceOffsetMs: () => this.#clock.offsetMs(),
      retries: options.maxRetries,
      observer: options.observer,
      // A shared store's renewal lease outlives the longest renewal: every token request timing out.
      leaseMs: options.tokenTimeoutMs * (options.maxRetries + 1) + 5_000,
      tokenTimeoutMs: options.tokenTimeoutMs,
      ...(options.tokenHedgeDelayMs === undefined ? {} : { hedgeDelayMs: options.tokenHedgeDelayMs }),
    });
  }

  #authResource(): AuthResource {
    return {
      createToken: (options) => this.#tokenCall(undefined, options),
      refreshToken: async (refreshToken, options) => this.#tokenCall(checkCode('refreshToken', refreshToken), options),
      accessToken: (options) => this.#transport.call(options, async (ctx) => this.#tokens.accessToken(ctx.signal)),
    };
  }

  #identityRequestsResource(): IdentityRequestsResource {
    return {
      create: (input, options) => this.#createIdentityRequest(input, options),
      get: (codes, options) =>
        this.#call(options, R.getIdentityRequest, AUTHED, S.IdentityRequestDetails, (fetch, ctx) =>
          this.#api.GET(R.getIdentityRequest.path, {
            params: { path: this.#codes(codes), header: this.#identityHeaders(ctx) },
            parseAs: 'text',
            fetch,
          }),
        ),
      delete: async (codes, options) => {
        const result = await this.#call(options, R.deleteIdentityRequest, AUTHED, S.MessageData, (fetch, ctx) =>
          this.#api.DELETE(R.deleteIdentityRequest.path, {
            params: { path: this.#codes(codes), header: this.#identityHeaders(ctx) },
            parseAs: 'text',
            fetch,
          }),
        );
        // An answer that says nothing was deleted (`deleted: false`) is no deletion.
        refuseNotDone(result, ['deleted'], 'the request was not deleted');
        return result;
      },
    };
  }

  /**
   * POST /identity/request. With `unsetOptionals: 'auto'`, the first request leaves the unset
   * optionals out; a service that refuses exactly those (and so created nothing) gets them filled,
   * on this request and every later one.
   */
  async #createIdentityRequest(input: IdentityRequestInput, options: CreateIdentityRequestOptions | undefined) {
    const { unsetOptionals, observer } = this.#options;
    if (unsetOptionals !== 'auto' || this.#fillsUnsetOptionals) return this.#sendIdentityRequest(input, options, unsetOptionals !== 'omit');
    try {
      return await this.#sendIdentityRequest(input, options, false);
    } catch (error) {
      if (!(error instanceof ValidationError) || !refusesOnlyUnsetOptionals(error.fields, input)) throw error;
      this.#fillsUnsetOptionals = true;
      observer.log('info', 'the service requires results_emails, download_email and expiry_hours: unset ones are sent filled from now on', {
        fields: error.fields.join(','),
      });
      return this.#sendIdentityRequest(input, options, true);
    }
  }

  #sendIdentityRequest(input: IdentityRequestInput, options: CreateIdentityRequestOptions | undefined, fillUnsetOptionals: boolean) {
    return this.#call(options, R.createIdentityRequest, CREATE, S.IdentityRequestCreated, (fetch, ctx) => {
      const supported = options?.supportedClaims ? new Set(options.supportedClaims) : undefined;
      return this.#api.POST(R.createIdentityRequest.path, {
        body: identityRequestBody(input, supported, fillUnsetOptionals),
        params: { header: this.#identityHeaders(ctx) },
        parseAs: 'text',
        fetch,
      });
    });
  }

  #identityResponsesResource(): IdentityResponsesResource {
    return {
      getVerified: (event, options) =>
        verifiedIdentity(
          // Expiry is checked once, by the verification step, with the caller's tolerance.
          (request, requestOptions) => this.#identityResponse(request, requestOptions, Number.POSITIVE_INFINITY),
          (codes, requestOptions) => this.identityRequests.get(codes, requestOptions),
          event,
          options,
          () => this.#clock.now(),
        ),
      get: (request, options) => this.#identityResponse(request, options, 0),
    };
  }

  #credentialsResource(): CredentialsResource {
    // credential_ref goes into the path verbatim (spec): openapi-fetch would percent-encode it.
    const verbatim = pathSerializer((value) => value);
    const byRef =
      <T>(
        route: Route,
        schema: S.ShapeOf<T>,
        send: (init: {
          params: { path: { credential_ref: string } };
          pathSerializer: PathSerializer;
          parseAs: 'text';
          fetch: Fetch;
        }) => Promise<Sent>,
      ) =>
      (credentialRef: string, options?: RequestOptions) =>
        this.#call(options, route, CREDENTIAL, schema, (fetch) =>
          send({
            params: { path: { credential_ref: checkCredentialRef(credentialRef) } },
            pathSerializer: verbatim,
            parseAs: 'text',
            fetch,
          }),
        );
    const fileData = byRef(R.getCredentialFileData, S.CredentialFileData, (init) => this.#api.GET(R.getCredentialFileData.path, init));
    const verify = byRef(R.verifyCredential, S.VerifiableCredential, (init) => this.#api.GET(R.verifyCredential.path, init));
    const revoke = byRef(R.revokeCredential, S.CredentialRevoked, (init) => this.#api.POST(R.revokeCredential.path, init));
    return {
      submit: (input, options) =>
        this.#call(options, R.submitCredential, CREDENTIAL_CREATE, S.CredentialSubmitted, async (fetch) =>
          this.#api.POST(R.submitCredential.path, { body: await credentialBody(input), parseAs: 'text', fetch }),
        ),
      verify: async (credentialRef, options) => {
        const result = await verify(credentialRef, options);
        // A 200 that says the credential did not verify (a verdict, or an expiry already past) is no verification.
        refuseUnverified(result, this.#clock.now());
        return result;
      },
      fileData,
      download: async (credentialRef, options) => {
        const { data, correlationId } = await fileData(credentialRef, options);
        const bytes = fromFileBase64(data.file_data);
        if (!bytes) throw new InvalidResponseError(200, correlationId, 'file_data is not base64', ['data.file_data']);
        return bytes;
      },
      revoke: async (credentialRef, options) => {
        const result = await revoke(credentialRef, options);
        // The spec's transition: a revocation answers `data.revoked` true. An answer that says
        // false revoked nothing: an error, never a success a caller would take for the revocation.
        refuseNotDone(result, ['revoked'], 'the credential was not revoked');
        return result;
      },
    };
  }

  #statusResource(): StatusResource {
    return {
      current: (options) =>
        this.#callBare(options, R.getCurrentStatus, S.StatusCurrent, (fetch) =>
          this.#api.GET(R.getCurrentStatus.path, { parseAs: 'text', fetch }),
        ),
      health: (options) =>
        this.#callBare(options, R.getHealth, S.StatusHealth, (fetch) => this.#api.GET(R.getHealth.path, { parseAs: 'text', fetch })),
    };
  }

  #identityHeaders(ctx: CallContext) {
    return {
      'X-Tenant-Id': this.#options.tenantId,
      // Stamped again by the transport on a retry, a replay, or after waiting for a token.
      'X-Request-Timestamp': this.#transport.timestamp(),
      'X-Correlation-Id': ctx.correlationId,
    };
  }

  /**
   * GET /identity/response, refused once its `exp` has elapsed on the service's clock (as learnt
   * from `Date`), beyond `toleranceSeconds`: the spec's rule is on the client.
   */
  #identityResponse(
    request: IdentityResponseRequest,
    options: RequestOptions | undefined,
    toleranceSeconds: number,
  ): Promise<ApiResult<Schemas['IdentityResponseData']>> {
    return this.#call(options, R.getIdentityResponse, AUTHED, S.IdentityResponseData, (fetch, ctx) => {
      const path = this.#codes(request);
      const accessToken = checkCode('accessToken', request.accessToken);
      return this.#api.GET(R.getIdentityResponse.path, {
        params: { path, header: { ...this.#identityHeaders(ctx), 'X-Access-Token': accessToken } },
        parseAs: 'text',
        fetch,
      });
    }).then((result) => {
      const exp = result.data.exp;
      // Without exp it cannot be judged: refused by get (getVerified's verification step refuses it too).
      if (exp === undefined && Number.isFinite(toleranceSeconds)) {
        throw new SdJwtVerificationError(
          'ERR_SD_JWT_MISSING_CLAIM',
          'the identity response has no "exp": whether it has elapsed cannot be judged, so it must not be accepted',
        );
      }
      if (typeof exp === 'number' && exp + toleranceSeconds <= this.#clock.now() / 1000) {
        throw new SdJwtVerificationError('ERR_SD_JWT_EXPIRED', 'the identity response\'s "exp" has elapsed: it must not be accepted');
      }
      return result;
    });
  }

  #codes(codes: IdentityRequestCodes) {
    const given = (codes ?? {}) as Partial<IdentityRequestCodes>;
    return {
      access_request_code: checkPathCode('accessRequestCode', given.accessRequestCode),
      identity_session_code: checkPathCode('identitySessionCode', given.identitySessionCode),
    };
  }

  /** POST /auth/api-token (no refresh token) or /auth/api-token/refresh, accepting the token response wrapped or bare. */
  #tokenCall(refreshToken: string | undefined, options: RequestOptions | undefined): Promise<ApiResult<TokenGrant>> {
    return this.#transport.call(options, async (ctx) => {
      const route = refreshToken === undefined ? R.createApiToken : R.refreshApiToken;
      const fetch = this.#transport.fetchFor(ctx, PUBLIC, route.path);
      const sent =
        refreshToken === undefined
          ? await this.#api.POST(R.createApiToken.path, {
              body: { client_id: this.#options.clientId, client_secret: this.#options.clientSecret },
              parseAs: 'text',
              fetch,
            })
          : await this.#api.POST(R.refreshApiToken.path, { body: { refresh_token: refreshToken }, parseAs: 'text', fetch });
      // Wrapped (the spec's general rule) or bare (its token table), told apart by shape, so a
      // refusal names the field at fault rather than whatever the other reading lacks.
      let body: unknown;
      try {
        body = this.#readJson(sent, ctx);
      } catch (error) {
        throw this.#baseUrlHint(error, 'token endpoint', route.path);
      }
      const result = this.#unwrap(S.TokenResponse, body, sent.response, ctx);
      // Learnt only by a service that sends no Date header: the clock never puts a token's iat over a Date.
      this.#clock.learnFromToken(result.data.access_token);
      return withResponse(result, sent.response, true);
    });
  }

  #call<T>(
    options: RequestOptions | undefined,
    route: Route,
    policy: CallPolicy,
    schema: S.ShapeOf<T>,
    send: (fetch: Fetch, ctx: CallContext) => Promise<Sent>,
  ): Promise<ApiResult<T>> {
    return this.#transport.call(options, (ctx) =>
      send(this.#transport.fetchFor(ctx, policy, route.path), ctx).then((sent) =>
        withResponse(
          this.#unwrap(schema, this.#readJson(sent, ctx, policy, S.WHEN_EMPTY.get(schema)), sent.response, ctx),
          sent.response,
          true,
        ),
      ),
    );
  }

  /**
   * A successful answer's record, checked by its schema: `client/envelope.ts` opens whatever
   * envelopes it came in (the spec's, none, one with more fields, one more) and drops `null`
   * fields; the correlation id is the envelope's, else the answer's header, else the one sent. A
   * record in which none of the documented fields arrived is refused (unless an empty answer means
   * something, as a DELETE's and a revoke's do: {@link S.WHEN_EMPTY}). Anything amiss is an
   * `InvalidResponseError` whose `issues` name the path.
   */
  #unwrap<T>(schema: S.ShapeOf<T>, body: unknown, response: Response, ctx: CallContext): ApiResult<T> {
    const fields = S.fieldsOf(schema);
    const opened = openAnswer(body, fields);
    const correlationId = opened.correlationId ?? response.headers.get('x-correlation-id') ?? ctx.correlationId;
    const problem = fields && !S.WHEN_EMPTY.has(schema) ? emptyRecordProblem(opened.data, fields) : undefined;
    if (problem) throw new InvalidResponseError(response.status, correlationId, problem, ['(root)']);
    const result: ApiResult<T> = { data: this.#validate(schema, opened, response, correlationId), correlationId };
    if (opened.meta !== undefined) result.meta = opened.meta;
    return result;
  }

  /** A status record: bare in the spec's status tables, read by the same rule as every other answer. */
  #callBare<T>(options: RequestOptions | undefined, route: Route, schema: S.ShapeOf<T>, send: (fetch: Fetch) => Promise<Sent>): Promise<T> {
    return this.#transport.call(options, async (ctx) => {
      const sent = await send(this.#transport.fetchFor(ctx, PUBLIC, route.path));
      let body: unknown;
      try {
        body = this.#readJson(sent, ctx);
      } catch (error) {
        throw this.#baseUrlHint(error, 'status endpoint', route.path);
      }
      const { data: value } = this.#unwrap(schema, body, sent.response, ctx);
      return isObject(value) ? withResponse(value, sent.response, false) : value;
    });
  }

  /**
   * A 404 from an endpoint every deployment has (the token's, the status ones): almost always a
   * base URL without its `/api/v1`, which the error then says.
   */
  #baseUrlHint(error: unknown, what: string, path: string): unknown {
    if (error instanceof NotFoundError) {
      error.message = `${error.message}: no ${what} at ${this.#options.baseUrl}${path}; check that baseUrl is the REST root, ending with /api/v1 (for example https://api.example.com/api/v1)`;
    }
    return error;
  }

  /**
   * The parsed JSON of a successful answer; a typed error for an error status or an unreadable body.
   * `whenEmpty`: what a success without a body means (a DELETE or a revoke answered 204, or 200
   * with nothing), for an action that was done: never an error for it.
   */
  #readJson(sent: Sent, ctx: CallContext, policy: CallPolicy = PUBLIC, whenEmpty?: Readonly<Record<string, unknown>>): unknown {
    const { response } = sent;
    // Read only when there is an error to carry it.
    const correlationId = () => response.headers.get('x-correlation-id') ?? ctx.correlationId;
    // The error an answer carries (by its status, or by what its body says): a rate limit's wait is
    // read from its headers either way.
    const failed = (body: ServiceErrorBody | undefined) =>
      apiErrorFrom(
        {
          status: response.status,
          body,
          requestCorrelationId: correlationId(),
          headers: response.headers,
          attempts: response instanceof ReadResponse ? response.attempts : 1,
        },
        retryAfterMs(response.headers, this.#clock.now()),
        { credential: policy.credential === true },
      );
    if (!response.ok) throw failed(errorFields(sent.error));
    if (typeof sent.data !== 'string' || sent.data.trim() === '') {
      if (whenEmpty) return { ...whenEmpty };
      throw new InvalidResponseError(response.status, correlationId(), 'empty body');
    }
    let body: unknown;
    try {
      body = JSON.parse(sent.data);
    } catch {
      throw new InvalidResponseError(response.status, correlationId(), 'the body is not JSON');
    }
    // An answer that says the call failed (client/failure.ts) is the error it carries, whatever
    // the status said: never a success opened from its `data`.
    const failure = failureIn(body);
    if (failure) throw failed(failure.body);
    return body;
  }

  #validate<T>(schema: S.ShapeOf<T>, opened: OpenedAnswer, response: Response, correlationId: string): T {
    const parsed = z.safeParse(schema, opened.data);
    if (parsed.success) return parsed.data;
    // Named from the body's root: what an envelope held, refused as a whole, is named by where it sat (`data`).
    const issues = S.issuePaths(parsed.error, opened.path);
    const reasons = S.issueReasons(parsed.error, opened.path);
    throw new InvalidResponseError(response.status, correlationId, `the body is not of the documented shape${reasons}`, issues);
  }
}

/**
 * Same as `new AcmeIdentityClient(options)`.
 * @throws {ConfigurationError} `ERR_INVALID_CONFIG` for a missing or unusable option.
 * @example
 * ```ts
 * const acme = createClient({ baseUrl, clientId, clientSecret, tenantId });
 * ```
 */
export function createClient(options: ClientOptions): AcmeIdentityClient {
  return new AcmeIdentityClient(options);
}
