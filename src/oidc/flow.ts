/**
 * What the browser and the Node entries of `@acme/identity/oidc` share: discovery, the
 * authorization request and its checks, and the callback. Built on oauth4webapi, importing only
 * the functions the flow uses so the browser bundle stays small; no `node:` module.
 *
 * @see {@link https://github.com/acme/identity-sdk/blob/main/docs/service-spec.md | the service specification}, "GET {auth_url}/oauth/oidc/authorize"
 */
import {
  calculatePKCECodeChallenge,
  clockSkew,
  clockTolerance,
  expectNoNonce,
  generateRandomCodeVerifier,
  generateRandomNonce,
  generateRandomState,
  getValidatedIdTokenClaims,
  processAuthorizationCodeResponse,
  type AuthorizationServer,
  type Client,
  type IDToken,
  type TokenEndpointResponse,
} from 'oauth4webapi';
import { claimList, claimsRequestIssues, listedIn, wireClaims, type ClaimsRequest } from '../claims/index.js';
import { ConfigurationError, InvalidInputError, type InputIssue, type OidcErrorCode } from '../errors/index.js';
import { nonNegativeOption } from '../errors/options.js';
import { kept } from '../internal/kept.js';
import { isFetchableUrl, isLoopbackHost } from '../internal/loopback.js';
import type { UnitsPerSecond } from '../internal/times.js';
import { fail, isString, mapFailure, oauthError } from './failures.js';
import { freshKeys, jwsVerifier, type KeysOf } from './jws.js';
import { tokenClock } from './token-clock.js';

/** Options both entries take. */
export interface OidcOptions {
  /** `{auth_url}`: the issuer, for example `https://auth.acme.example`. Its discovery document is read from here. */
  authUrl: string;
  /** The OIDC client ID issued to the relying party. */
  clientId: string;
  /** The registered redirect URI the service sends the person back to. */
  redirectUri: string;
  /** The `fetch` to use; looked up at call time, so test interceptors installed later still see the calls. */
  fetch?: typeof fetch;
  /**
   * Seconds of leeway when checking the ID token's `exp` and `nbf`: a finite number, 0 or more. They
   * are checked on the service's clock (learnt from the token answer's `Date`, or the ID token's
   * `iat`), so a service whose clock is off needs none. @default 0
   */
  clockToleranceSeconds?: number;
  /** The clock, in milliseconds since the epoch. @default Date.now */
  now?: () => number;
  /** How long the discovery document (and its `acme_claims_supported`) is reused, in ms: a finite number, 0 or more. @default 3_600_000 (one hour) */
  discoveryMaxAgeMs?: number;
  /** How long a sign-in may take from redirect to callback, in ms: a finite number, 0 or more. @default 1_800_000 (30 minutes) */
  transactionMaxAgeMs?: number;
  /**
   * Allow plain `http:` endpoints. By default only loopback issuers (`localhost`, `127.0.0.0/8`,
   * `[::1]`) may use `http:`, so the fake served locally works and nothing else is sent in clear.
   */
  allowInsecureRequests?: boolean;
  /**
   * Send a `nonce` and require the ID token to carry it back (OpenID Connect Core §3.1.2.1). The
   * spec marks `nonce` optional, so a service may ignore it: its ID tokens then carry none, and
   * every sign-in is refused as `ERR_OIDC_NONCE`, whose message names this option. `false` sends
   * none and refuses an ID token that carries one; the PKCE verifier (always S256) still binds the
   * code to this sign-in, which is what the nonce adds for a code flow. @default true
   */
  nonce?: boolean;
}

/** The standard scopes the service knows. */
export type StandardScope = 'openid' | 'profile' | 'email' | 'phone';

/**
 * The service's `claims` parameter: standard scope names mapped to arrays of claim names, and the
 * `acme` key holding claim keys (an array) or claim keys mapped to `{essential: true}`.
 */
