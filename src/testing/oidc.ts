/**
 * The fake service's OIDC authorization server: authorize (every rule of the spec), the person's
 * consent, the token endpoint (PKCE S256, single-use codes, client authentication), RSA-signed ID
 * tokens and userinfo. Paths of the token, userinfo and JWKS endpoints are not shown by the spec:
 * they are discovered through the metadata, as the spec says clients must.
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { OBTAINABLE_CREDENTIALS, STANDARD_SCOPE_CLAIMS, claimsProblem } from './claims.js';
import { button, escapeHtml, notFoundPage, page } from './pages.js';
import { inTokenUnit, signJwt, type SigningKeys } from './keys.js';
import { randomId } from '../internal/encoding.js';
import { sha256 } from './sd-jwt.js';
import type { ResolvedReadings } from './readings.js';

/** How a client authenticates at the token endpoint (not shown by the spec). */
export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

/** An OIDC client registration: redirect URIs, rulesets and how it authenticates. */
export interface OidcClientRegistration {
  clientId: string;
  /** @default 'none' (a public client: browsers) */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** For `client_secret_basic` and `client_secret_post`. */
  clientSecret?: string;
  /** The client's public keys, for `private_key_jwt`. */
  jwks?: JSONWebKeySet;
  /** Compared exactly, as OAuth requires. */
  redirectUris: readonly string[];
  allowedRulesets: readonly string[];
  /** Used when the request names no ruleset. */
  defaultRuleset: string;
}

/** The OIDC client every fake service has unless told otherwise: a public client. */
export const DEFAULT_OIDC_CLIENT: Readonly<OidcClientRegistration> = Object.freeze({
  clientId: 'sandbox-oidc-client',
  tokenEndpointAuthMethod: 'none',
  redirectUris: ['https://rp.example/callback', 'http://localhost:3000/callback', 'http://127.0.0.1:3000/callback'],
  allowedRulesets: ['basic', 'enhanced'],
  defaultRuleset: 'basic',
});

/** A confidential OIDC client (a backend), authenticating with `client_secret_basic`. */
export const DEFAULT_OIDC_BACKEND_CLIENT: Readonly<OidcClientRegistration & { clientSecret: string }> = Object.freeze({
  ...DEFAULT_OIDC_CLIENT,
  clientId: 'sandbox-oidc-backend',
  tokenEndpointAuthMethod: 'client_secret_basic',
  clientSecret: 'oidc_secret_sandbox_0123456789abcdef',
});

/** Delegations `aobo` may name: UID to the scopes it carries. */
export const DEFAULT_DELEGATIONS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'delegation-valid': ['oauth.core.authorization'],
  'delegation-without-scope': ['oauth.core.read'],
});

/** An authorization request the service accepted, waiting for the person (or completed). */
export interface AuthorizationTransaction {
  readonly id: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: readonly string[];
  readonly state: string;
  readonly nonce: string | undefined;
  readonly codeChallenge: string;
  readonly ruleset: string;
  /** Claim keys of the `acme` namespace, and the standard claim names requested. */
  readonly claims: readonly string[];
  readonly aobo: string | undefined;
  readonly prefill: { email?: string; phone?: string; phoneCountryCode?: string };
  readonly createdAt: number;
}

interface IssuedCode {
  transaction: AuthorizationTransaction;
  sub: string;
  expiresAt: number;
  /** When the person authenticated: the ID token's `auth_time`. */
  authTime: number;
  used: boolean;
  /** Access tokens issued with this code, revoked if the code is replayed. */
  accessTokens: string[];
}

