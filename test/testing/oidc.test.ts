/** The fake's authorization server, spoken to in raw HTTP: it applies the spec's rules whatever the client does. */
import { describe, expect, test } from 'vitest';
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import {
  createFakeService,
  DEFAULT_OIDC_CLIENT,
  type FakeServiceOptions,
  type OidcClientRegistration,
  type TokenEndpointAuthMethod,
} from '../../src/testing/index.js';

const REDIRECT = DEFAULT_OIDC_CLIENT.redirectUris[0]!;
const VERIFIER = `${'a'.repeat(20)}-._~${'B'.repeat(30)}`;

async function challengeOf(verifier: string) {
  return Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))).toString('base64url');
}

async function setup(options: FakeServiceOptions = {}) {
  let clock = Date.now();
  const service = await createFakeService({ now: () => clock, ...options });
  const get = (path: string) => service.fetch(new Request(`${service.authUrl}${path}`));
  const authorize = async (params: Record<string, string | undefined> = {}) => {
    const query = new URLSearchParams();
    const all: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: DEFAULT_OIDC_CLIENT.clientId,
      redirect_uri: REDIRECT,
      scope: 'openid profile',
      state: 'state-1',
      nonce: 'nonce-1',
      code_challenge: await challengeOf(VERIFIER),
      code_challenge_method: 'S256',
      ...params,
    };
    for (const [k, v] of Object.entries(all)) if (v !== undefined) query.set(k, v);
    return get(`/oauth/oidc/authorize?${query}`);
  };
  const redirectParams = (response: Response) => {
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    return Object.fromEntries(location.searchParams);
  };
  const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    service.fetch(
      new Request(`${service.authUrl}/oauth/oidc/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form),
      }),
    );
  const exchange = (code: string, extra: Record<string, string> = {}) =>
    token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
      client_id: DEFAULT_OIDC_CLIENT.clientId,
      ...extra,
    });
  return { service, get, authorize, redirectParams, token, exchange, advance: (ms: number) => (clock += ms) };
}

describe('fake authorization server: the flow', () => {
  test('what a browser page fetches from another origin answers CORS (discovery, JWKS, token, userinfo); the REST API does not', async () => {
    const { get, service } = await setup();
    expect((await get('/.well-known/openid-configuration')).headers.get('access-control-allow-origin')).toBe('*');
    expect((await get('/oauth/oidc/jwks')).headers.get('access-control-allow-origin')).toBe('*');
    const preflight = await service.fetch(new Request(`${service.authUrl}/oauth/oidc/userinfo`, { method: 'OPTIONS' }));
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    expect((await service.fetch(new Request(`${service.baseUrl}/status/health`))).headers.get('access-control-allow-origin')).toBeNull();
  });

  test('discovery advertises the endpoints, S256 only, the iss parameter and acme_claims_supported', async () => {
    const { get, service } = await setup();
    const metadata = await (await get('/.well-known/openid-configuration')).json();
    expect(metadata).toMatchObject({
      issuer: service.authUrl,
      authorization_endpoint: `${service.authUrl}/oauth/oidc/authorize`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      acme_claims_supported: expect.arrayContaining(['acmeidentity.given_name']),
    });
  });

  test('code, state and iss come back; the code buys an RS256 ID token with nonce, and userinfo', async () => {
    const { service, authorize, redirectParams, exchange, get } = await setup();
    const params = redirectParams(
      await authorize({ claims: JSON.stringify({ acme: ['acmeidentity.given_name'], profile: ['given_name'] }) }),
    );
    expect(params).toMatchObject({ state: 'state-1', iss: service.authUrl, code: expect.any(String), session_state: expect.any(String) });
    const answer = await exchange(params['code']!);
    expect(answer.status).toBe(200);
    const tokens = await answer.json();
    const jwks = await (await get('/oauth/oidc/jwks')).json();
    const { payload } = await jwtVerify(tokens.id_token, createLocalJWKSet(jwks), {
      issuer: service.authUrl,
      audience: DEFAULT_OIDC_CLIENT.clientId,
    });
    expect(payload).toMatchObject({ nonce: 'nonce-1', 'acmeidentity.given_name': 'Jane', given_name: 'Jane' });
    const info = await service.fetch(
      new Request(`${service.authUrl}/oauth/oidc/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } }),
    );
    expect(await info.json()).toMatchObject({ sub: payload.sub, 'acmeidentity.given_name': 'Jane' });
  });

  test('with the consent page: approve returns a code, cancel returns access_denied', async () => {
    const { authorize, redirectParams, service } = await setup({ oidcJourney: 'page' });
    for (const [action, expected] of [
      ['approve', 'code'],
      ['cancel', 'error'],
    ] as const) {
      const page = await authorize();
      const html = await page.text();
      // The form posts to the issuer's own consent URL, whatever path the issuer has.
      const target = new RegExp(`action="(${service.authUrl}/oauth/oidc/consent/[^"]+/${action})"`).exec(html)![1]!;
      const params = redirectParams(await service.fetch(new Request(target, { method: 'POST' })));
      expect(params).toHaveProperty(expected);
      if (action === 'cancel') expect(params['error']).toBe('access_denied');
    }
  });
});

