/**
 * `acme-identity doctor`: a checklist against a deployment, the real service included. It reads
 * only; the one thing it creates is an API token. Each check says ✓, ✗ or ! with one line of
 * advice, and never prints a secret (the key pair, the token, the tenant).
 *
 * A ✓ means "the SDK reads this correctly", proven by the same code: the status records are read
 * by the client's own `status` methods, the token's lifetime is the one the client's token manager
 * decides (its warnings are the check's), the issuer and its keys are read by `remoteJwks`, as the
 * verifiers read them. Where the SDK would refuse, doctor fails, and names the setting that fixes
 * it when there is one (it tries the other `timestampFormat`s and says which one the service takes).
 */
import {
  AcmeIdentityClient,
  AcmeIdentityError,
  ApiError,
  AuthenticationError,
  NotFoundError,
  ServiceUnavailableError,
  ValidationError,
  type ClientOptions,
  type StoredToken,
  type TimestampFormat,
  type TokenStore,
} from '../index.js';
import { remoteJwks } from '../sd-jwt/index.js';
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
  /** The `X-Request-Timestamp` format, as the client's option. @default 'unix-seconds' */
  timestampFormat?: Exclude<TimestampFormat, (date: Date) => string> | undefined;
  /**
   * Also walk an identity request's life on the service (for a test tenant): create one for a
   * made-up person (no email sent, a one-hour expiry), read it back, delete it. Nothing is left
   * behind: a failure half-way still deletes what was created, and the report says so. @default false
   */
  journey?: boolean | undefined;
  /** The `purpose` the journey's request names (the spec does not show the allowed values). @default 'identity verification' */
  journeyPurpose?: string | undefined;
  /**
   * The client's other options that change how it reads or writes answers, as your application
   * sets them (`--client-option name=value`, `ACME_CLIENT_OPTIONS`): every check then runs as the
   * SDK would with them.
   */
  clientOptions?: DoctorClientOptions | undefined;
  /** The claim keys your declaration file (`acme-identity types`) declares: the claims line warns only of offered keys it lacks. */
  declaredClaims?: readonly string[] | undefined;
}

/** A client for doctor's checks: its timestamp format, a token store to look into, options over the configured ones. */
type ClientMaker = (timestampFormat: TimestampFormat, tokenStore?: TokenStore, overrides?: DoctorClientOptions) => AcmeIdentityClient;

/** The client options doctor takes from the command line: those that change what goes over the wire or how answers are read. */
export type DoctorClientOptions = Partial<
  Pick<ClientOptions, 'unsetOptionals' | 'correctClockSkew' | 'refreshMarginSeconds' | 'tokenTimeoutMs' | 'maxRetryAfterMs'>
>;

/** The names `DoctorClientOptions` takes, for the command line's check. */
export const DOCTOR_CLIENT_OPTIONS = [
  'unsetOptionals',
  'correctClockSkew',
  'refreshMarginSeconds',
  'tokenTimeoutMs',
  'maxRetryAfterMs',
] as const;

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

/**
 * What the whole run says: `ok` (every check passed), `warnings` (none failed, some warned),
 * `incomplete` (none failed, but settings were missing and checks were skipped: nothing was proven
 * about them), `failed`. The CLI exits 0, 0 (1 with `--strict`), 3 and 1.
 */
export type DoctorOutcome = 'ok' | 'warnings' | 'incomplete' | 'failed';

/** The report, as `--json` prints it. Its `schemaVersion` changes when a field changes meaning. */
export interface DoctorReport {
  readonly schemaVersion: 1;
  readonly outcome: DoctorOutcome;
  /** True when no check failed and none was skipped. */
  readonly ok: boolean;
  readonly checks: readonly Check[];
}

/** The outcome of a list of checks. */
function outcomeOf(checks: readonly Check[]): DoctorOutcome {
  if (checks.some((check) => check.status === 'fail')) return 'failed';
  if (checks.some((check) => check.status === 'skip')) return 'incomplete';
  return checks.some((check) => check.status === 'warn') ? 'warnings' : 'ok';
}

