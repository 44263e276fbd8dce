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
 *
 * This file runs the checks in order (the base URL, reachability, then doctor-service.ts's through
 * the client and doctor-probes.ts's beside it); report.ts says how their results read.
 */
import { AcmeIdentityClient } from '../index.js';
import type { ClientMaker, DoctorConfig } from './doctor-config.js';
import { checkAnswerForms, checkClock, checkContract, checkOidc, recording, type Probe } from './doctor-probes.js';
import { checkCredentials, checkStatus } from './doctor-service.js';
import { reportOf, type Check, type DoctorReport } from './report.js';

export { DOCTOR_CLIENT_OPTIONS, type DoctorClientOptions, type DoctorConfig } from './doctor-config.js';
export { formatReport, reportOf, type DoctorOutcome, type DoctorReport } from './report.js';

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
