/**
 * `@acme/identity/better-auth` (#30) end to end: the real better-auth (its Generic OAuth plugin, the
 * memory adapter, its Node handler) in an Express server, and headless Chromium signing in through
 * the sandbox's consent page on localhost.
 */
import { createServer } from 'node:http';
import { betterAuth } from 'better-auth';
import { memoryAdapter } from 'better-auth/adapters/memory';
import { toNodeHandler } from 'better-auth/node';
import { genericOAuth } from 'better-auth/plugins/generic-oauth';
import express from 'express';
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AcmeIdentityGenericOAuthConfig,
  acmeIdentity,
  acmeIdentityProfile,
  acmeIdentityProvider,
  acmeIdentityUser,
} from '../../src/better-auth/index.js';
import { DEFAULT_OIDC_BACKEND_CLIENT, type Sandbox } from '../../src/testing/index.js';
import { claimKey } from '../../src/claims/index.js';
import { type SignInStage, signInStage } from '../sign-in-stage.js';

let sandbox: Sandbox;
let browser: Browser;
let origin: string;
let stage: SignInStage;
const database: Record<string, Record<string, unknown>[]> = { user: [], session: [], account: [], verification: [] };

beforeAll(async () => {
  stage = await signInStage(['/api/auth/oauth2/callback/acme-identity', '/api/auth/callback/acme-identity']);
  ({ origin, sandbox, browser } = stage);
  const acme = await acmeIdentityProvider({
    authUrl: sandbox.authUrl,
    clientId: DEFAULT_OIDC_BACKEND_CLIENT.clientId,
    clientSecret: DEFAULT_OIDC_BACKEND_CLIENT.clientSecret!,
    signIn: { claims: { acme: ['acmeidentity.name', 'sanctionscheck.is_pep'] } },
  });
  serveBetterAuth(stage, [acme], database);
});
afterAll(() => stage?.close());

/** better-auth on the stage's server, with these providers, keeping its rows in `rows`. */
function serveBetterAuth(on: SignInStage, providers: AcmeIdentityGenericOAuthConfig[], rows: typeof database) {
  const auth = betterAuth({
    baseURL: on.origin,
    secret: 'test-better-auth-secret-0123456789abcdef',
    database: memoryAdapter(rows),
    logger: { disabled: true },
    plugins: [genericOAuth({ config: providers })],
  });
  const app = express();
  app.all('/api/auth/*splat', toNodeHandler(auth));
  app.get('/', (_req, res) => {
    res.type('html').send('<!doctype html><title>home</title>');
  });
  on.serve(app);
}

/** From the application's page, through better-auth's sign-in with `provider`, to the service's consent page. */
async function toConsent(tab: Page, on: SignInStage = stage, provider = 'acme-identity') {
  await tab.goto(`${on.origin}/`);
  const { url } = await tab.evaluate(async (id) => {
    const response = await fetch('/api/auth/sign-in/social', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: id, callbackURL: '/', errorCallbackURL: '/' }),
    });
    return (await response.json()) as { url: string };
  }, provider);
  await tab.goto(url);
  await tab.waitForURL((next) => next.href.startsWith(`${on.sandbox.authUrl}/oauth/oidc/authorize`));
  return new URL(url);
}

