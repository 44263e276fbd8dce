/**
 * The fake acme identity service: one Web-standard `(Request) => Promise<Response>` app with
 * in-memory state. The same app backs the msw handlers (`@acme/identity/testing/msw`) and the
 * localhost server ({@link serveFakeService}).
 */
import { SUPPORTED_CLAIMS } from '../contract/claims.js';
import { cutBody, never, proxyBadGateway } from './faults.js';
import {
  MAX_FILE_BYTES,
  decryptFile,
  isDuplicate,
  issueCredential,
  revocableCredential,
  usableCredential,
  validateCredentialInput,
  verifiedCredential,
  type CredentialRecord,
} from './credentials.js';
import {
  ERROR_TABLE,
  HttpError,
  errorResponse,
  json,
  ok,
  serviceError,
  uncodedError,
  validationError,
  withNumbers,
  type ResponseContext,
  type ServiceErrorCode,
} from './http.js';
import {
  buildIdentityResponse,
  defaultValues,
  findRecord,
  isExpired,
  isOpen,
  newIdentityRecord,
  requestDetails,
  samePerson,
  validateIdentityInput,
  type ApprovalOptions,
  type IdentityRecord,
} from './identity.js';
import { createSigningKeys, signJwt, verifyJwt } from './keys.js';
import { homePage, journeyPage as journeyHtml, notFoundPage, page } from './pages.js';
import { DEFAULT_DELEGATIONS, DEFAULT_OIDC_BACKEND_CLIENT, DEFAULT_OIDC_CLIENT, createAuthorizationServer } from './oidc.js';
import { IDENTITY_ACTIONS, deliverWebhook, type WebhookDelivery, type WebhookPayload } from './webhooks.js';
import { openApiDocument } from '../contract/openapi.js';
import { resolveReadings } from './readings.js';
import {
  DEFAULT_CLIENT,
  type Fault,
  type FakeClientRegistration,
  type FakeService,
  type FakeServiceOptions,
  type FakeServiceSettings,
  type RecordedRequest,
  type TimestampFormat,
} from './options.js';
import { randomId } from '../internal/encoding.js';
import { sleep } from '../internal/sleep.js';

function clientFor(clients: readonly FakeClientRegistration[], clientId: unknown) {
  return clients.find((c) => c.clientId === clientId);
}

const TIMESTAMP_PATTERN: Record<TimestampFormat, RegExp> = {
  'unix-seconds': /^[0-9]{1,12}$/,
  'unix-ms': /^[0-9]{1,15}$/,
  iso8601: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
};

function parseTimestamp(value: string, format: TimestampFormat): number | undefined {
  if (!TIMESTAMP_PATTERN[format].test(value)) return undefined;
  if (format === 'iso8601') return Date.parse(value);
  return format === 'unix-seconds' ? Number(value) * 1000 : Number(value);
}

/**
 * Creates a fake service with fresh keys and empty state.
 * @throws {TypeError} when `baseUrl` or `authUrl` is not an absolute URL.
 * @example
 * ```ts
 * const service = await createFakeService({ now: () => clock });
 * const acme = new AcmeIdentityClient({ baseUrl: service.baseUrl, ...DEFAULT_CLIENT, fetch: (r) => service.fetch(r) });
 * ```
 */