describe('fake authorization server: authorize refuses', () => {
  test('an unknown client or an unregistered redirect_uri with 400 JSON, never a redirect', async () => {
    const { authorize } = await setup();
    for (const params of [{ client_id: 'nobody' }, { redirect_uri: 'https://evil.example/cb' }, { redirect_uri: undefined }]) {
      const answer = await authorize(params);
      expect(answer.status).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
      expect(await answer.json()).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) });
    }
  });

  test.each<[string, Record<string, string | undefined>, string]>([
    ['no openid in scope', { scope: 'profile' }, 'invalid_scope'],
    ['a response_type other than code', { response_type: 'token' }, 'unsupported_response_type'],
    ['missing PKCE', { code_challenge: undefined }, 'invalid_request'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no state', { state: undefined }, 'invalid_request'],
    ['an unknown claim key', { claims: JSON.stringify({ acme: ['acmeidentity.shoe_size'] }) }, 'invalid_request'],
    [
      'essential on a document claim',
      { claims: JSON.stringify({ acme: { 'document.passport.travel_document_number': { essential: true } } }) },
      'invalid_request',
    ],
    [
      'essential on a credential that cannot be obtained',
      { claims: JSON.stringify({ acme: { 'acmeidentity.given_name': { essential: true } } }) },
      'invalid_request',
    ],
    ['claims that are not JSON', { claims: '{acme' }, 'invalid_request'],
    ['a ruleset not allowed for the client', { ruleset: 'forbidden' }, 'invalid_request'],
    ['aobo without a delegation', { aobo: 'no-such-delegation' }, 'invalid_request'],
    ['aobo whose delegation lacks oauth.core.authorization', { aobo: 'delegation-without-scope' }, 'invalid_request'],
    ['phone without phone_country_code', { phone: '412345678' }, 'invalid_request'],
    ['an unknown claim name under a standard scope', { claims: JSON.stringify({ profile: ['shoe_size'] }) }, 'invalid_request'],
    ['a standard claim under a scope it is not part of', { claims: JSON.stringify({ profile: ['email'] }) }, 'invalid_request'],
    ['an unknown scope as a claims key', { claims: JSON.stringify({ shoes: ['size'] }) }, 'invalid_request'],
    ['an unknown scope in scope', { scope: 'openid shoes' }, 'invalid_scope'],
  ])('%s, as an error redirect with state and iss (authorizationErrors: redirect)', async (_name, params, error) => {
    const { authorize, redirectParams, service } = await setup();
    service.settings.authorizationErrors = 'redirect';
    const back = redirectParams(await authorize(params));
    expect(back).toMatchObject({ error, iss: service.authUrl, error_description: expect.any(String) });
    if (!('state' in params)) expect(back['state']).toBe('state-1');
  });

  test("by default (authorizationErrors: json, the spec's rule 5), every error is a 400 JSON page and nothing goes back to the client", async () => {
    const { authorize, service } = await setup();
    expect(service.settings.authorizationErrors).toBe('json');
    for (const params of [{ scope: 'profile' }, { claims: JSON.stringify({ profile: ['shoe_size'] }) }, { state: undefined }]) {
      const answer = await authorize(params);
      expect(answer.status).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
      expect(await answer.json()).toMatchObject({
        error: expect.stringMatching(/^invalid_(request|scope)$/),
        error_description: expect.any(String),
      });
    }
    // Switched back, the same request is redirected again.
    service.settings.authorizationErrors = 'redirect';
    expect((await authorize({ scope: 'profile' })).status).toBe(302);
  });

  test('accepts every standard claim under its own scope, and the spec-named claim keys', async () => {
    const { authorize, redirectParams, get } = await setup();
    const metadata = await (await get('/.well-known/openid-configuration')).json();
    const claims = {
      profile: ['given_name', 'family_name', 'birthdate'],
      email: ['email', 'email_verified'],
      phone: ['phone_number'],
      acme: metadata.acme_claims_supported,
    };
    expect(metadata.claims_supported).toEqual(expect.arrayContaining(['sub', 'given_name', 'email', 'phone_number']));
    expect(redirectParams(await authorize({ scope: 'openid profile email phone', claims: JSON.stringify(claims) }))).toHaveProperty('code');
  });

  test('acme_claims_supported holds the spec-named keys only, unless a test adds more', async () => {
    const named = await (await (await setup()).get('/.well-known/openid-configuration')).json();
    expect(named.acme_claims_supported).toContain('acicncchc.credential');
    expect(named.acme_claims_supported).not.toContain('vevortw.credential');
    const { get, authorize, redirectParams } = await setup({ extraClaims: ['vevortw.credential'] });
    expect((await (await get('/.well-known/openid-configuration')).json()).acme_claims_supported).toContain('vevortw.credential');
    expect(
      redirectParams(await authorize({ claims: JSON.stringify({ acme: { 'vevortw.credential': { essential: true } } }) })),
    ).toHaveProperty('code');
  });

  test('accepts an allowed ruleset, an essential obtainable credential, a valid aobo and a seeded phone', async () => {
    const { authorize, redirectParams } = await setup();
    const params = redirectParams(
      await authorize({
        ruleset: 'enhanced',
        claims: JSON.stringify({ acme: { 'sanctionscheck.is_pep': { essential: true } } }),
        aobo: 'delegation-valid',
        phone: '412345678',
        phone_country_code: '61',
        email: 'jane@example.com',
      }),
    );
    expect(params['code']).toBeDefined();
  });
});