/** The report of a list of checks, its outcome stated. */
export function reportOf(checks: readonly Check[]): DoctorReport {
  const outcome = outcomeOf(checks);
  return { schemaVersion: 1, outcome, ok: outcome === 'ok' || outcome === 'warnings', checks };
}

/** Clock skew beyond which requests risk being refused (the fake's window is 300 s; the real one is not shown). */
const SKEW_WARN_SECONDS = 30;

/** A fetch that keeps a copy of every answer, for the checks that read what the SDK normalises. */
function recording(fetchImpl: (request: Request) => Promise<Response>) {
  const seen: Seen[] = [];
  const fetch = async (request: Request) => {
    const response = await fetchImpl(request);
    const copy = response.clone();
    seen.push({
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      headers: response.headers,
      body: await copy.text().catch(() => ''),
    });
    return response;
  };
  return { fetch, seen };
}

/** One answer doctor saw. */
interface Seen {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  body: string;
}

/** What a check that reads the service directly needs: the recording fetch, the time it may take, what was seen, and where a check goes. */
interface Probe {
  fetch: (request: Request) => Promise<Response>;
  timeoutMs: number;
  seen: readonly Seen[];
  add: (check: Check) => void;
}

/** The SDK's own warnings during doctor's calls: a check that passes where the SDK warns is a lie. */
function warningsLogger() {
  const warnings: string[] = [];
  const ignore = () => undefined;
  const logger = {
    debug: ignore,
    info: ignore,
    error: (message: string) => warnings.push(message.replace(/^\[acme-identity\] /, '')),
    warn: (message: string) => warnings.push(message.replace(/^\[acme-identity\] /, '')),
  };
  return { logger, warnings };
}

/** A token store that keeps what the client's token manager decided: the lifetime it will use. */
function keptToken(): TokenStore & { last: StoredToken | undefined } {
  const store = {
    last: undefined as StoredToken | undefined,
    get: () => store.last,
    set: (_key: string, token: StoredToken) => {
      store.last = token;
    },
  };
  return store;
}

const TIMESTAMP_FORMATS = ['unix-seconds', 'unix-ms', 'iso8601'] as const;

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
  const timeoutMs = config.timeoutMs ?? 10_000;
  const now = config.now ?? (() => Date.now());
  const { fetch, seen } = recording(config.fetch ?? ((request: Request) => globalThis.fetch(request)));

  const base = checkBaseUrl(config.baseUrl, add);
  if (!base) return reportOf(checks);
  const baseUrl = base.href.replace(/\/$/, '');
  const sdk = warningsLogger();
  const clientWith: ClientMaker = (timestampFormat, tokenStore, overrides) =>
    new AcmeIdentityClient({
      ...config.clientOptions,
      ...overrides,
      baseUrl,
      clientId: config.clientId || 'doctor',
      clientSecret: config.clientSecret || 'doctor',
      tenantId: config.tenantId || 'doctor',
      fetch,
      maxRetries: 0,
      timeoutMs,
      timestampFormat,
      logger: sdk.logger,
      logLevel: 'warn',
      ...(tokenStore ? { tokenStore } : {}),
    });

  if (!(await checkReachable(baseUrl, base.host, fetch, timeoutMs, add))) return reportOf(checks);
  await checkStatus(clientWith(config.timestampFormat ?? 'unix-seconds'), add);
  await checkCredentials(config, clientWith, sdk.warnings, add);
  checkClock(seen, now, add);
  checkAnswerForms(seen, add);
  const probe: Probe = { fetch, timeoutMs, seen, add };
  await checkOidc((config.authUrl ?? base.origin).replace(/\/$/, ''), probe, config.declaredClaims ?? []);
  await checkContract(baseUrl, probe);
  return reportOf(checks);
}