export interface OidcClaimsRequest {
  openid?: readonly string[];
  profile?: readonly string[];
  email?: readonly string[];
  phone?: readonly string[];
  /** Claim keys from `acme_claims_supported`; `{essential: true}` only on obtainable credentials. */
  acme?: ClaimsRequest;
}

/** What to ask for when sending the person to the service. */
export interface SignInParams {
  /** Must include `openid`. @default ['openid'] */
  scope?: readonly (StandardScope | (string & {}))[] | string;
  claims?: OidcClaimsRequest;
  /** A verification ruleset allowed for the client; the service uses the client's default when absent. */
  ruleset?: string;
  /** A delegation UID (acting on behalf of); it must carry the scope `oauth.core.authorization`. */
  aobo?: string;
  /** A pre-seeded phone number; needs `phoneCountryCode`. */
  phone?: string;
  /** The phone's country code, 1 to 3 digits (for example `61`). */
  phoneCountryCode?: string | number;
  /** A pre-seeded email address. */
  email?: string;
  /**
   * Standard OpenID Connect (Core §3.1.2.1), sent as `prompt`: `login` to make the person
   * authenticate again, `none` to get an error rather than a page, `consent`, `select_account`.
   * The service's spec does not name it: it may ignore it.
   */
  prompt?: 'none' | 'login' | 'consent' | 'select_account' | (string & {});
  /** Standard OpenID Connect `login_hint`: who is expected to sign in (an email, say). The service may ignore it. */
  loginHint?: string;
  /**
   * Standard OpenID Connect `max_age`: the most seconds since the person last authenticated. When
   * set, the callback requires the ID token's `auth_time` and refuses one older than this
   * (`ERR_OIDC_ID_TOKEN`, claim `auth_time`), whether the service honoured the request or not.
   */
  maxAge?: number;
  /** Standard OpenID Connect `ui_locales`: BCP 47 tags, preferred first (`['fr-CA', 'fr']`). The service may ignore it. */
  uiLocales?: string | readonly string[];
  /** Standard OpenID Connect `acr_values`: the authentication context classes asked for, preferred first. The service may ignore it. */
  acrValues?: string | readonly string[];
  /** Anything JSON your app wants back in the callback (where to go next, say). Kept with the transaction, never sent. */
  data?: unknown;
}

/**
 * What must survive the redirect: keep it server-side (or in an encrypted session), since it
 * holds the PKCE verifier. Plain JSON.
 */
export interface OidcTransaction {
  readonly issuer: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly state: string;
  /** The nonce sent; absent when none was (`nonce: false`), and then the ID token must carry none. */
  readonly nonce?: string;
  readonly codeVerifier: string;
  /** When the sign-in started, in milliseconds since the epoch. */
  readonly createdAt: number;
  /** {@link SignInParams.maxAge}, checked against the ID token's `auth_time`. */
  readonly maxAge?: number | undefined;
  /** The scope asked for, to know which standard claims the sign-in asked for (OpenID Connect Core §5.4). */
  readonly scope?: readonly string[];
  /** The claim names the `claims` parameter asked for: each scope's list, and the `acme` keys. */
  readonly claims?: readonly string[];
  readonly data?: unknown;
}

/** The ID token's validated claims: the standard ones, plus the requested claim keys. */
export type IdTokenClaims = IDToken & Readonly<Record<string, unknown>>;

/** A finished sign-in. */
export interface SignInResult {
  /** The ID token's claims, after its signature, issuer, audience, nonce and expiry were checked. */
  readonly claims: IdTokenClaims;
  /** The token endpoint's answer, as OAuth names it (`access_token`, `id_token`, `expires_in`, …). */
  readonly tokens: TokenEndpointResponse & { readonly id_token: string };
  /** What the sign-in was started with as `data`. */
  readonly data?: unknown;
}

/** A discovery document as a sign-in uses it: with the three endpoints it calls, checked when read. */
export type DiscoveredServer = AuthorizationServer & { authorization_endpoint: string; token_endpoint: string; jwks_uri: string };

/** The endpoints a sign-in calls, each checked when the discovery document is read. */
const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const;

