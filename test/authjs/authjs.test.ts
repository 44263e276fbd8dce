/**
 * `@acme/identity/authjs` (#30) end to end: the real Auth.js (`@auth/express`) in an Express server,
 * and headless Chromium signing in through the sandbox's consent page on localhost.
 */
import express from 'express';
import { ExpressAuth, type ExpressAuthConfig } from '@auth/express';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AcmeIdentity, acmeIdentityProfile, acmeIdentityProvider } from '../../src/authjs/index.js';
import { DEFAULT_OIDC_BACKEND_CLIENT, type Sandbox } from '../../src/testing/index.js';
import { claimKey } from '../../src/claims/index.js';
import { signInStage, type SignInStage } from '../sign-in-stage.js';

let sandbox: Sandbox;
let browser: Browser;
let origin: string;
let stage: SignInStage;

beforeAll(async () => {
  stage = await signInStage(['/auth/callback/acme-identity']);
  ({ origin, sandbox, browser } = stage);
  const provider = await acmeIdentityProvider({
    authUrl: sandbox.authUrl,
    clientId: DEFAULT_OIDC_BACKEND_CLIENT.clientId,
    clientSecret: DEFAULT_OIDC_BACKEND_CLIENT.clientSecret!,
    signIn: { scope: ['openid', 'email'], claims: { acme: ['acmeidentity.name', 'sanctionscheck.is_pep'] } },
  });
  const config: ExpressAuthConfig = {
    providers: [provider as never],
    secret: 'test-auth-secret-0123456789abcdef0123456789',
    trustHost: true,
    callbacks: {
      // The decoded claims travel in the session: `name` as an object, `is_pep` as a boolean.
      jwt({ token, profile }) {
        if (profile) token['acme'] = acmeIdentityProfile(profile as never).acme;
        return token;
      },
      session({ session, token }) {
        return { ...session, acme: token['acme'] };
      },
    },
  };
  const app = express();
  app.set('trust proxy', true);
  app.use('/auth', ExpressAuth(config));
  // Where Auth.js sends the person afterwards (Express's own 404 page forbids the page's fetch).
  app.get('/', (_req, res) => {
    res.type('html').send('<!doctype html><title>home</title>');
  });
  stage.serve(app);
});
afterAll(() => stage?.close());

/** From Auth.js's sign-in page to the service's consent page. */
async function toConsent(tab: Page) {
  await tab.goto(`${origin}/auth/signin`);
  await tab.click('form[action$="/auth/signin/acme-identity"] button');
  await tab.waitForURL((url) => url.href.startsWith(`${sandbox.authUrl}/oauth/oidc/authorize`));
  const authorize = new URL(tab.url());
  return authorize;
}

describe('Auth.js provider, in Chromium', () => {
  test('sign in: the authorization request carries PKCE, state, nonce and the claims; the session holds the decoded claims', async () => {
    const tab = await browser.newPage();
    const authorize = await toConsent(tab);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(JSON.parse(authorize.searchParams.get('claims')!)).toEqual({ acme: ['acmeidentity.name', 'sanctionscheck.is_pep'] });
    await Promise.all([
      tab.waitForURL((url) => url.origin === origin && !url.pathname.startsWith('/auth/callback')),
      tab.click('#approve'),
    ]);
    expect(tab.url()).toBe(`${origin}/`);
    const session = await tab.evaluate(async () => (await fetch('/auth/session')).json());
    expect(session).toMatchObject({
      user: { name: 'Jane Citizen' },
      acme: { 'acmeidentity.name': { first_name: 'Jane', last_name: 'Citizen' }, 'sanctionscheck.is_pep': false },
    });
    await tab.close();
  });

  test('the person cancels: Auth.js shows its error page, and no session is made', async () => {
    const tab = await browser.newPage();
    await toConsent(tab);
    await Promise.all([tab.waitForURL(/\/auth\/signin\?error=/), tab.click('#cancel')]);
    expect(new URL(tab.url()).searchParams.get('error')).toBe('OAuthCallbackError');
    expect(await tab.evaluate(async () => (await fetch('/auth/session')).json())).toBeNull();
    await tab.close();
  });
});