/** The base URL: a URL, with the version segment the spec puts in `{base_url}`, over TLS unless local. */
function checkBaseUrl(given: string, add: (check: Check) => void): URL | undefined {
  let base: URL;
  try {
    base = new URL(given);
  } catch {
    add({
      name: 'base URL',
      status: 'fail',
      detail: 'not a URL',
      advice: "set ACME_BASE_URL (or --base-url) to the service's REST base, https://…/api/v1",
    });
    return undefined;
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(base.hostname);
  const shown = `${base.origin}${base.pathname}`.replace(/\/$/, '');
  if (!/\/api\/v1\/?$/.test(base.pathname)) {
    add({
      name: 'base URL',
      status: 'fail',
      detail: `${shown} does not end in /api/v1: every call the SDK makes would miss`,
      advice: `set ACME_BASE_URL (or --base-url, the client's baseUrl) to ${shown}/api/v1: the spec's {base_url} includes the version segment`,
      option: 'baseUrl',
    });
  } else if (base.protocol !== 'https:' && !local) {
    // The client refuses such a base URL: nothing after this could be checked through it.
    add({
      name: 'base URL',
      status: 'fail',
      detail: `${base.protocol} to ${base.host}: the SDK refuses it`,
      advice: 'use https: keys and tokens would travel in clear',
      option: 'baseUrl',
    });
    return undefined;
  } else {
    add({ name: 'base URL', status: 'ok', detail: `${shown}${base.protocol === 'https:' ? ' (TLS)' : ' (local, no TLS)'}` });
  }
  return base;
}

/** Whether the service answers at all (a network failure ends the run: nothing after it could). */
async function checkReachable(
  baseUrl: string,
  host: string,
  fetch: (request: Request) => Promise<Response>,
  timeoutMs: number,
  add: (check: Check) => void,
): Promise<boolean> {
  try {
    const response = await fetch(new Request(`${baseUrl}/status/health`, { signal: AbortSignal.timeout(timeoutMs) }));
    add({ name: 'reachable', status: 'ok', detail: `${host} answered ${response.status}` });
    return true;
  } catch (error) {
    // The cause says more (ECONNREFUSED, a TLS error) than fetch's own "fetch failed".
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const reason = cause instanceof Error ? cause.message : String(error);
    add({
      name: 'reachable',
      status: 'fail',
      detail: `no answer from ${host}: ${reason}`,
      advice: 'check the URL, DNS, a proxy or a firewall; for TLS errors, the certificate chain',
    });
    return false;
  }
}

/** What to do when the token endpoint refuses the key pair, by its status. */
const TOKEN_ADVICE: Partial<Record<number, string>> = {
  401: 'the client id or secret is wrong (or revoked): copy them again from the operator portal',
  403: 'the key pair is valid but not allowed: ask the service to enable API access for it',
};

/** Why the SDK refused an answer, in one line. */
function refusal(error: unknown): string {
  if (error instanceof AcmeIdentityError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** The status records, read by the client's own `status` methods: what they resolve is what an application gets. */
async function checkStatus(client: AcmeIdentityClient, add: (check: Check) => void): Promise<void> {
  try {
    const health = await client.status.health();
    const healthy = health.status === 'healthy';
    add({
      name: 'health',
      status: healthy ? 'ok' : 'warn',
      detail: `read by the SDK: status ${health.status ?? 'not stated'}, database ${health.database ?? 'not stated'}`,
      ...(healthy ? {} : { advice: 'the service reports itself degraded' }),
    });
  } catch (error) {
    if (error instanceof ServiceUnavailableError) {
      add({ name: 'health', status: 'warn', detail: 'the service says it is unavailable (503)', advice: 'try again later' });
    } else {
      add({
        name: 'health',
        status: 'fail',
        detail: `the SDK cannot read GET /status/health: ${refusal(error)}`,
        advice:
          error instanceof NotFoundError
            ? 'check the base URL (it must end in /api/v1)'
            : 'status.health() fails the same way in your application',
      });
    }
  }
  try {
    const current = await client.status.current();
    add({ name: 'version', status: 'ok', detail: `read by the SDK: API version ${current.components?.api?.version ?? 'not stated'}` });
  } catch (error) {
    add({
      name: 'version',
      status: 'fail',
      detail: `the SDK cannot read GET /status/current: ${refusal(error)}`,
      advice: 'status.current() fails the same way in your application',
    });
  }
}

/** A token with the key pair (its lifetime as the client decides it), then the tenant and the timestamp format through a read. */
async function checkCredentials(
  config: DoctorConfig,
  clientWith: ClientMaker,
  warnings: string[],
  add: (check: Check) => void,
): Promise<void> {
  const missing = [
    ['ACME_CLIENT_ID', config.clientId],
    ['ACME_CLIENT_SECRET', config.clientSecret],
    ['ACME_TENANT_ID', config.tenantId],
  ].filter(([, value]) => !value);
  if (missing.length > 0) {
    const names = missing.map(([name]) => name).join(', ');
    for (const name of ['API token', 'tenant'])
      add({
        name,
        status: 'skip',
        detail: `not checked: ${names} not set`,
        advice: `set ${names} (or the flags) to check them; a run with checks skipped is incomplete (exit 3)`,
      });
    return;
  }
  const format = config.timestampFormat ?? 'unix-seconds';
  const kept = keptToken();
  const client = clientWith(format, kept);
  const before = warnings.length;
  try {
    await client.auth.accessToken();
    const token = kept.last;
    const lifetime = token ? Math.round((token.expiresAt - token.obtainedAt) / 1000) : undefined;
    const ignored = warnings.slice(before).filter((line) => line.startsWith('token lifetime'));
    add({
      name: 'API token',
      status: ignored.length ? 'warn' : 'ok',
      detail: `issued with the key pair; the SDK uses a lifetime of ${lifetime ?? '?'} s${ignored.length ? ` (${ignored.join('; ')})` : ''}`,
      ...(ignored.length
        ? {
            advice:
              'the service states its token lifetime in a form no reader can trust: tell its operators; the SDK uses the unambiguous source',
            option: 'tokenLifetime',
          }
        : {}),
    });
  } catch (error) {
    add({
      name: 'API token',
      status: 'fail',
      detail: `refused: ${error instanceof AcmeIdentityError ? error.code : 'no answer'}`,
      advice:
        TOKEN_ADVICE[error instanceof ApiError ? error.status : 0] ?? 'see the error code; the token endpoint is POST /auth/api-token',
    });
    return;
  }
  if (!(await checkTenant(client, format, clientWith, config.clientOptions?.correctClockSkew === false, add))) return;
  if (config.journey) await checkJourney(client, config.journeyPurpose ?? 'identity verification', add);
}

/**
 * An identity request's life through the SDK, on the service: created (with the SDK's defaults),
 * read back field by field, deleted. What was created is deleted whatever fails after it.
 */
async function checkJourney(client: AcmeIdentityClient, purpose: string, add: (check: Check) => void): Promise<void> {
  const person = {
    first_name: 'Doctor',
    last_name: 'Probe',
    email: `doctor.probe.${Date.now().toString(36)}@example.com`,
    phone: '400000000',
    phone_country_code: 61,
    purpose,
    return_url: 'https://example.com/acme-identity-doctor/return',
    off_ramp_url: 'https://example.com/acme-identity-doctor/off-ramp',
    send_email: false,
    expiry_hours: 1,
    claims: ['acmeidentity.given_name' as const],
  };
  let codes: { accessRequestCode: string; identitySessionCode: string };
  try {
    const { data } = await client.identityRequests.create(person);
    codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
    add({ name: 'journey: create', status: 'ok', detail: 'an identity request created by the SDK (no email sent, expiring in an hour)' });
  } catch (error) {
    const fields = error instanceof ValidationError ? error.fields : [];
    add({
      name: 'journey: create',
      status: 'fail',
      detail: `refused: ${refusal(error)}`,
      advice: fields.includes('purpose')
        ? 'the service refuses the purpose: pass one it allows (--journey-purpose, ACME_JOURNEY_PURPOSE)'
        : 'identityRequests.create fails the same way in your application',
    });
    return;
  }
  try {
    const { data } = await client.identityRequests.get(codes);
    const sent: Record<string, unknown> = person;
    const received: Record<string, unknown> = data;
    const differs = ['first_name', 'last_name', 'email', 'phone', 'phone_country_code', 'purpose'].filter(
      (field) => received[field] !== undefined && received[field] !== sent[field],
    );
    const codeKnown = data.request_code === undefined || [codes.accessRequestCode, codes.identitySessionCode].includes(data.request_code);
    const problems = [...differs.map((field) => `${field} differs`), ...(codeKnown ? [] : ['request_code is neither code'])];
    add(
      problems.length === 0
        ? { name: 'journey: read back', status: 'ok', detail: 'read by the SDK: the fields as sent, request_code one of the two codes' }
        : {
            name: 'journey: read back',
            status: 'fail',
            detail: `read by the SDK, but ${problems.join(', ')}`,
            advice: 'tell the operator: the service does not give back what it was sent',
          },
    );
  } catch (error) {
    add({ name: 'journey: read back', status: 'fail', detail: `the SDK cannot read it back: ${refusal(error)}` });
  } finally {
    try {
      await client.identityRequests.delete(codes);
      add({ name: 'journey: delete', status: 'ok', detail: 'deleted: nothing is left behind on the service' });
    } catch (error) {
      add({
        name: 'journey: delete',
        status: 'fail',
        detail: `could not delete it: ${refusal(error)}`,
        advice: 'the request is left on the service: it expires within the hour, or ask the operator to delete it',
      });
    }
  }
}

/** A read of codes that cannot exist: a 404 proves the tenant and the timestamp format; a 401 is told apart by trying the other formats. */
async function checkTenant(
  client: AcmeIdentityClient,
  format: TimestampFormat,
  clientWith: ClientMaker,
  skewCorrectionOff: boolean,
  add: (check: Check) => void,
): Promise<boolean> {
  const probe = (c: AcmeIdentityClient) =>
    c.identityRequests.get({ accessRequestCode: 'arc_doctor_probe_0', identitySessionCode: 'isc_doctor_probe_0' }).then(
      () => undefined,
      (error: unknown) => error,
    );
  const error = await probe(client);
  if (error instanceof NotFoundError) {
    add({
      name: 'tenant',
      status: 'ok',
      detail: `accepted with X-Request-Timestamp as ${String(format)} (a read of made-up codes answered 404, as it should)`,
    });
    return true;
  }
  if (error === undefined) {
    add({
      name: 'tenant',
      status: 'warn',
      detail: 'a request that cannot exist was found',
      advice: 'unexpected: the service answered 200 for made-up codes',
    });
    return true;
  }
  if (error instanceof AuthenticationError) {
    for (const other of TIMESTAMP_FORMATS.filter((f) => f !== format)) {
      if ((await probe(clientWith(other))) instanceof NotFoundError) {
        add({
          name: 'tenant',
          status: 'fail',
          detail: `refused with X-Request-Timestamp as ${String(format)}; accepted as ${other}`,
          advice: `set timestampFormat: '${other}' (ACME_TIMESTAMP_FORMAT=${other}, --timestamp-format ${other})`,
          option: `timestampFormat: '${other}'`,
        });
        return false;
      }
    }
  }
  if (error instanceof AuthenticationError && skewCorrectionOff) {
    // The X-Request-Timestamp on this machine's clock, refused; on the service's, accepted?
    if ((await probe(clientWith(format, undefined, { correctClockSkew: true }))) instanceof NotFoundError) {
      add({
        name: 'tenant',
        status: 'fail',
        detail: "refused with X-Request-Timestamp on this machine's clock; accepted on the service's",
        advice: 'leave correctClockSkew on (its default): this machine and the service disagree on the time',
        option: 'correctClockSkew: true',
      });
      return false;
    }
  }
  add({
    name: 'tenant',
    status: 'fail',
    detail: `a read answered ${error instanceof AcmeIdentityError ? error.code : 'nothing'}`,
    advice:
      error instanceof ApiError && (error.status === 401 || error.status === 403)
        ? "the tenant id is wrong or not this key pair's (X-Tenant-Id): no X-Request-Timestamp format was accepted either"
        : 'see the error code',
    ...(error instanceof ApiError && error.status === 401 ? { option: 'tenantId, timestampFormat' } : {}),
  });
  return false;
}

/**
 * The clock, from the `Date` of an answer that was not served from a cache: a POST's (the token's)
 * first, else a GET's whose `Age` is added. An answer held by a cache says when it was made, not now.
 */
function checkClock(seen: readonly Seen[], now: () => number, add: (check: Check) => void): void {
  const fresh = seen.find((s) => s.method === 'POST' && s.headers.get('date')) ?? seen.find((s) => s.headers.get('date'));
  if (!fresh) {
    add({
      name: 'clock',
      status: 'warn',
      detail: 'no Date header in any answer',
      advice: 'the SDK then learns the service clock from token iat; nothing to set',
    });
    return;
  }
  const age = Number(fresh.headers.get('age') ?? 0);
  const served = Date.parse(fresh.headers.get('date') ?? '') + (Number.isFinite(age) && age > 0 ? age * 1000 : 0);
  const skew = Math.round((served - now()) / 1000);
  const cached = Number.isFinite(age) && age > 0 ? ` (a cached answer: Age ${age} s counted)` : '';
  add(
    Math.abs(skew) > SKEW_WARN_SECONDS
      ? {
          name: 'clock',
          status: 'warn',
          detail: `this machine's clock is ${Math.abs(skew)} s ${skew > 0 ? 'behind' : 'ahead of'} the service${cached}`,
          advice: 'sync it (NTP); the SDK corrects for it from Date headers, other tools may not',
        }
      : { name: 'clock', status: 'ok', detail: `within ${Math.abs(skew)} s of the service${cached}` },
  );
}

/** The forms this deployment chose where the spec leaves it open, as they arrived (the checks above proved the SDK reads them). */
function checkAnswerForms(seen: readonly Seen[], add: (check: Check) => void): void {
  const tokenAnswer = seen.find((s) => s.path.endsWith('/auth/api-token') && s.status < 300);
  if (tokenAnswer) {
    const body = parse(tokenAnswer.body);
    const record = isObject(body) && isObject(body['data']) ? body['data'] : body;
    const fields = isObject(record) ? ['expires_in', 'expires'].filter((field) => field in record) : [];
    add({
      name: 'token answer',
      status: 'ok',
      detail: `${isObject(body) && isObject(body['data']) ? 'wrapped in {data}' : 'bare'}; lifetime in ${fields.length ? fields.join(' ') : 'nothing (the JWT exp is used)'}`,
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
          : 'the error fields at the top level (read as a NotFoundError)',
    });
  }
}

/** OIDC discovery and the JWKS, read by `remoteJwks` as the verifiers read them; the claims offered against this SDK's list. */
async function checkOidc(authUrl: string, { fetch, timeoutMs, seen, add }: Probe, declared: readonly string[]): Promise<void> {
  const keys = remoteJwks(authUrl, {
    fetch: (url, init) => fetch(new Request(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })),
    logLevel: 'off',
  });
  try {
    await keys.refresh();
  } catch (error) {
    add({
      name: 'OIDC discovery',
      status: 'fail',
      detail: `the SDK cannot read the issuer's keys: ${refusal(error)}`,
      advice: 'set ACME_AUTH_URL (or --auth-url, remoteJwks(authUrl)) to the OIDC issuer; every signed verification fails until then',
      option: 'authUrl',
    });
    return;
  }
  const metadata = parse(seen.find((s) => s.path.endsWith('/.well-known/openid-configuration'))?.body ?? '');
  const record = isObject(metadata) ? metadata : {};
  const s256 = Array.isArray(record['code_challenge_methods_supported']) && record['code_challenge_methods_supported'].includes('S256');
  add({
    name: 'OIDC discovery',
    status: s256 ? 'ok' : 'fail',
    detail: `issuer ${String(record['issuer'])}, read by the SDK${s256 ? ', PKCE S256' : ', no PKCE S256'}`,
    ...(s256 ? {} : { advice: 'the helper requires S256 (code_challenge_methods_supported)' }),
  });
  const offered = Array.isArray(record['acme_claims_supported']) ? record['acme_claims_supported'].map(String) : [];
  const known = new Set([...SUPPORTED_CLAIMS, ...declared]);
  const unknown = offered.filter((claim) => !known.has(claim));
  const gone = SUPPORTED_CLAIMS.filter((claim) => offered.length > 0 && !offered.includes(claim));
  const where = declared.length ? 'not in your declaration file' : 'new to this SDK';
  let advice: string | undefined;
  if (unknown.length)
    advice = 'type them: npx acme-identity types --auth-url … --out acme-claims.d.ts (and pass the live list as supportedClaims)';
  else if (gone.length) advice = 'a request naming one of them is refused by this deployment';
  add({
    name: 'claims',
    status: advice ? 'warn' : 'ok',
    detail: `${offered.length} offered${unknown.length ? `; ${where}: ${unknown.join(', ')}` : ''}${gone.length ? `; not offered here: ${gone.join(', ')}` : ''}`,
    ...(advice ? { advice } : {}),
  });
  // The last answer refresh() read: the JWKS.
  const jwks = parse(seen.at(-1)?.body ?? '');
  const all = isObject(jwks) && Array.isArray(jwks['keys']) ? jwks['keys'].filter(isObject) : [];
  const privateOnes = all.filter((key) => 'd' in key).length;
  add({
    name: 'JWKS',
    status: privateOnes ? 'fail' : 'ok',
    detail: `${all.length} key${all.length === 1 ? '' : 's'}, read by the SDK${privateOnes ? `, ${privateOnes} PRIVATE` : ''}`,
    ...(privateOnes ? { advice: 'the service publishes private key material: tell its operators now' } : {}),
  });
}

/** The service's own OpenAPI document against the contract this SDK was built from, once it is one. */
async function checkContract(baseUrl: string, { fetch, timeoutMs, seen, add }: Probe): Promise<void> {
  let response: Response;
  try {
    response = await fetch(new Request(`${baseUrl}/docs/spec`, { signal: AbortSignal.timeout(timeoutMs) }));
  } catch (error) {
    add({ name: 'contract', status: 'warn', detail: `/docs/spec did not answer: ${refusal(error)}` });
    return;
  }
  const type = response.headers.get('content-type') ?? '';
  const document = parse(seen.at(-1)?.body ?? '');
  if (!response.ok || !/json|yaml/i.test(type) || !isObject(document) || !('paths' in document)) {
    add({
      name: 'contract',
      status: 'warn',
      detail: `/docs/spec answered ${response.status}${type ? ` (${type.split(';')[0]})` : ''} without an OpenAPI document: not compared`,
      advice: 'the service does not serve its description here; nothing about the SDK depends on it',
    });
    return;
  }
  const drift = contractDrift(document);
  add({
    name: 'contract',
    status: drift.length ? 'warn' : 'ok',
    detail: drift.length
      ? `${drift.length} differences from the contract this SDK was built from:\n${drift.map((d) => `      ${d}`).join('\n')}`
      : "the service's /docs/spec matches the SDK's contract",
    ...(drift.length ? { advice: 'operations or fields changed: check the CHANGELOG for a newer SDK' } : {}),
  });
}

const MARK: Record<CheckStatus, string> = { ok: '✓', fail: '✗', warn: '!', skip: '-' };

/** The terminal color of each status: green, red, yellow, and grey for a skipped check. */
const COLORS: Record<CheckStatus, number> = { ok: 32, fail: 31, warn: 33, skip: 90 };

/** The checklist as text: one line per check, its advice below a failure or a warning. */
export function formatReport(report: DoctorReport, color: boolean): string {
  const paint = (status: CheckStatus, text: string) => {
    if (!color) return text;
    return `\x1b[${COLORS[status]}m${text}\x1b[0m`;
  };
  const lines = report.checks.map((check) => {
    const head = `${paint(check.status, MARK[check.status])} ${check.name.padEnd(17)} ${check.detail}`;
    const advice =
      check.advice && check.status !== 'ok'
        ? `\n  ${' '.repeat(18)}→ ${check.advice}${check.option ? ` (option: ${check.option})` : ''}`
        : '';
    return head + advice;
  });
  const count = (status: CheckStatus) => report.checks.filter((c) => c.status === status).length;
  const summary: Record<DoctorOutcome, string> = {
    ok: 'every check passed',
    warnings: `${count('warn')} warnings, no failures`,
    incomplete: `incomplete: ${count('skip')} checks skipped (settings missing)${count('warn') ? `, ${count('warn')} warnings` : ''}, no failures`,
    failed: `${count('fail')} failed${count('warn') ? `, ${count('warn')} warnings` : ''}`,
  };
  lines.push('', summary[report.outcome]);
  return lines.join('\n');
}