export interface AuthorizationServerContext {
  issuer: string;
  now: () => number;
  keys: () => SigningKeys;
  supportedClaims: ReadonlySet<string>;
  clients: readonly OidcClientRegistration[];
  delegations: Readonly<Record<string, readonly string[]>>;
  /** `auto`: the person completes the journey at once (tests); `page`: a consent page (sandbox). */
  journey: 'auto' | 'page';
  /** The claim values of the simulated person. */
  person: (prefill: AuthorizationTransaction['prefill']) => Record<string, unknown>;
  /** How authorization errors are answered, read at each request: see {@link AuthorizationErrorMode}. */
  errorMode: () => AuthorizationErrorMode;
  /** Where the ID token and userinfo put the `acme` claims: the `signInClaims` reading. */
  claimPlacement: () => ResolvedReadings['signInClaims'];
  /** How discovery writes `acme_claims_supported`: the `claimsSupported` reading. */
  claimListForm: () => ResolvedReadings['claimsSupported'];
  /** The unit of the ID token's `iat`, `exp`, `nbf` and `auth_time`: the `tokenTimes` reading, as for every JWT the service signs. */
  tokenTimes: () => ResolvedReadings['tokenTimes'];
  /** Whether the ID token carries the request's `nonce` back: the `idTokenNonce` reading. */
  idTokenNonce: () => ResolvedReadings['idTokenNonce'];
  /** Where the requested claims are delivered, the ID token, userinfo, both, or split between them: the `signInClaimsAt` reading. */
  claimsAt: () => ResolvedReadings['signInClaimsAt'];
}

/**
 * How the authorize endpoint answers an error in the authorization request:
 * - `json` (the default, the spec's rule 5: "400 returns JSON `{error, error_description}`"):
 *   every error is a 400 JSON page the person sees; nothing comes back to the client;
 * - `redirect`: an error is sent back to the registered `redirect_uri` with `error`,
 *   `error_description`, `state` and `iss` (RFC 6749 §4.1.2.1), except an unknown `client_id` or
 *   `redirect_uri`, which can only be a 400 (the redirect target is not trusted).
 */
export type AuthorizationErrorMode = 'redirect' | 'json';

/** An OAuth error: as JSON (400/401) or, once the redirect URI is trusted, as an error redirect. */
class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

const UNRESERVED_43_128 = /^[A-Za-z0-9\-._~]{43,128}$/;
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const STANDARD_SCOPES = Object.keys(STANDARD_SCOPE_CLAIMS);

function oauthJson(error: OAuthError): Response {
  return Response.json(
    { error: error.error, error_description: error.description },
    { status: error.status, headers: { 'cache-control': 'no-store' } },
  );
}

/**
 * The address of one of the server's endpoints (the spec shows only authorize's; the rest are
 * discovered), below the issuer whether its identifier ends in a slash or not.
 */
const endpointOf = (issuer: string, path: string) => `${issuer.replace(/\/$/, '')}/oauth/oidc/${path}`;

/** The claim keys requested by the `claims` parameter, refusing what the spec's rules 3 and 4 refuse. */
function requestedClaims(raw: string | null, supportedClaims: ReadonlySet<string>): string[] {
  if (raw === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new OAuthError('invalid_request', 'claims is not a JSON object');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new OAuthError('invalid_request', 'claims is not a JSON object');
  const keys: string[] = [];
  for (const [namespace, value] of Object.entries(parsed)) {
    // A scope's own claims (never a key of Object.prototype's).
    const scopeClaims = STANDARD_SCOPES.includes(namespace) ? STANDARD_SCOPE_CLAIMS[namespace] : undefined;
    if (namespace === 'acme') {
      const problem = claimsProblem(value, supportedClaims);
      if (problem) throw new OAuthError('invalid_request', `claims.acme: ${problem}`);
      keys.push(...(Array.isArray(value) ? (value as string[]) : Object.keys(value as object)));
    } else if (scopeClaims) {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
        throw new OAuthError('invalid_request', `claims.${namespace} must be an array of claim names`);
      }
      // Rule 4: an unrecognised claim key is rejected, under a scope as under acme.
      const unknown = value.find((name) => !scopeClaims.includes(name));
      if (unknown !== undefined) {
        throw new OAuthError('invalid_request', `claims.${namespace}: unrecognised claim ${JSON.stringify(unknown)}`);
      }
      keys.push(...value);
    } else {
      throw new OAuthError('invalid_request', `claims: unknown namespace ${JSON.stringify(namespace)}`);
    }
  }
  return keys;
}