describe('Auth.js provider, against a service that delivers the claims asked for from userinfo only', () => {
  let apart: SignInStage;
  beforeAll(async () => {
    apart = await signInStage(['/auth/callback/acme-identity', '/auth/callback/acme-id-token'], {
      fake: { readings: { signInClaimsAt: 'userinfo' } },
    });
    const { clientId, clientSecret } = DEFAULT_OIDC_BACKEND_CLIENT;
    const options = {
      authUrl: apart.sandbox.authUrl,
      clientId,
      clientSecret: clientSecret!,
      signIn: { claims: { acme: ['acmeidentity.name', 'sanctionscheck.is_pep'] } },
    } as const;
    const app = express();
    app.set('trust proxy', true);
    app.use(
      '/auth',
      ExpressAuth({
        providers: [AcmeIdentity(options) as never, AcmeIdentity({ ...options, id: 'acme-id-token', claimsFrom: 'id-token' }) as never],
        secret: 'test-auth-secret-0123456789abcdef0123456789',
        trustHost: true,
        callbacks: {
          // The user the provider's profile made: the claims wherever the service delivered them.
          jwt: ({ token, user }) => (user ? { ...token, acme: (user as { acme?: unknown }).acme } : token),
          session: ({ session, token }) => ({ ...session, acme: token['acme'] }),
        },
      }),
    );
    app.get('/', (_req, res) => {
      res.type('html').send('<!doctype html><title>home</title>');
    });
    apart.serve(app);
  });
  afterAll(() => apart?.close());

  /** Signs in with `provider` and approves; the session Auth.js made. */
  async function sessionAfter(provider: string) {
    const tab = await apart.browser.newPage();
    await tab.goto(`${apart.origin}/auth/signin`);
    await tab.click(`form[action$="/auth/signin/${provider}"] button`);
    await tab.waitForURL((url) => url.href.startsWith(`${apart.sandbox.authUrl}/oauth/oidc/authorize`));
    await Promise.all([
      tab.waitForURL((url) => url.origin === apart.origin && !url.pathname.startsWith('/auth/callback')),
      tab.click('#approve'),
    ]);
    const session = await tab.evaluate(async () => (await fetch('/auth/session')).json());
    await tab.close();
    return session;
  }

  test("by default Auth.js reads userinfo after the ID token, and the session holds the claims; claimsFrom: 'id-token' reads the ID token alone and misses them", async () => {
    expect(await sessionAfter('acme-identity')).toMatchObject({
      user: { name: 'Jane Citizen' },
      acme: { 'acmeidentity.name': { first_name: 'Jane', last_name: 'Citizen' }, 'sanctionscheck.is_pep': false },
    });
    const idTokenOnly = await sessionAfter('acme-id-token');
    expect(idTokenOnly.acme).toEqual({});
    expect(idTokenOnly.user?.name ?? null).toBeNull();
  });
});