describe('better-auth provider, in Chromium', () => {
  test('sign in: the authorization request carries PKCE, state, nonce and the claims; the user has the decoded name', async () => {
    const tab = await browser.newPage();
    const authorize = await toConsent(tab);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('scope')).toBe('openid email');
    expect(JSON.parse(authorize.searchParams.get('claims')!)).toEqual({
      acme: ['acmeidentity.name', 'sanctionscheck.is_pep'],
      email: ['email', 'email_verified'],
    });
    await Promise.all([tab.waitForURL((url) => url.origin === origin && !url.pathname.startsWith('/api/auth/')), tab.click('#approve')]);
    expect(tab.url()).toBe(`${origin}/`);
    const session = await tab.evaluate(async () => (await fetch('/api/auth/get-session')).json());
    expect(session).toMatchObject({ user: { name: 'Jane Citizen', email: 'jane.citizen@example.com', emailVerified: true } });
    // Every claim, decoded, from the ID token better-auth verified and kept with the account.
    const account = database['account']!.find((row) => row['userId'] === session.user.id)!;
    expect(acmeIdentityProfile(decodeJwt(String(account['idToken']))).acme).toMatchObject({
      'acmeidentity.name': { first_name: 'Jane', last_name: 'Citizen' },
      'sanctionscheck.is_pep': false,
    });
    await tab.close();
  });

  test('the person cancels: better-auth sends them back with an error, and no session is made', async () => {
    const tab = await browser.newPage();
    await toConsent(tab);
    await Promise.all([tab.waitForURL((url) => url.origin === origin && url.searchParams.has('error')), tab.click('#cancel')]);
    expect(new URL(tab.url()).searchParams.get('error')).toBe('access_denied');
    expect(await tab.evaluate(async () => (await fetch('/api/auth/get-session')).json())).toBeNull();
    await tab.close();
  });
});

describe('better-auth provider, against a service that leaves the optional nonce out of its ID tokens', () => {
  let lax: SignInStage;
  const rows: typeof database = { user: [], session: [], account: [], verification: [] };
  beforeAll(async () => {
    lax = await signInStage(['/api/auth/callback/acme-identity', '/api/auth/callback/acme-told'], {
      fake: { readings: { idTokenNonce: 'ignored' } },
    });
    const { clientId, clientSecret } = DEFAULT_OIDC_BACKEND_CLIENT;
    const options = { authUrl: lax.sandbox.authUrl, clientId, clientSecret };
    serveBetterAuth(lax, [acmeIdentity(options), acmeIdentity({ ...options, providerId: 'acme-told', nonce: false })], rows);
  });
  afterAll(() => lax?.close());

  /** Signs in with `provider` and approves; the page the person lands on, and the session better-auth made. */
  async function signIn(provider: string) {
    const tab = await browser.newPage();
    const authorize = await toConsent(tab, lax, provider);
    await Promise.all([
      tab.waitForURL((url) => url.origin === lax.origin && !url.pathname.startsWith('/api/auth/')),
      tab.click('#approve'),
    ]);
    const landed = new URL(tab.url());
    const session = await tab.evaluate(async () => (await fetch('/api/auth/get-session')).json());
    await tab.close();
    return { authorize, landed, session };
  }

  test('by default every sign-in is refused: better-auth binds the ID token to the nonce it sent', async () => {
    const { authorize, landed, session } = await signIn('acme-identity');
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(landed.searchParams.get('error')).toBeTruthy();
    expect(session).toBeNull();
  });

  test('with nonce: false, no nonce is sent and the sign-in completes, PKCE and state still sent', async () => {
    const { authorize, landed, session } = await signIn('acme-told');
    expect(authorize.searchParams.has('nonce')).toBe(false);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(landed.searchParams.has('error')).toBe(false);
    expect(session).toMatchObject({ user: { email: 'jane.citizen@example.com' } });
  });
});

describe('better-auth provider, against a service that delivers the claims asked for from userinfo only', () => {
  let apart: SignInStage;
  const rows: typeof database = { user: [], session: [], account: [], verification: [] };
  beforeAll(async () => {
    apart = await signInStage(['/api/auth/oauth2/callback/acme-identity', '/api/auth/callback/acme-identity'], {
      fake: { readings: { signInClaimsAt: 'userinfo' } },
    });
    const { clientId, clientSecret } = DEFAULT_OIDC_BACKEND_CLIENT;
    const signIn = { claims: { acme: ['acmeidentity.name', 'sanctionscheck.is_pep'] } } as const;
    serveBetterAuth(apart, [acmeIdentity({ authUrl: apart.sandbox.authUrl, clientId, clientSecret: clientSecret!, signIn })], rows);
  });
  afterAll(() => apart?.close());

  test('better-auth reads userinfo when the ID token has no email, and the user has the decoded name and the email from there', async () => {
    const tab = await browser.newPage();
    await toConsent(tab, apart);
    await Promise.all([
      tab.waitForURL((url) => url.origin === apart.origin && !url.pathname.startsWith('/api/auth/')),
      tab.click('#approve'),
    ]);
    expect(new URL(tab.url()).searchParams.has('error')).toBe(false);
    const session = await tab.evaluate(async () => (await fetch('/api/auth/get-session')).json());
    await tab.close();
    expect(session).toMatchObject({ user: { name: 'Jane Citizen', email: 'jane.citizen@example.com', emailVerified: true } });
    // The ID token better-auth keeps holds the subject alone: the claims are userinfo's (docs/sign-in-frameworks.md).
    const account = rows['account']!.at(-1) as { idToken: string };
    expect(acmeIdentityProfile(decodeJwt(account.idToken)).acme).toEqual({});
  });
});

