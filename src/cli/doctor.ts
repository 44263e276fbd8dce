/**
 * `acme-identity doctor`: a checklist against a deployment, the real service included. It reads
 * only; the one thing it creates is an API token. Each check says ✓, ✗ or ! with one line of
 * advice, and never prints a secret (the key pair, the token, the tenant).
 */
import { AcmeIdentityClient, AcmeIdentityError, ApiError, NotFoundError } from '../index.js';
import { SUPPORTED_CLAIMS } from '../contract/claims.js';
import { contractDrift } from './drift.js';
import { isObject } from '../internal/guards.js';

export interface DoctorConfig {
  /** The REST base URL (`https://…/api/v1`). */
  baseUrl: string;
  /** The OIDC issuer. @default the origin of baseUrl */
  authUrl?: string | undefined;
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  tenantId?: string | undefined;
  /** The HTTP client. @default globalThis.fetch */
  fetch?: (request: Request) => Promise<Response>;
  /** Per request, in ms. @default 10000 */
  timeoutMs?: number;
  /** The local clock, in ms. @default Date.now */
  now?: () => number;
}

export type CheckStatus = 'ok' | 'fail' | 'warn' | 'skip';

export interface Check {
  readonly name: string;
  readonly status: CheckStatus;
  /** What was found, in one line. */
  readonly detail: string;
  /** What to do, for a failure or a warning. */
  readonly advice?: string;
  /** For the open choices: the option to set, when one applies. */
  readonly option?: string;
}

export interface DoctorReport {
  readonly checks: readonly Check[];
  /** True when no check failed. */
  readonly ok: boolean;
}

/** Clock skew beyond which requests risk being refused (the fake's window is 300 s; the real one is not shown). */
const SKEW_WARN_SECONDS = 30;

