/**
 * The fake's front door: records each request, applies an injected fault, answers CORS for what a
 * browser page calls, matches the route (below the auth URL, then below the base URL), counts the
 * rate limit, and turns a thrown `HttpError` into the spec's error body.
 */
import { ERROR_TABLE, type ServiceErrorCode } from '../contract/errors.js';
import { randomId } from '../internal/encoding.js';
import { sleep } from '../internal/sleep.js';
import { cutBody, never, proxyBadGateway } from './faults.js';
import { HttpError, errorResponse, serviceError, stampDate, type ResponseContext } from './http.js';
import type { Fault } from './options.js';
import { routeParams, type FakeState, type RouteEntry } from './state.js';

/** Endpoints of the authorization server a browser page calls with `fetch`: discovery, JWKS, token, userinfo. */
const BROWSER_CALLED = /^\/(\.well-known\/openid-configuration|oauth\/oidc\/(token|userinfo|jwks))$/;
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST',
  'access-control-allow-headers': 'authorization, content-type, dpop',
  'access-control-max-age': '600',
};

/** The whole fake as one Web `fetch`: `authRoutes` below the auth URL, `restRoutes` below the base URL. */
export function createRouter(state: FakeState, authRoutes: readonly RouteEntry[], restRoutes: readonly RouteEntry[]) {
  const authPathOf = (request: Request, url: URL) =>
    request.url.startsWith(`${state.authUrl}/`) ? url.pathname.slice(new URL(state.authUrl).pathname.replace(/\/$/, '').length) : undefined;

  /**
   * Whether a URL is below the base URL: the REST API is served there only, as the real service
   * serves it (a base URL without its `/api/v1` meets a 404 here too, not a sandbox that forgives it).
   */
  const underBase = (url: URL) => {
    const base = state.basePath.replace(/\/$/, '');
    return base === '' || url.pathname === base || url.pathname.startsWith(`${base}/`);
  };

  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the fake's routing table: one branch per operation of the spec
  async function route(request: Request, url: URL, method: string, path: string, ctx: ResponseContext): Promise<Response> {
    try {
      const authPath = authPathOf(request, url);
      // What a browser page calls from the relying party's origin: CORS, as an OpenID Provider serves it to SPAs.
      const cors = authPath !== undefined && BROWSER_CALLED.test(authPath);
      if (cors && method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS_HEADERS });
      for (const [routeMethod, pattern, handler] of authRoutes) {
        const match = authPath === undefined ? null : pattern.exec(authPath);
        if (!match || routeMethod !== method) continue;
        const response = await handler(request, ctx, routeParams(match));
        if (cors) for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
        stampDate(response.headers, ctx);
        return response;
      }
      for (const [routeMethod, pattern, handler, limited] of underBase(url) ? restRoutes : []) {
        const match = pattern.exec(path);
        if (!match || routeMethod !== method) continue;
        if (limited) rateLimit(state, ctx);
        return await handler(request, ctx, routeParams(match));
      }
      throw serviceError('E1005', 'No such endpoint');
    } catch (error) {
      if (error instanceof HttpError) return errorResponse(ctx, error, underBase(url));
      return errorResponse(ctx, serviceError('E2001', 'Internal error'), underBase(url));
    }
  }

  return async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const path = url.pathname.startsWith(state.basePath) ? url.pathname.slice(state.basePath.length) : url.pathname;
    const ctx: ResponseContext = {
      correlationId: request.headers.get('x-correlation-id') ?? `cor_${randomId(12)}`,
      now: state.now(),
      readings: state.readings,
    };
    state.requests.push({ method, url: request.url, path, headers: Object.fromEntries(request.headers), at: ctx.now });
    if (state.requests.length > 10_000) state.requests.shift();

    const { onExchange } = state.options;
    const fault = takeFault(state, method, path);
    // The request as it arrived, for onExchange: a copy taken before any route reads its body.
    const sent = onExchange ? { onExchange, request: request.clone() } : undefined;
    if (fault) {
      const response = await faultResponse(fault, ctx, request.signal, underBase(url));
      if (response) {
        sent?.onExchange({ request: sent.request, response, fault: fault.kind });
        return response;
      }
      ctx.now = state.now();
    }
    const response = await route(request, url, method, path, ctx);
    sent?.onExchange({ request: sent.request, response, ...(fault ? { fault: fault.kind } : {}) });
    if (fault?.kind === 'reset-after-headers' || fault?.kind === 'stall-body' || fault?.kind === 'truncate') {
      return fault.kind === 'truncate' ? cutBody(response, fault.kind, fault.framing, fault.close) : cutBody(response, fault.kind);
    }
    return response;
  };
}

/** A fixed-window rate limit over the REST API, when `settings.rateLimit` sets one: 429 E1007 with `Retry-After` past it. */
function rateLimit(state: FakeState, ctx: ResponseContext): void {
  const limit = state.settings.rateLimit;
  if (!limit) return;
  const windowMs = limit.windowSeconds * 1000;
  if (ctx.now - state.window.start >= windowMs) state.window = { start: ctx.now, count: 0 };
  state.window.count += 1;
  if (state.window.count > limit.limit) {
    const retryAfter = Math.max(1, Math.ceil((state.window.start + windowMs - ctx.now) / 1000));
    throw serviceError('E1007', 'Too many requests', { minimal: true, headers: { 'retry-after': String(retryAfter) } });
  }
}

/** The first queued fault this request matches, counted down. */
function takeFault(state: FakeState, method: string, path: string): Fault | undefined {
  const fault = state.faults.find(
    (f) =>
      (!f.method || f.method.toUpperCase() === method) && (!f.path || (typeof f.path === 'string' ? f.path === path : f.path.test(path))),
  );
  if (!fault) return undefined;
  fault.remaining -= 1;
  if (fault.remaining <= 0) state.faults.splice(state.faults.indexOf(fault), 1);
  return fault;
}

/**
 * The answer a fault puts in place of the service's, or undefined when the service answers (maybe
 * late, maybe cut). A `status` fault of a status the spec's table has a code for is the service's own
 * error answer: on a REST path (`rest`) the `errorStatus` reading writes it 200, as it does the
 * service's other errors. `proxy-502` is a gateway's, and keeps its status.
 */
async function faultResponse(fault: Fault, ctx: ResponseContext, signal: AbortSignal, rest: boolean): Promise<Response | undefined> {
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
      // The first code the spec's table pairs with this status; E2001 for any other (whose status
      // the `errorStatus` reading keeps: no code in a 200 could say it).
      const tabled = (Object.keys(ERROR_TABLE) as ServiceErrorCode[]).find((c) => ERROR_TABLE[c].status === fault.status);
      const code = tabled ?? 'E2001';
      const headers: Record<string, string> = fault.retryAfter ? { 'retry-after': fault.retryAfter } : {};
      const minimal = [401, 403, 429, 500].includes(fault.status);
      const error = serviceError(code, 'Injected fault', { minimal, headers });
      return errorResponse(ctx, new HttpError(fault.status, error.body, error.headers), rest && tabled !== undefined);
    }
  }
}