describe('fake authorization server: the token endpoint refuses', () => {
  async function code(s: Awaited<ReturnType<typeof setup>>) {
    return s.redirectParams(await s.authorize())['code']!;
  }

  test('a wrong verifier, a wrong redirect_uri, a malformed verifier', async () => {
    const s = await setup();
    expect(await (await s.exchange(await code(s), { code_verifier: 'b'.repeat(43) })).json()).toMatchObject({ error: 'invalid_grant' });
    expect(await (await s.exchange(await code(s), { redirect_uri: DEFAULT_OIDC_CLIENT.redirectUris[1]! })).json()).toMatchObject({
      error: 'invalid_grant',
    });
    expect(await (await s.exchange(await code(s), { code_verifier: 'short' })).json()).toMatchObject({ error: 'invalid_request' });
  });

  test('a replayed code, and the tokens of its first use are revoked', async () => {
    const s = await setup();
    const c = await code(s);
    const first = await (await s.exchange(c)).json();
    const second = await s.exchange(c);
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({ error: 'invalid_grant' });
    const info = await s.service.fetch(
      new Request(`${s.service.authUrl}/oauth/oidc/userinfo`, { headers: { authorization: `Bearer ${first.access_token}` } }),
    );
    expect(info.status).toBe(401);
  });

  test('an expired code', async () => {
    const s = await setup();
    const c = await code(s);
    s.advance(61_000);
    expect(await (await s.exchange(c)).json()).toMatchObject({ error: 'invalid_grant' });
  });

  test('a public client that sends a secret, and an unknown client', async () => {
    const s = await setup();
    expect((await s.exchange(await code(s), { client_secret: 'x' })).status).toBe(401);
    expect((await s.exchange(await code(s), { client_id: 'someone-else' })).status).toBe(401);
  });
});

describe('fake authorization server: confidential clients', () => {
  const confidential = (method: TokenEndpointAuthMethod, extra: Partial<OidcClientRegistration> = {}): OidcClientRegistration => ({
    ...DEFAULT_OIDC_CLIENT,
    clientId: `client-${method}`,
    tokenEndpointAuthMethod: method,
    clientSecret: 'confidential-secret-0123456789',
    ...extra,
  });

  test('client_secret_basic and client_secret_post: the right secret in the right place', async () => {
    const s = await setup({ oidcClients: [confidential('client_secret_basic'), confidential('client_secret_post')] });
    const codeFor = async (clientId: string) => s.redirectParams(await s.authorize({ client_id: clientId }))['code']!;
    const basic = `Basic ${btoa('client-client_secret_basic:confidential-secret-0123456789')}`;
    const form = (c: string) => ({ grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: VERIFIER });
    expect((await s.token(form(await codeFor('client-client_secret_basic')), { authorization: basic })).status).toBe(200);
    expect(
      (
        await s.token({
          ...form(await codeFor('client-client_secret_basic')),
          client_id: 'client-client_secret_basic',
          client_secret: 'confidential-secret-0123456789',
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await s.token({
          ...form(await codeFor('client-client_secret_post')),
          client_id: 'client-client_secret_post',
          client_secret: 'confidential-secret-0123456789',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await s.token({
          ...form(await codeFor('client-client_secret_post')),
          client_id: 'client-client_secret_post',
          client_secret: 'wrong',
        })
      ).status,
    ).toBe(401);
  });

  test('private_key_jwt: an assertion signed by the registered key, and not by another', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const other = await generateKeyPair('ES256');
    const s = await setup({
      oidcClients: [confidential('private_key_jwt', { jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'c1' }] } })],
    });
    const assertion = (key: CryptoKey) =>
      new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'c1' })
        .setIssuer('client-private_key_jwt')
        .setSubject('client-private_key_jwt')
        .setAudience(s.service.authUrl)
        .setIssuedAt()
        .setExpirationTime('1m')
        .sign(key);
    for (const [key, status] of [
      [privateKey, 200],
      [other.privateKey, 401],
    ] as const) {
      const c = s.redirectParams(await s.authorize({ client_id: 'client-private_key_jwt' }))['code']!;
      const answer = await s.token({
        grant_type: 'authorization_code',
        code: c,
        redirect_uri: REDIRECT,
        code_verifier: VERIFIER,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await assertion(key),
      });
      expect(answer.status).toBe(status);
    }
  });
});
