import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair, importJWK } from 'jose';
import { ConfigurationError, JwksError, type SdJwtVerificationError, localJwks, remoteJwks, verifySdJwt } from '../../src/sd-jwt/index.js';
import { signJwt } from '../../src/testing/keys.js';
import { credentialInput, harness, received, rejection } from '../helpers.js';

const DISCOVERY = /^\/\.well-known\/openid-configuration$/;
const JWKS = /^\/oauth\/oidc\/jwks$/;
/** The issuer a discovery URL belongs to. */
const ISSUER_OF = (url: string) => url.replace(/\/\.well-known\/openid-configuration$/, '');

/** A credential JWT signed by the fake's current key, as the credential API issues them. */
async function credentialJwt(h: Awaited<ReturnType<typeof harness>>) {
  const { data } = await h.client.credentials.submit(credentialInput());
  return h.service.credentialJwt(data.credential_ref)!;
}

describe('remoteJwks', () => {
  test('an auth URL that is neither a string nor a URL is a ConfigurationError naming authUrl, before anything is fetched', () => {
    // An object that prints as an https: URL is not one either: what it names could change between reads.
    for (const authUrl of [undefined, null, 42, { toString: () => 'https://auth.acme.test' }]) {
      expect(() => remoteJwks(authUrl as never)).toThrow(ConfigurationError);
      expect(() => remoteJwks(authUrl as never)).toThrow(expect.objectContaining({ option: 'authUrl' }));
    }
  });

  test('maxAgeMs and cooldownMs are numbers, 0 or more: NaN (no key set ever read), a negative number or a string is a ConfigurationError naming it', () => {
    for (const key of ['maxAgeMs', 'cooldownMs']) {
      for (const bad of [Number.NaN, -1, '60']) {
        expect(() => remoteJwks('https://auth.acme.test', { [key]: bad }), `${key}: ${bad}`).toThrow(
          expect.objectContaining({ option: key }),
        );
      }
      expect(() => remoteJwks('https://auth.acme.test', { [key]: 0 })).not.toThrow();
    }
  });

  test('property: keys are read over https: only; http: only from a loopback host (localhost, 127.0.0.0/8, [::1]) or with allowInsecureRequests', () => {
    const loopback = fc.oneof(
      fc.constant('localhost'),
      fc.constant('[::1]'),
      fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => `127.${parts.join('.')}`),
    );
    const publicHost = fc.oneof(
      fc.domain(),
      fc
        .tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.nat(255))
        .filter(([a]) => a !== 127)
        .map((p) => p.join('.')),
      fc.constant('[2001:db8::1]'),
      // Looks local, is not: a name that only starts with one.
      fc.constant('localhost.evil.example'),
      fc.constant('127.0.0.1.nip.io'),
    );
    const path = fc.constantFrom('', '/', '/realms/acme', '/tenant/');
    fc.assert(
      fc.property(publicHost, loopback, path, (host, local, at) => {
        expect(remoteJwks(`https://${host}${at}`).issuer).toBe(`https://${host}${at}`.replace(/\/+$/, ''));
        expect(remoteJwks(`http://${local}${at}`).issuer).toMatch(/^http:/);
        expect(remoteJwks(`http://${host}${at}`, { allowInsecureRequests: true }).issuer).toMatch(/^http:/);
        for (const refused of [
          () => remoteJwks(`http://${host}${at}`),
          () => remoteJwks(`http://${local}${at}`, { allowInsecureRequests: false }),
        ]) {
          expect(refused).toThrow(ConfigurationError);
          expect(refused).toThrow(expect.objectContaining({ option: 'authUrl', message: expect.stringMatching(/https:/) }));
        }
      }),
      { numRuns: 100 },
    );
  });

  test('discovery or a key set reached through a redirect to http: is not read (fetch follows https: down to http:)', async () => {
    const h = await harness();
    const jwt = await credentialJwt(h);
    for (const redirected of ['/.well-known/', '/jwks']) {
      const keys = remoteJwks(h.service.authUrl, {
        fetch: async (url, init) => {
          const answer = await h.service.fetch(new Request(url, init));
          if (!url.includes(redirected)) return answer;
          // What fetch answers after following a redirect: the last URL it was sent to.
          return Object.defineProperty(answer, 'url', { value: url.replace(/^https:/, 'http:') });
        },
      });
      const error = await rejection(verifySdJwt(jwt, { keys, requiredClaims: [] }));
      expect(error, redirected).toBeInstanceOf(JwksError);
      expect((error as JwksError).message, redirected).toMatch(/redirected to a URL that is not https:/);
    }
    // Followed to another https: URL, it is read.
    const moved = remoteJwks(h.service.authUrl, {
      fetch: async (url, init) => {
        const answer = await h.service.fetch(new Request(url, init));
        return url.includes('/jwks') ? Object.defineProperty(answer, 'url', { value: 'https://keys.example/moved' }) : answer;
      },
    });
    await expect(verifySdJwt(jwt, { keys: moved, requiredClaims: [] })).resolves.toBeDefined();
  });

  test('an auth URL that is not an absolute http(s) URL is a ConfigurationError naming authUrl, before anything is fetched', () => {
    const fetched: string[] = [];
    for (const authUrl of [
      '',
      'auth.example',
      '/realms/acme',
      'ftp://auth.example',
      'file:///etc/keys',
      'javascript:alert(1)',
      'data:,{}',
    ]) {
      const fetch = async (url: string) => {
        fetched.push(url);
        return Response.json({});
      };
      const make = () => remoteJwks(authUrl, { fetch });
      expect(make).toThrow(ConfigurationError);
      expect(make).toThrow(expect.objectContaining({ option: 'authUrl' }));
    }
    expect(fetched).toEqual([]);
  });

  test('property: a jwks_uri that is not https: is refused before it is fetched, whatever the issuer says of it', async () => {
    const h = await harness();
    const jwt = await credentialJwt(h);
    const scheme = fc.constantFrom('http:', 'HTTP:', 'ftp:', 'file:', 'data:', 'javascript:', 'ws:', 'blob:', '');
    await fc.assert(
      fc.asyncProperty(scheme, async (given) => {
        const fetched: string[] = [];
        const jwksUri = given === 'data:' ? 'data:application/json,{"keys":[]}' : `${given}//keys.example/jwks`;
        const keys = remoteJwks(h.service.authUrl, {
          fetch: async (url, init) => {
            fetched.push(url);
            const answer = await h.service.fetch(new Request(url, init));
            return url.includes('/.well-known/') ? Response.json({ ...((await answer.json()) as object), jwks_uri: jwksUri }) : answer;
          },
        });
        const error = await rejection(verifySdJwt(jwt, { keys, requiredClaims: [] }));
        expect(error).toBeInstanceOf(JwksError);
        expect((error as JwksError).message).toMatch(/jwks_uri that is not https:/);
        expect(fetched).toEqual([`${h.service.authUrl}/.well-known/openid-configuration`]);
      }),
      { numRuns: 20 },
    );
    // An https: one in any case is read; a loopback issuer may name an http: one.
    const upper = remoteJwks(h.service.authUrl, {
      fetch: async (url, init) => {
        const answer = await h.service.fetch(new Request(url, init));
        if (!url.includes('/.well-known/')) return answer;
        const metadata = (await answer.json()) as { jwks_uri: string };
        return Response.json({ ...metadata, jwks_uri: metadata.jwks_uri.replace(/^https:/, 'HTTPS:') });
      },
    });
    await expect(verifySdJwt(jwt, { keys: upper, requiredClaims: [] })).resolves.toBeDefined();
    const local = 'http://localhost:4010';
    const read: string[] = [];
    const loopback = remoteJwks(local, {
      fetch: async (url) => {
        read.push(url);
        return Response.json(url.includes('/.well-known/') ? { issuer: local, jwks_uri: `${local}/jwks` } : { keys: [] });
      },
    });
    await loopback.refresh();
    expect(read).toEqual([`${local}/.well-known/openid-configuration`, `${local}/jwks`]);
  });

  test('a credential JWT from the credential API verifies against the JWKS found by discovery', async () => {
    const h = await harness();
    const verified = await verifySdJwt(await credentialJwt(h), { keys: remoteJwks(h.service.authUrl), requiredClaims: [] });
    expect(verified.claims['iss']).toBe(h.service.authUrl);
    expect(verified.claims['vc']).toMatchObject({ type: ['VerifiableCredential', 'acicncchc'] });
  });

  test('the auth URL may be a URL object, read as the string it stands for (a trailing slash dropped)', async () => {
    const h = await harness();
    const keys = remoteJwks(new URL(h.service.authUrl));
    expect(keys.issuer).toBe(h.service.authUrl);
    const verified = await verifySdJwt(await credentialJwt(h), { keys, requiredClaims: [] });
    expect(verified.claims['iss']).toBe(h.service.authUrl);
  });

  test('fetches discovery and the JWKS once for many concurrent verifications, then uses the cache', async () => {
    const h = await harness();
    const jwt = await credentialJwt(h);
    const keys = remoteJwks(h.service.authUrl);
    await Promise.all(Array.from({ length: 20 }, () => verifySdJwt(jwt, { keys, requiredClaims: [] })));
    await verifySdJwt(jwt, { keys, requiredClaims: [] });
    expect(received(h.service, DISCOVERY)).toHaveLength(1);
    expect(received(h.service, JWKS)).toHaveLength(1);
  });

  test('a key set read again replaces every key kept from the last: a key withdrawn under its kid no longer verifies', async () => {
    const issuer = 'https://issuer.example';
    const [old, next] = [await generateKeyPair('ES256'), await generateKeyPair('ES256')];
    let published = old.publicKey;
    let clock = Date.now();
    const keys = remoteJwks(issuer, {
      now: () => clock,
      maxAgeMs: 60_000,
      fetch: async (url) =>
        url.endsWith('/openid-configuration')
          ? Response.json({ issuer, jwks_uri: `${issuer}/jwks` })
          : Response.json({ keys: [{ ...(await exportJWK(published)), kid: 'k1', alg: 'ES256', use: 'sig' }] }),
    });
    const verify = async (key: CryptoKey) => {
      const jwt = await new SignJWT({ iss: issuer, exp: Math.floor(clock / 1000) + 600 })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .sign(key);
      return verifySdJwt(`${jwt}~`, { keys, now: () => clock }).then(
        () => 'accepted',
        (error: SdJwtVerificationError) => error.code,
      );
    };
    expect(await verify(old.privateKey)).toBe('accepted');
    // The issuer replaces the key under the same kid; the set is read again once it is a minute old.
    published = next.publicKey;
    clock += 60_001;
    expect(await verify(old.privateKey)).toBe('ERR_SD_JWT_SIGNATURE');
    expect(await verify(next.privateKey)).toBe('accepted');
  });

  test.each([
    ['k1', ' "k1"'],
    [undefined, ''],
  ])(
    "a key of the fetched set that Web Crypto cannot import is a JwksError naming the key set's URL, not discovery's, and the key's kid (%s) when it has one",
    async (kid, named) => {
      const issuer = 'https://issuer.example';
      const pair = await generateKeyPair('ES256');
      const jwksUri = 'https://keys.issuer.example/jwks.json';
      const keys = remoteJwks(issuer, {
        fetch: async (url) =>
          url.endsWith('/openid-configuration')
            ? Response.json({ issuer, jwks_uri: jwksUri })
            : Response.json({
                keys: [{ ...(await exportJWK(pair.publicKey)), x: 'AAAA', ...(kid === undefined ? {} : { kid }), alg: 'ES256' }],
              }),
      });
      const jwt = await new SignJWT({ iss: issuer, exp: Math.floor(Date.now() / 1000) + 600 })
        .setProtectedHeader({ alg: 'ES256', ...(kid === undefined ? {} : { kid }) })
        .sign(pair.privateKey);
      const error = await rejection(verifySdJwt(`${jwt}~`, { keys }));
      expect(error).toBeInstanceOf(JwksError);
      expect(error).toMatchObject({ url: jwksUri, message: `${jwksUri}: key${named} cannot be imported as a ES256 verification key` });
    },
  );

  test('refetches once when a token names an unknown kid (key rotation)', async () => {
    let clock = Date.now();
    const h = await harness();
    const keys = remoteJwks(h.service.authUrl, { now: () => clock });
    await verifySdJwt(await credentialJwt(h), { keys, requiredClaims: [] });
    await h.service.rotateSigningKey();
    clock += 31_000; // past the cooldown
    const rotated = await credentialJwt(h);
    await expect(verifySdJwt(rotated, { keys, requiredClaims: [] })).resolves.toBeDefined();
    expect(received(h.service, JWKS)).toHaveLength(2);
  });

  test('an unknown kid is fetched for once, at once; more within the cooldown are refused without hammering the JWKS endpoint', async () => {
    const h = await harness();
    const keys = remoteJwks(h.service.authUrl);
    await verifySdJwt(await credentialJwt(h), { keys, requiredClaims: [] });
    const stranger = await signJwt({ ...h.service.keys, kid: 'not-published' }, { iss: h.service.authUrl }, { nowMs: Date.now() });
    for (let i = 0; i < 5; i++) {
      const error = await rejection(verifySdJwt(stranger, { keys, requiredClaims: [] }));
      expect((error as SdJwtVerificationError).code).toBe('ERR_SD_JWT_KEY_NOT_FOUND');
    }
    expect(received(h.service, JWKS)).toHaveLength(2);
  });

  test('a key rotated a second after the key set was read verifies at once (#39)', async () => {
    const h = await harness();
    const keys = remoteJwks(h.service.authUrl);
    await verifySdJwt(await credentialJwt(h), { keys, requiredClaims: [] });
    await h.service.rotateSigningKey();
    await expect(verifySdJwt(await credentialJwt(h), { keys, requiredClaims: [] })).resolves.toBeDefined();
    expect(received(h.service, JWKS)).toHaveLength(2);
  });

  test('refuses discovery whose issuer is not the auth URL, or that names none', async () => {
    const h = await harness();
    const jwt = await credentialJwt(h);
    const keys = remoteJwks(`${h.service.authUrl}/`);
    await expect(verifySdJwt(jwt, { keys, requiredClaims: [] })).resolves.toBeDefined(); // a trailing slash is the same issuer
    // The service's own discovery and key set, but the document names another issuer, or none
    // (the field is REQUIRED): only the issuer check can refuse it (#45).
    for (const issuer of ['https://evil.example', h.service.authUrl.toUpperCase(), undefined, 1]) {
      const otherIssuer = async (input: string | URL | Request) => {
        const answer = await fetch(input);
        if (!String(input instanceof Request ? input.url : input).includes('/.well-known/')) return answer;
        return Response.json({ ...((await answer.json()) as object), issuer });
      };
      const wrong = remoteJwks(h.service.authUrl, { fetch: otherIssuer });
      const error = await rejection(verifySdJwt(jwt, { keys: wrong, requiredClaims: [] }));
      expect(error).toBeInstanceOf(JwksError);
      expect((error as JwksError).code).toBe('ERR_JWKS');
      expect((error as JwksError).message).toMatch(/issuer is not/);
    }
  });

  test.each([
    ['by default, 10 minutes', undefined, 600_000],
    ['maxAgeMs', 60_000, 60_000],
  ] as const)(
    'the key set is used for %s, and fetched again once older, not before; once only for a token no key of it fits',
    async (_name, maxAgeMs, age) => {
      let clock = Date.now();
      const h = await harness();
      const jwt = await credentialJwt(h);
      const keys = remoteJwks(h.service.authUrl, { now: () => clock, ...(maxAgeMs === undefined ? {} : { maxAgeMs }) });
      await verifySdJwt(jwt, { keys, requiredClaims: [] });
      clock += age;
      await verifySdJwt(jwt, { keys, requiredClaims: [] });
      expect(received(h.service, JWKS)).toHaveLength(1);
      clock += 1;
      await verifySdJwt(jwt, { keys, requiredClaims: [] });
      expect(received(h.service, JWKS)).toHaveLength(2);
      // Read afresh for a token because it was old, the set is not read a second time when no key of it fits.
      clock += age + 1;
      const stranger = await signJwt({ ...h.service.keys, kid: 'not-in-the-set' }, { iss: h.service.authUrl }, { nowMs: clock });
      expect(await rejection(verifySdJwt(stranger, { keys, requiredClaims: [] }))).toMatchObject({ code: 'ERR_SD_JWT_KEY_NOT_FOUND' });
      expect(received(h.service, JWKS)).toHaveLength(3);
    },
  );

  test.each([
    [
      'discovery answering 500',
      (url: string) => (url.includes('well-known') ? new Response('oops', { status: 500 }) : undefined),
      /HTTP 500/,
    ],
    ['the JWKS answering 404', (url: string) => (url.includes('jwks') ? new Response('no', { status: 404 }) : undefined), /HTTP 404/],
    [
      'discovery that is not JSON',
      (url: string) => (url.includes('well-known') ? new Response('<html>', { status: 200 }) : undefined),
      /not JSON/,
    ],
    ['the JWKS not JSON', (url: string) => (url.includes('jwks') ? new Response('<html>', { status: 200 }) : undefined), /not JSON/],
    [
      'discovery without jwks_uri',
      (url: string) => (url.includes('well-known') ? Response.json({ issuer: ISSUER_OF(url) }) : undefined),
      /no jwks_uri/,
    ],
  ] as const)('%s is a JwksError saying so', async (_name, answer, message) => {
    const h = await harness();
    const jwt = await credentialJwt(h);
    const keys = remoteJwks(h.service.authUrl, { fetch: async (url, init) => answer(url) ?? h.service.fetch(new Request(url, init)) });
    const error = await rejection(verifySdJwt(jwt, { keys, requiredClaims: [] }));
    expect(error).toBeInstanceOf(JwksError);
    expect((error as JwksError).message).toMatch(message);
  });

  test('an unreachable JWKS is a JwksError, not a crash', async () => {
    const h = await harness();
    const jwt = await credentialJwt(h);
    const keys = remoteJwks(h.service.authUrl, {
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    const error = await rejection(verifySdJwt(jwt, { keys, requiredClaims: [] }));
    expect(error).toBeInstanceOf(JwksError);
    // The network error stays reachable, as does the parser's for an answer that is not JSON.
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    const html = remoteJwks(h.service.authUrl, { fetch: async () => new Response('<html>') });
    expect(((await rejection(verifySdJwt(jwt, { keys: html, requiredClaims: [] }))) as Error).cause).toBeInstanceOf(SyntaxError);
  });

  test('discovery and the JWKS are asked for as JSON; an auth URL with trailing slashes is the same issuer', async () => {
    const h = await harness();
    const jwt = await credentialJwt(h);
    const accepts: (string | null)[] = [];
    const keys = remoteJwks(`${h.service.authUrl}//`, {
      fetch: async (url, init) => {
        accepts.push(new Headers(init?.headers).get('accept'));
        return h.service.fetch(new Request(url, init));
      },
    });
    expect(keys.issuer).toBe(h.service.authUrl);
    await verifySdJwt(jwt, { keys, requiredClaims: [] });
    expect(accepts).toEqual(['application/json', 'application/json']);
  });

  test('an unknown kid refetches exactly when the cooldown has passed, and logs the kid at most 64 characters long', async () => {
    let clock = Date.now();
    const h = await harness();
    const warnings: Record<string, unknown>[] = [];
    const logger = {
      debug() {},
      info() {},
      error() {},
      warn: (_message: string, fields: object) => void warnings.push(fields as Record<string, unknown>),
    };
    const keys = remoteJwks(h.service.authUrl, { now: () => clock, cooldownMs: 10_000, logger });
    await verifySdJwt(await credentialJwt(h), { keys, requiredClaims: [] });
    const kid = 'k'.repeat(100);
    const stranger = await signJwt({ ...h.service.keys, kid }, { iss: h.service.authUrl }, { nowMs: clock });
    // The first unknown kid after a read is fetched for at once; the next only once the cooldown has passed since then.
    await rejection(verifySdJwt(stranger, { keys, requiredClaims: [] }));
    expect(received(h.service, JWKS)).toHaveLength(2);
    clock += 9_999;
    await rejection(verifySdJwt(stranger, { keys, requiredClaims: [] }));
    expect(received(h.service, JWKS)).toHaveLength(2);
    clock += 1;
    await rejection(verifySdJwt(stranger, { keys, requiredClaims: [] }));
    expect(received(h.service, JWKS)).toHaveLength(3);
    expect(warnings).toEqual([
      { alg: 'RS256', kid: 'k'.repeat(64) },
      { alg: 'RS256', kid: 'k'.repeat(64) },
    ]);
  });
});