export async function createFakeService(options: FakeServiceOptions = {}): Promise<FakeService> {
  const baseUrl = (options.baseUrl ?? 'https://api.acme.test/api/v1').replace(/\/+$/, '');
  const authUrl = (options.authUrl ?? 'https://auth.acme.test').replace(/\/+$/, '');
  const basePath = new URL(baseUrl).pathname;
  const clients = (options.clients ?? [DEFAULT_CLIENT]).map((client) => ({ ...client }));
  const readings = resolveReadings(options.readings);
  const clock = options.now ?? (() => Date.now());
  const now = readings.clockSkewSeconds === 0 ? clock : () => clock() + readings.clockSkewSeconds * 1000;
  const accessTtl = options.accessTokenTtlSeconds ?? 900;
  const refreshTtl = options.refreshTokenTtlSeconds ?? 86_400;
  // These three are options and readings both; a reading given explicitly wins.
  const timestampFormat = options.readings?.timestampFormat ?? options.timestampFormat ?? 'unix-seconds';
  const tokenLifetime = options.readings?.tokenLifetime ?? options.tokenLifetime ?? 'both';
  const disclosureEncoding = options.readings?.disclosureEncoding ?? options.disclosureEncoding ?? 'compact';
  const tolerance = options.timestampToleranceSeconds ?? 300;
  const credentialTypes = options.credentialTypes ?? ['acicncchc'];
  const supportedClaims = new Set([...SUPPORTED_CLAIMS, ...(options.extraClaims ?? [])]);
  let keys = await createSigningKeys();
  let allKeys = [keys];
  const fileKey = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);

  const refreshTokens = new Map<string, { clientId: string; expiresAt: number }>();
  const identity = new Map<string, IdentityRecord>();
  const credentials = new Map<string, CredentialRecord>();
  const faults: (Fault & { remaining: number })[] = [];
  const requests: RecordedRequest[] = [];
  const events: WebhookPayload[] = [];
  const deliveries: WebhookDelivery[] = [];
  const pendingDeliveries = new Set<Promise<boolean>>();
  const settings: FakeServiceSettings = {
    emailDelivery: 'ok',
    rateLimit: undefined,
    status: 'operational',
    database: 'connected',
    maintenanceMode: false,
    authorizationErrors: 'json',
  };
  let window = { start: 0, count: 0 };
  /** Access tokens carry the generation they were issued in; older generations are refused. */
  let tokenGeneration = 0;

  async function issueTokens(clientId: string, ctx: ResponseContext): Promise<Response> {
    const client = clientFor(clients, clientId);
    const accessToken = await signJwt(
      keys,
      { sub: clientId, tenant: client?.tenantId, jti: randomId(12), token_use: 'api', gen: tokenGeneration },
      { nowMs: ctx.now, ttlSeconds: accessTtl },
    );
    const refreshToken = `rt_${randomId(24)}`;
    refreshTokens.set(refreshToken, { clientId, expiresAt: ctx.now + refreshTtl * 1000 });
    const lifetime = tokenLifetime;
    const token = {
      access_token: accessToken,
      refresh_token: refreshToken,
      ...(lifetime === 'both' || lifetime === 'expires_in' ? { expires_in: accessTtl } : {}),
      ...(lifetime === 'both' || lifetime === 'expires' ? { expires: new Date(ctx.now + accessTtl * 1000).toUTCString() } : {}),
    };
    return readings.tokenEnvelope === 'bare' ? json(ctx, withNumbers(ctx, token)) : ok(ctx, token);
  }

  async function readJson(request: Request): Promise<unknown> {
    const text = await request.text();
    // Past what any valid request can be (a 5 MiB file in base64 and its fields): 413, with type and code as every error.
    if (text.length > MAX_FILE_BYTES * 2) throw uncodedError(413, 'Request body too large');
    try {
      return JSON.parse(text);
    } catch {
      throw serviceError('E1002', 'The body must be valid JSON');
    }
  }

  /** The client behind a valid, unexpired access token; 401 (type and code only) otherwise. */
  async function authenticate(request: Request, nowMs: number): Promise<FakeClientRegistration> {
    const match = /^Bearer ([^\s]+)$/.exec(request.headers.get('authorization') ?? '');
    const payload = match?.[1] ? await verifyJwt(allKeys, match[1], nowMs) : undefined;
    const current = payload?.['token_use'] === 'api' && payload['gen'] === tokenGeneration;
    const client = current ? clientFor(clients, payload?.sub) : undefined;
    if (!client) throw serviceError('E1003', 'Missing or invalid authentication', { minimal: true });
    return client;
  }

  /** Identity endpoints also need the tenant and a fresh request timestamp. */
  async function authenticateIdentity(request: Request, nowMs: number): Promise<FakeClientRegistration> {
    const client = await authenticate(request, nowMs);
    const tenant = request.headers.get('x-tenant-id');
    const stamp = request.headers.get('x-request-timestamp');
    if (!tenant || !stamp) throw serviceError('E1003', 'X-Tenant-Id and X-Request-Timestamp are required', { minimal: true });
    const at = parseTimestamp(stamp, timestampFormat);
    if (at === undefined || Math.abs(at - nowMs) > tolerance * 1000) {
      throw serviceError('E1003', 'X-Request-Timestamp is malformed or outside the allowed window', { minimal: true });
    }
    if (tenant !== client.tenantId) throw serviceError('E1004', 'Not allowed for this tenant', { minimal: true });
    return client;
  }

  function rateLimit(ctx: ResponseContext): void {
    const limit = settings.rateLimit;
    if (!limit) return;
    const windowMs = limit.windowSeconds * 1000;
    if (ctx.now - window.start >= windowMs) window = { start: ctx.now, count: 0 };
    window.count += 1;
    if (window.count > limit.limit) {
      const retryAfter = Math.max(1, Math.ceil((window.start + windowMs - ctx.now) / 1000));
      throw serviceError('E1007', 'Too many requests', { minimal: true, headers: { 'retry-after': String(retryAfter) } });
    }
  }

  type Route = (request: Request, ctx: ResponseContext, params: string[]) => Promise<Response>;

  const createRequest: Route = async (request, ctx) => {
    const client = await authenticateIdentity(request, ctx.now);
    const input = validateIdentityInput(await readJson(request), { supportedClaims, purposes: options.purposes });
    for (const existing of identity.values()) {
      if (existing.clientId === client.clientId && isOpen(existing, ctx.now) && samePerson(existing.input, input)) {
        throw serviceError('E1006', 'An open identity request to this person exists', {
          details: { existing_code: existing.accessRequestCode },
        });
      }
    }
    const record = newIdentityRecord(client.clientId, input, new URL(authUrl).origin, ctx.now);
    identity.set(record.accessRequestCode, record);
    if (input.send_email && settings.emailDelivery === 'fail') {
      throw serviceError('E2002', 'The request was created but the email could not be sent', {
        details: { code: record.accessRequestCode, redirect_url: record.redirectUrl },
      });
    }
    return ok(ctx, {
      access_request_code: record.accessRequestCode,
      identity_session_code: record.identitySessionCode,
      redirect_url: record.redirectUrl,
    });
  };

  const getRequest: Route = async (request, ctx, [arc, isc]) => {
    const client = await authenticateIdentity(request, ctx.now);
    return ok(ctx, requestDetails(findRecord(identity, client.clientId, arc!, isc!), readings));
  };

  const deleteRequest: Route = async (request, ctx, [arc, isc]) => {
    const client = await authenticateIdentity(request, ctx.now);
    const record = findRecord(identity, client.clientId, arc!, isc!);
    record.status = 'deleted';
    return ok(ctx, { message: 'Identity request cancelled and deleted' });
  };

  const getResponse: Route = async (request, ctx, [arc, isc]) => {
    const client = await authenticateIdentity(request, ctx.now);
    const header = request.headers.get('x-access-token');
    if (!header) throw serviceError('E1003', 'X-Access-Token is required', { minimal: true });
    const token = await verifyJwt(allKeys, header, ctx.now);
    if (!token) throw serviceError('E1003', 'X-Access-Token is invalid or expired', { minimal: true });
    const record = findRecord(identity, client.clientId, arc!, isc!);
    if (token['access_request_code'] !== arc || token['access_token'] !== record.accessToken) {
      throw serviceError('E1004', 'X-Access-Token was not issued for this request', { minimal: true });
    }
    if (record.status !== 'approved' || !record.response) throw serviceError('E1005', 'No identity response for this request');
    return ok(ctx, record.response);
  };

  const submitCredential: Route = async (request, ctx) => {
    const client = await authenticate(request, ctx.now);
    const input = validateCredentialInput(await readJson(request), credentialTypes);
    if (isDuplicate(credentials.values(), client.clientId, input)) {
      throw serviceError('E1006', 'Duplicate credential');
    }
    const record = await issueCredential(client.clientId, input, { keys, fileKey, issuer: authUrl, nowMs: ctx.now });
    credentials.set(record.ref, record);
    return ok(ctx, { credential_ref: record.ref });
  };

  const verifyCredentialRoute: Route = async (request, ctx, [ref]) => {
    const client = await authenticate(request, ctx.now);
    const record = usableCredential(credentials.get(ref!), client.clientId, ctx.now);
    return ok(ctx, await verifiedCredential(record, allKeys, ctx.now));
  };

  const fileData: Route = async (request, ctx, [ref]) => {
    const client = await authenticate(request, ctx.now);
    const record = usableCredential(credentials.get(ref!), client.clientId, ctx.now);
    return ok(ctx, { file_data: await decryptFile(record, fileKey) });
  };

  const revoke: Route = async (request, ctx, [ref]) => {
    const client = await authenticate(request, ctx.now);
    const record = revocableCredential(credentials.get(ref!), client.clientId);
    record.revoked = true;
    return ok(ctx, { revoked: true });
  };

  const apiToken: Route = async (request, ctx) => {
    const body = (await readJson(request)) as Record<string, unknown> | null;
    const errors: Record<string, string> = {};
    for (const field of ['client_id', 'client_secret']) {
      if (typeof body?.[field] !== 'string' || body[field] === '') errors[field] = 'is required';
    }
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const client = clientFor(clients, body!['client_id']);
    if (!client || client.clientSecret !== body!['client_secret']) {
      throw serviceError('E1003', 'Invalid client credentials', { minimal: true });
    }
    return issueTokens(client.clientId, ctx);
  };

  const refresh: Route = async (request, ctx) => {
    const body = (await readJson(request)) as Record<string, unknown> | null;
    const token = body?.['refresh_token'];
    if (typeof token !== 'string' || token === '') throw validationError({ refresh_token: 'is required' });
    const stored = refreshTokens.get(token);
    // Refresh tokens rotate: each is good for one use.
    refreshTokens.delete(token);
    if (!stored || stored.expiresAt <= ctx.now) {
      throw serviceError('E1003', 'Invalid or expired refresh token', { minimal: true });
    }
    return issueTokens(stored.clientId, ctx);
  };

  /** A status record, at the top level or (the `statusEnvelope: 'wrapped'` reading) in the general envelope. */
  const statusRecord = (ctx: ResponseContext, record: Record<string, unknown>) =>
    readings.statusEnvelope === 'wrapped' ? ok(ctx, record) : json(ctx, withNumbers(ctx, record));

  const statusCurrent: Route = async (_request, ctx) =>
    statusRecord(ctx, {
      status: settings.status,
      timestamp: Math.floor(ctx.now / 1000),
      environment: 'sandbox',
      components: {
        api: { status: settings.status, version: openApiDocument.info.version },
        database: { status: settings.database, message: settings.database === 'connected' ? 'ok' : 'unreachable' },
      },
      maintenance_mode: settings.maintenanceMode,
    });

  const statusHealth: Route = async (_request, ctx) =>
    statusRecord(ctx, {
      status: settings.status === 'operational' && settings.database === 'connected' ? 'healthy' : 'degraded',
      timestamp: Math.floor(ctx.now / 1000),
      database: settings.database,
    });

  const docs: Route = async (_request, ctx) => json(ctx, openApiDocument);

  const JWKS_PATH = '/oauth/oidc/jwks';
  const oidc = createAuthorizationServer({
    issuer: authUrl,
    now,
    keys: () => keys,
    supportedClaims,
    clients: (options.oidcClients ?? [DEFAULT_OIDC_CLIENT, DEFAULT_OIDC_BACKEND_CLIENT]).map((client) => ({ ...client })),
    delegations: options.delegations ?? DEFAULT_DELEGATIONS,
    journey: options.oidcJourney ?? 'auto',
    errorMode: () => settings.authorizationErrors,
    person: (prefill) => ({
      ...defaultValues({
        first_name: 'Jane',
        last_name: 'Citizen',
        email: prefill.email ?? 'jane.citizen@example.com',
        phone: prefill.phone ?? '412345678',
        phone_country_code: Number(prefill.phoneCountryCode ?? 61),
      }),
      given_name: 'Jane',
      family_name: 'Citizen',
      email: prefill.email ?? 'jane.citizen@example.com',
      email_verified: true,
    }),
  });
  const discovery: Route = async (_request, ctx) => json(ctx, oidc.metadata());

  const jwks: Route = async (_request, ctx) => json(ctx, { keys: allKeys.map((k) => k.publicJwk) });

  /** The person's side of an identity request: where `redirect_url` leads. Pages, for a browser: HTML, errors too. */
  const journeyRecord = (arc: string) => {
    const found = identity.get(arc);
    return !found || found.status === 'deleted' ? undefined : found;
  };
  const noJourney = () =>
    notFoundPage(
      'No identity request waits at this address: it was deleted, or never existed. Its redirect_url comes from POST /identity/request.',
    );

  const journeyPage: Route = async (_request, _ctx, [arc]) => {
    const found = journeyRecord(arc!);
    if (!found) return noJourney();
    if (found.status === 'pending') {
      found.status = 'opened';
      found.openedAt ??= Math.floor(now() / 1000);
    }
    return journeyHtml(found, isOpen(found, now()));
  };

  /** The person approves (fully or, via the off-ramp, partially) or cancels; then back to the client's URL. */
  const journeyAction: Route = async (_request, _ctx, [arc, action]) => {
    const found = journeyRecord(arc!);
    if (!found) return noJourney();
    if (!isOpen(found, now()))
      return page(
        'Verify your identity',
        `<section><p>This request is ${isExpired(found, now()) ? 'expired' : found.status}: there is nothing left to answer.</p></section>`,
        409,
      );
    if (action === 'cancel') await cancelRequest(found.accessRequestCode);
    else await approveRequest(found.accessRequestCode, { partiallyComplete: action === 'partial' });
    const target = action === 'partial' ? found.input.off_ramp_url : found.input.return_url;
    return new Response(null, { status: 303, headers: { location: target } });
  };

  /** Endpoints of the authorization server a browser page calls with `fetch`: discovery, JWKS, token, userinfo. */
  const BROWSER_CALLED = new RegExp(`^/(\\.well-known/openid-configuration|oauth/oidc/(token|userinfo)|${JWKS_PATH.slice(1)})$`);
  const CORS_HEADERS = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, POST',
    'access-control-allow-headers': 'authorization, content-type, dpop',
    'access-control-max-age': '600',
  };

  /** Routes of the authorization server, matched on the path below `authUrl`. */
  /** The home page: what this fake serves, and what is happening in it. */
  const home: Route = async () =>
    homePage({
      baseUrl,
      authUrl,
      jwksUrl: `${authUrl}${JWKS_PATH}`,
      journeys: [...identity.values()].filter((r) => isOpen(r, now())),
      signIns: oidc.waiting(),
      deliveries,
    });

  const authRoutes: [method: string, pattern: RegExp, route: Route][] = [
    ['GET', /^\/$/, home],
    ['GET', /^\/\.well-known\/openid-configuration$/, discovery],
    ['GET', new RegExp(`^${JWKS_PATH}$`), jwks],
    ['GET', /^\/oauth\/oidc\/authorize$/, (request) => oidc.authorize(request)],
    ['POST', /^\/oauth\/oidc\/consent\/([^/]+)\/(approve|cancel)$/, (_request, _ctx, [id, action]) => oidc.consent(id!, action!)],
    ['POST', /^\/oauth\/oidc\/token$/, (request) => oidc.token(request)],
    ['GET', /^\/oauth\/oidc\/userinfo$/, (request) => oidc.userinfo(request)],
    ['GET', /^\/journey\/([^/]+)$/, journeyPage],
    ['POST', /^\/journey\/([^/]+)\/(approve|partial|cancel)$/, journeyAction],
  ];

  const CODE = '([^/]+)';
  const REST = '(.+)';
  const routes: [method: string, pattern: RegExp, route: Route, limited: boolean][] = [
    ['POST', /^\/auth\/api-token$/, apiToken, true],
    ['POST', /^\/auth\/api-token\/refresh$/, refresh, true],
    ['POST', /^\/identity\/request$/, createRequest, true],
    ['GET', new RegExp(`^/identity/request/${CODE}/${CODE}$`), getRequest, true],
    ['DELETE', new RegExp(`^/identity/request/${CODE}/${CODE}$`), deleteRequest, true],
    ['GET', new RegExp(`^/identity/response/${CODE}/${CODE}$`), getResponse, true],
    ['POST', /^\/credentials\/submit$/, submitCredential, true],
    // credential_ref is opaque and arrives verbatim: it may itself contain slashes.
    ['GET', new RegExp(`^/credentials/verify/${REST}$`), verifyCredentialRoute, true],
    ['GET', new RegExp(`^/credentials/file-data/${REST}$`), fileData, true],
    ['POST', new RegExp(`^/credentials/revoke/${REST}$`), revoke, true],
    ['GET', /^\/status\/current$/, statusCurrent, false],
    ['GET', /^\/status\/health$/, statusHealth, false],
    ['GET', /^\/docs\/spec$/, docs, false],
  ];

  function takeFault(method: string, path: string): Fault | undefined {
    const index = faults.findIndex(
      (f) =>
        (!f.method || f.method.toUpperCase() === method) && (!f.path || (typeof f.path === 'string' ? f.path === path : f.path.test(path))),
    );
    if (index < 0) return undefined;
    const fault = faults[index]!;
    fault.remaining -= 1;
    if (fault.remaining <= 0) faults.splice(index, 1);
    return fault;
  }

  /** The answer a fault puts in place of the service's, or undefined when the service answers (maybe late, maybe cut). */
  async function faultResponse(fault: Fault, ctx: ResponseContext, signal: AbortSignal): Promise<Response | undefined> {
    switch (fault.kind) {
      case 'network':
        throw new TypeError('fetch failed (injected network fault)');
      case 'delay':
        await sleep(fault.ms, signal);
        return undefined;
      case 'hang':
        return never(signal);
      case 'proxy-502':
        return proxyBadGateway();
      case 'reset-after-headers':
      case 'truncate':
      case 'stall-body':
        return undefined;
      case 'malformed':
        return new Response('{"data": {"truncated', {
          status: 200,
          headers: { 'content-type': 'application/json', 'x-correlation-id': ctx.correlationId },
        });
      case 'status': {
        // The first code the spec's table pairs with this status; E2001 for any other.
        const code = (Object.keys(ERROR_TABLE) as ServiceErrorCode[]).find((c) => ERROR_TABLE[c].status === fault.status) ?? 'E2001';
        const headers: Record<string, string> = fault.retryAfter ? { 'retry-after': fault.retryAfter } : {};
        const minimal = [401, 403, 429, 500].includes(fault.status);
        const error = serviceError(code, 'Injected fault', { minimal, headers });
        return errorResponse(ctx, new HttpError(fault.status, error.body, error.headers));
      }
    }
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
    const ctx: ResponseContext = { correlationId: request.headers.get('x-correlation-id') ?? `cor_${randomId(12)}`, now: now(), readings };
    requests.push({ method, url: request.url, path, headers: Object.fromEntries(request.headers) });
    if (requests.length > 10_000) requests.shift();

    const fault = takeFault(method, path);
    const sent = options.onExchange ? request.clone() : undefined;
    if (fault) {
      const response = await faultResponse(fault, ctx, request.signal);
      if (response) {
        options.onExchange?.({ request: sent!, response, fault: fault.kind });
        return response;
      }
      ctx.now = now();
    }
    const response = await route(request, url, method, path, ctx);
    options.onExchange?.({ request: sent!, response, ...(fault ? { fault: fault.kind } : {}) });
    if (fault?.kind === 'reset-after-headers' || fault?.kind === 'stall-body' || fault?.kind === 'truncate') {
      return fault.kind === 'truncate' ? cutBody(response, fault.kind, fault.framing, fault.close) : cutBody(response, fault.kind);
    }
    return response;
  }

  async function route(request: Request, url: URL, method: string, path: string, ctx: ResponseContext): Promise<Response> {
    try {
      const authPath = request.url.startsWith(`${authUrl}/`)
        ? url.pathname.slice(new URL(authUrl).pathname.replace(/\/$/, '').length)
        : undefined;
      // What a browser page calls from the relying party's origin: CORS, as an OpenID Provider serves it to SPAs.
      const cors = authPath !== undefined && BROWSER_CALLED.test(authPath);
      if (cors && method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS_HEADERS });
      for (const [routeMethod, pattern, route] of authPath === undefined ? [] : authRoutes) {
        const match = pattern.exec(authPath!);
        if (!match || routeMethod !== method) continue;
        const response = await route(request, ctx, match.slice(1));
        if (cors) for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
        return response;
      }
      for (const [routeMethod, pattern, route, limited] of routes) {
        const match = pattern.exec(path);
        if (!match) continue;
        if (routeMethod !== method) continue;
        if (limited) rateLimit(ctx);
        return await route(request, ctx, match.slice(1));
      }
      throw serviceError('E1005', 'No such endpoint');
    } catch (error) {
      if (error instanceof HttpError) return errorResponse(ctx, error);
      return errorResponse(ctx, serviceError('E2001', 'Internal error'));
    }
  }

  async function approveRequest(accessRequestCode: string, approval: ApprovalOptions = {}): Promise<WebhookPayload> {
    const found = record(accessRequestCode);
    if (!isOpen(found, now())) {
      throw new Error(`fake service: request ${accessRequestCode} is ${isExpired(found, now()) ? 'expired' : found.status}`);
    }
    found.openedAt ??= Math.floor(now() / 1000);
    found.response = await buildIdentityResponse(found, approval, {
      keys,
      issuer: authUrl,
      nowMs: now(),
      ttlSeconds: options.identityResponseTtlSeconds ?? 3600,
      encoding: disclosureEncoding,
      readings,
    });
    found.status = 'approved';
    return finish(found, 'approved');
  }

  async function cancelRequest(accessRequestCode: string): Promise<WebhookPayload> {
    const found = record(accessRequestCode);
    found.status = 'cancelled';
    return finish(found, 'cancelled');
  }

  function record(accessRequestCode: string): IdentityRecord {
    const found = identity.get(accessRequestCode);
    if (!found) throw new Error(`fake service: no identity request ${accessRequestCode}`);
    return found;
  }

  async function finish(found: IdentityRecord, event: WebhookPayload['event']): Promise<WebhookPayload> {
    const nowMs = now();
    found.accessToken = `at_${randomId(24)}`;
    found.completedAt = Math.floor(nowMs / 1000);
    const payload: WebhookPayload = {
      event,
      access_request_code: found.accessRequestCode,
      access_token: await signJwt(
        keys,
        { access_token: found.accessToken, access_request_code: found.accessRequestCode },
        { nowMs, ttlSeconds: options.webhookTokenTtlSeconds ?? 3600 },
      ),
    };
    events.push(payload);
    const client = clientFor(clients, found.clientId);
    if (client?.webhookUrl && client.webhookSecret && client.subscriptions?.includes(IDENTITY_ACTIONS)) {
      const sending = deliverWebhook(
        { url: client.webhookUrl, secret: client.webhookSecret, readings, now },
        payload,
        options.webhookRetry ?? {},
        (d) => {
          deliveries.push(d);
          options.onDelivery?.(d);
        },
      );
      pendingDeliveries.add(sending);
      void sending.finally(() => pendingDeliveries.delete(sending));
    }
    return payload;
  }

  return {
    baseUrl,
    authUrl,
    clients,
    get keys() {
      return keys;
    },
    get allKeys() {
      return allKeys;
    },
    settings,
    requests,
    events,
    deliveries,
    setWebhookUrl(url, clientId = clients[0]?.clientId) {
      const client = clientFor(clients, clientId);
      if (!client) throw new Error(`fake service: no client ${clientId}`);
      client.webhookUrl = url;
    },
    async webhooksSettled() {
      while (pendingDeliveries.size > 0) await Promise.all(pendingDeliveries);
    },
    fetch: handle,
    injectFault(fault) {
      faults.push({ ...fault, remaining: fault.times ?? 1 });
    },
    clearFaults() {
      faults.length = 0;
    },
    open(accessRequestCode) {
      const found = record(accessRequestCode);
      found.openedAt ??= Math.floor(now() / 1000);
      if (found.status === 'pending') found.status = 'opened';
    },
    approve: approveRequest,
    cancel: cancelRequest,
    setCredentialCondition(credentialRef, condition) {
      const found = credentials.get(credentialRef);
      if (!found) throw new Error('fake service: no such credential');
      found.condition = condition;
    },
    revokeAccessTokens() {
      tokenGeneration += 1;
    },
    async rotateSigningKey(rotation = {}) {
      keys = await createSigningKeys();
      allKeys = rotation.keep === false ? [keys] : [keys, ...allKeys];
      return keys;
    },
    identityRequest(accessRequestCode) {
      return identity.get(accessRequestCode);
    },
    credentialJwt(credentialRef) {
      return credentials.get(credentialRef)?.jwt;
    },
  };
}