/** A fetch that keeps a copy of every answer, for the checks that read what the SDK normalises. */
function recording(fetchImpl: (request: Request) => Promise<Response>) {
  const seen: { path: string; status: number; headers: Headers; body: string }[] = [];
  const fetch = async (request: Request) => {
    const response = await fetchImpl(request);
    const copy = response.clone();
    seen.push({
      path: new URL(request.url).pathname,
      status: response.status,
      headers: response.headers,
      body: await copy.text().catch(() => ''),
    });
    return response;
  };
  return { fetch, seen };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Runs every check and resolves the report. Never throws for what it finds; a check that could not
 * run says why.
 */
export async function runDoctor(config: DoctorConfig): Promise<DoctorReport> {
  const checks: Check[] = [];
  const add = (check: Check) => checks.push(check);
  const fetchImpl = config.fetch ?? ((request: Request) => globalThis.fetch(request));
  const timeoutMs = config.timeoutMs ?? 10_000;
  const now = config.now ?? (() => Date.now());
  const { fetch, seen } = recording(fetchImpl);

  // 1. The base URL's shape.
  let base: URL;
  try {
    base = new URL(config.baseUrl);
  } catch {
    add({
      name: 'base URL',
      status: 'fail',
      detail: 'not a URL',
      advice: "set ACME_BASE_URL (or --base-url) to the service's REST base, https://…/api/v1",
    });
    return { checks, ok: false };
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(base.hostname);
  if (!/\/api\/v1\/?$/.test(base.pathname)) {
    add({
      name: 'base URL',
      status: 'warn',
      detail: `${base.origin}${base.pathname} does not end in /api/v1`,
      advice: 'the spec serves the REST API below /api/v1',
    });
  } else if (base.protocol !== 'https:' && !local) {
    add({
      name: 'base URL',
      status: 'fail',
      detail: `${base.protocol} to ${base.host}`,
      advice: 'use https: keys and tokens would travel in clear',
    });
  } else
    add({
      name: 'base URL',
      status: 'ok',
      detail: `${base.origin}${base.pathname}${base.protocol === 'https:' ? ' (TLS)' : ' (local, no TLS)'}`,
    });
  const baseUrl = base.href.replace(/\/$/, '');

  // 2. Reachability and health, without credentials.
  const raw = async (path: string) => {
    const response = await fetch(new Request(`${baseUrl}${path}`, { signal: AbortSignal.timeout(timeoutMs) }));
    const text = seen.at(-1)?.body ?? '';
    return { response, body: parse(text) };
  };
  let health: Awaited<ReturnType<typeof raw>>;
  try {
    health = await raw('/status/health');
  } catch (error) {
    const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    add({
      name: 'reachable',
      status: 'fail',
      detail: `no answer from ${base.host}: ${reason}`,
      advice: 'check the URL, DNS, a proxy or a firewall; for TLS errors, the certificate chain',
    });
    return { checks, ok: false };
  }
  add({ name: 'reachable', status: 'ok', detail: `${base.host} answered ${health.response.status}` });
  const healthRecord = isObject(health.body) && isObject(health.body['data']) ? health.body['data'] : health.body;
  if (health.response.status === 503)
    add({
      name: 'health',
      status: 'warn',
      detail: 'the service says it is unavailable (503)',
      advice: 'try again later; calls now would be retried and fail',
    });
  else if (isObject(healthRecord)) {
    const status = String(healthRecord['status'] ?? 'not stated');
    add({
      name: 'health',
      status: status === 'healthy' ? 'ok' : 'warn',
      detail: `status ${status}, database ${String(healthRecord['database'] ?? 'not stated')}`,
      ...(status === 'healthy' ? {} : { advice: 'the service reports itself degraded' }),
    });
  } else add({ name: 'health', status: 'warn', detail: `GET /status/health answered ${health.response.status} without a JSON record` });
  try {
    const current = await raw('/status/current');
    const record = isObject(current.body) && isObject(current.body['data']) ? current.body['data'] : current.body;
    add({
      name: 'version',
      status: 'ok',
      detail: isObject(record) ? `API version ${apiVersion(record)}` : `answered ${current.response.status}`,
    });
  } catch {
    add({ name: 'version', status: 'warn', detail: 'GET /status/current did not answer' });
  }

  // 3. A token with the key pair; 4. the tenant, through a read of codes that cannot exist.
  const client =
    config.clientId && config.clientSecret && config.tenantId
      ? new AcmeIdentityClient({
          baseUrl,
          clientId: config.clientId,
          clientSecret: config.clientSecret,
          tenantId: config.tenantId,
          fetch,
          maxRetries: 0,
          timeoutMs,
          logLevel: 'off',
        })
      : undefined;
  let token: Record<string, unknown> | undefined;
  if (!client) {
    add({
      name: 'API token',
      status: 'skip',
      detail: 'no key pair and tenant given',
      advice: 'set ACME_CLIENT_ID, ACME_CLIENT_SECRET and ACME_TENANT_ID (or the flags) to check them',
    });
  } else {
    try {
      token = (await client.auth.createToken()).data as Record<string, unknown>;
      const lifetime =
        typeof token['expires_in'] === 'number'
          ? `expires_in ${token['expires_in']} s`
          : typeof token['expires'] === 'string'
            ? `expires ${token['expires']}`
            : 'no lifetime stated';
      add({ name: 'API token', status: 'ok', detail: `issued with the key pair (${lifetime})` });
    } catch (error) {
      add({
        name: 'API token',
        status: 'fail',
        detail: `refused: ${error instanceof AcmeIdentityError ? error.code : 'no answer'}`,
        advice:
          error instanceof ApiError && error.status === 401
            ? 'the client id or secret is wrong (or revoked): copy them again from the operator portal'
            : error instanceof ApiError && error.status === 403
              ? 'the key pair is valid but not allowed: ask the service to enable API access for it'
              : 'see the error code; the token endpoint is POST /auth/api-token',
      });
    }
    if (token) {
      try {
        await client.identityRequests.get({ accessRequestCode: 'arc_doctor_probe_0', identitySessionCode: 'isc_doctor_probe_0' });
        add({
          name: 'tenant',
          status: 'warn',
          detail: 'a request that cannot exist was found',
          advice: 'unexpected: the service answered 200 for made-up codes',
        });
      } catch (error) {
        if (error instanceof NotFoundError)
          add({ name: 'tenant', status: 'ok', detail: 'accepted (a read of made-up codes answered 404, as it should)' });
        else
          add({
            name: 'tenant',
            status: 'fail',
            detail: `a read answered ${error instanceof AcmeIdentityError ? error.code : 'nothing'}`,
            advice:
              error instanceof ApiError && (error.status === 401 || error.status === 403)
                ? "the tenant id is wrong or not this key pair's (X-Tenant-ID); if it is right, the X-Request-Timestamp format may differ: set timestampFormat"
                : 'see the error code',
            option: error instanceof ApiError && error.status === 401 ? 'tenantId, timestampFormat' : undefined,
          } as Check);
      }
    }
  }

  // 5. The clock, from the Date header of any answer.
  const date = seen.map((s) => s.headers.get('date')).find((d) => d !== null);
  if (!date)
    add({
      name: 'clock',
      status: 'warn',
      detail: 'no Date header in any answer',
      advice: 'the SDK then learns the service clock from token iat; nothing to set',
    });
  else {
    const skew = Math.round((Date.parse(date) - now()) / 1000);
    add(
      Math.abs(skew) > SKEW_WARN_SECONDS
        ? {
            name: 'clock',
            status: 'warn',
            detail: `this machine's clock is ${Math.abs(skew)} s ${skew > 0 ? 'behind' : 'ahead of'} the service`,
            advice: 'sync it (NTP); the SDK corrects for it from Date headers, other tools may not',
          }
        : { name: 'clock', status: 'ok', detail: `within ${Math.abs(skew)} s of the service` },
    );
  }

  // 6. The open choices this deployment shows.
  const healthBody = health.body;
  add({
    name: 'status records',
    status: 'ok',
    detail:
      isObject(healthBody) && isObject(healthBody['data'])
        ? 'wrapped in {data} (the SDK reads both)'
        : "bare, as the spec's tables show (the SDK reads both)",
  });
  const tokenAnswer = seen.find((s) => s.path.endsWith('/auth/api-token'));
  if (tokenAnswer && tokenAnswer.status < 300) {
    const body = parse(tokenAnswer.body);
    add({
      name: 'token answer',
      status: 'ok',
      detail: `${isObject(body) && isObject(body['data']) ? 'wrapped in {data}' : 'bare'}; lifetime in ${token && 'expires_in' in token ? 'expires_in' : ''}${token && 'expires' in token ? ' expires' : ''}${token && !('expires_in' in token) && !('expires' in token) ? 'nothing (the JWT exp is used, or tokenLifetime)' : ''}`,
    });
  }
  const errorAnswer = seen.find((s) => s.status === 404 && s.path.includes('/identity/request/'));
  if (errorAnswer) {
    const body = parse(errorAnswer.body);
    add({
      name: 'error bodies',
      status: 'ok',
      detail:
        isObject(body) && isObject(body['error'])
          ? '{error: {…}}, as the spec shows'
          : 'the error fields at the top level (the SDK reads both)',
    });
  }

  // 7. OIDC discovery and the JWKS.
  const authUrl = (config.authUrl ?? base.origin).replace(/\/$/, '');
  let jwksUri: string | undefined;
  try {
    const discovery = await fetch(new Request(`${authUrl}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(timeoutMs) }));
    const metadata = parse(seen.at(-1)?.body ?? '');
    if (!discovery.ok || !isObject(metadata)) throw new Error(`answered ${discovery.status}`);
    const issuerOk = metadata['issuer'] === authUrl || metadata['issuer'] === `${authUrl}/`;
    const s256 =
      Array.isArray(metadata['code_challenge_methods_supported']) && metadata['code_challenge_methods_supported'].includes('S256');
    add({
      name: 'OIDC discovery',
      status: issuerOk && s256 ? 'ok' : 'fail',
      detail: `issuer ${String(metadata['issuer'])}${s256 ? ', PKCE S256' : ', no PKCE S256'}`,
      ...(issuerOk
        ? s256
          ? {}
          : { advice: 'the helper requires S256 (code_challenge_methods_supported)' }
        : { advice: `set authUrl (ACME_AUTH_URL) to the issuer, ${String(metadata['issuer'])}` }),
    });
    const offered = Array.isArray(metadata['acme_claims_supported']) ? metadata['acme_claims_supported'].map(String) : [];
    const known = new Set(SUPPORTED_CLAIMS);
    const unknown = offered.filter((claim) => !known.has(claim));
    const gone = SUPPORTED_CLAIMS.filter((claim) => offered.length > 0 && !offered.includes(claim));
    add({
      name: 'claims',
      status: unknown.length || gone.length ? 'warn' : 'ok',
      detail: `${offered.length} offered${unknown.length ? `; new to this SDK: ${unknown.join(', ')}` : ''}${gone.length ? `; not offered here: ${gone.join(', ')}` : ''}`,
      ...(unknown.length || gone.length ? { advice: 'pass the live list as supportedClaims; a newer SDK may type the new claims' } : {}),
    });
    jwksUri = typeof metadata['jwks_uri'] === 'string' ? metadata['jwks_uri'] : undefined;
  } catch (error) {
    add({
      name: 'OIDC discovery',
      status: 'fail',
      detail: `${authUrl}/.well-known/openid-configuration: ${error instanceof Error ? error.message : String(error)}`,
      advice: 'set ACME_AUTH_URL (or --auth-url) to the OIDC issuer',
    });
  }
  if (jwksUri) {
    try {
      const answer = await fetch(new Request(jwksUri, { signal: AbortSignal.timeout(timeoutMs) }));
      const jwks = parse(seen.at(-1)?.body ?? '');
      const keys = isObject(jwks) && Array.isArray(jwks['keys']) ? jwks['keys'].filter(isObject) : [];
      const usable = keys.filter((key) => ['RSA', 'EC', 'OKP'].includes(String(key['kty'])) && !('d' in key));
      const privateOnes = keys.filter((key) => 'd' in key).length;
      add({
        name: 'JWKS',
        status: answer.ok && usable.length > 0 && privateOnes === 0 ? 'ok' : 'fail',
        detail: `${keys.length} key${keys.length === 1 ? '' : 's'}, ${usable.length} usable${privateOnes ? `, ${privateOnes} PRIVATE (refused)` : ''}`,
        ...(privateOnes
          ? { advice: 'the service publishes private key material: tell its operators now' }
          : usable.length
            ? {}
            : { advice: 'no public RSA, EC or OKP key: signatures cannot be verified' }),
      });
    } catch (error) {
      add({ name: 'JWKS', status: 'fail', detail: error instanceof Error ? error.message : String(error) });
    }
  }

  // 8. The service's own OpenAPI document against the contract this SDK was built from.
  try {
    const spec = await raw('/docs/spec');
    if (!isObject(spec.body)) throw new Error(`answered ${spec.response.status} without a JSON document`);
    const drift = contractDrift(spec.body);
    add({
      name: 'contract',
      status: drift.length ? 'warn' : 'ok',
      detail: drift.length
        ? `${drift.length} differences from the contract this SDK was built from:\n${drift.map((d) => `      ${d}`).join('\n')}`
        : "the service's /docs/spec matches the SDK's contract",
      ...(drift.length
        ? { advice: 'operations or fields changed: check the CHANGELOG for a newer SDK, or regenerate (npm run generate -- --url)' }
        : {}),
    });
  } catch (error) {
    add({ name: 'contract', status: 'warn', detail: `/docs/spec: ${error instanceof Error ? error.message : String(error)}` });
  }

  return { checks, ok: checks.every((check) => check.status !== 'fail') };
}

/** `components.api.version` of a status record (spec: "reports the running version" there). */
function apiVersion(record: Record<string, unknown>): string {
  const components = isObject(record['components']) ? record['components'] : {};
  const api = isObject(components['api']) ? components['api'] : {};
  return typeof api['version'] === 'string' ? api['version'] : 'not stated';
}

const MARK: Record<CheckStatus, string> = { ok: '✓', fail: '✗', warn: '!', skip: '-' };

/** The checklist as text: one line per check, its advice below a failure or a warning. */
export function formatReport(report: DoctorReport, color: boolean): string {
  const paint = (status: CheckStatus, text: string) => {
    if (!color) return text;
    const code = status === 'ok' ? 32 : status === 'fail' ? 31 : status === 'warn' ? 33 : 90;
    return `\x1b[${code}m${text}\x1b[0m`;
  };
  const lines = report.checks.map((check) => {
    const head = `${paint(check.status, MARK[check.status])} ${check.name.padEnd(17)} ${check.detail}`;
    const advice =
      check.advice && check.status !== 'ok'
        ? `\n  ${' '.repeat(18)}→ ${check.advice}${check.option ? ` (option: ${check.option})` : ''}`
        : '';
    return head + advice;
  });
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  const warned = report.checks.filter((c) => c.status === 'warn').length;
  lines.push(
    '',
    report.ok ? `${warned ? `${warned} warnings, ` : ''}no failures` : `${failed} failed${warned ? `, ${warned} warnings` : ''}`,
  );
  return lines.join('\n');
}
