/** `@acme/identity/oidc/browser` in Node, with the page's storage and location stood in for. */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createBrowserSignIn, fetchUserInfo, OidcError, type BrowserSignInOptions } from '../../src/oidc/browser.js';
import { DEFAULT_OIDC_CLIENT } from '../../src/testing/index.js';
import { http, HttpResponse } from 'msw';
import { rejection, server } from '../helpers.js';
import { REDIRECT, oidcSetup } from './setup.js';

/** `sessionStorage` as a page has it, one per tab. */
class TabStorage {
  readonly items = new Map<string, string>();
  getItem = (key: string) => this.items.get(key) ?? null;
  setItem = (key: string, value: string) => void this.items.set(key, value);
  removeItem = (key: string) => void this.items.delete(key);
}

afterEach(() => vi.unstubAllGlobals());

async function browserSetup(extra: Partial<BrowserSignInOptions> = {}) {
  const s = await oidcSetup();
  const storage = new TabStorage();
  const signIn = createBrowserSignIn({
    authUrl: s.service.authUrl,
    clientId: DEFAULT_OIDC_CLIENT.clientId,
    redirectUri: REDIRECT,
    storage,
    now: s.now,
    fetch: s.fetch,
    ...extra,
  });
  return { ...s, storage, signIn };
}