describe('the keys kept per token header', () => {
  const ISSUER = 'https://issuer.example';
  const exp = () => Math.floor(Date.now() / 1000) + 600;
  const sdJwt = async (alg: string, kid: string, key: CryptoKey) =>
    `${await new SignJWT({ iss: ISSUER, exp: exp() }).setProtectedHeader({ alg, kid }).sign(key)}~`;

  test('tokens naming each kid of one key set verify on one source, in any order: a header never reuses the keys another kid found', async () => {
    const one = await generateKeyPair('RS256', { extractable: true });
    const two = await generateKeyPair('RS256', { extractable: true });
    const keys = localJwks(
      {
        keys: [
          { ...(await exportJWK(one.publicKey)), kid: 'one' },
          { ...(await exportJWK(two.publicKey)), kid: 'two' },
        ],
      },
      ISSUER,
    );
    for (const [kid, key] of [
      ['one', one.privateKey],
      ['two', two.privateKey],
      ['one', one.privateKey],
    ] as const) {
      await expect(verifySdJwt(await sdJwt('RS256', kid, key), { keys }), kid).resolves.toBeDefined();
    }
    // A token naming kid "two" but signed with key one is refused: each kid has only its own key.
    expect(await rejection(verifySdJwt(await sdJwt('RS256', 'two', one.privateKey), { keys }))).toMatchObject({
      code: 'ERR_SD_JWT_SIGNATURE',
    });
  });

  test('a JWK that names no alg verifies each algorithm its key fits (RS256 and PS256 on one RSA key), each with a key imported for it', async () => {
    const { privateKey, publicKey } = await generateKeyPair('PS256', { extractable: true });
    const keys = localJwks({ keys: [{ ...(await exportJWK(publicKey)), kid: 'rsa' }] }, ISSUER);
    // The same private key, imported for RS256.
    const asRs256 = (await importJWK({ ...(await exportJWK(privateKey)), alg: 'RS256' }, 'RS256')) as CryptoKey;
    for (const [alg, key] of [
      ['RS256', asRs256],
      ['PS256', privateKey],
      ['RS256', asRs256],
    ] as const) {
      await expect(verifySdJwt(await sdJwt(alg, 'rsa', key), { keys }), alg).resolves.toBeDefined();
    }
  });
});