/** Checks an authorization request in the order OAuth needs: first whether errors may be redirected at all. */
function authorizationRequest(ctx: AuthorizationServerContext, query: URLSearchParams, now: number): AuthorizationTransaction {
  const client = ctx.clients.find((c) => c.clientId === query.get('client_id'));
  if (!client) throw new OAuthError('invalid_request', 'unknown client_id');
  const redirectUri = query.get('redirect_uri');
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
    throw new OAuthError('invalid_request', 'redirect_uri is not registered for this client');
  }
  // From here on, errors go back to the (registered) redirect URI.
  const redirectable = (error: string, description: string) =>
    Object.assign(new OAuthError(error, description), { redirectUri, state: query.get('state') });
  if (query.get('response_type') !== 'code') throw redirectable('unsupported_response_type', 'response_type must be code');
  const scope = (query.get('scope') ?? '').split(' ').filter(Boolean);
  if (!scope.includes('openid')) throw redirectable('invalid_scope', 'scope must include openid');
  const unknownScope = scope.find((token) => !STANDARD_SCOPES.includes(token));
  if (unknownScope !== undefined) throw redirectable('invalid_scope', `unknown scope ${JSON.stringify(unknownScope)}`);
  const state = query.get('state');
  if (!state) throw redirectable('invalid_request', 'state is required');
  const challenge = query.get('code_challenge');
  const method = query.get('code_challenge_method');
  if (!challenge) throw redirectable('invalid_request', 'code_challenge is required (PKCE)');
  if (method !== 'S256') throw redirectable('invalid_request', 'code_challenge_method must be S256');
  if (!S256_CHALLENGE.test(challenge)) throw redirectable('invalid_request', 'code_challenge is not an S256 challenge');
  let claims: string[];
  try {
    claims = requestedClaims(query.get('claims'), ctx.supportedClaims);
  } catch (error) {
    throw redirectable('invalid_request', (error as OAuthError).description);
  }
  const ruleset = query.get('ruleset') ?? client.defaultRuleset;
  if (!client.allowedRulesets.includes(ruleset)) throw redirectable('invalid_request', 'ruleset is not allowed for this client');
  const aobo = query.get('aobo') ?? undefined;
  if (aobo !== undefined && !ctx.delegations[aobo]?.includes('oauth.core.authorization')) {
    throw redirectable('invalid_request', 'aobo does not name a valid delegation with scope oauth.core.authorization');
  }
  const phone = query.get('phone');
  const phoneCountryCode = query.get('phone_country_code');
  if (phone !== null && phoneCountryCode === null) throw redirectable('invalid_request', 'phone requires phone_country_code');
  if (phoneCountryCode !== null && !/^[0-9]{1,3}$/.test(phoneCountryCode)) {
    throw redirectable('invalid_request', 'phone_country_code must be an integer country code');
  }
  const email = query.get('email');
  return {
    id: `txn_${randomId(12)}`,
    clientId: client.clientId,
    redirectUri,
    scope,
    state,
    nonce: query.get('nonce') ?? undefined,
    codeChallenge: challenge,
    ruleset,
    claims,
    aobo,
    prefill: {
      ...(email !== null ? { email } : {}),
      ...(phone !== null ? { phone } : {}),
      ...(phoneCountryCode !== null ? { phoneCountryCode } : {}),
    },
    createdAt: now,
  };
}