describe('OIDC browser helper', () => {
  test('redirect and callback: the transaction waits in storage under its state and is taken out once used', async () => {
    const { signIn, storage, visit } = await browserSetup();
    const url = await signIn.authorizationUrl({
      scope: ['openid', 'profile'],
      claims: { acme: ['acmeidentity.name'] },
      data: { returnTo: '/me' },
    });
    const state = url.searchParams.get('state')!;
    expect([...storage.items.keys()]).toEqual([`acme-identity.oidc.${state}`]);
    const callback = await visit(url);
    const result = await signIn.handleCallback(callback);
    expect(result.claims).toMatchObject({ nonce: url.searchParams.get('nonce'), 'acmeidentity.name': expect.any(String) });
    expect(result.data).toEqual({ returnTo: '/me' });
    expect(storage.items.size).toBe(0);
    // The same callback again (a reload, a replayed link) finds nothing waiting.
    const again = await rejection(signIn.handleCallback(callback.href));
    expect(again).toBeInstanceOf(OidcError);
    expect(again).toMatchObject({ code: 'ERR_OIDC_STATE' });
  });

  test('the standard OpenID Connect parameters, and max_age checked at the callback from the stored transaction', async () => {
    const { signIn, visit, advance } = await browserSetup();
    const url = await signIn.authorizationUrl({
      prompt: 'consent',
      loginHint: 'jane@example.com',
      maxAge: 30,
      uiLocales: 'en-AU',
      acrValues: ['a', 'b'],
    });
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      prompt: 'consent',
      login_hint: 'jane@example.com',
      max_age: '30',
      ui_locales: 'en-AU',
      acr_values: 'a b',
    });
    // The person's session at the service began 40 s before this request (an OP that ignored max_age reused it).
    advance(-40_000);
    const callback = await visit(url);
    advance(40_000);
    await expect(signIn.handleCallback(callback)).rejects.toMatchObject({ code: 'ERR_OIDC_ID_TOKEN', claim: 'auth_time' });
  });

  test('two tabs signing in at once both succeed, whichever comes back first', async () => {
    const { signIn, storage, visit } = await browserSetup();
    const first = await signIn.authorizationUrl();
    const second = await signIn.authorizationUrl();
    expect(storage.items.size).toBe(2);
    const secondBack = await visit(second);
    const firstBack = await visit(first);
    await expect(signIn.handleCallback(secondBack)).resolves.toHaveProperty('claims.nonce', second.searchParams.get('nonce'));
    await expect(signIn.handleCallback(firstBack)).resolves.toHaveProperty('claims.nonce', first.searchParams.get('nonce'));
  });

  test('only the keys that fit the ID token are tried: another kind of key listed first (an EC key, an encryption key) is passed over', async () => {
    const { publicKey } = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const ec = { ...(await crypto.subtle.exportKey('jwk', publicKey)), kid: 'another-kind' };
    const { signIn, visit } = await browserSetup({
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (!String(input).endsWith('/jwks')) return response;
        const { keys } = (await response.json()) as { keys: JsonWebKey[] };
        const encryption = keys.map((key) => ({ ...key, use: 'enc' }));
        return Response.json({ keys: [ec, ...encryption, ...keys] });
      },
    });
    await expect(signIn.handleCallback(await visit(await signIn.authorizationUrl()))).resolves.toHaveProperty('claims');
  });

  test('each callback reads the JWKS: a key rotated since the last sign-in verifies at once, with no cooldown', async () => {
    let reads = 0;
    const { signIn, visit, service } = await browserSetup({
      fetch: (input, init) => {
        if (String(input).endsWith('/jwks')) reads++;
        return fetch(input, init);
      },
    });
    await signIn.handleCallback(await visit(await signIn.authorizationUrl()));
    expect(reads).toBe(1);
    await service.rotateSigningKey();
    // A backend keeps its key set and reads it again only after 30 s; a page holds one sign-in and reads it each time.
    await expect(signIn.handleCallback(await visit(await signIn.authorizationUrl()))).resolves.toHaveProperty('claims');
    expect(reads).toBe(2);
  });

  test('the token request is a public client’s form POST asking for JSON: the code, the verifier, the client id, no credentials', async () => {
    let sent: Request | undefined;
    const { signIn, visit } = await browserSetup({
      fetch: (input, init) => {
        const request = new Request(input, init);
        if (request.url.endsWith('/token')) sent = request.clone();
        return fetch(request);
      },
    });
    const url = await signIn.authorizationUrl();
    const callback = await visit(url);
    await signIn.handleCallback(callback);
    expect(sent).toBeDefined();
    expect(sent!.method).toBe('POST');
    expect(sent!.headers.get('accept')).toBe('application/json');
    expect(sent!.headers.get('authorization')).toBeNull();
    expect(Object.fromEntries(new URLSearchParams(await sent!.text()))).toEqual({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code'),
      redirect_uri: REDIRECT,
      code_verifier: expect.stringMatching(/^[\w-]{43,128}$/),
      client_id: DEFAULT_OIDC_CLIENT.clientId,
    });
  });

  test('a sign-in started by another helper on the same storage (another redirect URI) is finished with the redirect URI it was started with', async () => {
    // RFC 6749 §4.1.3: the token request's redirect_uri is the authorization request's; the fake refuses any other as invalid_grant.
    const { signIn, storage, visit, service, now } = await browserSetup();
    const elsewhere = 'http://localhost:3000/callback';
    expect(DEFAULT_OIDC_CLIENT.redirectUris).toContain(elsewhere);
    const other = createBrowserSignIn({
      authUrl: service.authUrl,
      clientId: DEFAULT_OIDC_CLIENT.clientId,
      redirectUri: elsewhere,
      storage,
      now,
    });
    const url = await other.authorizationUrl();
    expect(url.searchParams.get('redirect_uri')).toBe(elsewhere);
    await expect(signIn.handleCallback(await visit(url))).resolves.toHaveProperty('claims.nonce', url.searchParams.get('nonce'));
  });

  test('a callback whose state no sign-in of this browser started is refused before any request', async () => {
    const { signIn, visit, calls } = await browserSetup();
    const url = await signIn.authorizationUrl();
    const callback = await visit(url);
    callback.searchParams.set('state', 'started-elsewhere');
    await expect(signIn.handleCallback(callback)).rejects.toMatchObject({ code: 'ERR_OIDC_STATE' });
    expect(calls(/token$/)).toBe(0);
  });

  test('a sign-in is used once even when its callback fails or comes twice at once: the second finds nothing, and the code is exchanged at most once', async () => {
    const { signIn, storage, visit, calls } = await browserSetup();
    // Twice at once (a double-submitted page, two tabs restoring the same URL): one finishes.
    const callback = await visit(await signIn.authorizationUrl());
    const outcomes = await Promise.allSettled([signIn.handleCallback(callback), signIn.handleCallback(callback)]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({ reason: { code: 'ERR_OIDC_STATE' } });
    expect(calls(/token$/)).toBe(1);
    // A callback that fails (its code altered) has spent its sign-in all the same: tried again, nothing waits.
    const spoilt = await visit(await signIn.authorizationUrl());
    spoilt.searchParams.set('code', `${spoilt.searchParams.get('code')}x`);
    await expect(signIn.handleCallback(spoilt)).rejects.toBeInstanceOf(OidcError);
    expect(storage.items.size).toBe(0);
    await expect(signIn.handleCallback(spoilt)).rejects.toMatchObject({ code: 'ERR_OIDC_STATE' });
    expect(calls(/token$/)).toBe(2);
  });

  test('a callback given as a path with its query (what a client-side router hands over) is read against the redirect URI', async () => {
    const { signIn, visit } = await browserSetup();
    const callback = await visit(await signIn.authorizationUrl());
    const result = await signIn.handleCallback(`${callback.pathname}${callback.search}`);
    expect(result.claims.aud).toBe(DEFAULT_OIDC_CLIENT.clientId);
  });

  test('a sign-in older than transactionMaxAgeMs is refused at its callback, before the code is exchanged', async () => {
    const { signIn, visit, advance, calls } = await browserSetup({ transactionMaxAgeMs: 60_000 });
    const callback = await visit(await signIn.authorizationUrl());
    advance(60_001);
    await expect(signIn.handleCallback(callback)).rejects.toMatchObject({ code: 'ERR_OIDC_TRANSACTION' });
    expect(calls(/token$/)).toBe(0);
  });

  test('a corrupted storage entry is treated as missing', async () => {
    const { signIn, storage, visit } = await browserSetup();
    const url = await signIn.authorizationUrl();
    storage.setItem(`acme-identity.oidc.${url.searchParams.get('state')}`, '{not json');
    await expect(signIn.handleCallback(await visit(url))).rejects.toMatchObject({ code: 'ERR_OIDC_STATE' });
  });

  test('a sign-in without a nonce (nonce: false) still needs an ID token: an answer without one is ERR_OIDC_ID_TOKEN', async () => {
    const { signIn, visit, service } = await browserSetup({ nonce: false });
    const url = await signIn.authorizationUrl();
    expect(url.searchParams.has('nonce')).toBe(false);
    const callback = await visit(url);
    const noIdToken = () => HttpResponse.json({ access_token: 'at', token_type: 'Bearer', expires_in: 300 });
    server.use(http.post(`${service.authUrl}/oauth/oidc/token`, noIdToken, { once: true }));
    await expect(signIn.handleCallback(callback)).rejects.toMatchObject({ code: 'ERR_OIDC_ID_TOKEN' });
  });

  test('a stored sign-in whose nonce was taken out does not turn the nonce check off: ERR_OIDC_TRANSACTION, and nothing is exchanged', async () => {
    const { signIn, storage, visit, service } = await browserSetup();
    const url = await signIn.authorizationUrl();
    const key = `acme-identity.oidc.${url.searchParams.get('state')}`;
    const { nonce: _nonce, ...withoutNonce } = JSON.parse(storage.getItem(key) ?? '{}') as Record<string, unknown>;
    storage.setItem(key, JSON.stringify(withoutNonce));
    const callback = await visit(url);
    let exchanged = false;
    server.use(
      http.post(`${service.authUrl}/oauth/oidc/token`, () => {
        exchanged = true;
        return HttpResponse.json({ error: 'invalid_grant' }, { status: 400 });
      }),
    );
    await expect(signIn.handleCallback(callback)).rejects.toMatchObject({ code: 'ERR_OIDC_TRANSACTION' });
    expect(exchanged).toBe(false);
  });

  test('redirect() sends the page away; handleCallback() reads location.href; sessionStorage is the default', async () => {
    const session = new TabStorage();
    const assign = vi.fn();
    vi.stubGlobal('sessionStorage', session);
    vi.stubGlobal('location', { assign, href: 'https://rp.example/' });
    const s = await oidcSetup();
    const signIn = createBrowserSignIn({ authUrl: s.service.authUrl, clientId: DEFAULT_OIDC_CLIENT.clientId, redirectUri: REDIRECT });
    await signIn.redirect({ scope: 'openid email' });
    expect(assign).toHaveBeenCalledOnce();
    const target = assign.mock.calls[0]![0] as URL;
    expect(target.searchParams.get('scope')).toBe('openid email');
    expect(session.items.size).toBe(1);
    vi.stubGlobal('location', { assign, href: (await s.visit(target)).href });
    await expect(signIn.handleCallback()).resolves.toHaveProperty('claims.aud', DEFAULT_OIDC_CLIENT.clientId);
    expect(session.items.size).toBe(0);
  });

  test('userinfo, when the page wants it', async () => {
    const { signIn, visit } = await browserSetup();
    const url = await signIn.authorizationUrl({ claims: { acme: ['acmeidentity.given_name'] } });
    const result = await signIn.handleCallback(await visit(url));
    await expect(fetchUserInfo(signIn, result)).resolves.toMatchObject({ sub: result.claims.sub });
    // Called without what createBrowserSignIn returned, or without the finished sign-in: a typed error naming it.
    await expect(fetchUserInfo(undefined as never, result)).rejects.toMatchObject({ code: 'ERR_INVALID_CONFIG', option: 'signIn' });
    await expect(fetchUserInfo({} as never, result)).rejects.toMatchObject({ code: 'ERR_INVALID_CONFIG', option: 'signIn' });
    await expect(fetchUserInfo(signIn, undefined as never)).rejects.toMatchObject({ code: 'ERR_INVALID_CONFIG', option: 'result' });
    await expect(fetchUserInfo(signIn, {} as never)).rejects.toMatchObject({ code: 'ERR_INVALID_CONFIG', option: 'result' });
  });

  test('validation before the redirect is the same as on a backend', async () => {
    const { signIn, storage } = await browserSetup();
    await expect(
      signIn.authorizationUrl({ claims: { acme: { 'document.passport.travel_document_number': { essential: true } } } }),
    ).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      field: 'claims.acme.document.passport.travel_document_number',
    });
    expect(storage.items.size).toBe(0);
  });

  test('a client secret is refused, in the types and at run time', () => {
    const base = { authUrl: 'https://auth.acme.test', clientId: 'c', redirectUri: REDIRECT, storage: new TabStorage() };
    // @ts-expect-error a browser cannot keep a secret
    expect(() => createBrowserSignIn({ ...base, clientSecret: 'shh-this-is-secret' })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'clientSecret' }),
    );
    // @ts-expect-error nor authenticate any other way than as a public client
    expect(() => createBrowserSignIn({ ...base, clientAuthentication: { method: 'client_secret_basic', clientSecret: 'x' } })).toThrow(
      expect.objectContaining({ option: 'clientAuthentication' }),
    );
    // Any value given is refused, even one that is no secret: a secret option on a page is a mistake to say.
    for (const clientSecret of ['', null, 0, false]) {
      expect(() => createBrowserSignIn({ ...base, clientSecret } as never)).toThrow(expect.objectContaining({ option: 'clientSecret' }));
    }
    let error: unknown;
    try {
      createBrowserSignIn({ ...base, clientSecret: 'shh-this-is-secret' } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'ERR_INVALID_CONFIG' });
    expect(JSON.stringify(error) + String(error)).not.toContain('shh-this-is-secret');
  });
});
