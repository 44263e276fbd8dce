/** `@acme/identity/oidc` against the fake authorization server: the whole flow, and what it sends. */
import fc from 'fast-check';
import { describe, expect, test, vi } from 'vitest';
import { exportJWK, generateKeyPair } from 'jose';
import { http, HttpResponse } from 'msw';
import {
  ConfigurationError,
  InvalidInputError,
  MemoryStateStore,
  OidcError,
  createOidcClient,
  type OidcTransaction,
} from '../../src/oidc/index.js';
import { createBrowserSignIn } from '../../src/oidc/browser.js';
import { createCore } from '../../src/oidc/flow.js';
import { DEFAULT_OIDC_CLIENT, type OidcClientRegistration, type TokenEndpointAuthMethod } from '../../src/testing/index.js';
import { fakeServiceHandlers } from '../../src/testing/msw.js';
import { rejection, server } from '../helpers.js';
import { REDIRECT, discovery, oidcSetup } from './setup.js';
import { claimKey, readClaims } from '../../src/claims/index.js';

const challengeOf = async (verifier: string) =>
  Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))).toString('base64url');

describe('OIDC helper: the flow against the fake', () => {
  test('start sends every required parameter, with an S256 challenge of a fresh 43-128 character verifier', async () => {
    const s = await oidcSetup();
    const { url, transaction } = await s.client().startSignIn({ scope: ['openid', 'profile'] });
    const q = Object.fromEntries(url.searchParams);
    expect(`${url.origin}${url.pathname}`).toBe(`${s.service.authUrl}/oauth/oidc/authorize`);
    expect(q).toMatchObject({
      response_type: 'code',
      client_id: DEFAULT_OIDC_CLIENT.clientId,
      redirect_uri: REDIRECT,
      scope: 'openid profile',
      state: transaction.state,
      nonce: transaction.nonce,
      code_challenge_method: 'S256',
    });
    expect(transaction.codeVerifier).toMatch(/^[A-Za-z0-9\-._~]{43,128}$/);
    expect(q['code_challenge']).toBe(await challengeOf(transaction.codeVerifier));
    const again = await s.client().startSignIn();
    expect(again.transaction.state).not.toBe(transaction.state);
    expect(again.transaction.codeVerifier).not.toBe(transaction.codeVerifier);
    expect(again.transaction.nonce).not.toBe(transaction.nonce);
    expect(again.url.searchParams.get('scope')).toBe('openid');
  });

  test('sign-in end to end: the ID token claims carry the requested claim keys and the nonce', async () => {
    const s = await oidcSetup();
    const oidc = s.client();
    const { url, transaction } = await oidc.startSignIn({
      scope: 'openid profile',
      claims: { profile: ['given_name', 'family_name'], acme: { 'acmeidentity.name': null, 'sanctionscheck.is_pep': { essential: true } } },
    });
    const callback = await s.visit(url);
    expect(callback.searchParams.get('iss')).toBe(s.service.authUrl);
    const result = await oidc.finishSignIn(callback, transaction);
    expect(result.claims).toMatchObject({
      iss: s.service.authUrl,
      aud: DEFAULT_OIDC_CLIENT.clientId,
      nonce: transaction.nonce,
      given_name: 'Jane',
      family_name: 'Citizen',
      'sanctionscheck.is_pep': expect.anything(),
      'acmeidentity.name': expect.any(String),
    });
    expect(result.claims.sub).toMatch(/^person_/);
    expect(result.tokens).toMatchObject({ token_type: 'bearer', access_token: expect.any(String), id_token: expect.any(String) });
  });

  test('the transaction is plain JSON: it survives a session store', async () => {
    const s = await oidcSetup();
    const { url, transaction } = await s.client().startSignIn({ data: { returnTo: '/account' } });
    const stored = JSON.parse(JSON.stringify(transaction)) as OidcTransaction;
    expect(stored).toEqual(transaction);
    // Another process (a fresh client) finishes what this one started.
    const result = await s.client().finishSignIn(await s.visit(url), stored);
    expect(result.data).toEqual({ returnTo: '/account' });
  });

  test('ruleset, aobo, phone with its country code and email reach the service, which accepts them', async () => {
    const s = await oidcSetup();
    const { url, transaction } = await s.client().startSignIn({
      ruleset: 'enhanced',
      aobo: 'delegation-valid',
      phone: '412345678',
      phoneCountryCode: 61,
      email: 'jane@example.com',
      claims: { email: ['email'] },
    });
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      ruleset: 'enhanced',
      aobo: 'delegation-valid',
      phone: '412345678',
      phone_country_code: '61',
      email: 'jane@example.com',
    });
    const { claims } = await s.client().finishSignIn(await s.visit(url), transaction);
    expect(claims['email']).toBe('jane@example.com');
  });

  test('prompt, login_hint, max_age, ui_locales and acr_values are sent as OpenID Connect names them; the service takes them', async () => {
    const s = await oidcSetup();
    const { url, transaction } = await s.client().startSignIn({
      prompt: 'login',
      loginHint: 'jane@example.com',
      maxAge: 0,
      uiLocales: ['fr-CA', 'fr'],
      acrValues: 'urn:acme:loa:2',
    });
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      prompt: 'login',
      login_hint: 'jane@example.com',
      max_age: '0',
      ui_locales: 'fr-CA fr',
      acr_values: 'urn:acme:loa:2',
    });
    // The transaction keeps max_age for the callback's auth_time check; as JSON, like the rest.
    const stored = JSON.parse(JSON.stringify(transaction)) as OidcTransaction;
    expect(stored.maxAge).toBe(0);
    const { claims } = await s.client().finishSignIn(await s.visit(url), stored);
    expect(claims.auth_time).toBe(Math.floor(s.now() / 1000));
  });

  test('max_age counts back from the request: an auth_time older than max_age before it is refused, naming auth_time', async () => {
    const s = await oidcSetup();
    /** The person signs in at the service `offsetMs` from now (negative: a session older than the request, which an OP ignoring max_age reuses). */
    const signIn = async (maxAge: number | undefined, offsetMs: number, returnAfterMs: number) => {
      const { url, transaction } = await s.client().startSignIn(maxAge === undefined ? {} : { maxAge });
      s.advance(offsetMs);
      const callback = await s.visit(url);
      s.advance(-offsetMs + returnAfterMs);
      return s.client().finishSignIn(callback, transaction);
    };
    // Authenticated 40 s before a request asking max_age 30: too old, however soon or late the person comes back.
    const error = await rejection(signIn(30, -40_000, 0));
    await expect(signIn(30, -40_000, 10_000)).rejects.toMatchObject({ code: 'ERR_OIDC_ID_TOKEN', claim: 'auth_time' });
    expect(error).toBeInstanceOf(OidcError);
    expect(error).toMatchObject({ code: 'ERR_OIDC_ID_TOKEN', claim: 'auth_time' });
    // 25 s before it: within max_age, and it stays within while the way back takes 10 s (the code lives a minute).
    await expect(signIn(30, -25_000, 0)).resolves.toHaveProperty('claims.auth_time');
    await expect(signIn(30, -25_000, 10_000)).resolves.toHaveProperty('claims.auth_time');
    // Without max_age, an old authentication is fine.
    await expect(signIn(undefined, -50_000, 0)).resolves.toHaveProperty('claims');
  });

  test("max_age is judged to the whole second, with a second for the clocks' rounding: 31 s before a max_age 30 request is accepted, 32 s refused", async () => {
    const s = await oidcSetup();
    const signIn = async (offsetMs: number) => {
      const { url, transaction } = await s.client().startSignIn({ maxAge: 30 });
      s.advance(offsetMs);
      const callback = await s.visit(url);
      s.advance(-offsetMs);
      return s.client().finishSignIn(callback, transaction);
    };
    await expect(signIn(-31_000)).resolves.toHaveProperty('claims.auth_time');
    await expect(signIn(-32_000)).rejects.toMatchObject({ code: 'ERR_OIDC_ID_TOKEN', claim: 'auth_time' });
  });

  test("the system clock moving on during the token exchange (a slow network) moves no judgment made on the client's clock: still 31 s accepted, 32 s refused", async () => {
    const s = await oidcSetup();
    const realNow = Date.now.bind(Date);
    const slow = s.client({
      fetch: async (input, init) => {
        // The token endpoint answers 1.5 s of system time later; the client's own clock (a test's, or the service's) stands still.
        if (new URL(input instanceof Request ? input.url : input).pathname.includes('/token')) {
          const shifted = realNow() + 1_500;
          vi.spyOn(Date, 'now').mockImplementation(() => shifted);
        }
        return fetch(input, init);
      },
    });
    const signIn = async (offsetMs: number) => {
      const { url, transaction } = await slow.startSignIn({ maxAge: 30 });
      s.advance(offsetMs);
      const callback = await s.visit(url);
      s.advance(-offsetMs);
      try {
        return await slow.finishSignIn(callback, transaction);
      } finally {
        vi.restoreAllMocks();
      }
    };
    await expect(signIn(-31_000)).resolves.toHaveProperty('claims.auth_time');
    await expect(signIn(-32_000)).rejects.toMatchObject({ code: 'ERR_OIDC_ID_TOKEN', claim: 'auth_time' });
  });

  test('max_age 0 ("sign in again") takes an authentication after the redirect, however long the person took to come back', async () => {
    const s = await oidcSetup();
    const { url, transaction } = await s.client().startSignIn({ maxAge: 0 });
    // The person takes a minute at the service, then their browser takes five seconds back.
    s.advance(60_000);
    const callback = await s.visit(url);
    s.advance(5_000);
    await expect(s.client().finishSignIn(callback, transaction)).resolves.toHaveProperty('claims.auth_time');
    // Authenticated before the request (a reused session): refused.
    const again = await s.client().startSignIn({ maxAge: 0 });
    s.advance(-10_000);
    const stale = await s.visit(again.url);
    s.advance(10_000);
    await expect(s.client().finishSignIn(stale, again.transaction)).rejects.toMatchObject({
      code: 'ERR_OIDC_ID_TOKEN',
      claim: 'auth_time',
    });
  });

  test('an ID token whose times the service writes in milliseconds (the tokenTimes reading) gets the verdicts it gets in seconds: max_age over generated offsets (exp: tamper.test.ts)', async () => {
    const inSeconds = await oidcSetup();
    const inMs = await oidcSetup({ fake: { readings: { tokenTimes: 'milliseconds' } } });
    /** The verdict on a sign-in whose person authenticated `offsetMs` from the request, with `maxAge`. */
    const verdict = async (s: typeof inSeconds, maxAge: number, offsetMs: number) => {
      // Both fakes answer at the same URLs: the one asked answers.
      server.resetHandlers(...fakeServiceHandlers(s.service));
      const { url, transaction } = await s.client().startSignIn({ maxAge });
      s.advance(offsetMs);
      const callback = await s.visit(url);
      s.advance(-offsetMs);
      try {
        const { claims } = await s.client().finishSignIn(callback, transaction);
        return `signed in, auth_time ${claims.auth_time === undefined ? 'missing' : 'given'}`;
      } catch (error) {
        return `${(error as OidcError).code} ${(error as OidcError).claim}`;
      }
    };
    const signedIn = 'signed in, auth_time given';
    const tooOld = 'ERR_OIDC_ID_TOKEN auth_time';
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 40 }), fc.integer({ min: -45_000, max: 0 }), async (maxAge, offsetMs) => {
        const verdicts = [await verdict(inSeconds, maxAge, offsetMs), await verdict(inMs, maxAge, offsetMs)];
        // Both fakes write the time the person authenticated in whole seconds (in milliseconds, as
        // whole seconds times 1000), on clocks whose fraction of a second is the wall clock's: within
        // the two seconds past max_age that rounding decides, and either verdict is right. Outside
        // them the verdicts agree, and are the rule's.
        if (offsetMs >= -maxAge * 1000) expect(verdicts).toEqual([signedIn, signedIn]);
        else if (offsetMs < -(maxAge + 2) * 1000) expect(verdicts).toEqual([tooOld, tooOld]);
        else for (const given of verdicts) expect([signedIn, tooOld]).toContain(given);
      }),
      { numRuns: 25 },
    );
  });

  test('{essential: false} in a variable compiles and goes to the authorization request as null; {essential: true} as itself (#43)', async () => {
    const s = await oidcSetup();
    const claims = { acme: { 'sanctionscheck.is_pep': { essential: true }, 'acmeidentity.name': { essential: false } } };
    const { url } = await s.client().startSignIn({ claims });
    expect(JSON.parse(url.searchParams.get('claims')!)).toEqual({
      acme: { 'sanctionscheck.is_pep': { essential: true }, 'acmeidentity.name': null },
    });
  });

  test('a claim key discovery lists is accepted whatever its form; one it does not list is refused', async () => {
    const s = await oidcSetup({ fake: { extraClaims: ['loyalty_tier'] } });
    const { url, transaction } = await s.client().startSignIn({ claims: { acme: [claimKey('loyalty_tier')] } });
    expect(JSON.parse(url.searchParams.get('claims')!)).toEqual({ acme: ['loyalty_tier'] });
    await expect(s.client().finishSignIn(await s.visit(url), transaction)).resolves.toHaveProperty('claims');
    await expect(s.client().startSignIn({ claims: { acme: [claimKey('loyalty_points')] } })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      field: 'claims.acme.loyalty_points',
      issues: [{ message: expect.stringMatching(/acme_claims_supported/) }],
    });
  });

  test('the callback may be given as a URL, a path with its query, a query string with or without its ?, or a Request', async () => {
    const s = await oidcSetup();
    const forms: ((u: URL) => URL | string | URLSearchParams | Request)[] = [
      (u) => u,
      (u) => `${u.pathname}${u.search}`,
      // A path with ; or = in it is a path, never taken for a query string.
      (u) => `${u.pathname};jsessionid=abc${u.search}`,
      // A relative path without its leading slash is a path too, read against the redirect URI.
      (u) => `${u.pathname.split('/').at(-1)}${u.search}`,
      (u) => u.search,
      (u) => u.search.slice(1),
      (u) => u.searchParams,
      (u) => new Request(u),
    ];
    for (const form of forms) {
      const { url, transaction } = await s.client().startSignIn();
      const { claims } = await s.client().finishSignIn(form(await s.visit(url)), transaction);
      expect(claims.nonce).toBe(transaction.nonce);
    }
  });

  test('userinfo on request: the claims of the same subject', async () => {
    const s = await oidcSetup();
    const oidc = s.client();
    const { url, transaction } = await oidc.startSignIn({ claims: { acme: ['acmeidentity.given_name'] } });
    const result = await oidc.finishSignIn(await s.visit(url), transaction, { userinfo: true });
    expect(result.userinfo).toMatchObject({ sub: result.claims.sub, 'acmeidentity.given_name': expect.any(String) });
    expect(await oidc.userinfo(result)).toEqual(result.userinfo);
    // Through the options' fetch, as every other request of the sign-in.
    expect(s.calls(/\/userinfo$/)).toBe(2);
  });

  test.each(['flat', 'acme', 'nested'] as const)(
    'signInClaims=%s: readClaim finds each acme claim where the ID token and userinfo put it, decoded as the identity response is',
    async (placement) => {
      const s = await oidcSetup({ fake: { readings: { signInClaims: placement } } });
      const oidc = s.client();
      const keys = ['acmeidentity.name', 'acmeidentity.given_name', 'sanctionscheck.is_pep', 'acmeidentity.family_name'] as const;
      const { url, transaction } = await oidc.startSignIn({
        scope: ['openid', 'profile'],
        claims: { profile: ['given_name'], acme: [...keys] },
      });
      const result = await oidc.finishSignIn(await s.visit(url), transaction, { userinfo: true });
      for (const claims of [result.claims, result.userinfo!]) {
        const read = readClaims(claims, [...keys]);
        expect(read['acmeidentity.name']).toEqual({ first_name: 'Jane', last_name: 'Citizen' });
        expect(read['acmeidentity.given_name']).toBe('Jane');
        expect(read['sanctionscheck.is_pep']).toBe(false);
        expect(read['acmeidentity.family_name']).toBe('Citizen');
        expect(claims['given_name']).toBe('Jane');
      }
      if (placement === 'acme') expect(result.claims['acme']).toHaveProperty(['acmeidentity.name']);
      if (placement === 'nested') expect(result.claims).toHaveProperty(['sanctionscheck', 'is_pep']);
    },
  );

  describe('where the service delivers the claims asked for (the signInClaimsAt reading)', () => {
    const keys = ['acmeidentity.name', 'sanctionscheck.is_pep'] as const;
    const jane = { 'acmeidentity.name': { first_name: 'Jane', last_name: 'Citizen' }, 'sanctionscheck.is_pep': false };

    test.each([
      ['both', 'flat', 0, 'list'],
      ['userinfo', 'flat', 1, 'list'],
      ['userinfo', 'acme', 1, 'list'],
      ['userinfo', 'nested', 1, 'object'],
      ['id-token', 'nested', 0, 'object'],
      // Split: the ID token holds the name alone, userinfo both (in `acme` objects, merged).
      ['split', 'acme', 1, 'list'],
      ['split', 'flat', 1, 'object'],
    ] as const)(
      'signInClaimsAt=%s, signInClaims=%s: the claims are read by default, userinfo only when the ID token lacks them (%i call; acme claims as a %s)',
      async (at, placement, calls, form) => {
        const s = await oidcSetup({ fake: { readings: { signInClaimsAt: at, signInClaims: placement } } });
        const oidc = s.client();
        const acme = form === 'list' ? [...keys] : { 'acmeidentity.name': null, 'sanctionscheck.is_pep': { essential: true } };
        const { url, transaction } = await oidc.startSignIn({ claims: { acme } });
        expect(transaction).toMatchObject({ scope: ['openid'], claims: [...keys] });
        const result = await oidc.finishSignIn(await s.visit(url), transaction);
        expect(readClaims(result.claims, [...keys])).toEqual(jane);
        expect(s.calls(/\/userinfo$/)).toBe(calls);
        expect(result.userinfo !== undefined).toBe(calls === 1);
        // The ID token's own claims stay the ID token's.
        expect(result.claims).toMatchObject({ iss: s.service.authUrl, aud: DEFAULT_OIDC_CLIENT.clientId, nonce: transaction.nonce });
        // Userinfo itself, asked for: the claims, but where the service keeps them in the ID token alone.
        expect(readClaims(await oidc.userinfo(result), [...keys])).toEqual(at === 'id-token' ? {} : jane);
      },
    );

    test('userinfo: false reads no userinfo, and the claims are what the ID token holds; true reads it whatever the ID token holds', async () => {
      const s = await oidcSetup({ fake: { readings: { signInClaimsAt: 'userinfo' } } });
      const oidc = s.client();
      let { url, transaction } = await oidc.startSignIn({ claims: { acme: [...keys] } });
      const bare = await oidc.finishSignIn(await s.visit(url), transaction, { userinfo: false });
      expect(readClaims(bare.claims, [...keys])).toEqual({});
      expect(bare.userinfo).toBeUndefined();
      expect(s.calls(/\/userinfo$/)).toBe(0);
      ({ url, transaction } = await oidc.startSignIn({ claims: { acme: [...keys] } }));
      const read = await oidc.finishSignIn(await s.visit(url), transaction, { userinfo: true });
      expect(readClaims(read.claims, [...keys])).toEqual(jane);
      expect(s.calls(/\/userinfo$/)).toBe(1);
    });

    test("a userinfo that answers with protocol claims and other values adds only what the ID token lacks: never iss, nonce, acr or another subject's", async () => {
      const s = await oidcSetup({ fake: { readings: { signInClaimsAt: 'userinfo' } } });
      const oidc = s.client();
      const { url, transaction } = await oidc.startSignIn({ claims: { acme: [...keys] } });
      const callback = await s.visit(url);
      server.use(
        http.get(
          `${s.service.authUrl}/oauth/oidc/userinfo`,
          async ({ request }) => {
            const genuine = (await (await s.service.fetch(request)).json()) as Record<string, unknown>;
            return HttpResponse.json({
              ...genuine,
              iss: 'https://evil.example',
              aud: 'someone-else',
              nonce: 'forged',
              acr: 'urn:forged',
              amr: ['forged'],
              azp: 'someone-else',
              auth_time: 1,
              exp: 9_999_999_999,
              'acmeidentity.given_name': 'Mallory',
            });
          },
          { once: true },
        ),
      );
      const result = await oidc.finishSignIn(callback, transaction);
      expect(readClaims(result.claims, [...keys])).toEqual(jane);
      expect(result.claims).toMatchObject({ iss: s.service.authUrl, aud: DEFAULT_OIDC_CLIENT.clientId, nonce: transaction.nonce });
      expect(result.claims['exp']).not.toBe(9_999_999_999);
      expect(result.claims['auth_time']).not.toBe(1);
      for (const forged of ['acr', 'amr', 'azp']) expect(result.claims).not.toHaveProperty([forged]);
      // A claim the ID token lacks and the sign-in did not ask for is still userinfo's to give.
      expect(result.claims['acmeidentity.given_name']).toBe('Mallory');
      expect(result.userinfo).toMatchObject({ iss: 'https://evil.example' });
    });

    test("by default, a userinfo answering for another subject fails the sign-in (ERR_OIDC_USERINFO), never completing one person's claims with another's", async () => {
      const s = await oidcSetup({ fake: { readings: { signInClaimsAt: 'userinfo' } } });
      const oidc = s.client();
      const { url, transaction } = await oidc.startSignIn({ claims: { acme: [...keys] } });
      const callback = await s.visit(url);
      server.use(
        http.get(`${s.service.authUrl}/oauth/oidc/userinfo`, () => HttpResponse.json({ sub: 'someone-else', ...jane }), { once: true }),
      );
      expect(await rejection(oidc.finishSignIn(callback, transaction))).toMatchObject({ code: 'ERR_OIDC_USERINFO' });
    });

    test("a discovery document without userinfo_endpoint: nothing to read, the ID token's claims as they are", async () => {
      const s = await oidcSetup({ fake: { readings: { signInClaimsAt: 'userinfo' } } });
      const oidc = s.client({ fetch: discovery(({ userinfo_endpoint: _endpoint, ...rest }) => rest) });
      const { url, transaction } = await oidc.startSignIn({ claims: { acme: [...keys] } });
      const result = await oidc.finishSignIn(await s.visit(url), transaction);
      expect(readClaims(result.claims, [...keys])).toEqual({});
      expect(result.userinfo).toBeUndefined();
    });

    test('a transaction kept before the sign-in named its claims (no scope, no claims) reads no userinfo by default', async () => {
      const s = await oidcSetup({ fake: { readings: { signInClaimsAt: 'userinfo' } } });
      const oidc = s.client();
      const { url, transaction } = await oidc.startSignIn({ scope: ['openid', 'profile'], claims: { acme: [...keys] } });
      const { scope: _scope, claims: _claims, ...older } = transaction;
      const result = await oidc.finishSignIn(await s.visit(url), older);
      expect(result.userinfo).toBeUndefined();
      expect(s.calls(/\/userinfo$/)).toBe(0);
    });
  });

  test('a token response without an ID token is ERR_OIDC_ID_TOKEN: the sign-in needs one, whatever else the answer holds', async () => {
    const s = await oidcSetup();
    const { url, transaction } = await s.client().startSignIn();
    const callback = await s.visit(url);
    const withoutIdToken = () => HttpResponse.json({ access_token: 'at', token_type: 'Bearer', expires_in: 300 });
    server.use(http.post(`${s.service.authUrl}/oauth/oidc/token`, withoutIdToken, { once: true }));
    const error = await rejection(s.client().finishSignIn(callback, transaction));
    expect(error).toBeInstanceOf(OidcError);
    expect(error).toMatchObject({ code: 'ERR_OIDC_ID_TOKEN' });
  });

  test('a userinfo_endpoint that is neither https: nor http: is never sent the access token, even with allowInsecureRequests; the refusal is one line', async () => {
    const s = await oidcSetup();
    const endpoints = [
      'http://evil.example/userinfo',
      `javascript:alert(1)//\n2026-12-01 INFO forged line${'x'.repeat(300)}`,
      'ftp://evil.example/userinfo',
    ];
    for (const [i, endpoint] of endpoints.entries()) {
      const insecure = i > 0;
      const oidc = s.client({
        ...(insecure ? { allowInsecureRequests: true } : {}),
        fetch: async (input, init) => {
          if (!String(input).startsWith(s.service.authUrl)) throw new Error(`the access token was sent to ${String(input)}`);
          const answer = await fetch(input, init);
          if (!String(input).endsWith('/openid-configuration')) return answer;
          return Response.json({ ...((await answer.json()) as object), userinfo_endpoint: endpoint });
        },
      });
      const { url, transaction } = await oidc.startSignIn();
      const error = await rejection(oidc.finishSignIn(await s.visit(url), transaction, { userinfo: true }));
      expect(error).toBeInstanceOf(OidcError);
      // Refused by the userinfo step itself (oauth4webapi's https: rule), before any request is made.
      expect(error).toMatchObject({ code: 'ERR_OIDC_USERINFO' });
      const { message } = error as OidcError;
      expect(message).not.toContain('access token was sent');
      expect(message).not.toContain('\n');
      expect(message).not.toContain('x'.repeat(300));
    }
  });

  test("userinfo answering for another subject than the ID token's is ERR_OIDC_USERINFO, after the sign-in and on its own", async () => {
    const s = await oidcSetup();
    const oidc = s.client();
    const someoneElse = () => HttpResponse.json({ sub: 'someone-else', 'acmeidentity.given_name': 'Mallory' });
    let { url, transaction } = await oidc.startSignIn();
    server.use(http.get(`${s.service.authUrl}/oauth/oidc/userinfo`, someoneElse, { once: true }));
    const error = await rejection(oidc.finishSignIn(await s.visit(url), transaction, { userinfo: true }));
    expect(error).toBeInstanceOf(OidcError);
    expect(error).toMatchObject({ code: 'ERR_OIDC_USERINFO' });
    expect(String((error as Error).message)).not.toContain('Mallory');
    ({ url, transaction } = await oidc.startSignIn());
    const result = await oidc.finishSignIn(await s.visit(url), transaction);
    server.use(http.get(`${s.service.authUrl}/oauth/oidc/userinfo`, someoneElse, { once: true }));
    expect(await rejection(oidc.userinfo(result))).toMatchObject({ code: 'ERR_OIDC_USERINFO' });
    // The same subject is accepted: the check compares, it does not refuse every answer.
    expect(await oidc.userinfo(result)).toMatchObject({ sub: result.claims.sub });
  });

  test('userinfo with a revoked access token is ERR_OIDC_USERINFO', async () => {
    const s = await oidcSetup();
    const { url, transaction } = await s.client().startSignIn();
    const callback = await s.visit(url);
    const result = await s.client().finishSignIn(callback, transaction);
    // Replaying the code makes the service revoke what the first exchange obtained.
    await rejection(s.client().finishSignIn(callback, transaction));
    const error = await rejection(s.client().userinfo(result));
    expect(error).toBeInstanceOf(OidcError);
    // From the WWW-Authenticate challenge (Bearer error="invalid_token"), as from a JSON body.
    expect(error).toMatchObject({ code: 'ERR_OIDC_USERINFO', error: 'invalid_token', status: 401 });
  });

  test('a 401 challenge with no error is invalid_token at userinfo and invalid_client at the token endpoint; an error_description and the status (403) are kept', async () => {
    const s = await oidcSetup();
    const oidc = s.client();
    let { url, transaction } = await oidc.startSignIn();
    const result = await oidc.finishSignIn(await s.visit(url), transaction);
    const challenge =
      (value: string, status = 401) =>
      () =>
        new HttpResponse(null, { status, headers: { 'www-authenticate': value } });
    server.use(http.get(`${s.service.authUrl}/oauth/oidc/userinfo`, challenge('Bearer realm="acme-identity"'), { once: true }));
    expect(await rejection(oidc.userinfo(result))).toMatchObject({ code: 'ERR_OIDC_USERINFO', error: 'invalid_token', status: 401 });
    server.use(
      http.get(
        `${s.service.authUrl}/oauth/oidc/userinfo`,
        // RFC 6750 §3.1: insufficient_scope is a 403; the status is the answer's, not assumed 401.
        challenge('Bearer error="insufficient_scope", error_description="openid is required"', 403),
        { once: true },
      ),
    );
    const described = await rejection(oidc.userinfo(result));
    expect(described).toMatchObject({
      status: 403,
      error: 'insufficient_scope',
      errorDescription: 'openid is required',
      message: 'insufficient_scope: openid is required',
    });
    server.use(http.post(`${s.service.authUrl}/oauth/oidc/token`, challenge('Basic realm="acme-identity"'), { once: true }));
    ({ url, transaction } = await oidc.startSignIn());
    expect(await rejection(oidc.finishSignIn(await s.visit(url), transaction))).toMatchObject({
      code: 'ERR_OIDC_TOKEN',
      error: 'invalid_client',
      status: 401,
    });
  });

  test('several challenges in one answer: the first that names an error says it, whichever scheme comes first', async () => {
    const s = await oidcSetup();
    const oidc = s.client();
    const { url, transaction } = await oidc.startSignIn();
    const result = await oidc.finishSignIn(await s.visit(url), transaction);
    for (const [header, error, description] of [
      ['Basic realm="acme", Bearer error="invalid_token", error_description="revoked"', 'invalid_token', 'revoked'],
      ['Bearer error="insufficient_scope", Basic realm="acme"', 'insufficient_scope', undefined],
      ['Bearer error="invalid_token", Bearer error="insufficient_scope"', 'invalid_token', undefined],
    ] as const) {
      server.use(
        http.get(
          `${s.service.authUrl}/oauth/oidc/userinfo`,
          () => new HttpResponse(null, { status: 401, headers: { 'www-authenticate': header } }),
          {
            once: true,
          },
        ),
      );
      const refused = await rejection(oidc.userinfo(result));
      expect(refused).toMatchObject({ code: 'ERR_OIDC_USERINFO', error, status: 401 });
      expect((refused as OidcError).errorDescription).toBe(description);
    }
  });
});