/** The client at the token endpoint, authenticated as its registration says (RFC 6749 §2.3, RFC 7523). */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one branch per client authentication method the fake accepts (RFC 6749 §2.3, OIDC Core §9), each refusal named
async function authenticateClient(
  ctx: AuthorizationServerContext,
  request: Request,
  form: URLSearchParams,
): Promise<OidcClientRegistration> {
  const invalid = new OAuthError('invalid_client', 'client authentication failed', 401);
  const [, basic] = /^Basic ([A-Za-z0-9+/=]+)$/.exec(request.headers.get('authorization') ?? '') ?? [];
  let clientId = form.get('client_id');
  let secret: string | undefined;
  if (basic !== undefined) {
    const decoded = atob(basic);
    const colon = decoded.indexOf(':');
    clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
    secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
  }
  const assertion = form.get('client_assertion');
  if (assertion && form.get('client_assertion_type') === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') {
    let claimed = clientId;
    try {
      claimed ??= (JSON.parse(atob((assertion.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/'))) as { iss?: string }).iss ?? null;
    } catch {
      throw invalid;
    }
    const client = ctx.clients.find((c) => c.clientId === claimed);
    if (!client?.jwks || client.tokenEndpointAuthMethod !== 'private_key_jwt') throw invalid;
    try {
      const { payload } = await jwtVerify(assertion, createLocalJWKSet(client.jwks), {
        issuer: client.clientId,
        subject: client.clientId,
        audience: [ctx.issuer, endpointOf(ctx.issuer, 'token')],
        currentDate: new Date(ctx.now()),
      });
      if (typeof payload.exp !== 'number' || typeof payload.jti !== 'string') throw invalid;
    } catch {
      throw invalid;
    }
    return client;
  }
  const client = ctx.clients.find((c) => c.clientId === clientId);
  if (!client) throw invalid;
  const method = client.tokenEndpointAuthMethod ?? 'none';
  if (method === 'client_secret_basic' && !(basic && secret === client.clientSecret)) throw invalid;
  if (method === 'client_secret_post' && !(!basic && form.get('client_secret') === client.clientSecret)) throw invalid;
  if (method === 'private_key_jwt') throw invalid;
  if (method === 'none' && (basic || form.has('client_secret'))) throw invalid;
  return client;
}

/**
 * Claim `key` in an ID token's (and userinfo's) claims, where the `signInClaims` reading puts it:
 * a standard claim (no dot) at the top always; an `acme` claim under its dotted name (`flat`),
 * inside an `acme` object (`acme`), or as its path (`nested`: `{acmeidentity: {name}}`).
 */
function placeClaim(claims: Record<string, unknown>, key: string, value: unknown, placement: ResolvedReadings['signInClaims']): void {
  const path = key.split('.');
  if (path.length === 1 || placement === 'flat') {
    claims[key] = value;
    return;
  }
  if (placement === 'acme') {
    claims['acme'] ??= {};
    (claims['acme'] as Record<string, unknown>)[key] = value;
    return;
  }
  let at = claims;
  for (const name of path.slice(0, -1)) {
    at[name] ??= {};
    at = at[name] as Record<string, unknown>;
  }
  at[path.at(-1) as string] = value;
}

/**
 * The claims asked for that the ID token holds, by the `signInClaimsAt` reading: every one (`both`,
 * `id-token`), none (`userinfo`), or the first half of them (`split`: userinfo holds them all, so
 * an `acme` object, or a credential's, is in both, with fewer members in the ID token's).
 */
function idTokenKeys(at: ResolvedReadings['signInClaimsAt'], keys: readonly string[]): readonly string[] {
  if (at === 'userinfo') return [];
  if (at === 'split') return keys.slice(0, Math.ceil(keys.length / 2));
  return keys;
}

export function createAuthorizationServer(ctx: AuthorizationServerContext) {
  const transactions = new Map<string, AuthorizationTransaction>();
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, { claims: Record<string, unknown>; expiresAt: number; revoked: boolean }>();
  const endpoint = (path: string) => endpointOf(ctx.issuer, path);

  const metadata = () => ({
    issuer: ctx.issuer,
    authorization_endpoint: endpoint('authorize'),
    token_endpoint: endpoint('token'),
    userinfo_endpoint: endpoint('userinfo'),
    jwks_uri: endpoint('jwks'),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: STANDARD_SCOPES,
    claims_supported: ['sub', ...new Set(Object.values(STANDARD_SCOPE_CLAIMS).flat())],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    token_endpoint_auth_signing_alg_values_supported: ['RS256', 'ES256', 'PS256', 'EdDSA'],
    claims_parameter_supported: true,
    authorization_response_iss_parameter_supported: true,
    acme_claims_supported: ctx.claimListForm() === 'string' ? [...ctx.supportedClaims].join(' ') : [...ctx.supportedClaims],
  });

  function back(redirectUri: string, params: Record<string, string | null | undefined>): Response {
    const url = new URL(redirectUri);
    for (const [key, value] of Object.entries(params)) if (value != null) url.searchParams.set(key, value);
    url.searchParams.set('iss', ctx.issuer);
    return new Response(null, { status: 302, headers: { location: url.href, 'cache-control': 'no-store' } });
  }

  /** The person finished: a single-use code goes back to the client. */
  function complete(transaction: AuthorizationTransaction): Response {
    transactions.delete(transaction.id);
    const code = randomId(24);
    codes.set(code, {
      transaction,
      sub: `person_${randomId(9)}`,
      expiresAt: ctx.now() + 60_000,
      authTime: ctx.now(),
      used: false,
      accessTokens: [],
    });
    return back(transaction.redirectUri, { code, state: transaction.state, session_state: randomId(12) });
  }

  async function authorize(request: Request): Promise<Response> {
    let transaction: AuthorizationTransaction;
    try {
      transaction = authorizationRequest(ctx, new URL(request.url).searchParams, ctx.now());
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      const target = error as OAuthError & { redirectUri?: string; state?: string | null };
      if (!target.redirectUri || ctx.errorMode() === 'json') return oauthJson(error);
      return back(target.redirectUri, { error: error.error, error_description: error.description, state: target.state });
    }
    if (ctx.journey === 'auto') return complete(transaction);
    transactions.set(transaction.id, transaction);
    return consentPage(transaction, endpoint('consent'));
  }

  async function consent(transactionId: string, action: string): Promise<Response> {
    const transaction = transactions.get(transactionId);
    // The person's browser, answering a page already answered (or never shown): a page, not JSON.
    if (!transaction) return notFoundPage('No sign-in waits for an answer here: it was answered already, or never started.');
    if (action === 'approve') return complete(transaction);
    transactions.delete(transactionId);
    return back(transaction.redirectUri, { error: 'access_denied', error_description: 'the person cancelled', state: transaction.state });
  }

  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the token endpoint's checks in the order RFC 6749 §4.1.3 and RFC 7636 §4.6 give them, each refusal named
  async function token(request: Request): Promise<Response> {
    try {
      const form = new URLSearchParams(await request.text());
      const client = await authenticateClient(ctx, request, form);
      if (form.get('grant_type') !== 'authorization_code')
        throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code');
      const issued = codes.get(form.get('code') ?? '');
      if (!issued || issued.transaction.clientId !== client.clientId) throw new OAuthError('invalid_grant', 'unknown code');
      if (issued.used) {
        // A replayed code: refuse it, and revoke what the first use obtained (RFC 6749 §4.1.2).
        for (const t of issued.accessTokens) {
          const grant = accessTokens.get(t);
          if (grant) grant.revoked = true;
        }
        throw new OAuthError('invalid_grant', 'the code was already used');
      }
      issued.used = true;
      if (issued.expiresAt <= ctx.now()) throw new OAuthError('invalid_grant', 'the code has expired');
      if (form.get('redirect_uri') !== issued.transaction.redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri does not match');
      const verifier = form.get('code_verifier') ?? '';
      if (!UNRESERVED_43_128.test(verifier))
        throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 unreserved characters');
      if ((await sha256(verifier)) !== issued.transaction.codeChallenge)
        throw new OAuthError('invalid_grant', 'code_verifier does not match the challenge');

      const { transaction } = issued;
      const person = ctx.person(transaction.prefill);
      /** The subject and the person's values of `keys`, placed as the `signInClaims` reading says. */
      const placed = (keys: readonly string[]) => {
        const claims: Record<string, unknown> = { sub: issued.sub };
        for (const key of keys) if (person[key] !== undefined) placeClaim(claims, key, person[key], ctx.claimPlacement());
        return claims;
      };
      const at = ctx.claimsAt();
      const inIdToken = placed(idTokenKeys(at, transaction.claims));
      const atUserinfo = placed(at === 'id-token' ? [] : transaction.claims);
      const nowMs = ctx.now();
      const unit = ctx.tokenTimes();
      const idToken = await signJwt(
        ctx.keys(),
        {
          iss: ctx.issuer,
          aud: client.clientId,
          ...inIdToken,
          auth_time: inTokenUnit(Math.floor(issued.authTime / 1000), unit),
          // Valid from its issue, as many providers write it (node-oidc-provider does not): a
          // reader of another unit, or of another clock, finds it not yet valid.
          nbf: inTokenUnit(Math.floor(nowMs / 1000), unit),
          ...(transaction.nonce && ctx.idTokenNonce() === 'echoed' ? { nonce: transaction.nonce } : {}),
        },
        { nowMs, ttlSeconds: 600, unit },
      );
      const accessToken = `oat_${randomId(24)}`;
      accessTokens.set(accessToken, { claims: atUserinfo, expiresAt: nowMs + 900_000, revoked: false });
      issued.accessTokens.push(accessToken);
      return Response.json(
        { access_token: accessToken, token_type: 'Bearer', expires_in: 900, id_token: idToken, scope: transaction.scope.join(' ') },
        { headers: { 'cache-control': 'no-store' } },
      );
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      const answer = oauthJson(error);
      // RFC 6749 §5.2: a client that authenticated with the Authorization header gets a 401 with a
      // WWW-Authenticate challenge of its scheme.
      if (error.error === 'invalid_client' && /^Basic /.test(request.headers.get('authorization') ?? '')) {
        answer.headers.set('www-authenticate', 'Basic realm="acme-identity"');
      }
      return answer;
    }
  }

  async function userinfo(request: Request): Promise<Response> {
    const [, bearer] = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '') ?? [];
    const grant = bearer === undefined ? undefined : accessTokens.get(bearer);
    if (!grant || grant.revoked || grant.expiresAt <= ctx.now()) {
      return new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
    }
    return Response.json(grant.claims);
  }

  /** Sign-ins waiting for the person's answer on the consent page, for the sandbox's home page. */
  const waiting = () => [...transactions.values()].map((t) => ({ id: t.id, clientId: t.clientId, claims: t.claims }));

  return { metadata, authorize, consent, token, userinfo, waiting };
}

/** The consent page of the sandbox: what the client asks for, approve or cancel. */
function consentPage(transaction: AuthorizationTransaction, consentUrl: string): Response {
  const action = (name: string) => `${consentUrl}/${transaction.id}/${name}`;
  const essential = transaction.claims.filter((c) => (OBTAINABLE_CREDENTIALS as readonly string[]).includes(c.split('.')[0] ?? ''));
  return page(
    'Sign in',
    `<section><p><code>${escapeHtml(transaction.clientId)}</code> asks for (ruleset ${escapeHtml(transaction.ruleset)}):</p>
<ul>${transaction.claims.map((c) => `<li><code>${escapeHtml(c)}</code>${essential.includes(c) ? ' (obtainable)' : ''}</li>`).join('')}</ul>
${button(action('approve'), 'Approve', 'approve', true)}${button(action('cancel'), 'Cancel', 'cancel')}</section>`,
  );
}
