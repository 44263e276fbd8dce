/**
 * `@acme/identity/passport` (#30) end to end: Express, express-session, the real Passport, and
 * headless Chromium signing in through the sandbox's consent page on localhost.
 */
import express from 'express';
import session from 'express-session';
import passport from 'passport';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AcmeIdentityStrategy, readClaim, type AcmeIdentityStrategyOptions } from '../../src/passport/index.js';
import { DEFAULT_OIDC_BACKEND_CLIENT, type Sandbox } from '../../src/testing/index.js';
import { signInStage, type SignInStage } from '../sign-in-stage.js';

let sandbox: Sandbox;
let browser: Browser;
let origin: string;
let stage: SignInStage;

/** An app with Passport and the strategy; what the verify function saw is kept. */
function app(options: Partial<AcmeIdentityStrategyOptions> = {}) {
  const strategy = new AcmeIdentityStrategy(
    {
      authUrl: sandbox.authUrl,
      clientId: DEFAULT_OIDC_BACKEND_CLIENT.clientId,
      redirectUri: `${origin}/callback`,
      clientAuthentication: { method: 'client_secret_basic', clientSecret: DEFAULT_OIDC_BACKEND_CLIENT.clientSecret! },
      signIn: { scope: ['openid', 'email'], claims: { acme: ['acmeidentity.name', 'acmeidentity.birth_date'] } },
      ...options,
    },
    ({ claims }) => ({
      id: claims.sub,
      name: readClaim(claims, 'acmeidentity.name'),
      birthDate: readClaim(claims, 'acmeidentity.birth_date'),
    }),
  );
  const instance = new passport.Passport();
  instance.use(strategy);
  instance.serializeUser((user, done) => done(null, user));
  instance.deserializeUser((user: Express.User, done) => done(null, user));
  const application = express();
  application.use(session({ secret: 'test-session-secret-0123456789', resave: false, saveUninitialized: false }));
  application.use(instance.session());
  application.get('/login', instance.authenticate('acme-identity'));
  application.get(
    '/callback',
    instance.authenticate('acme-identity', { failureRedirect: '/failed', failureMessage: true }),
    (_req, res) => {
      res.redirect('/account');
    },
  );
  application.get('/account', (req, res) => {
    res.json({ user: req.user ?? null });
  });
  application.get('/failed', (req, res) => {
    res.status(401).json({ failed: (req.session as unknown as { messages?: string[] }).messages ?? [] });
  });
  application.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ error: (error as { code?: string }).code ?? error.name, message: error.message });
  });
  return application;
}

beforeAll(async () => {
  stage = await signInStage(['/callback']);
  ({ origin, sandbox, browser } = stage);
});
afterAll(() => stage?.close());

describe('Passport strategy, in Chromium', () => {
  test('sign in: /login → the consent page → approve → /callback → the verified user in the session', async () => {
    stage.serve(app());
    const tab = await browser.newPage();
    await tab.goto(`${origin}/login`);
    await tab.waitForURL((url) => url.href.startsWith(`${sandbox.authUrl}/oauth/oidc/authorize`));
    await tab.click('#approve');
    await tab.waitForURL(`${origin}/account`);
    const { user } = JSON.parse((await tab.textContent('body')) ?? '{}') as { user: Record<string, unknown> };
    expect(user).toMatchObject({
      id: expect.stringMatching(/^person_/),
      name: { first_name: 'Jane', last_name: 'Citizen' },
      birthDate: expect.any(String),
    });
    await tab.close();
  });

  test('a request with a state but neither code nor error is not a callback: it starts a sign-in', async () => {
    stage.serve(app());
    const answer = await fetch(`${origin}/login?state=left-over`, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')?.startsWith(`${sandbox.authUrl}/oauth/oidc/authorize?`)).toBe(true);
  });

  test('the person cancels: the failure redirect, with the reason', async () => {
    stage.serve(app());
    const tab = await browser.newPage();
    await tab.goto(`${origin}/login`);
    await tab.waitForURL((url) => url.href.startsWith(`${sandbox.authUrl}/oauth/oidc/authorize`));
    await tab.click('#cancel');
    await tab.waitForURL(`${origin}/failed`);
    expect(await tab.textContent('body')).toContain('ERR_OIDC_AUTHORIZATION');
    await tab.close();
  });

  test('a callback replayed, or from another browser, is refused; an essential claim the service cannot obtain is refused before the redirect', async () => {
    stage.serve(app());
    const tab = await browser.newPage();
    await tab.goto(`${origin}/login`);
    await tab.waitForURL((url) => url.href.startsWith(`${sandbox.authUrl}/oauth/oidc/authorize`));
    let callback = '';
    tab.on('request', (request) => {
      if (request.url().startsWith(`${origin}/callback`)) callback = request.url();
    });
    await tab.click('#approve');
    await tab.waitForURL(`${origin}/account`);
    // The same callback again in the same browser: its transaction was used, so refused.
    await tab.goto(callback);
    expect(new URL(tab.url()).pathname).toBe('/failed');
    // The same callback in another browser (no session): refused.
    const other = await fetch(callback, { redirect: 'manual' });
    expect(other.status).toBe(302);
    expect(other.headers.get('location')).toBe('/failed');
    await tab.close();

    stage.serve(app({ signIn: { claims: { acme: { 'acmeidentity.name': { essential: true } } } } }));
    const refused = await fetch(`${origin}/login`, { redirect: 'manual' });
    expect(refused.status).toBe(500);
    expect(await refused.json()).toMatchObject({ error: 'ERR_INVALID_INPUT' });
  });

  test('a callback whose state names what every object inherits (constructor, toString, __proto__) is refused as unknown, not run', async () => {
    stage.serve(app());
    // A sign-in started in this session: its transactions are an object the callback's state indexes.
    const started = await fetch(`${origin}/login`, { redirect: 'manual' });
    expect(started.status).toBe(302);
    const cookie = started.headers.get('set-cookie')?.split(';')[0] ?? '';
    expect(cookie).not.toBe('');
    for (const state of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const answer = await fetch(`${origin}/callback?code=abc&state=${state}`, { headers: { cookie }, redirect: 'manual' });
      expect({ state, status: answer.status, location: answer.headers.get('location') }).toEqual({
        state,
        status: 302,
        location: '/failed',
      });
    }
  });

  test('without express-session: a ConfigurationError that says what to add', async () => {
    const strategy = new AcmeIdentityStrategy(
      { authUrl: sandbox.authUrl, clientId: DEFAULT_OIDC_BACKEND_CLIENT.clientId, redirectUri: `${origin}/callback` },
      () => ({ id: 1 }),
    );
    const instance = new passport.Passport();
    instance.use(strategy);
    const bare = express();
    bare.get('/login', instance.authenticate('acme-identity', { session: false }));
    bare.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ option: (error as { option?: string }).option, message: error.message });
    });
    stage.serve(bare);
    const answer = await fetch(`${origin}/login`, { redirect: 'manual' });
    expect(await answer.json()).toMatchObject({ option: 'transactionStore', message: expect.stringContaining('express-session') });
    expect(
      () => new AcmeIdentityStrategy({ authUrl: sandbox.authUrl, clientId: 'c', redirectUri: `${origin}/callback` }, undefined as never),
    ).toThrow(expect.objectContaining({ option: 'verify' }));
  });
});