/** Shared state of one configured client. */
export interface OidcCore {
  readonly options: OidcOptions;
  /** How long a sign-in may take from redirect to callback: `transactionMaxAgeMs`, checked, or its default. */
  readonly transactionMaxAgeMs: number;
  metadata(refresh?: boolean): Promise<DiscoveredServer>;
  start(params: SignInParams): Promise<{ url: URL; transaction: OidcTransaction }>;
  /** `use` runs once the callback's state and iss are checked, before the code is exchanged. */
  finish(callback: URLSearchParams, transaction: OidcTransaction, use?: () => void | Promise<void>): Promise<SignInResult>;
  /**
   * The oauth4webapi client, for what an entry adds (userinfo, client authentication); its clock
   * moved by the service's skew in ms, when one was learnt, and counting in `unit`s a second (1000
   * for an ID token whose times are in milliseconds, and so on).
   */
  client(serviceSkewMs?: number, unit?: UnitsPerSecond): Client;
  /** Whether plain `http:` endpoints are allowed. */
  readonly insecure: boolean;
  /** The configured `fetch`, looked up at call time, refusing plain `http:` where not allowed. */
  get(url: string, init?: RequestInit): Promise<Response>;
}

/** A callback that passed {@link checkCallback}: its parameters, and the code they carry. */
export interface CheckedCallback {
  readonly params: URLSearchParams;
  readonly code: string;
}

/** Sends the token request for a validated callback; the entries differ in how the client authenticates. */
export type Exchange = (core: OidcCore, as: DiscoveredServer, callback: CheckedCallback, transaction: OidcTransaction) => Promise<Response>;

const STANDARD: readonly string[] = ['openid', 'profile', 'email', 'phone'];
/** How soon after a fetch an unknown claim key may refetch discovery (new keys are added over time). */
const REFRESH_COOLDOWN_MS = 60_000;

/**
 * The `claims` parameter as the service takes it: its `acme` keys in the spec's forms
 * (`{essential: false}` sent as `null`), the standard scopes' lists as given. One rule for the
 * SDK's sign-in and the framework providers (`providers.ts`).
 */
export function wireOidcClaims(claims: OidcClaimsRequest): OidcClaimsRequest {
  return claims.acme === undefined ? claims : { ...claims, acme: wireClaims(claims.acme) };
}

/** The text parameters, each with the query parameter it is sent as. */
const TEXT_PARAMETERS = {
  ruleset: 'ruleset',
  aobo: 'aobo',
  phone: 'phone',
  email: 'email',
  prompt: 'prompt',
  loginHint: 'login_hint',
  uiLocales: 'ui_locales',
  acrValues: 'acr_values',
} as const;
type TextOption = keyof typeof TEXT_PARAMETERS;
const TEXT = Object.keys(TEXT_PARAMETERS) as TextOption[];

/**
 * The value a text option is sent as: a string as it is; for `uiLocales` and `acrValues` also a
 * list, space-separated. `''` (refused) for anything else.
 */
function textOf(params: SignInParams, option: TextOption): string | undefined {
  const value: unknown = params[option];
  if (value === undefined) return undefined;
  const list = option === 'uiLocales' || option === 'acrValues' ? [value].flat() : [value];
  return list.every(isString) ? list.join(' ') : '';
}

