/**
 * What doctor reads beside the client: every answer it saw (a recording fetch), the clock from
 * their Date headers, the forms this deployment chose where the spec leaves one open, OIDC
 * discovery and the JWKS as remoteJwks reads them, and the service's own OpenAPI document against
 * the contract this SDK was built from.
 */
import { parse as parseYaml } from 'yaml';
import { remoteJwks } from '../sd-jwt/index.js';
import { claimList } from '../claims/index.js';
import { SUPPORTED_CLAIMS } from '../contract/claims.js';
import { isObject } from '../internal/guards.js';
import { contractDrift } from './drift.js';
import { refusal, type Check } from './report.js';

/** Clock skew beyond which requests risk being refused (the fake's window is 300 s; the real one is not shown). */
const SKEW_WARN_SECONDS = 30;

/**
 * The members of a JWK that only its owner may hold (RFC 7518 §6): RSA's private exponent, primes
 * and CRT values (the primes alone give the rest), the EC and OKP private scalar, a symmetric key's
 * bytes. Any of them in a published JWKS is a leak.
 */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** A fetch that keeps a copy of every answer, for the checks that read what the SDK normalises. */
export function recording(fetchImpl: (request: Request) => Promise<Response>) {
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
export interface Probe {
  fetch: (request: Request) => Promise<Response>;
  timeoutMs: number;
  seen: readonly Seen[];
  add: (check: Check) => void;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The clock, from the `Date` of an answer that was not served from a cache: a POST's (the token's)
 * first, else a GET's whose `Age` is added. An answer held by a cache says when it was made, not now.
 */
export function checkClock(seen: readonly Seen[], now: () => number, add: (check: Check) => void): void {
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

/** The made-up codes the tenant check reads (checkTenant): no request has them, so the answer is the service's NOT_FOUND. */
export const PROBE_CODES = { accessRequestCode: 'arc_doctor_probe_0', identitySessionCode: 'isc_doctor_probe_0' } as const;

/** The forms this deployment chose where the spec leaves it open, as they arrived (the checks above proved the SDK reads them). */
export function checkAnswerForms(seen: readonly Seen[], add: (check: Check) => void): void {
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
  // The tenant check's read of made-up codes: the service's NotFoundError, whatever its status (checkTenant).
  const errorAnswer = seen.find((s) => s.path.includes(`/identity/request/${PROBE_CODES.accessRequestCode}/`));
  if (errorAnswer && errorAnswer.status < 300) {
    add({
      name: 'error statuses',
      status: 'warn',
      detail: `errors arrive with HTTP ${errorAnswer.status} and the error in the body: the SDK classes each by its code and retries a rate limit or a 5xx answered so as its status would be, but caches, monitors and other clients in front of the service see successes`,
      advice: 'ask the operator (or the gateway in front of the service) to send the error statuses the spec pairs with its codes',
    });
  } else if (errorAnswer?.status === 404) {
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
export async function checkOidc(authUrl: string, { fetch, timeoutMs, seen, add }: Probe, declared: readonly string[]): Promise<void> {
  try {
    // Inside the try: an authUrl the verifiers would refuse (http: on a public host) is this check's failure.
    const keys = remoteJwks(authUrl, {
      fetch: (url, init) => fetch(new Request(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })),
      logLevel: 'off',
    });
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
  const offered = claimList(record['acme_claims_supported']);
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
  const privateOnes = all.filter((key) => PRIVATE_MEMBERS.some((member) => member in key)).length;
  add({
    name: 'JWKS',
    status: privateOnes ? 'fail' : 'ok',
    detail: `${all.length} key${all.length === 1 ? '' : 's'}, read by the SDK${privateOnes ? `, ${privateOnes} PRIVATE` : ''}`,
    ...(privateOnes ? { advice: 'the service publishes private key material: tell its operators now' } : {}),
  });
}

/**
 * The YAML media types an OpenAPI document is served as (`application/yaml`, `text/yaml`, the `x-`
 * forms, and the OpenAPI Initiative's own `application/vnd.oai.openapi`, which is YAML); the
 * others are JSON. The spec does not show which a service serves at `/docs/spec`.
 */
const YAML_TYPE = /yaml|vnd\.oai\.openapi/i;
const isOpenApiType = (type: string) => /json/i.test(type) || YAML_TYPE.test(type);

/** A document's text read as JSON, else as YAML where the media type says YAML; undefined when it is neither. */
function openApiText(text: string, type: string): unknown {
  const json = parse(text);
  if (json !== undefined || !YAML_TYPE.test(type)) return json;
  try {
    // YAML's core schema: plain data, no custom tags; aliases bounded by the library (maxAliasCount).
    return parseYaml(text);
  } catch {
    return undefined;
  }
}

/** The service's own OpenAPI document against the contract this SDK was built from, once it is one. */
export async function checkContract(baseUrl: string, { fetch, timeoutMs, seen, add }: Probe): Promise<void> {
  let response: Response;
  try {
    response = await fetch(new Request(`${baseUrl}/docs/spec`, { signal: AbortSignal.timeout(timeoutMs) }));
  } catch (error) {
    add({ name: 'contract', status: 'warn', detail: `/docs/spec did not answer: ${refusal(error)}` });
    return;
  }
  const type = response.headers.get('content-type') ?? '';
  const document = openApiText(seen.at(-1)?.body ?? '', type);
  if (!response.ok || !isOpenApiType(type) || !isObject(document) || !('paths' in document)) {
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
