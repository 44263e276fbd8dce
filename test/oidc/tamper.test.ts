/** Tampering with the callback, the transaction or the ID token is refused, each with its own code. */
import { describe, expect, test } from 'vitest';
import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { SignJWT, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import fc from 'fast-check';
import { OidcError, type OidcTransaction } from '../../src/oidc/index.js';
import { rejection, server } from '../helpers.js';
import { discovery, oidcSetup, type OidcSetup } from './setup.js';

/** A sign-in up to the callback, with the client that started it. */
async function started(s: OidcSetup, client = s.client()) {
  const { url, transaction } = await client.startSignIn();
  return { client, transaction, callback: await s.visit(url) };
}

async function refused(promise: Promise<unknown>, code: string, fields: Record<string, unknown> = {}) {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(OidcError);
  expect(error).toMatchObject({ code, ...fields });
  return error as OidcError;
}

const b64u = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Rewrites the `id_token` the fake's token endpoint answers; the answer keeps the fake's `Date` header, when it sent one. */
function rewriteIdToken(s: OidcSetup, rewrite: (idToken: string) => string | Promise<string>) {
  server.use(
    http.post(`${s.service.authUrl}/oauth/oidc/token`, async ({ request }) => {
      const answer = await s.service.fetch(request);
      const body = (await answer.json()) as { id_token: string };
      const date = answer.headers.get('date');
      return HttpResponse.json({ ...body, id_token: await rewrite(body.id_token) }, date === null ? {} : { headers: { date } });
    }),
  );
}

/** The same claims, signed by the fake's own key: only what `change` changes differs. */
function resigned(s: OidcSetup, change: (claims: Record<string, unknown>) => Record<string, unknown>) {
  return async (idToken: string) => {
    const key = s.service.keys;
    return new SignJWT(change(decodeJwt(idToken)) as never).setProtectedHeader({ alg: 'RS256', kid: key.kid }).sign(key.privateKey);
  };
}

describe('OIDC helper: a tampered callback', () => {
  test('a state that is not the one sent', async () => {
    const s = await oidcSetup();
    const { client, transaction, callback } = await started(s);
    callback.searchParams.set('state', 'forged-state');
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_STATE');
  });

  test('no state at all', async () => {
    const s = await oidcSetup();
    const { client, transaction, callback } = await started(s);
    callback.searchParams.delete('state');
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_STATE');
  });

  test('an iss of another issuer (RFC 9207: a mix-up)', async () => {
    const s = await oidcSetup();
    const { client, transaction, callback } = await started(s);
    callback.searchParams.set('iss', 'https://evil.example');
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ISSUER');
  });

  test('no iss, though the issuer advertises authorization_response_iss_parameter_supported', async () => {
    const s = await oidcSetup();
    const { client, transaction, callback } = await started(s);
    callback.searchParams.delete('iss');
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ISSUER');
  });

  test('a wrong state with no iss, from an issuer that does not send iss, is a state error, not a mix-up', async () => {
    const s = await oidcSetup();
    const client = s.client({ fetch: discovery((m) => ({ ...m, authorization_response_iss_parameter_supported: false })) });
    const { transaction, callback } = await started(s, client);
    callback.searchParams.delete('iss');
    callback.searchParams.set('state', 'forged-state');
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_STATE');
    // Its own state, without iss: accepted, as RFC 9207 allows for such an issuer.
    callback.searchParams.set('state', transaction.state);
    await expect(client.finishSignIn(callback, transaction)).resolves.toHaveProperty('claims');
  });

  test('no code', async () => {
    const s = await oidcSetup();
    const { client, transaction, callback } = await started(s);
    callback.searchParams.delete('code');
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_RESPONSE');
  });

  test('the person cancelled: an error redirect is ERR_OIDC_AUTHORIZATION with error and error_description', async () => {
    const s = await oidcSetup({ fake: { oidcJourney: 'page' } });
    const oidc = s.client();
    const { url, transaction } = await oidc.startSignIn();
    const page = await (await s.service.fetch(new Request(url))).text();
    const action = /action="([^"]+\/cancel)"/.exec(page)![1]!;
    const back = await s.service.fetch(new Request(new URL(action, s.service.authUrl), { method: 'POST' }));
    const error = await refused(oidc.finishSignIn(back.headers.get('location')!, transaction), 'ERR_OIDC_AUTHORIZATION', {
      error: 'access_denied',
      errorDescription: 'the person cancelled',
    });
    expect(error.message).toContain('access_denied');
  });

  test('the service refused the request (a ruleset the client may not use): the redirect error is reported', async () => {
    const s = await oidcSetup();
    s.service.settings.authorizationErrors = 'redirect';
    const oidc = s.client();
    const { url, transaction } = await oidc.startSignIn({ ruleset: 'premium' });
    await refused(oidc.finishSignIn(await s.visit(url), transaction), 'ERR_OIDC_AUTHORIZATION', { error: 'invalid_request' });
  });
});