describe('acmeIdentityProvider', () => {
  const base = () => ({ authUrl: sandbox.authUrl, clientId: DEFAULT_OIDC_BACKEND_CLIENT.clientId, clientSecret: 'x' });

  test('refuses at startup what the service would refuse: an essential claim it cannot obtain, a claim it does not offer, a scope without openid', async () => {
    await expect(
      acmeIdentityProvider({ ...base(), signIn: { claims: { acme: { 'acmeidentity.name': { essential: true } } } } }),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT' });
    await expect(
      acmeIdentityProvider({ ...base(), signIn: { claims: { acme: [claimKey('acmeidentity.shoe_size')] } } }),
    ).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      issues: [expect.objectContaining({ message: expect.stringContaining('acme_claims_supported') })],
    });
    await expect(acmeIdentityProvider({ ...base(), signIn: { scope: ['email'] } })).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT' });
    expect(() => acmeIdentity({ ...base(), clientId: '' })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'clientId' }),
    );
    // No options at all: the first one missing is named, not a TypeError.
    expect(() => acmeIdentity(undefined as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'authUrl' }));
  });

  test('the configuration: ID tokens verified, PKCE, client_secret_basic; the email asked for only when the claims name none', () => {
    const provider = acmeIdentity({ ...base(), authUrl: `${sandbox.authUrl}/`, signIn: { phone: '412345678', phoneCountryCode: 61 } });
    expect(provider).toMatchObject({
      providerId: 'acme-identity',
      discoveryUrl: `${sandbox.authUrl}/.well-known/openid-configuration`,
      requireIdTokenVerification: true,
      pkce: true,
      authentication: 'basic',
      scopes: ['openid', 'email'],
      authorizationUrlParams: { claims: '{"email":["email","email_verified"]}', phone: '412345678', phone_country_code: '61' },
    });
    // better-auth's own callback URL unless one is given, and then that one.
    expect(provider).not.toHaveProperty('redirectURI');
    expect(acmeIdentity({ ...base(), redirectURI: 'https://rp.example/api/auth/oauth2/callback/acme' }).redirectURI).toBe(
      'https://rp.example/api/auth/oauth2/callback/acme',
    );
    const withAcmeEmail = acmeIdentity({
      ...base(),
      signIn: { scope: 'openid profile', claims: { acme: { 'acmeidentity.email': null } } },
    });
    expect(withAcmeEmail.scopes).toEqual(['openid', 'profile']);
    expect(JSON.parse(withAcmeEmail.authorizationUrlParams['claims']!)).toEqual({ acme: { 'acmeidentity.email': null } });
    // The acme claims named as a list: acmeidentity.email among them asks for an email just the same.
    const listed = acmeIdentity({
      ...base(),
      signIn: { scope: 'openid profile', claims: { acme: ['acmeidentity.name', 'acmeidentity.email'] } },
    });
    expect(listed.scopes).toEqual(['openid', 'profile']);
    expect(JSON.parse(listed.authorizationUrlParams['claims']!)).not.toHaveProperty('email');
    // {essential: false} is sent as null, the form the spec shows, as the SDK's own sign-in sends it.
    const optional = acmeIdentity({
      ...base(),
      signIn: { claims: { acme: { 'acmeidentity.email': { essential: false }, 'sanctionscheck.is_pep': { essential: true } } } },
    });
    expect(JSON.parse(optional.authorizationUrlParams['claims']!)).toEqual({
      acme: { 'acmeidentity.email': null, 'sanctionscheck.is_pep': { essential: true } },
    });
    // The email scope's own claim named: nothing added; the email scope already there: not named twice.
    const withEmail = acmeIdentity({ ...base(), signIn: { scope: ['openid', 'email'], claims: { email: ['email'] } } });
    expect(withEmail.scopes).toEqual(['openid', 'email']);
    expect(JSON.parse(withEmail.authorizationUrlParams['claims']!)).toEqual({ email: ['email'] });
    const scopeOnly = acmeIdentity({ ...base(), signIn: { scope: ['openid', 'email'] } });
    expect(scopeOnly.scopes).toEqual(['openid', 'email']);
    expect(JSON.parse(scopeOnly.authorizationUrlParams['claims']!)).toEqual({ email: ['email', 'email_verified'] });
  });

  test('the user: the name and email from the decoded claims, the standard ones first', () => {
    expect(
      acmeIdentityUser({
        sub: 'p',
        'acmeidentity.name': '{"first_name":"Ola","last_name":"Nordmann"}',
        'acmeidentity.email': 'ola@example.com',
        'acmeidentity.email_verified': 'true',
      }),
    ).toEqual({ name: 'Ola Nordmann', email: 'ola@example.com', emailVerified: true });
    expect(acmeIdentityUser({ sub: 'p', email: 'a@example.com', 'acmeidentity.email': 'b@example.com', email_verified: false })).toEqual({
      email: 'a@example.com',
      emailVerified: false,
    });
    expect(acmeIdentityUser({ sub: 'p', 'acmeidentity.email_verified': 'maybe' })).toEqual({});
    // An empty email is no email.
    expect(acmeIdentityUser({ sub: 'p', 'acmeidentity.email': '' })).toEqual({});
  });

  test('emailVerified is true only when a claim says so and none says otherwise; a standard email_verified that is not a boolean says nothing', () => {
    const user = (claims: Record<string, unknown>) => acmeIdentityUser({ sub: 'p', email: 'a@example.com', ...claims });
    // Two claims that disagree, in either order: not verified.
    expect(user({ email_verified: true, 'acmeidentity.email_verified': false })).toEqual({ email: 'a@example.com', emailVerified: false });
    expect(user({ email_verified: false, 'acmeidentity.email_verified': true })).toEqual({ email: 'a@example.com', emailVerified: false });
    expect(user({ email_verified: true, 'acmeidentity.email_verified': 'true' })).toEqual({ email: 'a@example.com', emailVerified: true });
    // OpenID Connect's email_verified is a boolean: a string (even "false") or a number is not read as one.
    for (const written of ['false', 'true', 0, 1, 'no']) {
      expect([written, user({ email_verified: written })]).toEqual([written, { email: 'a@example.com' }]);
    }
  });

  test('better-auth registers no provider whose discovery offers no key set to verify the ID token with', async () => {
    // A service whose discovery lacks jwks_uri: better-auth would otherwise decode ID tokens unverified.
    const bare = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ issuer: 'http://127.0.0.1', authorization_endpoint: 'http://127.0.0.1/a', token_endpoint: 'http://127.0.0.1/t' }),
      );
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const address = bare.address() as { port: number };
    const auth = betterAuth({
      baseURL: origin,
      secret: 'test-better-auth-secret-0123456789abcdef',
      database: memoryAdapter({ user: [], session: [], account: [], verification: [] }),
      logger: { disabled: true },
      plugins: [genericOAuth({ config: [acmeIdentity({ ...base(), authUrl: `http://127.0.0.1:${address.port}` })] })],
    });
    const answer = await auth.handler(
      new Request(`${origin}/api/auth/sign-in/social`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ provider: 'acme-identity', callbackURL: '/' }),
      }),
    );
    bare.close();
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(await answer.text()).not.toContain('/a?');
  });
});
