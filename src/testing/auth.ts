/** The fake's API tokens: issuing and refreshing them, and authenticating the calls that carry them. */
import { ROUTES, routePattern } from '../contract/routes.js';
import { randomId } from '../internal/encoding.js';
import { MAX_FILE_BYTES } from './credentials.js';
import { json, ok, serviceError, uncodedError, validationError, withNumbers, type ResponseContext } from './http.js';
import { signJwt, verifyJwt } from './keys.js';
import type { FakeClientRegistration, TimestampFormat } from './options.js';
import { clientFor, type FakeState, type RouteEntry } from './state.js';

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

/** A request's JSON body; 413 past what any valid request can be, E1002 for what is not JSON. */
export async function readJson(request: Request): Promise<unknown> {
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
export async function authenticate(state: FakeState, request: Request, nowMs: number): Promise<FakeClientRegistration> {
  const match = /^Bearer ([^\s]+)$/.exec(request.headers.get('authorization') ?? '');
  const payload = match?.[1] ? await verifyJwt(state.allKeys, match[1], nowMs, state.readings.tokenTimes) : undefined;
  const current = payload?.['token_use'] === 'api' && payload['gen'] === state.tokenGeneration;
  const client = current ? clientFor(state.clients, payload?.sub) : undefined;
  if (!client) throw serviceError('E1003', 'Missing or invalid authentication', { minimal: true });
  return client;
}

/** Identity endpoints also need the tenant and a fresh request timestamp. */
export async function authenticateIdentity(state: FakeState, request: Request, nowMs: number): Promise<FakeClientRegistration> {
  const client = await authenticate(state, request, nowMs);
  const tenant = request.headers.get('x-tenant-id');
  const stamp = request.headers.get('x-request-timestamp');
  if (!tenant || !stamp) throw serviceError('E1003', 'X-Tenant-Id and X-Request-Timestamp are required', { minimal: true });
  const at = parseTimestamp(stamp, state.timestampFormat);
  if (at === undefined || Math.abs(at - nowMs) > state.timestampTolerance * 1000) {
    throw serviceError('E1003', 'X-Request-Timestamp is malformed or outside the allowed window', { minimal: true });
  }
  if (tenant !== client.tenantId) throw serviceError('E1004', 'Not allowed for this tenant', { minimal: true });
  return client;
}

/** The token response's `expires`, written as the `expiresForm` reading says. */
function expiryDate(at: number, form: FakeState['readings']['expiresForm']): string {
  const date = new Date(at);
  if (form === 'iso8601') return date.toISOString();
  // Python's datetime.utcnow().isoformat(): UTC, but nothing says so.
  if (form === 'naive') return date.toISOString().replace(/Z$/, '000');
  return date.toUTCString();
}

/** A token response: a signed access token and a rotating refresh token, with the lifetime fields the readings say. */
async function issueTokens(state: FakeState, clientId: string, ctx: ResponseContext): Promise<Response> {
  const client = clientFor(state.clients, clientId);
  const accessToken = await signJwt(
    state.keys,
    { sub: clientId, tenant: client?.tenantId, jti: randomId(12), token_use: 'api', gen: state.tokenGeneration },
    { nowMs: ctx.now, ttlSeconds: state.accessTtl, unit: state.readings.tokenTimes },
  );
  const refreshToken = `rt_${randomId(24)}`;
  state.refreshTokens.set(refreshToken, { clientId, expiresAt: ctx.now + state.refreshTtl * 1000 });
  const lifetime = state.tokenLifetime;
  const expiresIn = state.readings.expiresInUnit === 'milliseconds' ? state.accessTtl * 1000 : state.accessTtl;
  const token = {
    access_token: accessToken,
    refresh_token: refreshToken,
    ...(lifetime === 'both' || lifetime === 'expires_in' ? { expires_in: expiresIn } : {}),
    ...(lifetime === 'both' || lifetime === 'expires'
      ? { expires: expiryDate(ctx.now + state.accessTtl * 1000, state.readings.expiresForm) }
      : {}),
  };
  return state.readings.tokenEnvelope === 'bare' ? json(ctx, withNumbers(ctx, token)) : ok(ctx, token);
}

/** POST /auth/api-token and /auth/api-token/refresh. */
export function tokenRoutes(state: FakeState): RouteEntry[] {
  return [
    [
      ROUTES.createApiToken.method,
      routePattern(ROUTES.createApiToken.path),
      async (request, ctx) => {
        const body = ((await readJson(request)) ?? {}) as Record<string, unknown>;
        const errors: Record<string, string> = {};
        for (const field of ['client_id', 'client_secret']) {
          if (typeof body[field] !== 'string' || body[field] === '') errors[field] = 'is required';
        }
        if (Object.keys(errors).length > 0) throw validationError(errors);
        const client = clientFor(state.clients, body['client_id']);
        if (!client || client.clientSecret !== body['client_secret']) {
          throw serviceError('E1003', 'Invalid client credentials', { minimal: true });
        }
        return issueTokens(state, client.clientId, ctx);
      },
      true,
    ],
    [
      ROUTES.refreshApiToken.method,
      routePattern(ROUTES.refreshApiToken.path),
      async (request, ctx) => {
        const body = (await readJson(request)) as Record<string, unknown> | null;
        const token = body?.['refresh_token'];
        if (typeof token !== 'string' || token === '') throw validationError({ refresh_token: 'is required' });
        const stored = state.refreshTokens.get(token);
        // Refresh tokens rotate: each is good for one use.
        state.refreshTokens.delete(token);
        if (!stored || stored.expiresAt <= ctx.now) {
          throw serviceError('E1003', 'Invalid or expired refresh token', { minimal: true });
        }
        return issueTokens(state, stored.clientId, ctx);
      },
      true,
    ],
  ];
}