/** Every problem with the authorization request, each naming the option, before the person leaves. */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one check per rule the spec and OIDC Core set on the sign-in's parameters, each issue naming its parameter
function paramIssues(params: SignInParams, scope: readonly string[], as: AuthorizationServer): InputIssue[] {
  // What discovery lists: claim keys (`acme_claims_supported`) and standard claim names (`claims_supported`).
  const supported = as['acme_claims_supported'];
  const standard = as.claims_supported;
  const issues: InputIssue[] = [];
  const add = (field: string, message: string) => issues.push({ field, message });
  if (!scope.includes('openid')) add('scope', 'must include openid');
  // RFC 6749 §3.3 scope tokens: printable ASCII but space, `"` and `\`.
  if (!scope.every((token) => /^[!#-[\]-~]+$/.test(token))) add('scope', 'must be scope tokens');
  const { claims, phone, phoneCountryCode: country } = params;
  if (claims !== undefined) {
    if (!claims || typeof claims !== 'object' || Array.isArray(claims)) add('claims', 'must be an object');
    else
      for (const [name, value] of Object.entries(claims)) {
        // The spec's discovery always lists acme_claims_supported: one without it lists no key.
        if (name === 'acme') issues.push(...claimsRequestIssues(value, listedIn(new Set(claimList(supported))), 'claims.acme'));
        else if (!STANDARD.includes(name)) add(`claims.${name}`, `is not one of ${STANDARD} or acme`);
        // Names the discovery document's claims_supported does not list are refused by the service too.
        else if (
          !Array.isArray(value) ||
          !value.every((claim) => isString(claim) && (!Array.isArray(standard) || standard.includes(claim)))
        ) {
          add(`claims.${name}`, 'must be an array of claim names in claims_supported');
        }
      }
  }
  for (const option of TEXT) if (textOf(params, option) === '') add(option, 'must be a non-empty string');
  const { maxAge } = params;
  if (maxAge !== undefined && !(Number.isInteger(maxAge) && maxAge >= 0)) add('maxAge', 'must be whole seconds, 0 or more');
  if (phone !== undefined && country === undefined) add('phoneCountryCode', 'is required with phone');
  if (country !== undefined && !/^[0-9]{1,3}$/.test(`${country}`)) add('phoneCountryCode', 'must be 1 to 3 digits');
  return issues;
}

/**
 * The authorization response's checks (RFC 6749 §4.1.2, RFC 9207), in the order of oauth4webapi's
 * `validateAuthResponse` and to its verdicts (test/oidc/callback.test.ts holds them to it), each
 * failure with its own code: no JARM `response`; `iss` equal to the issuer's, and present where
 * discovery promises it; the transaction's `state`; then an `error` the service sent; no implicit
 * or hybrid tokens; a `code`. A parameter read here and sent twice is refused. Written here because
 * oauth4webapi's costs the sign-in page 0.3 KB; the backend still passes oauth4webapi's on to its
 * token request, which requires it.
 */
export function checkCallback(as: AuthorizationServer, callback: URLSearchParams, state: string): CheckedCallback {
  const one = (name: string, code: OidcErrorCode = 'ERR_OIDC_RESPONSE') => {
    const values = callback.getAll(name);
    if (values.length > 1) throw fail(code, `${name} sent twice`);
    return values[0];
  };
  if (one('response')) throw fail('ERR_OIDC_RESPONSE', 'JARM is not supported');
  const iss = one('iss', 'ERR_OIDC_ISSUER');
  if (iss ? iss !== as.issuer : as.authorization_response_iss_parameter_supported) throw fail('ERR_OIDC_ISSUER', `iss is not ${as.issuer}`);
  if (one('state', 'ERR_OIDC_STATE') !== state) throw fail('ERR_OIDC_STATE', "state is not the sign-in's");
  const error = one('error');
  if (error) throw oauthError('ERR_OIDC_AUTHORIZATION', { error, error_description: callback.get('error_description') ?? undefined });
  if (one('id_token') !== undefined || one('token') !== undefined)
    throw fail('ERR_OIDC_RESPONSE', 'implicit and hybrid flows are not supported');
  const code = one('code');
  if (!code) throw fail('ERR_OIDC_RESPONSE', 'no code');
  return { params: callback, code };
}

/**
 * The options checked: those a client cannot work without, the issuer's URL and whether plain
 * http: is allowed (loopback by default), and the time bounds, defaulted.
 */
function checkedOptions(options: OidcOptions) {
  for (const key of ['authUrl', 'redirectUri', 'clientId'] as const) {
    if (!(key === 'clientId' ? isString(options?.[key]) : URL.canParse(options?.[key])))
      throw new ConfigurationError(key, 'is required (URLs absolute)');
  }
  const issuer = new URL(options.authUrl);
  const insecure = options.allowInsecureRequests ?? isLoopbackHost(issuer.hostname);
  if (issuer.protocol !== 'https:' && !insecure)
    throw new ConfigurationError('authUrl', 'must be https: unless allowInsecureRequests is set');
  return {
    issuer,
    insecure,
    // The bounds a sign-in is checked within: one of NaN would leave a check on a default nobody chose.
    clockToleranceSeconds: nonNegativeOption('clockToleranceSeconds', options.clockToleranceSeconds, 0),
    discoveryMaxAgeMs: nonNegativeOption('discoveryMaxAgeMs', options.discoveryMaxAgeMs, 3_600_000),
    transactionMaxAgeMs: nonNegativeOption('transactionMaxAgeMs', options.transactionMaxAgeMs, 1_800_000),
  };
}

/**
 * The issuer's discovery document, checked: it names this issuer (OpenID Connect Discovery 1.0
 * §4.3, as oauth4webapi's processDiscoveryResponse checks it), and each endpoint the sign-in uses
 * is allowed (https:, or http: where allowed): never a javascript: URL a page could be sent to.
 */
async function readDiscovery(
  issuer: URL,
  get: (url: string) => Promise<Response>,
  allowed: (url: unknown) => url is string,
): Promise<DiscoveredServer> {
  try {
    const as = (await (await get(`${issuer.href.replace(/\/$/, '')}/.well-known/openid-configuration`)).json()) as AuthorizationServer;
    if (new URL(as.issuer).href !== issuer.href) throw fail('ERR_OIDC_DISCOVERY', `the discovery document is not ${issuer.href}'s`);
    const unusable = ENDPOINTS.find((endpoint) => !allowed(as[endpoint]));
    if (unusable) throw fail('ERR_OIDC_DISCOVERY', `the discovery document's ${unusable} is missing or not https:`);
    return as as DiscoveredServer;
  } catch (e) {
    throw mapFailure(e, 'ERR_OIDC_DISCOVERY');
  }
}

/**
 * The authorization URL of a sign-in whose parameters were checked, and the transaction its
 * callback is checked against: fresh state, nonce and PKCE verifier, the S256 challenge.
 */
async function authorizationRequest(
  as: DiscoveredServer,
  options: OidcOptions,
  params: SignInParams,
  scope: readonly string[],
  createdAt: number,
): Promise<{ url: URL; transaction: OidcTransaction }> {
  const transaction: OidcTransaction = {
    issuer: as.issuer,
    clientId: options.clientId,
    redirectUri: options.redirectUri,
    state: generateRandomState(),
    ...(options.nonce === false ? {} : { nonce: generateRandomNonce() }),
    codeVerifier: generateRandomCodeVerifier(),
    createdAt,
    maxAge: params.maxAge,
    scope,
    // Checked by paramIssues: each value a list of names, or the acme keys as a list or an object.
    claims: Object.values(params.claims ?? {}).flatMap((names: ClaimsRequest) => (Array.isArray(names) ? names : Object.keys(names))),
    data: params.data,
  };
  const url = new URL(as.authorization_endpoint);
  const query: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: scope.join(' '),
    state: transaction.state,
    nonce: transaction.nonce,
    code_challenge: await calculatePKCECodeChallenge(transaction.codeVerifier),
    code_challenge_method: 'S256',
    claims: params.claims && JSON.stringify(wireOidcClaims(params.claims)),
    phone_country_code: params.phoneCountryCode?.toString(),
    max_age: params.maxAge?.toString(),
  };
  for (const option of TEXT) query[TEXT_PARAMETERS[option]] = textOf(params, option);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  return { url, transaction };
}

/**
 * The shared machinery of one client; `exchange` says how it calls the token endpoint.
 * @param mapError How a failure of the token exchange becomes an `OidcError`. The backend entry
 *   adds `WWW-Authenticate` challenges to {@link mapFailure}; the browser entry, whose budget is
 *   tight and whose public client meets no challenge, keeps the plain one.
 * @param idToken The ID token's signature check, given how to fetch a JWKS and the clock: by
 *   default Web Crypto's with the JWKS read for the check (a browser page's one sign-in); the
 *   backend entry's takes `node:crypto` where the runtime has it (`internal/jws-node.ts`) and keeps
 *   the key set (`cachedKeys`).
 */
export function createCore(
  options: OidcOptions,
  exchange: Exchange,
  mapError: typeof mapFailure = mapFailure,
  idToken: (keysOf: KeysOf, now: () => number) => (as: DiscoveredServer, jwt: string) => Promise<void> = (keysOf) =>
    jwsVerifier(freshKeys(keysOf)),
): OidcCore {
  const { issuer, insecure, clockToleranceSeconds, discoveryMaxAgeMs, transactionMaxAgeMs } = checkedOptions(options);
  const now = () => (options.now ?? Date.now)();
  /** Only `https:` endpoints, or `http:` where allowed: never `javascript:` or anything else a page could be sent to. */
  const allowed = (url: unknown): url is string => isFetchableUrl(url, insecure);
  /** The user's fetch, looked up at call time, to allowed URLs only. */
  const get = async (url: string, init?: RequestInit) => {
    if (!allowed(url)) throw fail('ERR_OIDC_RESPONSE', `${url} is not https:`);
    return (options.fetch ?? fetch)(url, init);
  };
  const verifySignature = idToken(async (url) => (await get(url)).json(), now);
  const client = (serviceSkewMs = 0, unit: UnitsPerSecond = 1): Client => ({
    client_id: options.clientId,
    [clockTolerance]: clockToleranceSeconds * unit,
    // oauth4webapi reads the system clock in seconds: shifted onto ours when it reads the skew,
    // beside its own read of the system clock, then onto the service's, and counted in the unit of
    // the token it judges (see timeUnit). A skew taken when this object is made counts the token
    // exchange's time again on a clock that does not follow the system's (a test's), and a second
    // boundary crossed meanwhile shifts every check by a second.
    get [clockSkew]() {
      // Our clock in the token's unit: milliseconds times the units in one stays exact where
      // ms × unit / 1000 passes 2^53 (microseconds) and can lose a unit, which refused an nbf of
      // the token's issue.
      const ours = unit === 1 ? Math.floor(now() / 1000) : Math.floor(now() * (unit / 1000));
      return ours - Math.floor(Date.now() / 1000) + Math.ceil((serviceSkewMs * unit) / 1000);
    },
  });

  const discovery = discoveryOf(issuer, discoveryMaxAgeMs, get, allowed, now);
  const finishing: FinishSteps = { exchange, mapError, verifySignature, now };
  const core: OidcCore = {
    options,
    transactionMaxAgeMs,
    metadata: discovery.read,
    start: (params) => startSignIn(options, discovery, now, params),
    finish: (callback, transaction, use) => finishSignIn(core, finishing, callback, transaction, use),
    client,
    insecure,
    get,
  };
  return core;
}

/** The discovery document: kept for `maxAgeMs`, read again when older or when asked to. */
function discoveryOf(
  issuer: URL,
  maxAgeMs: number,
  get: (url: string) => Promise<Response>,
  allowed: (url: unknown) => url is string,
  now: () => number,
) {
  const document = kept<DiscoveredServer>(now);
  return {
    read: (refresh = false): Promise<DiscoveredServer> =>
      document.get(refresh || document.age() >= maxAgeMs, () => readDiscovery(issuer, get, allowed)),
    /** When the document in hand was read (long ago when there is none). */
    readAt: (): number => now() - document.age(),
  };
}

/**
 * The authorization request for `params`, checked against the discovery document. A claim key
 * the kept document's `acme_claims_supported` does not know may be new: the document is read
 * again, once (unless it was read within a minute), before the key is refused.
 */
async function startSignIn(
  options: OidcOptions,
  discovery: ReturnType<typeof discoveryOf>,
  now: () => number,
  params: SignInParams,
): Promise<{ url: URL; transaction: OidcTransaction }> {
  const scope = typeof params.scope === 'string' ? params.scope.split(' ').filter(Boolean) : [...(params.scope ?? ['openid'])];
  const readAt = discovery.readAt();
  let as = await discovery.read();
  let issues = paramIssues(params, scope, as);
  if (issues.length && now() - readAt >= REFRESH_COOLDOWN_MS) {
    as = await discovery.read(true);
    issues = paramIssues(params, scope, as);
  }
  if (issues.length) throw new InvalidInputError(issues);
  return authorizationRequest(as, options, params, scope, now());
}

/** What finishing a sign-in takes beside the core: see {@link createCore}'s parameters. */
interface FinishSteps {
  exchange: Exchange;
  mapError: typeof mapFailure;
  verifySignature: (as: DiscoveredServer, jwt: string) => Promise<void>;
  now: () => number;
}

/** `ERR_OIDC_TRANSACTION` for a transaction of another issuer or client, or older than `transactionMaxAgeMs`. */
function checkTransaction(core: OidcCore, as: DiscoveredServer, transaction: OidcTransaction, now: number): void {
  const fresh = now - transaction.createdAt <= core.transactionMaxAgeMs;
  if (as.issuer !== transaction.issuer || transaction.clientId !== core.options.clientId || !fresh) {
    throw fail('ERR_OIDC_TRANSACTION', "the sign-in is too old or not this client's: start again");
  }
  // A sign-in without a nonce is one this client was configured to start (`nonce: false`): a
  // transaction that lost its nonce on the way must not turn the nonce check off.
  if (transaction.nonce === undefined && core.options.nonce !== false) {
    throw fail('ERR_OIDC_TRANSACTION', 'the transaction has no nonce, and this client sends one (nonce: false was not set)');
  }
}

/**
 * The callback of a sign-in `start` began: the transaction and the callback checked, `use` run,
 * the code exchanged, and the ID token checked (by oauth4webapi, then its signature here).
 */
async function finishSignIn(
  core: OidcCore,
  steps: FinishSteps,
  callback: URLSearchParams,
  transaction: OidcTransaction,
  use?: () => void | Promise<void>,
): Promise<SignInResult> {
  const as = await core.metadata();
  checkTransaction(core, as, transaction, steps.now());
  const checked = checkCallback(as, callback, transaction.state);
  await use?.();
  try {
    const response = await steps.exchange(core, as, checked, transaction);
    // The ID token's times are judged by the clock that wrote them, in the unit it wrote them in.
    const { skewMs, unit } = await tokenClock(response, steps.now());
    const c = core.client(skewMs, unit);
    // max_age counts back from the request, as the service applies it (OpenID Connect Core
    // §3.1.2.1), not from this callback: oauth4webapi counts from now, so the time since the
    // request is added (and a second for its clock's rounding). `maxAge: 0` then means "signed in
    // after the redirect", however long the person took to come back.
    const maxAge =
      transaction.maxAge === undefined ? undefined : transaction.maxAge + Math.ceil((steps.now() - transaction.createdAt) / 1000) + 1;
    const tokens = await processAuthorizationCodeResponse(as, c, response, {
      expectedNonce: transaction.nonce ?? expectNoNonce,
      requireIdToken: true,
      ...(maxAge === undefined ? {} : { maxAge: maxAge * unit }),
    });
    const claims = getValidatedIdTokenClaims(tokens) as IdTokenClaims;
    // With requireIdToken, oauth4webapi refused an answer without an ID token.
    const idToken = tokens.id_token as string;
    // oauth4webapi trusts TLS for the ID token; the spec wants its signature checked against the JWKS.
    await steps.verifySignature(as, idToken).catch((e: unknown) => {
      throw mapFailure(e, 'ERR_OIDC_ID_TOKEN_SIGNATURE');
    });
    return {
      claims,
      tokens: tokens as SignInResult['tokens'],
      data: transaction.data,
    };
  } catch (e) {
    throw steps.mapError(e, 'ERR_OIDC_TOKEN');
  }
}