describe('OIDC helper: discovery', () => {
  test('read once and cached; refresh reads it again; acme_claims_supported is the live list', async () => {
    const s = await oidcSetup();
    const oidc = s.client();
    await oidc.startSignIn();
    await oidc.startSignIn();
    expect(s.calls(/openid-configuration$/)).toBe(1);
    expect(await oidc.supportedClaims()).toContain('acmeidentity.name');
    await oidc.metadata({ refresh: true });
    expect(s.calls(/openid-configuration$/)).toBe(2);
    s.advance(3_600_000);
    await oidc.startSignIn();
    expect(s.calls(/openid-configuration$/)).toBe(3);
  });

  test('discoveryMaxAgeMs sets how long the document is reused', async () => {
    const s = await oidcSetup();
    const oidc = s.client({ discoveryMaxAgeMs: 10_000 });
    await oidc.startSignIn();
    s.advance(9_999);
    await oidc.startSignIn();
    expect(s.calls(/openid-configuration$/)).toBe(1);
    s.advance(1);
    await oidc.startSignIn();
    expect(s.calls(/openid-configuration$/)).toBe(2);
  });

  test('a read that fails late, after a newer one took its place, does not drop the newer document', async () => {
    const s = await oidcSetup();
    let hang: ((error: Error) => void) | undefined;
    let reads = 0;
    const oidc = s.client({
      fetch: (input, init) => {
        if (!String(input).endsWith('openid-configuration')) return fetch(input, init);
        reads++;
        return hang
          ? fetch(input, init)
          : new Promise((_, reject) => {
              hang = reject;
            });
      },
    });
    const first = oidc.metadata();
    // An hour on, the first read still hangs: a second read takes its place and answers.
    s.advance(3_600_000);
    await oidc.metadata();
    hang!(new TypeError('fetch failed'));
    await expect(first).rejects.toMatchObject({ code: 'ERR_OIDC_DISCOVERY' });
    await oidc.startSignIn();
    expect(reads).toBe(2);
  });

  test('a claim key the cached list lacks is looked up again once before it is refused', async () => {
    const s = await oidcSetup();
    let stale = true;
    const oidc = s.client({
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (!String(input).endsWith('openid-configuration') || !stale) return response;
        stale = false;
        const metadata = (await response.json()) as { acme_claims_supported: string[] };
        return Response.json({
          ...metadata,
          acme_claims_supported: metadata.acme_claims_supported.filter((k) => k !== 'sanctionscheck.is_pep'),
        });
      },
    });
    expect(await oidc.supportedClaims()).not.toContain('sanctionscheck.is_pep');
    // Within a minute of the last read, the list is trusted.
    expect(await rejection(oidc.startSignIn({ claims: { acme: ['sanctionscheck.is_pep'] } }))).toMatchObject({
      field: 'claims.acme.sanctionscheck.is_pep',
    });
    s.advance(60_000);
    const { url } = await oidc.startSignIn({ claims: { acme: ['sanctionscheck.is_pep'] } });
    expect(url.searchParams.get('claims')).toContain('sanctionscheck.is_pep');
  });

  test('a discovery document naming another issuer is refused', async () => {
    const s = await oidcSetup();
    const oidc = s.client({
      fetch: async (input, init) => {
        const metadata = (await (await fetch(input, init)).json()) as object;
        return Response.json({ ...metadata, issuer: 'https://evil.example' });
      },
    });
    const error = await rejection(oidc.startSignIn());
    expect(error).toBeInstanceOf(OidcError);
    expect(error).toMatchObject({ code: 'ERR_OIDC_DISCOVERY' });
  });

  test('an issuer on the same host but another path (another tenant) is another issuer: refused', async () => {
    const s = await oidcSetup();
    const oidc = s.client({
      fetch: async (input, init) => {
        const metadata = (await (await fetch(input, init)).json()) as { issuer: string };
        return Response.json({ ...metadata, issuer: new URL('/tenants/other', metadata.issuer).href });
      },
    });
    await expect(oidc.startSignIn()).rejects.toMatchObject({ code: 'ERR_OIDC_DISCOVERY', message: expect.stringMatching(/is not .*'s$/) });
  });

  test('an authorization_endpoint that is not https: (javascript:, say) is refused before any page is sent there', async () => {
    const s = await oidcSetup();
    // A scheme that merely starts with "https" (httpsx:) is no https: URL.
    for (const endpoint of [
      'javascript:alert(1)',
      'http://auth.acme.test/oauth/oidc/authorize',
      'httpsx://auth.acme.test/authorize',
      undefined,
    ]) {
      const oidc = s.client({
        fetch: async (input, init) => {
          const metadata = (await (await fetch(input, init)).json()) as object;
          return Response.json({ ...metadata, authorization_endpoint: endpoint });
        },
      });
      await expect(oidc.startSignIn()).rejects.toMatchObject({ code: 'ERR_OIDC_DISCOVERY' });
    }
  });

  test('a token_endpoint or jwks_uri missing, empty or not https: is refused when discovery is read, naming it, not when the code comes back', async () => {
    const s = await oidcSetup();
    const cases: [endpoint: string, value: string | undefined][] = [
      ['token_endpoint', undefined],
      ['token_endpoint', 'javascript:alert(1)'],
      ['jwks_uri', ''],
      ['jwks_uri', 'http://auth.acme.test/oauth/oidc/jwks'],
    ];
    for (const [endpoint, value] of cases) {
      const oidc = s.client({
        fetch: async (input, init) => {
          const metadata = (await (await fetch(input, init)).json()) as object;
          return Response.json({ ...metadata, [endpoint]: value });
        },
      });
      const error = await rejection(oidc.startSignIn());
      expect(error).toBeInstanceOf(OidcError);
      expect(error).toMatchObject({ code: 'ERR_OIDC_DISCOVERY', message: `the discovery document's ${endpoint} is missing or not https:` });
    }
  });

  test('an unreachable issuer is ERR_OIDC_DISCOVERY with the network error as cause, and is tried again next time', async () => {
    const s = await oidcSetup();
    let down = true;
    const oidc = s.client({
      fetch: (input, init) => (down ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init)),
    });
    const error = await rejection(oidc.startSignIn());
    expect(error).toMatchObject({ code: 'ERR_OIDC_DISCOVERY', cause: expect.any(TypeError) });
    down = false;
    await expect(oidc.startSignIn()).resolves.toHaveProperty('url');
  });
});

describe('OIDC helper: refused before the person is sent away, each naming the key', () => {
  const cases: [string, Parameters<ReturnType<typeof createOidcClient>['startSignIn']>[0], string, RegExp][] = [
    [
      'an unknown claim key',
      { claims: { acme: [claimKey('acmeidentity.shoe_size')] } },
      'claims.acme.acmeidentity.shoe_size',
      /acme_claims_supported/,
    ],
    [
      'essential on a document claim',
      { claims: { acme: { 'document.passport.travel_document_number': { essential: true } } } },
      'claims.acme.document.passport.travel_document_number',
      /document/,
    ],
    [
      'essential on a credential that cannot be obtained',
      { claims: { acme: { 'acmeidentity.name': { essential: true } } } },
      'claims.acme.acmeidentity.name',
      /cannot be essential/,
    ],
    ['no openid in scope', { scope: ['profile'] }, 'scope', /openid/],
    ['a scope that is not scope tokens', { scope: ['openid', 'profile email'] }, 'scope', /scope tokens/],
    ['phone without its country code', { phone: '412345678' }, 'phoneCountryCode', /required with phone/],
    ['a country code that is not 1 to 3 digits', { phone: '412345678', phoneCountryCode: '+61' }, 'phoneCountryCode', /digits/],
    ['a namespace the service does not know', { claims: { address: ['street'] } as never }, 'claims.address', /acme/],
    ['a standard namespace that is not an array', { claims: { profile: 'given_name' } as never }, 'claims.profile', /array/],
    ['an empty ruleset', { ruleset: '' }, 'ruleset', /non-empty/],
    ['a standard claim name discovery does not list', { claims: { profile: ['shoe_size'] } }, 'claims.profile', /claims_supported/],
    ['an empty prompt', { prompt: '' }, 'prompt', /non-empty/],
    ['a login_hint that is not a string', { loginHint: 5 as never }, 'loginHint', /non-empty/],
    ['an empty list of ui_locales', { uiLocales: [] }, 'uiLocales', /non-empty/],
    ['acr_values with an empty entry', { acrValues: ['urn:acme:loa:2', ''] }, 'acrValues', /non-empty/],
    ['a list where one string is expected', { ruleset: ['basic'] as never }, 'ruleset', /non-empty string/],
    ['a negative max_age', { maxAge: -1 }, 'maxAge', /whole seconds/],
    ['a max_age that is not whole seconds', { maxAge: 1.5 }, 'maxAge', /whole seconds/],
    ['a max_age given as text', { maxAge: '60' as never }, 'maxAge', /whole seconds/],
    ['a country code of four digits', { phone: '412345678', phoneCountryCode: '6112' }, 'phoneCountryCode', /digits/],
    ['a country code with text after it', { phone: '412345678', phoneCountryCode: '61a' }, 'phoneCountryCode', /digits/],
    ['claims that is a list', { claims: ['acme'] as never }, 'claims', /object/],
    ['claims that is null', { claims: null as never }, 'claims', /object/],
    ['claims that is text', { claims: 'acme' as never }, 'claims', /object/],
    [
      'standard claim names one of which discovery does not list',
      { claims: { profile: ['given_name', 'shoe_size'] } },
      'claims.profile',
      /claims_supported/,
    ],
  ];
  test.each(cases)('%s', async (_name, params, field, message) => {
    const s = await oidcSetup();
    const error = await rejection(s.client().startSignIn(params));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ code: 'ERR_INVALID_INPUT', field });
    expect((error as InvalidInputError).issues[0]!.message).toMatch(message);
    expect(s.calls(/authorize$/)).toBe(0);
  });

  test("property: a scope token is printable ASCII but space, '\"' and '\\' (RFC 6749 §3.3); any other is refused before the redirect", async () => {
    const s = await oidcSetup();
    const client = s.client();
    const character = fc.integer({ min: 0x1f, max: 0x80 }).map((code) => String.fromCharCode(code));
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: character, minLength: 1, maxLength: 4 }), async (token) => {
        const valid = [...token].every((c) => c >= '!' && c <= '~' && c !== '"' && c !== '\\');
        const outcome = await client.startSignIn({ scope: ['openid', token] }).then(
          () => 'sent',
          (error: unknown) => (error as InvalidInputError).field,
        );
        expect(outcome).toBe(valid ? 'sent' : 'scope');
      }),
      { examples: [['"'], ['\\'], ['a"b'], ['!'], ['~'], ['#'], ['[]']] },
    );
  });

  test('the service would have answered invalid_request for each: the fake agrees', async () => {
    const s = await oidcSetup();
    s.service.settings.authorizationErrors = 'redirect';
    const { url } = await s.client().startSignIn();
    url.searchParams.set('claims', JSON.stringify({ acme: { 'document.passport.travel_document_number': { essential: true } } }));
    const back = await s.visit(url);
    expect(back.searchParams.get('error')).toBe('invalid_request');
  });

  test("a person who would land on the service's 400 page (the default, the spec's form): the pre-redirect check is all that stands between", async () => {
    const s = await oidcSetup();
    // What the SDK refuses before the redirect, the service would have shown the person as a 400 page.
    const { url } = await s.client().startSignIn({ claims: { profile: ['given_name'] } });
    url.searchParams.set('claims', JSON.stringify({ profile: ['shoe_size'] }));
    const page = await s.service.fetch(new Request(url));
    expect(page.status).toBe(400);
    expect(await page.json()).toMatchObject({ error: 'invalid_request' });
    await expect(s.client().startSignIn({ claims: { profile: ['shoe_size'] } })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      field: 'claims.profile',
    });
  });

  test('every problem is reported at once', async () => {
    const s = await oidcSetup();
    const error = (await rejection(
      s.client().startSignIn({ scope: 'profile', phone: '1', claims: { acme: [claimKey('nope.nope')] } }),
    )) as InvalidInputError;
    expect(error.issues.map((i) => i.field)).toEqual(['scope', 'claims.acme.nope.nope', 'phoneCountryCode']);
  });
});

