/**
 * The helper against `oidc-provider`, a certified OpenID Provider we did not write, served on
 * loopback with PKCE required, the claims parameter and the service's extra parameters enabled.
 * Its interactions complete at once (the person logs in and consents), as the fake's do in tests.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { createOidcClient, OidcError, type OidcClientOptions } from '../../src/oidc/index.js';
import { createBrowserSignIn, fetchUserInfo } from '../../src/oidc/browser.js';

const REDIRECT = 'https://rp.example/callback';
const SECRET = 'interop-secret-0123456789abcdef';
const EXTRA = ['ruleset', 'aobo', 'phone', 'phone_country_code', 'email'] as const;

let server: Server;
let issuer: string;
/** The extra parameters of the last authorization request, as the provider received them. */
let extraSeen: Record<string, unknown> = {};
let rpKey: CryptoKey;

beforeAll(async () => {
  const signing = await Promise.all(['RS256', 'PS256', 'ES256'].map((alg) => generateKeyPair(alg, { extractable: true })));
  const jwks = {
    keys: await Promise.all(signing.map(async ({ privateKey }, i) => ({ ...(await exportJWK(privateKey)), kid: `op-${i}` }))),
  };
  const rp = await generateKeyPair('ES256', { extractable: true });
  rpKey = rp.privateKey;
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const base = { redirect_uris: [REDIRECT], grant_types: ['authorization_code'], response_types: ['code' as const] };
  const provider = new Provider(issuer, {
    clients: [
      { ...base, client_id: 'public', token_endpoint_auth_method: 'none' },
      { ...base, client_id: 'public-ps256', token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'PS256' },
      { ...base, client_id: 'public-es256', token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' },
      { ...base, client_id: 'basic', client_secret: SECRET, token_endpoint_auth_method: 'client_secret_basic' },
      { ...base, client_id: 'post', client_secret: SECRET, token_endpoint_auth_method: 'client_secret_post' },
      {
        ...base,
        client_id: 'jwt',
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ ...(await exportJWK(rp.publicKey)), kid: 'rp-1' }] },
      },
    ],
    jwks,
    pkce: { required: () => true },
    features: { claimsParameter: { enabled: true }, devInteractions: { enabled: false }, userinfo: { enabled: true } },
    extraParams: Object.fromEntries(
      EXTRA.map((name) => [
        name,
        (_ctx: unknown, value: string | undefined) => {
          extraSeen[name] = value;
        },
      ]),
    ),
    discovery: { acme_claims_supported: ['acmeidentity.name', 'sanctionscheck.is_pep'] },
    claims: { openid: ['sub'], profile: ['given_name', 'family_name'], email: ['email', 'email_verified'] },
    findAccount: (_ctx: unknown, accountId: string) => ({
      accountId,
      claims: () => ({ sub: accountId, given_name: 'Jane', family_name: 'Citizen', email: 'jane@example.com', email_verified: true }),
    }),
    cookies: { keys: ['interop-cookie-key-0123456789'] },
    ttl: { Session: 600, Grant: 600, Interaction: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
  });
  const callback = provider.callback();
  server.on('request', async (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return callback(req, res);
    // The person: logs in, then consents to whatever is asked.
    const { prompt, params } = await provider.interactionDetails(req, res);
    if (prompt.name === 'login') {
      return provider.interactionFinished(req, res, { login: { accountId: 'person-1' } }, { mergeWithLastSubmission: false });
    }
    const grant = new provider.Grant({ accountId: 'person-1', clientId: params['client_id'] as string });
    const details = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
    if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
    return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A browser with a cookie jar, following redirects until the provider sends it back to the RP. */
async function person(url: URL): Promise<URL> {
  const jar = new Map<string, string>();
  let next = url.href;
  for (let hop = 0; hop < 20; hop++) {
    if (next.startsWith(REDIRECT)) return new URL(next);
    const response = await fetch(next, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`the provider answered ${response.status} without a redirect: ${await response.text()}`);
    next = new URL(location, next).href;
  }
  throw new Error('too many redirects');
}

const client = (extra: Partial<OidcClientOptions> = {}) =>
  createOidcClient({ authUrl: issuer, clientId: 'public', redirectUri: REDIRECT, ...extra });

describe('OIDC helper against oidc-provider', () => {
  test('a public client signs in with PKCE; the extra parameters reach the provider; acme_claims_supported is read', async () => {
    extraSeen = {};
    const oidc = client();
    expect(await oidc.supportedClaims()).toEqual(['acmeidentity.name', 'sanctionscheck.is_pep']);
    const { url, transaction } = await oidc.startSignIn({
      scope: 'openid profile email',
      ruleset: 'basic',
      aobo: 'delegation-1',
      phone: '412345678',
      phoneCountryCode: 61,
      email: 'jane@example.com',
    });
    const callback = await person(url);
    expect(callback.searchParams.get('iss')).toBe(issuer);
    const result = await oidc.finishSignIn(callback, transaction, { userinfo: true });
    expect(extraSeen).toEqual({
      ruleset: 'basic',
      aobo: 'delegation-1',
      phone: '412345678',
      phone_country_code: '61',
      email: 'jane@example.com',
    });
    expect(result.claims).toMatchObject({ iss: issuer, aud: 'public', sub: 'person-1', nonce: transaction.nonce });
    expect(result.userinfo).toMatchObject({ sub: 'person-1', given_name: 'Jane', email: 'jane@example.com' });
  });

  test.each(['public-ps256', 'public-es256'])('ID tokens signed with another algorithm (%s) verify against the JWKS', async (clientId) => {
    const oidc = client({ clientId });
    const { url, transaction } = await oidc.startSignIn();
    const { tokens } = await oidc.finishSignIn(await person(url), transaction);
    expect(JSON.parse(Buffer.from(tokens.id_token.split('.')[0]!, 'base64url').toString()).alg).toBe(clientId.slice(-5).toUpperCase());
  });

  test.each([
    ['client_secret_basic', 'basic'],
    ['client_secret_post', 'post'],
  ] as const)('%s', async (method, clientId) => {
    const oidc = client({ clientId, clientAuthentication: { method, clientSecret: SECRET } });
    const { url, transaction } = await oidc.startSignIn();
    await expect(oidc.finishSignIn(await person(url), transaction)).resolves.toHaveProperty('claims.aud', clientId);
  });

  test('private_key_jwt', async () => {
    const oidc = client({ clientId: 'jwt', clientAuthentication: { method: 'private_key_jwt', privateKey: rpKey, kid: 'rp-1' } });
    const { url, transaction } = await oidc.startSignIn();
    await expect(oidc.finishSignIn(await person(url), transaction)).resolves.toHaveProperty('claims.aud', 'jwt');
  });

  test('prompt=login and max_age against a provider that honours them: a fresh login, and auth_time within max_age', async () => {
    const oidc = client();
    const { url, transaction } = await oidc.startSignIn({ prompt: 'login', maxAge: 60, loginHint: 'person-1', uiLocales: ['en-AU', 'en'] });
    const started = Math.floor(Date.now() / 1000);
    const { claims } = await oidc.finishSignIn(await person(url), transaction);
    // oidc-provider puts auth_time in the ID token when max_age is asked; the helper requires it then.
    expect(claims.auth_time).toBeGreaterThanOrEqual(started);
  });

  test('the browser entry, as a public client', async () => {
    const items = new Map<string, string>();
    const storage = {
      getItem: (k: string) => items.get(k) ?? null,
      setItem: (k: string, v: string) => void items.set(k, v),
      removeItem: (k: string) => void items.delete(k),
    };
    const signIn = createBrowserSignIn({ authUrl: issuer, clientId: 'public', redirectUri: REDIRECT, storage });
    const url = await signIn.authorizationUrl({ scope: ['openid', 'profile'] });
    const result = await signIn.handleCallback(await person(url));
    expect(result.claims.sub).toBe('person-1');
    // oidc-provider releases scope claims at userinfo when it issues an access token.
    await expect(fetchUserInfo(signIn, result)).resolves.toMatchObject({ given_name: 'Jane' });
  });

  test('a code replayed at the provider is refused with invalid_grant', async () => {
    const { url, transaction } = await client().startSignIn();
    const callback = await person(url);
    await client().finishSignIn(callback, transaction);
    const error = await client()
      .finishSignIn(callback, transaction)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OidcError);
    expect(error).toMatchObject({ code: 'ERR_OIDC_TOKEN', error: 'invalid_grant' });
  });

  test('a standard provider refuses the service’s own claims form: its invalid_request comes back as ERR_OIDC_AUTHORIZATION', async () => {
    const oidc = client();
    const { url, transaction } = await oidc.startSignIn({ claims: { profile: ['given_name'], acme: ['acmeidentity.name'] } });
    const error = await oidc.finishSignIn(await person(url), transaction).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'ERR_OIDC_AUTHORIZATION',
      error: 'invalid_request',
      errorDescription: expect.stringMatching(/claims/),
    });
  });
});