describe('acmeIdentityProvider', () => {
  const base = () => ({ authUrl: sandbox.authUrl, clientId: DEFAULT_OIDC_BACKEND_CLIENT.clientId, clientSecret: 'x' });

  test('refuses at startup what the service would refuse: an essential claim it cannot obtain, a claim it does not offer, a scope without openid', async () => {
    await expect(
      acmeIdentityProvider({ ...base(), signIn: { claims: { acme: { 'acmeidentity.name': { essential: true } } } } }),
    ).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
    });
    await expect(
      acmeIdentityProvider({ ...base(), signIn: { claims: { acme: [claimKey('acmeidentity.shoe_size')] } } }),
    ).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      issues: [expect.objectContaining({ message: expect.stringContaining('acme_claims_supported') })],
    });
    await expect(acmeIdentityProvider({ ...base(), signIn: { scope: ['email'] } })).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT' });
    expect(() => AcmeIdentity({ ...base(), clientSecret: '' })).toThrow(expect.objectContaining({ option: 'clientSecret' }));
  });

  test("the profile is userinfo's answer completed with the ID token's claims, the ID token's value kept where both hold one", () => {
    const provider = AcmeIdentity({ authUrl: sandbox.authUrl, clientId: 'c', clientSecret: 's' });
    expect(provider.idToken).toBe(false);
    expect(AcmeIdentity({ authUrl: sandbox.authUrl, clientId: 'c', clientSecret: 's', claimsFrom: 'id-token' }).idToken).toBe(true);
    const payload = {
      iss: sandbox.authUrl,
      sub: 'person_1',
      'sanctionscheck.is_pep': 'No',
      'acmeidentity.name': '{"first_name":"Jane","last_name":"Citizen"}',
    };
    const idToken = `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
    // A service that sends the claims in the ID token only: userinfo answers `sub`.
    expect(provider.profile({ sub: 'person_1' }, { id_token: idToken })).toMatchObject({
      id: 'person_1',
      name: 'Jane Citizen',
      acme: { 'sanctionscheck.is_pep': false, 'acmeidentity.name': { first_name: 'Jane', last_name: 'Citizen' } },
    });
    // Userinfo's own value for a claim the ID token also holds is not the one kept.
    expect(
      provider.profile({ sub: 'person_1', 'sanctionscheck.is_pep': 'Yes', email: 'j@example.com' }, { id_token: idToken }),
    ).toMatchObject({
      email: 'j@example.com',
      acme: { 'sanctionscheck.is_pep': false },
    });
    // Claims split between them, each in an `acme` object: the two objects merged, the ID token's value kept.
    const split = { iss: sandbox.authUrl, sub: 'person_1', acme: { 'sanctionscheck.is_pep': 'No' } };
    const splitToken = `e30.${Buffer.from(JSON.stringify(split)).toString('base64url')}.sig`;
    const splitInfo = { sub: 'person_1', acme: { 'sanctionscheck.is_pep': 'Yes', 'acmeidentity.given_name': 'Jane' } };
    expect(provider.profile(splitInfo, { id_token: splitToken }).acme).toEqual({
      'sanctionscheck.is_pep': false,
      'acmeidentity.given_name': 'Jane',
    });
    // Without tokens (a profile handed over by hand), the profile alone.
    expect(provider.profile({ sub: 'person_1', 'sanctionscheck.is_pep': 'Yes' }).acme).toEqual({ 'sanctionscheck.is_pep': true });
  });

  test("Auth.js's nonce check is on unless nonce: false, for a service that ignores the optional nonce", () => {
    const options = { authUrl: sandbox.authUrl, clientId: 'c', clientSecret: 's' };
    expect(AcmeIdentity(options).checks).toEqual(['pkce', 'state', 'nonce']);
    expect(AcmeIdentity({ ...options, nonce: true }).checks).toEqual(['pkce', 'state', 'nonce']);
    expect(AcmeIdentity({ ...options, nonce: false }).checks).toEqual(['pkce', 'state']);
  });

  test('claims go in the forms the spec shows, as the SDK sends them: {essential: false} as null, {essential: true} as itself', () => {
    const provider = AcmeIdentity({
      ...base(),
      signIn: { claims: { acme: { 'sanctionscheck.is_pep': { essential: true }, 'acmeidentity.name': { essential: false } } } },
    });
    expect(provider.authorization.params['claims']).toEqual({
      acme: { 'sanctionscheck.is_pep': { essential: true }, 'acmeidentity.name': null },
    });
  });

  test('the parameters are sent as the SDK sends them; the profile keeps undecodable values as sent', () => {
    // The issuer as discovery names it: without the slashes an authUrl may end in.
    expect(AcmeIdentity({ ...base(), authUrl: `${sandbox.authUrl}//` }).issuer).toBe(sandbox.authUrl);
    const provider = AcmeIdentity({
      ...base(),
      signIn: { scope: 'openid phone', phone: '412345678', phoneCountryCode: 61, ruleset: 'kyc', uiLocales: ['fr', 'en'] },
    });
    expect(provider.authorization.params).toEqual({
      scope: 'openid phone',
      phone: '412345678',
      phone_country_code: '61',
      ruleset: 'kyc',
      ui_locales: 'fr en',
    });
    const user = acmeIdentityProfile({
      sub: 'person_1',
      given_name: 'Ola',
      family_name: 'N',
      'acmeidentity.name': '{not json',
      email: 'o@example.com',
    });
    expect(user).toMatchObject({ id: 'person_1', name: 'Ola N', email: 'o@example.com', acme: { 'acmeidentity.name': '{not json' } });
  });
});