describe('OIDC helper: client authentication at the token endpoint', () => {
  const registration = (method: TokenEndpointAuthMethod, extra: Partial<OidcClientRegistration> = {}): OidcClientRegistration => ({
    ...DEFAULT_OIDC_CLIENT,
    clientId: `client-${method}`,
    tokenEndpointAuthMethod: method,
    clientSecret: 'confidential-secret-0123456789',
    ...extra,
  });

  test.each(['client_secret_basic', 'client_secret_post'] as const)('%s', async (method) => {
    const s = await oidcSetup({ fake: { oidcClients: [registration(method)] } });
    const oidc = s.client({
      clientId: `client-${method}`,
      clientAuthentication: { method, clientSecret: 'confidential-secret-0123456789' },
    });
    const { url, transaction } = await oidc.startSignIn();
    await expect(oidc.finishSignIn(await s.visit(url), transaction)).resolves.toHaveProperty('claims.aud', `client-${method}`);
  });

  test('private_key_jwt', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const s = await oidcSetup({
      fake: { oidcClients: [registration('private_key_jwt', { jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'rp-1' }] } })] },
    });
    const oidc = s.client({
      clientId: 'client-private_key_jwt',
      clientAuthentication: { method: 'private_key_jwt', privateKey, kid: 'rp-1' },
    });
    const { url, transaction } = await oidc.startSignIn();
    await expect(oidc.finishSignIn(await s.visit(url), transaction)).resolves.toHaveProperty('claims.aud', 'client-private_key_jwt');
  });

  test('only invalid_client names the client and what to check: another token error (an expired code) says only what the service said', async () => {
    const s = await oidcSetup();
    const oidc = s.client();
    const { url, transaction } = await oidc.startSignIn();
    const callback = await s.visit(url);
    s.advance(120_000);
    const error = await rejection(oidc.finishSignIn(callback, transaction));
    expect(error).toMatchObject({ code: 'ERR_OIDC_TOKEN', error: 'invalid_grant' });
    expect((error as Error).message).not.toContain('check clientId');
  });

  test('a wrong secret is ERR_OIDC_TOKEN invalid_client, and the error does not carry the secret', async () => {
    const s = await oidcSetup({ fake: { oidcClients: [registration('client_secret_basic')] } });
    const oidc = s.client({
      clientId: 'client-client_secret_basic',
      clientAuthentication: { method: 'client_secret_basic', clientSecret: 'wrong-secret-but-still-a-secret' },
    });
    const { url, transaction } = await oidc.startSignIn();
    const error = await rejection(oidc.finishSignIn(await s.visit(url), transaction));
    expect(error).toMatchObject({ code: 'ERR_OIDC_TOKEN', error: 'invalid_client', status: 401 });
    // The message names the client and what to check (#27), never the secret.
    expect((error as Error).message).toContain('client "client-client_secret_basic": check clientId');
    expect(JSON.stringify(error) + String(error)).not.toContain('wrong-secret');
    // The fake answers with a Basic challenge, as RFC 6749 §5.2 asks: the error above came from it.
    const raw = await s.service.fetch(
      new Request(`${s.service.authUrl}/oauth/oidc/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${btoa('client-client_secret_basic:wrong')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=authorization_code&code=x',
      }),
    );
    expect(raw.headers.get('www-authenticate')).toBe('Basic realm="acme-identity"');
    const { inspect } = await import('node:util');
    expect(inspect(error, { depth: 5 }) + JSON.stringify(error)).not.toContain('wrong-secret');
  });

  test('a method the service does not take (not shown by the spec): invalid_client names the methods discovery lists, never the secret', async () => {
    const s = await oidcSetup({ fake: { oidcClients: [registration('client_secret_post')] } });
    const onlyPost = discovery((metadata) => ({
      ...metadata,
      // A name that is no method (a line break, a forged log line, more than 40 characters) is not repeated in the message.
      token_endpoint_auth_methods_supported: [
        'client_secret_post',
        'private_key_jwt',
        'none\nINFO forged line',
        `m${'_'.repeat(39)}`,
        `n${'_'.repeat(40)}`,
      ],
    }));
    /** A sign-in of the client registered for client_secret_post, authenticating as given: its refusal. */
    const refusal = async (method: 'client_secret_basic' | 'client_secret_post', clientSecret: string) => {
      const oidc = s.client({ clientId: 'client-client_secret_post', clientAuthentication: { method, clientSecret }, fetch: onlyPost });
      const started = await oidc.startSignIn();
      return rejection(oidc.finishSignIn(await s.visit(started.url), started.transaction));
    };
    const error = await refusal('client_secret_basic', 'confidential-secret-0123456789');
    expect(error).toMatchObject({ code: 'ERR_OIDC_TOKEN', error: 'invalid_client' });
    expect((error as Error).message).toContain(
      `client_secret_basic is not among the methods discovery lists: client_secret_post, private_key_jwt, m${'_'.repeat(39)})`,
    );
    expect(String(error)).not.toContain('confidential-secret');
    expect((error as Error).message).not.toContain('forged');
    // The method discovery lists: nothing more to say than what to check.
    const refused = await refusal('client_secret_post', 'wrong-secret-but-still-a-secret');
    expect(refused).toMatchObject({ code: 'ERR_OIDC_TOKEN', error: 'invalid_client' });
    expect((refused as Error).message).toContain('check clientId');
    expect((refused as Error).message).not.toContain('not among');
  });

  test('unusable client authentication options are refused when the client is made', () => {
    const make = (clientAuthentication: unknown) => () =>
      createOidcClient({
        authUrl: 'https://auth.acme.test',
        clientId: 'c',
        redirectUri: REDIRECT,
        clientAuthentication: clientAuthentication as never,
      });
    expect(make({ method: 'client_secret_basic' })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'clientAuthentication.clientSecret' }),
    );
    expect(make({ method: 'private_key_jwt', privateKey: 'pem' })).toThrow(
      expect.objectContaining({ option: 'clientAuthentication.privateKey' }),
    );
    expect(make({ method: 'tls_client_auth' })).toThrow(expect.objectContaining({ option: 'clientAuthentication.clientSecret' }));
    expect(make({ method: 'tls_client_auth', clientSecret: 'x' })).toThrow(
      expect.objectContaining({ option: 'clientAuthentication.method' }),
    );
    expect(make({ method: 'client_secret_post', clientSecret: '' })).toThrow(
      expect.objectContaining({ option: 'clientAuthentication.clientSecret' }),
    );
  });

  test('private_key_jwt takes a private key only: the public half of the pair is refused when the client is made', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const make = (key: CryptoKey) => () =>
      createOidcClient({
        authUrl: 'https://auth.acme.test',
        clientId: 'c',
        redirectUri: REDIRECT,
        clientAuthentication: { method: 'private_key_jwt', privateKey: key },
      });
    expect(make(publicKey)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'clientAuthentication.privateKey' }));
    expect(make(privateKey)).not.toThrow();
  });
});

describe('OIDC helper: configuration', () => {
  test('plain http: only for a loopback issuer unless allowed', () => {
    const make = (authUrl: string, allowInsecureRequests?: boolean) => () =>
      createOidcClient({
        authUrl,
        clientId: 'c',
        redirectUri: REDIRECT,
        ...(allowInsecureRequests === undefined ? {} : { allowInsecureRequests }),
      });
    expect(make('http://auth.acme.test')).toThrow(expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'authUrl' }));
    expect(make('http://localhost:4000')).not.toThrow();
    expect(make('http://127.0.0.1:4000')).not.toThrow();
    expect(make('http://auth.internal', true)).not.toThrow();
    // Set to false, it is false for a loopback issuer too.
    expect(make('http://localhost:4000', false)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'authUrl' }));
    expect(make('https://localhost:4000', false)).not.toThrow();
    // Loopback by its whole name: a host that only starts or ends like one is anyone's.
    for (const lookalike of [
      'http://localhost.evil.example',
      'http://127.0.0.1.evil.example',
      'http://localhost-evil.example',
      'http://notlocalhost',
    ]) {
      expect(make(lookalike), lookalike).toThrow(expect.objectContaining({ option: 'authUrl' }));
    }
  });

  test('a scope given as one string is split on spaces, however many', async () => {
    const s = await oidcSetup();
    const { url } = await s.client().startSignIn({ scope: ' openid  profile ' });
    expect(url.searchParams.get('scope')).toBe('openid profile');
  });

  test('MemoryStateStore: a state is used once while its time lasts, and forgotten when it ends', () => {
    let clock = 1_000;
    const store = new MemoryStateStore({ now: () => clock });
    expect(store.use('s1', 100)).toBe(true);
    expect(store.use('s1', 100)).toBe(false);
    clock += 99;
    expect(store.use('s1', 100)).toBe(false);
    clock += 1;
    expect(store.use('s1', 100)).toBe(true);
  });

  test('the default state store keeps the client’s clock: a frozen clock never lets it forget a state in use', async () => {
    const s = await oidcSetup();
    const oidc = s.client();
    const { url, transaction } = await oidc.startSignIn();
    const callback = await s.visit(url);
    await oidc.finishSignIn(callback, transaction);
    // The wall clock moves on an hour; the client's own clock (options.now) has not moved.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3_600_000 });
    try {
      await expect(oidc.finishSignIn(callback, transaction)).rejects.toMatchObject({ code: 'ERR_OIDC_STATE' });
    } finally {
      vi.useRealTimers();
    }
  });

  test('a state store without use(state, ttlMs) is refused when the client is made', () => {
    for (const stateStore of [{}, { use: 'yes' }]) {
      expect(
        () => createOidcClient({ authUrl: 'https://a.test', clientId: 'c', redirectUri: REDIRECT, stateStore: stateStore as never }),
        JSON.stringify(stateStore),
      ).toThrow(expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'stateStore' }));
    }
  });

  test('the state store keeps a used state as long as its transaction could still finish, and not a moment less', async () => {
    const s = await oidcSetup();
    const asked: [string, number][] = [];
    const stateStore = {
      use: (state: string, ttlMs: number) => {
        asked.push([state, ttlMs]);
        return true;
      },
    };
    let oidc = s.client({ stateStore });
    let { url, transaction } = await oidc.startSignIn();
    s.advance(10 * 60_000);
    await oidc.finishSignIn(await s.visit(url), transaction);
    // Thirty minutes from the start, ten of them gone.
    expect(asked).toEqual([[transaction.state, 20 * 60_000]]);
    // At the last moment transactionMaxAgeMs allows, what is left is nothing: still a positive time.
    oidc = s.client({ stateStore, transactionMaxAgeMs: 60_000 });
    ({ url, transaction } = await oidc.startSignIn());
    s.advance(60_000);
    await oidc.finishSignIn(await s.visit(url), transaction);
    expect(asked[1]).toEqual([transaction.state, 1]);
  });

  test('a state store that cannot be reached fails the sign-in closed, before the code is exchanged', async () => {
    const s = await oidcSetup();
    const down = new Error('ECONNREFUSED');
    const oidc = s.client({ stateStore: { use: () => Promise.reject(down) } });
    const { url, transaction } = await oidc.startSignIn();
    const error = await rejection(oidc.finishSignIn(await s.visit(url), transaction));
    expect(error).toBeInstanceOf(OidcError);
    expect(error).toMatchObject({ code: 'ERR_OIDC_STATE', cause: down });
    expect(s.calls(/token$/)).toBe(0);
  });

  test('with no acme_claims_supported in discovery, supportedClaims is empty and no acme claim can be asked for', async () => {
    const s = await oidcSetup();
    const oidc = s.client({ fetch: discovery(({ acme_claims_supported: _, ...rest }) => rest) });
    await expect(oidc.supportedClaims()).resolves.toEqual([]);
    // Nothing listed, nothing to ask for: refused before the person is sent away.
    const error = await rejection(oidc.startSignIn({ claims: { acme: ['acmeidentity.name'] } }));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'claims.acme.acmeidentity.name' });
  });

  test('with no claims_supported in discovery, any standard claim name may be asked for (nothing to check it against), and the sign-in finishes', async () => {
    const s = await oidcSetup();
    const oidc = s.client({ fetch: discovery(({ claims_supported: _, ...rest }) => rest) });
    const { url, transaction } = await oidc.startSignIn({ claims: { profile: ['given_name'], email: ['email'] } });
    expect(JSON.parse(url.searchParams.get('claims') ?? '')).toEqual({ profile: ['given_name'], email: ['email'] });
    await expect(oidc.finishSignIn(await s.visit(url), transaction)).resolves.toHaveProperty('claims.sub');
  });

  test('missing or relative options name the option', () => {
    expect(() => createOidcClient({ authUrl: '/auth', clientId: 'c', redirectUri: REDIRECT })).toThrow(
      expect.objectContaining({ option: 'authUrl' }),
    );
    expect(() => createOidcClient({ authUrl: 'https://a.test', clientId: '', redirectUri: REDIRECT })).toThrow(
      expect.objectContaining({ option: 'clientId' }),
    );
    expect(() => createOidcClient({ authUrl: 'https://a.test', clientId: 'c', redirectUri: 'callback' })).toThrow(
      expect.objectContaining({ option: 'redirectUri' }),
    );
  });

  test('property: the bounds a sign-in is checked within are finite numbers, 0 or more; anything else is a ConfigurationError naming it', () => {
    const base = { authUrl: 'https://a.test', clientId: 'c', redirectUri: REDIRECT };
    const keys = fc.constantFrom('clockToleranceSeconds', 'transactionMaxAgeMs', 'discoveryMaxAgeMs');
    const edges = fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0, null);
    const values = fc.oneof(edges, fc.double(), fc.integer({ min: -10, max: 10 }), fc.string({ maxLength: 3 }), fc.boolean());
    fc.assert(
      fc.property(fc.constantFrom(createOidcClient, createBrowserSignIn), keys, values, (create, key, value) => {
        // null is "not given": the default applies. A tolerance of Infinity would be no time check
        // (oauth4webapi reads it as its own 30 s), a sign-in's age of Infinity a time to live a shared state store refuses.
        const allowed = value === null || (typeof value === 'number' && Number.isFinite(value) && value >= 0);
        const creating = () => create({ ...base, [key]: value } as never);
        if (allowed) expect(creating).not.toThrow();
        else expect(creating).toThrow(expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: key }));
      }),
      { numRuns: 300 },
    );
  });

  test("a sign-in's age is checked and defaulted once, where the core is made: 30 minutes, or the one given", () => {
    const base = { authUrl: 'https://a.test', clientId: 'c', redirectUri: REDIRECT };
    expect(createCore(base, async () => new Response()).transactionMaxAgeMs).toBe(1_800_000);
    expect(createCore({ ...base, transactionMaxAgeMs: 5_000 }, async () => new Response()).transactionMaxAgeMs).toBe(5_000);
  });

  test('no options at all: a ConfigurationError naming the first one, never a TypeError', () => {
    for (const create of [createOidcClient, createBrowserSignIn]) {
      expect(() => create(undefined as never)).toThrow(ConfigurationError);
      expect(() => create(undefined as never)).toThrow(expect.objectContaining({ option: 'authUrl' }));
    }
  });
});

describe("the core's fetch", () => {
  test('property: only https: URLs are fetched, and http: ones where plain http is allowed (a loopback issuer); any other scheme is refused unsent', async () => {
    const sent: string[] = [];
    const fetch = async (request: string | URL | Request) => {
      sent.push(String(request));
      return new Response('{}');
    };
    const secure = createCore(
      { authUrl: 'https://auth.example', redirectUri: 'https://rp.example/cb', clientId: 'c', fetch },
      async () => new Response(),
    );
    const loopback = createCore(
      { authUrl: 'http://localhost:4000', redirectUri: 'http://localhost:3000/cb', clientId: 'c', fetch },
      async () => new Response(),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('data:', 'javascript:', 'file:', 'blob:', 'ftp:', 'httpsx:'), fc.webPath(), async (scheme, path) => {
        for (const core of [secure, loopback]) {
          await expect(core.get(`${scheme}//host${path}`)).rejects.toMatchObject({ code: 'ERR_OIDC_RESPONSE' });
        }
        await expect(secure.get(`http://host${path}`)).rejects.toMatchObject({ code: 'ERR_OIDC_RESPONSE' });
        expect(sent).toEqual([]);
        await expect(secure.get(`HTTP://host${path}`)).rejects.toMatchObject({ code: 'ERR_OIDC_RESPONSE' });
        expect(sent).toEqual([]);
        await loopback.get(`http://host${path}`);
        await secure.get(`https://host${path}`);
        // A scheme is case-insensitive (RFC 3986 §3.1): HTTPS: is https:, as the SD-JWT key source reads it.
        await secure.get(`HTTPS://host${path}`);
        await loopback.get(`Http://host${path}`);
        expect(sent).toEqual([`http://host${path}`, `https://host${path}`, `HTTPS://host${path}`, `Http://host${path}`]);
        sent.length = 0;
      }),
    );
  });
});