describe('OIDC helper: any change to the callback (property)', () => {
  test('a changed or missing code, state or iss is refused with an OidcError; nothing else is ever thrown', async () => {
    const s = await oidcSetup();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('code', 'state', 'iss'),
        fc.option(fc.string({ maxLength: 60 }), { nil: undefined }),
        async (param, value) => {
          const { client, transaction, callback } = await started(s);
          const original = callback.searchParams.get(param);
          if (value === undefined) callback.searchParams.delete(param);
          else callback.searchParams.set(param, value);
          const outcome = await client.finishSignIn(callback, transaction).catch((e: unknown) => e);
          if (value === original) expect(outcome).toHaveProperty('claims.nonce', transaction.nonce);
          else expect(outcome).toBeInstanceOf(OidcError);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('OIDC helper: a tampered or reused transaction', () => {
  test('a code used twice: the same client refuses the state, another is refused by the service', async () => {
    const s = await oidcSetup();
    const { client, transaction, callback } = await started(s);
    await client.finishSignIn(callback, transaction);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_STATE');
    await refused(s.client().finishSignIn(callback, transaction), 'ERR_OIDC_TOKEN', { error: 'invalid_grant' });
  });

  test('a verifier that is not the one the challenge was made from', async () => {
    const s = await oidcSetup();
    const { client, transaction, callback } = await started(s);
    const forged: OidcTransaction = { ...transaction, codeVerifier: 'x'.repeat(43) };
    await refused(client.finishSignIn(callback, forged), 'ERR_OIDC_TOKEN', { error: 'invalid_grant' });
  });

  test('a nonce that is not the one sent', async () => {
    const s = await oidcSetup();
    const { client, transaction, callback } = await started(s);
    await refused(client.finishSignIn(callback, { ...transaction, nonce: 'another-nonce' }), 'ERR_OIDC_NONCE', { claim: 'nonce' });
  });

  test('with `nonce: false`, an ID token that carries a nonce nobody sent is refused', async () => {
    const s = await oidcSetup();
    rewriteIdToken(
      s,
      resigned(s, (c) => ({ ...c, nonce: 'unasked' })),
    );
    const { client, transaction, callback } = await started(s, s.client({ nonce: false }));
    expect(transaction).not.toHaveProperty('nonce');
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_NONCE', { claim: 'nonce' });
  });

  test('a transaction older than transactionMaxAgeMs', async () => {
    const s = await oidcSetup();
    const { client, transaction, callback } = await started(s);
    s.advance(1_800_001);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_TRANSACTION');
  });

  test('transactionMaxAgeMs is the last moment a sign-in may finish', async () => {
    const s = await oidcSetup();
    const client = s.client({ transactionMaxAgeMs: 20_000 });
    const late = await started(s, client);
    const onTime = await started(s, client);
    s.advance(20_000);
    await expect(client.finishSignIn(onTime.callback, onTime.transaction)).resolves.toHaveProperty(
      'claims.nonce',
      onTime.transaction.nonce,
    );
    s.advance(1);
    await refused(client.finishSignIn(late.callback, late.transaction), 'ERR_OIDC_TRANSACTION');
  });

  test('a transaction that is not one startSignIn made, or is another client’s', async () => {
    const s = await oidcSetup();
    const { client, transaction, callback } = await started(s);
    for (const bad of [
      null,
      {},
      { ...transaction, codeVerifier: 7 },
      { ...transaction, createdAt: 'yesterday' },
      { ...transaction, createdAt: String(transaction.createdAt) },
      { ...transaction, clientId: 'other' },
    ]) {
      await refused(client.finishSignIn(callback, bad as never), 'ERR_OIDC_TRANSACTION');
    }
    await refused(client.finishSignIn(callback, { ...transaction, issuer: 'https://evil.example' }), 'ERR_OIDC_TRANSACTION');
  });

  test.each(['state', 'nonce', 'codeVerifier', 'redirectUri', 'issuer'] as const)(
    'a transaction without its %s (or with one that is not a string) is refused before the token endpoint is called',
    async (field) => {
      const s = await oidcSetup();
      const { client, transaction, callback } = await started(s);
      const tokenCalls = () => s.service.requests.filter((r) => r.url.includes('/oauth/oidc/token')).length;
      const before = tokenCalls();
      const { [field]: _, ...without } = transaction;
      await refused(client.finishSignIn(callback, without as never), 'ERR_OIDC_TRANSACTION');
      await refused(client.finishSignIn(callback, { ...transaction, [field]: 42 } as never), 'ERR_OIDC_TRANSACTION');
      expect(tokenCalls()).toBe(before);
    },
  );
});

describe('OIDC helper: a tampered ID token', () => {
  test('a signature that does not verify (its last bytes changed)', async () => {
    const s = await oidcSetup();
    rewriteIdToken(s, (t) => t.slice(0, -6) + (t.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA'));
    const { client, transaction, callback } = await started(s);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_SIGNATURE');
  });

  test('claims changed after signing (the payload swapped, the signature kept)', async () => {
    const s = await oidcSetup();
    rewriteIdToken(s, (t) => {
      const [h, p, sig] = t.split('.');
      return [h, b64u({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'someone-else' }), sig].join('.');
    });
    const { client, transaction, callback } = await started(s);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_SIGNATURE');
  });

  test('signed by another key that claims the issuer’s kid', async () => {
    const s = await oidcSetup();
    const { privateKey } = await generateKeyPair('RS256');
    rewriteIdToken(s, async (t) =>
      new SignJWT(decodeJwt(t) as never).setProtectedHeader({ alg: 'RS256', kid: decodeProtectedHeader(t).kid! }).sign(privateKey),
    );
    const { client, transaction, callback } = await started(s);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_SIGNATURE');
  });

  test('alg none', async () => {
    const s = await oidcSetup();
    rewriteIdToken(s, (t) => `${b64u({ alg: 'none' })}.${t.split('.')[1]}.`);
    const { client, transaction, callback } = await started(s);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_SIGNATURE');
  });

  test('HS256 with the public key as the secret (algorithm confusion)', async () => {
    const s = await oidcSetup();
    const secret = new TextEncoder().encode(JSON.stringify(s.service.keys.publicJwk));
    rewriteIdToken(s, (t) => new SignJWT(decodeJwt(t) as never).setProtectedHeader({ alg: 'HS256', kid: s.service.keys.kid }).sign(secret));
    const { client, transaction, callback } = await started(s);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_SIGNATURE');
  });

  test('HS256 even when the issuer were to advertise it: the signature check refuses any HMAC', async () => {
    const s = await oidcSetup();
    const secret = new TextEncoder().encode('x'.repeat(32));
    rewriteIdToken(s, (t) => new SignJWT(decodeJwt(t) as never).setProtectedHeader({ alg: 'HS256' }).sign(secret));
    const client = s.client({ fetch: discovery((m) => ({ ...m, id_token_signing_alg_values_supported: ['RS256', 'HS256'] })) });
    const { transaction, callback } = await started(s, client);
    const error = await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_SIGNATURE');
    expect(error.message).toMatch(/HS256/);
  });

  // In milliseconds (the tokenTimes reading: a service that signs Date.now()), read as seconds
  // its exp would lie thousands of years ahead and the token would never expire.
  test.each([
    ['seconds', 1],
    ['milliseconds', 1000],
    ['microseconds', 1_000_000],
  ] as const)(
    'expired, its exp in %s: at exp and a second past it refused; the clock tolerance accepts it',
    async (tokenTimes, perSecond) => {
      const s = await oidcSetup({ fake: { readings: { tokenTimes } } });
      const late = (seconds: number, clockToleranceSeconds?: number) =>
        s.client({ now: () => s.now() + seconds * 1000, ...(clockToleranceSeconds === undefined ? {} : { clockToleranceSeconds }) });
      rewriteIdToken(
        s,
        resigned(s, (c) => ({ ...c, exp: Math.floor(s.now() / 1000) * perSecond })),
      );
      let { transaction, callback } = await started(s);
      await refused(late(1).finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_EXPIRED', { claim: 'exp' });
      // exp is the first second the token is refused in (RFC 7519 §4.1.4: "on or after").
      ({ transaction, callback } = await started(s));
      await refused(late(0).finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_EXPIRED', { claim: 'exp' });
      ({ transaction, callback } = await started(s));
      await expect(late(1, 2).finishSignIn(callback, transaction)).resolves.toHaveProperty('claims');
    },
  );

  // oauth4webapi judges in whole seconds: our clock is floored to its second, as the token's are
  // written, never rounded up to the next one (which would end a token up to 500 ms early and let
  // an nbf come up to 500 ms before its time).
  test('600 ms into a second: an ID token whose exp is the next second is accepted, one whose nbf is the next second is not yet valid', async () => {
    const s = await oidcSetup();
    s.advance(1_600 - (s.now() % 1_000));
    expect(s.now() % 1_000).toBe(600);
    const next = Math.floor(s.now() / 1000) + 1;
    rewriteIdToken(
      s,
      resigned(s, (c) => ({ ...c, exp: next })),
    );
    let { client, transaction, callback } = await started(s);
    await expect(client.finishSignIn(callback, transaction)).resolves.toHaveProperty('claims.exp', next);
    rewriteIdToken(
      s,
      resigned(s, (c) => ({ ...c, nbf: next })),
    );
    ({ client, transaction, callback } = await started(s));
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN', { claim: 'nbf' });
  });

  // The fake writes nbf at the token's issue: read as seconds, one in milliseconds never comes.
  test.each([
    ['seconds', 1],
    ['milliseconds', 1000],
    ['microseconds', 1_000_000],
  ] as const)(
    'its times in %s: an ID token valid from its issue (nbf = iat) is accepted; one not yet valid (nbf in the future) is refused, and accepted within the tolerance',
    async (tokenTimes, perSecond) => {
      const s = await oidcSetup({ fake: { readings: { tokenTimes } } });
      let { client, transaction, callback } = await started(s);
      const { claims } = await client.finishSignIn(callback, transaction);
      expect(claims.nbf).toBe(claims.iat);
      rewriteIdToken(
        s,
        resigned(s, (c) => ({ ...c, nbf: (Math.floor(s.now() / 1000) + 5) * perSecond })),
      );
      ({ client, transaction, callback } = await started(s));
      await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN', { claim: 'nbf' });
      ({ transaction, callback } = await started(s));
      await expect(s.client({ clockToleranceSeconds: 5 }).finishSignIn(callback, transaction)).resolves.toHaveProperty('claims');
    },
  );

  test.each([
    ['aud', (c: Record<string, unknown>) => ({ ...c, aud: 'another-client' })],
    ['iss', (c: Record<string, unknown>) => ({ ...c, iss: 'https://evil.example' })],
    ['sub', (c: Record<string, unknown>) => ({ ...c, sub: undefined })],
    // Not a number: a malformed token, not an expired one.
    ['exp', (c: Record<string, unknown>) => ({ ...c, exp: String(c['exp']) })],
  ])('a validly signed ID token with the wrong %s', async (claim, change) => {
    const s = await oidcSetup();
    rewriteIdToken(s, resigned(s, change));
    const { client, transaction, callback } = await started(s);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN', { claim });
  });

  test('a token endpoint that answers no ID token', async () => {
    const s = await oidcSetup();
    server.use(
      http.post(`${s.service.authUrl}/oauth/oidc/token`, async ({ request }) => {
        const { id_token: _, ...rest } = (await (await s.service.fetch(request)).json()) as Record<string, unknown>;
        return HttpResponse.json(rest);
      }),
    );
    const { client, transaction, callback } = await started(s);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN');
  });

  test('a token endpoint that answers an HTML error page is ERR_OIDC_TOKEN with no body in the error', async () => {
    const s = await oidcSetup();
    server.use(http.post(`${s.service.authUrl}/oauth/oidc/token`, () => new HttpResponse('<html>bad gateway</html>', { status: 502 })));
    const { client, transaction, callback } = await started(s);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_TOKEN');
  });
});

describe('OIDC helper: the issuer’s keys', () => {
  test('the cached key set is used for ten minutes, then read again though its keys still fit', async () => {
    const s = await oidcSetup();
    const client = s.client();
    let { transaction, callback } = await started(s, client);
    await client.finishSignIn(callback, transaction);
    s.advance(599_000);
    ({ transaction, callback } = await started(s, client));
    await client.finishSignIn(callback, transaction);
    expect(s.calls(/jwks$/)).toBe(1);
    // Ten minutes to the millisecond: still the cached set.
    s.advance(1_000);
    ({ transaction, callback } = await started(s, client));
    await client.finishSignIn(callback, transaction);
    expect(s.calls(/jwks$/)).toBe(1);
    s.advance(1);
    ({ transaction, callback } = await started(s, client));
    await client.finishSignIn(callback, transaction);
    expect(s.calls(/jwks$/)).toBe(2);
  });

  test('a key rotated a second after the JWKS was read verifies at once; a second unknown key within 30 s is not read for', async () => {
    const s = await oidcSetup();
    const client = s.client();
    let { transaction, callback } = await started(s, client);
    await client.finishSignIn(callback, transaction);
    expect(s.calls(/jwks$/)).toBe(1);
    await s.service.rotateSigningKey();
    ({ transaction, callback } = await started(s, client));
    await expect(client.finishSignIn(callback, transaction)).resolves.toHaveProperty('claims');
    expect(s.calls(/jwks$/)).toBe(2);
    // Another rotation within 30 s of that read: the set is trusted, and the new key is not in it.
    await s.service.rotateSigningKey();
    ({ transaction, callback } = await started(s, client));
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_SIGNATURE');
    expect(s.calls(/jwks$/)).toBe(2);
    s.advance(30_000);
    ({ transaction, callback } = await started(s, client));
    await expect(client.finishSignIn(callback, transaction)).resolves.toHaveProperty('claims');
    expect(s.calls(/jwks$/)).toBe(3);
  });
});

describe('OIDC helper: the issuer’s key set', () => {
  const jwksUrl = (s: OidcSetup) => `${s.service.authUrl}/oauth/oidc/jwks`;

  test('a JWKS that could not be read is not kept: the next sign-in reads it again at once', async () => {
    const s = await oidcSetup();
    const client = s.client();
    server.use(http.get(jwksUrl(s), () => new HttpResponse('unavailable', { status: 503 }), { once: true }));
    let { transaction, callback } = await started(s, client);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_SIGNATURE');
    ({ transaction, callback } = await started(s, client));
    await expect(client.finishSignIn(callback, transaction)).resolves.toHaveProperty('claims');
    expect(s.calls(/jwks$/)).toBe(2);
  });

  test.each([
    ['a keys member that is not an array', { keys: 'none' }],
    ['null', null],
    ['an array', []],
  ])('a JWKS without a keys array (%s) is refused, saying so', async (_, body) => {
    const s = await oidcSetup();
    server.use(http.get(jwksUrl(s), () => HttpResponse.json(body)));
    const { client, transaction, callback } = await started(s);
    const error = await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_SIGNATURE');
    expect(error.message).toMatch(/no key of its JWKS fits/);
  });

  test('keys in rotation: every fitting key is tried (the signature decides), at most four; private keys and keys not for verify are never used', async () => {
    const s = await oidcSetup();
    const other = async () => ({
      ...(await exportJWK((await generateKeyPair('RS256')).publicKey)),
      kid: real.kid,
      alg: real.alg,
      use: 'sig',
    });
    const real = s.service.keys.publicJwk;
    // The real key second, after another with the same kid: tried too, and it verifies.
    const before = await other();
    server.use(http.get(jwksUrl(s), () => HttpResponse.json({ keys: [before, real] })));
    const first = await started(s);
    await expect(first.client.finishSignIn(first.callback, first.transaction)).resolves.toMatchObject({
      claims: { sub: expect.any(String) },
    });
    // Fifth of five fitting keys: past the bound, never tried.
    const crowd = await Promise.all([1, 2, 3, 4].map(() => other()));
    server.use(http.get(jwksUrl(s), () => HttpResponse.json({ keys: [...crowd, real] })));
    const fifth = await started(s, s.client());
    const error = await refused(fifth.client.finishSignIn(fifth.callback, fifth.transaction), 'ERR_OIDC_ID_TOKEN_SIGNATURE');
    expect(error.message).toMatch(/no key of its JWKS fits and verifies it/);
    // The real key marked for another use, or as if private (with a d): not used.
    for (const spoiled of [
      { ...real, key_ops: ['encrypt'] },
      { ...real, key_ops: 'verify' },
      { ...real, d: 'AQAB' },
    ]) {
      server.use(http.get(jwksUrl(s), () => HttpResponse.json({ keys: [spoiled] })));
      const attempt = await started(s, s.client());
      await refused(attempt.client.finishSignIn(attempt.callback, attempt.transaction), 'ERR_OIDC_ID_TOKEN_SIGNATURE');
    }
  });

  test('a jwks_uri over plain http: from an https: issuer refuses the discovery document, and is never fetched', async () => {
    const s = await oidcSetup();
    const fetched: string[] = [];
    const tell = discovery((m) => ({ ...m, jwks_uri: String(m['jwks_uri']).replace('https:', 'http:') }));
    const client = s.client({
      fetch: (input, init) => {
        fetched.push(String(input instanceof Request ? input.url : input));
        return tell(input, init);
      },
    });
    await refused(client.startSignIn(), 'ERR_OIDC_DISCOVERY');
    expect(fetched.filter((url) => url.startsWith('http:'))).toEqual([]);
  });
});

describe('OIDC helper: errors keep secrets out', () => {
  test('no code, verifier, nonce, token or claim value in any error, inspected or serialised', async () => {
    const s = await oidcSetup();
    const seen: string[] = [];
    rewriteIdToken(
      s,
      resigned(s, (c) => ({ ...c, aud: 'another-client' })),
    );
    const { client, transaction, callback } = await started(s);
    seen.push(callback.searchParams.get('code')!, transaction.codeVerifier, String(transaction.nonce));
    const errors = [
      await rejection(client.finishSignIn(callback, transaction)),
      await rejection(s.client().finishSignIn(callback, { ...transaction, nonce: 'n'.repeat(30) })),
      await rejection(s.client().finishSignIn(callback, { ...transaction, codeVerifier: 'v'.repeat(43) })),
    ];
    for (const error of errors) {
      const text = `${inspect(error, { depth: 10, showHidden: true })} ${JSON.stringify(error)} ${(error as Error).message}`;
      for (const secret of [...seen, 'n'.repeat(30), 'v'.repeat(43), 'Jane', 'Citizen', 'person_']) expect(text).not.toContain(secret);
    }
  });
});

describe("OIDC helper: an ID token's times judged by the service's clock (clockSkewSeconds, dateHeader)", () => {
  test.each([
    [-600, 'sent'],
    [-600, 'omitted'],
    [600, 'sent'],
    [600, 'omitted'],
  ] as const)(
    'a service clock %i s off, its Date header %s: the sign-in finishes, its exp where the service put it',
    async (skew, dateHeader) => {
      const s = await oidcSetup({ fake: { readings: { clockSkewSeconds: skew, dateHeader } } });
      const { client, transaction, callback } = await started(s);
      const { claims } = await client.finishSignIn(callback, transaction);
      // The fake's ID tokens live 600 s on its clock: on ours, from the moment it was issued, skew included.
      expect(Number(claims.exp) - Math.floor(s.now() / 1000) - skew).toBeGreaterThanOrEqual(598);
      expect(Number(claims.exp) - Math.floor(s.now() / 1000) - skew).toBeLessThanOrEqual(600);
    },
  );

  // One time in milliseconds among times in seconds: the token is judged in milliseconds, where
  // the others lie in 1970. Judged in seconds, that one would never come (an nbf), or never be too
  // old for max_age (an auth_time: the check skipped silently).
  test.each([
    ['nbf', 'ERR_OIDC_ID_TOKEN_EXPIRED', 'exp'],
    ['auth_time', 'ERR_OIDC_ID_TOKEN_EXPIRED', 'exp'],
    ['exp', 'ERR_OIDC_ID_TOKEN', 'auth_time'],
  ] as const)(
    'an ID token with only its %s in milliseconds, asked with max_age, is refused: never valid for longer than it says',
    async (inMs, code, claim) => {
      const s = await oidcSetup();
      rewriteIdToken(
        s,
        resigned(s, (c) => ({ ...c, [inMs]: Number(c[inMs]) * 1000 })),
      );
      const client = s.client();
      const { url, transaction } = await client.startSignIn({ maxAge: 60 });
      await refused(client.finishSignIn(await s.visit(url), transaction), code, { claim });
    },
  );

  // A Date header is truncated to its second, and a skew under 2 s is not learnt: the clock read
  // from it can lag the one that stamped the token by a second or two.
  test('a service clock ahead of ours by any fraction of a few seconds, Date header or not: an ID token valid from its issue (nbf = iat) is valid at once; one valid two seconds later is not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 4_000 }),
        fc.constantFrom('sent', 'omitted'),
        fc.constantFrom('seconds', 'milliseconds', 'microseconds'),
        async (aheadMs, dateHeader, tokenTimes) => {
          const s = await oidcSetup({ fake: { readings: { clockSkewSeconds: aheadMs / 1000, dateHeader, tokenTimes } } });
          let { client, transaction, callback } = await started(s);
          await expect(client.finishSignIn(callback, transaction)).resolves.toHaveProperty('claims');
          const perSecond = { seconds: 1, milliseconds: 1000, microseconds: 1_000_000 }[tokenTimes];
          rewriteIdToken(
            s,
            resigned(s, (c) => ({ ...c, nbf: Number(c['iat']) + 2 * perSecond })),
          );
          ({ client, transaction, callback } = await started(s));
          await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN', { claim: 'nbf' });
        },
      ),
      { numRuns: 30 },
    );
  });

  // Microseconds since 1970 pass 2^53: ms × 1e6 / 1000 rounds some clocks down a microsecond, and
  // an nbf of the token's issue, met exactly by the learnt skew, was then a microsecond away.
  test('an ID token in microseconds, valid from its issue, is valid at once on a clock whose microseconds a float rounds down', async () => {
    const s = await oidcSetup({ fake: { readings: { clockSkewSeconds: 2.5, dateHeader: 'omitted', tokenTimes: 'microseconds' } } });
    // The first ms from now on that multiplying by 1e6 and dividing by 1000 rounds down.
    let clock = Math.floor(s.now());
    while (Math.floor((clock * 1e6) / 1000) === clock * 1000) clock += 1;
    s.advance(clock - s.now());
    const { client, transaction, callback } = await started(s);
    await expect(client.finishSignIn(callback, transaction)).resolves.toHaveProperty('claims.nbf');
  });

  // The least skew a Date header teaches is 2 s, itself included: a service exactly that far behind
  // (our clock on a whole second, so its Date header names its clock exactly) is judged on its clock.
  test('a service clock exactly 2 s behind ours, its Date header sent: an ID token that expires a second later on its clock is valid, one at its clock is not', async () => {
    const s = await oidcSetup({ fake: { readings: { clockSkewSeconds: -2, dateHeader: 'sent' } } });
    s.advance(1000 - (s.now() % 1000));
    rewriteIdToken(
      s,
      resigned(s, (c) => ({ ...c, exp: Number(c['iat']) + 1 })),
    );
    let { client, transaction, callback } = await started(s);
    await expect(client.finishSignIn(callback, transaction)).resolves.toHaveProperty('claims.exp');
    rewriteIdToken(
      s,
      resigned(s, (c) => ({ ...c, exp: Number(c['iat']) })),
    );
    ({ client, transaction, callback } = await started(s));
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_EXPIRED');
  });

  // An offset under 2 s is within a Date header's second and the answer's travel: taken as none,
  // as the REST client's clock takes it. A service 1.5 s behind is judged on our clock.
  test('a service clock 1.5 s behind ours is taken as ours: an ID token whose exp has passed on ours is refused', async () => {
    const s = await oidcSetup({ fake: { readings: { clockSkewSeconds: -1.5 } } });
    // Half a second past our second: the service's Date header, truncated to its second, is then
    // 1.5 s behind ours. (Early in a second, it would name a clock 2 s behind, which is learnt.)
    s.advance(1500 - (s.now() % 1000));
    rewriteIdToken(
      s,
      resigned(s, (c) => ({ ...c, exp: Math.floor(s.now() / 1000) })),
    );
    const { client, transaction, callback } = await started(s);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_EXPIRED', { claim: 'exp' });
  });

  test("an ID token whose exp has passed on the service's own clock is refused: its Date header says so", async () => {
    const s = await oidcSetup();
    server.use(
      http.post(`${s.service.authUrl}/oauth/oidc/token`, async ({ request }) => {
        const answer = await s.service.fetch(request);
        // The fake's ID token lives 600 s; this answer's clock is 700 s on.
        return HttpResponse.json(await answer.json(), { headers: { date: new Date(s.now() + 700_000).toUTCString() } });
      }),
    );
    const { client, transaction, callback } = await started(s);
    await refused(client.finishSignIn(callback, transaction), 'ERR_OIDC_ID_TOKEN_EXPIRED', { claim: 'exp' });
  });

  test('without a Date header, the iat the service stamped is its clock: a token issued 700 s ago on ours, living 600 s, is judged on the clock that issued it', async () => {
    const s = await oidcSetup({ fake: { readings: { dateHeader: 'omitted' } } });
    const issued = Math.floor(s.now() / 1000) - 700;
    rewriteIdToken(
      s,
      resigned(s, (c) => ({ ...c, iat: issued, nbf: issued, exp: issued + 600 })),
    );
    const { client, transaction, callback } = await started(s);
    await expect(client.finishSignIn(callback, transaction)).resolves.toHaveProperty('claims.iat', issued);
    // Its nonce is still this sign-in's: an old token of another sign-in is refused however its times read.
    rewriteIdToken(
      s,
      resigned(s, (c) => ({ ...c, iat: issued, nbf: issued, exp: issued + 600, nonce: 'another-sign-in' })),
    );
    const again = await started(s);
    await refused(again.client.finishSignIn(again.callback, again.transaction), 'ERR_OIDC_NONCE');
  });
});
