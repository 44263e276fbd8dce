/**
 * The verifiers' edges (#13): inputs an attacker or an unusual issuer sends. Each test breaks one
 * rule on an otherwise valid input built here by hand, so the rule alone decides.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { JwksError, localJwks, readClaim, verifyIdentityResponse, verifySdJwt } from '../../src/sd-jwt/index.js';
import { ConfigurationError, InvalidInputError } from '../../src/errors/index.js';
import { looselyWritten, rejection } from '../helpers.js';
import { ISSUER, NOW, NOW_MS, at, digest, disclosure, testIssuer, type TestIssuer } from './issuer.js';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await testIssuer();
});

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(Error);
  return (error as { code: string }).code;
}

/** An identity response envelope over `claims` (claim key to value), valid unless changed. */
function envelope(claims: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const disclosures = Object.entries(claims).map(([claim, value], i) => ({ claim, salt: `salt-${i}`, value }));
  return {
    sub: 'person-1',
    exp: NOW + 600,
    request_code: 'isc-1',
    _sd_alg: 'sha256',
    _sd: disclosures.map((d) => digest(disclosure(d.salt, d.claim, d.value))),
    disclosures,
    ...extra,
  };
}
const REQUEST = { requestCode: 'isc-1', now: () => NOW_MS };

/** An envelope and a credential_jwt carrying the same disclosures, signed by the test issuer about `sub`. */
async function withCredential(claims: Record<string, unknown>, credential: { sub?: string } = { sub: 'person-1' }) {
  const data = envelope(claims);
  const encoded = data.disclosures.map((d) => disclosure(d.salt, d.claim, d.value));
  const jwt = await issuer.sdJwt({ ...credential, _sd: encoded.map((e) => digest(e)) }, encoded);
  return { ...data, 'acmeidentity.credential_jwt': jwt };
}

describe('verifyIdentityResponse: the envelope follows RFC 9901 §7.1 too', () => {
  test('a valid hand-made envelope verifies (the base every test below breaks)', async () => {
    const verified = await verifyIdentityResponse(envelope({ 'acmeidentity.given_name': 'Jane' }), REQUEST);
    expect(verified.claims).toEqual({ 'acmeidentity.given_name': 'Jane' });
  });

  test.each(['sub', 'exp', 'request_code', 'acmeidentity.credential_jwt'])(
    'a disclosure named like a plaintext field (%s) is a collision, never a silent override',
    async (name) => {
      const data = envelope(
        { 'acmeidentity.given_name': 'Jane', [name]: 'forged' },
        name === 'acmeidentity.credential_jwt' ? { [name]: 'x~' } : {},
      );
      expect(await code(verifyIdentityResponse(data, REQUEST))).toBe('ERR_SD_JWT_CLAIM_COLLISION');
    },
  );

  test.each(['constructor', 'toString', 'hasOwnProperty'])(
    'a disclosure named like a member every object inherits (%s) is no collision: only the fields of the response itself collide',
    async (name) => {
      const verified = await verifyIdentityResponse(envelope({ [name]: 'disclosed' }), REQUEST);
      expect(Object.getOwnPropertyDescriptor(verified.claims, name)?.value).toBe('disclosed');
    },
  );

  test.each(['_sd', '...'])('a disclosure named %s is reserved', async (name) => {
    expect(await code(verifyIdentityResponse(envelope({ [name]: 'x' }), REQUEST))).toBe('ERR_SD_JWT_RESERVED_NAME');
  });

  test('a value nested deeper than 64 levels is a typed refusal, not a RangeError', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    // Its digest cannot even be computed (JSON.stringify overflows): the verifier must refuse it before trying.
    const data = { ...envelope({}), _sd: ['AAAA'], disclosures: [{ claim: 'acmeidentity.name', salt: 's', value: deep }] };
    expect(await code(verifyIdentityResponse(data, REQUEST))).toBe('ERR_SD_JWT_MALFORMED');
    let fine: unknown = 'x';
    for (let i = 0; i < 40; i++) fine = { a: fine };
    await expect(verifyIdentityResponse(envelope({ 'acmeidentity.name': fine }), REQUEST)).resolves.toBeDefined();
  });

  test('64 levels are the limit, the envelope counted: data (1), disclosures (2), a disclosure (3), then its value', async () => {
    const nested = (levels: number) => {
      let value: unknown = 'x';
      for (let i = 0; i < levels; i++) value = i % 2 ? { a: value } : [value];
      return value;
    };
    await expect(verifyIdentityResponse(envelope({ 'acmeidentity.name': nested(61) }), REQUEST)).resolves.toBeDefined();
    expect(await code(verifyIdentityResponse(envelope({ 'acmeidentity.name': nested(62) }), REQUEST))).toBe('ERR_SD_JWT_MALFORMED');
  });
});

describe('verifyIdentityResponse: embedded credentials', () => {
  test('a credential about the response\'s subject proves its claims: proof "signature"', async () => {
    const verified = await verifyIdentityResponse(await withCredential({ 'acmeidentity.given_name': 'Jane' }), {
      ...REQUEST,
      keys: issuer.keys,
    });
    expect(verified.proof).toBe('signature');
    expect(verified.signedClaims).toEqual(['acmeidentity.given_name']);
  });

  test("an issuer that writes its disclosures in a form of its own (PHP's escaped slashes, tabs): the signed credential's bytes are hashed, so the envelope verifies; without the credential that form cannot be checked", async () => {
    const claims = { 'acmeidentity.email': 'jane@example.com', 'document.url': 'https://example.com/a/b' };
    // json_encode's default escapes "/"; a tab after each comma: a form no verifier could guess.
    const own = (d: { claim: string; salt: string; value: unknown }) =>
      Buffer.from(JSON.stringify([d.salt, d.claim, d.value]).replace(/\//g, '\\/').replace(/,/g, ',\t')).toString('base64url');
    const plain = envelope(claims);
    const encoded = plain.disclosures.map(own);
    const committed = encoded.map((e) => digest(e));
    const data = { ...plain, _sd: committed };
    const jwt = await issuer.sdJwt({ sub: 'person-1', _sd: committed }, encoded);
    const verified = await verifyIdentityResponse({ ...data, 'acmeidentity.credential_jwt': jwt }, { ...REQUEST, keys: issuer.keys });
    expect(verified.claims).toMatchObject(claims);
    expect(verified.proof).toBe('signature');
    expect(await code(verifyIdentityResponse(data, REQUEST))).toBe('ERR_SD_JWT_DIGEST_MISMATCH');
  });

  test('a validly signed credential of another person is refused with its own code', async () => {
    const data = await withCredential({ 'acmeidentity.given_name': 'Jane' }, { sub: 'person-2' });
    expect(await code(verifyIdentityResponse(data, { ...REQUEST, keys: issuer.keys }))).toBe('ERR_SD_JWT_SUBJECT_MISMATCH');
  });

  test('a credential without sub is bound to no one: its claims count as digests only, and requireSignature refuses', async () => {
    const data = await withCredential({ 'acmeidentity.given_name': 'Jane' }, {});
    const verified = await verifyIdentityResponse(data, { ...REQUEST, keys: issuer.keys });
    expect(verified.proof).toBe('digests');
    expect(verified.signedClaims).toEqual([]);
    const error = await rejection(verifyIdentityResponse(data, { ...REQUEST, keys: issuer.keys, requireSignature: true }));
    expect(error).toMatchObject({ code: 'ERR_SD_JWT_SIGNATURE_REQUIRED', message: expect.stringContaining('subject') });
    // Nor does it prove a claim disclosed without a salt, or add a claim only it discloses.
    const pep = disclosure('salt-p', 'sanctionscheck.is_pep', 'No');
    const given = disclosure('salt-g', 'acmeidentity.given_name', 'Jane');
    const unbound = await issuer.sdJwt({ _sd: [digest(pep), digest(given)] }, [pep, given]);
    const unsalted = {
      ...envelope({}),
      disclosures: [{ claim: 'acmeidentity.given_name', value: 'Jane' }],
      'acmeidentity.credential_jwt': unbound,
    };
    const read = await verifyIdentityResponse(unsalted, { ...REQUEST, keys: issuer.keys });
    expect(read.claims).toEqual({ 'acmeidentity.given_name': 'Jane' });
    expect(read.uncheckedClaims).toEqual(['acmeidentity.given_name']);
    expect(read.signedClaims).toEqual([]);
  });

  test('an answer whose only content is a credential bound to no one is a result without claims (its credential listed), not "no claims"; requireSignature refuses it for want of a bound credential', async () => {
    const encoded = [disclosure('salt-0', 'acmeidentity.given_name', 'Jane')];
    const jwt = await issuer.sdJwt({ _sd: encoded.map((e) => digest(e)) }, encoded);
    const data = { ...envelope({}), 'acmeidentity.credential_jwt': jwt };
    const verified = await verifyIdentityResponse(data, { ...REQUEST, keys: issuer.keys });
    expect(verified.claims).toEqual({});
    expect(Object.keys(verified.credentials)).toEqual(['acmeidentity.credential_jwt']);
    expect(verified.proof).toBe('digests');
    const refused = await rejection(verifyIdentityResponse(data, { ...REQUEST, keys: issuer.keys, requireSignature: true }));
    expect(refused).toMatchObject({ code: 'ERR_SD_JWT_SIGNATURE_REQUIRED', message: expect.stringContaining('names the response') });
  });

  test('requireSignature refuses an unsigned answer that discloses nothing (only disclosures_missing): a denial is proven as a disclosure is', async () => {
    const data = envelope({}, { disclosures_missing: ['acmeidentity.birth_date'] });
    expect((await verifyIdentityResponse(data, REQUEST)).disclosuresMissing).toEqual(['acmeidentity.birth_date']);
    expect(await code(verifyIdentityResponse(data, { ...REQUEST, requireSignature: true }))).toBe('ERR_SD_JWT_SIGNATURE_REQUIRED');
    // Fail closed: a value that is not a boolean but says yes (read from the environment as text, say) requires it too.
    expect(await code(verifyIdentityResponse(data, { ...REQUEST, requireSignature: 'true' as never }))).toBe(
      'ERR_SD_JWT_SIGNATURE_REQUIRED',
    );
  });

  test('a plain JWT as credential_jwt is refused: the spec calls it a full SD-JWT credential', async () => {
    const data = {
      ...envelope({ 'acmeidentity.given_name': 'Jane' }),
      'acmeidentity.credential_jwt': await issuer.sign({ iss: ISSUER, sub: 'person-1', exp: NOW + 60 }),
    };
    expect(await code(verifyIdentityResponse(data, { ...REQUEST, keys: issuer.keys }))).toBe('ERR_SD_JWT_MALFORMED');
  });

  test('credentialRequiredClaims reaches the credentials: one without exp passes with [] and not by default', async () => {
    const data = envelope({ 'acmeidentity.given_name': 'Jane' });
    const encoded = data.disclosures.map((d) => disclosure(d.salt, d.claim, d.value));
    const jwt = await issuer.sign({ iss: ISSUER, sub: 'person-1', _sd_alg: 'sha-256', _sd: encoded.map((e) => digest(e)) });
    const full = { ...data, 'acmeidentity.credential_jwt': `${jwt}~${encoded.join('~')}~` };
    expect(await code(verifyIdentityResponse(full, { ...REQUEST, keys: issuer.keys }))).toBe('ERR_SD_JWT_MISSING_CLAIM');
    const verified = await verifyIdentityResponse(full, { ...REQUEST, keys: issuer.keys, credentialRequiredClaims: [] });
    expect(verified.proof).toBe('signature');
  });
});

describe('a crafted claim name of a megabyte is shown in the message cut to 64 characters, whichever rule refuses it', () => {
  const long = `acmeidentity.${'x'.repeat(1 << 20)}`;
  const cut = `"${long.slice(0, 64)}…"`;
  async function shownCut(promise: Promise<unknown>, expected: string) {
    const error = (await rejection(promise)) as { code: string; message: string };
    expect(error.code).toBe(expected);
    expect(error.message).toContain(cut);
    expect(error.message.length).toBeLessThan(200);
  }

  test('the envelope: a plaintext field, no salt, twice, a digest not in _sd', async () => {
    await shownCut(verifyIdentityResponse(envelope({ [long]: 'x' }, { [long]: 'plain' }), REQUEST), 'ERR_SD_JWT_CLAIM_COLLISION');
    await shownCut(
      verifyIdentityResponse({ ...envelope({}), disclosures: [{ claim: long, salt: 7, value: 'x' }] }, REQUEST),
      'ERR_SD_JWT_MALFORMED',
    );
    const twice = envelope({ [long]: 'x' });
    await shownCut(
      verifyIdentityResponse({ ...twice, disclosures: [...twice.disclosures, ...twice.disclosures] }, REQUEST),
      'ERR_SD_JWT_DUPLICATE_DISCLOSURE',
    );
    await shownCut(verifyIdentityResponse({ ...envelope({ [long]: 'x' }), _sd: ['AAAA'] }, REQUEST), 'ERR_SD_JWT_DIGEST_MISMATCH');
  });

  test('the credential: a disclosed name its payload already has', async () => {
    const named = disclosure('s', long, 'disclosed');
    const jwt = await issuer.sdJwt({ [long]: 'plain', _sd: [digest(named)] }, [named]);
    await shownCut(verifySdJwt(jwt, at(issuer.keys)), 'ERR_SD_JWT_CLAIM_COLLISION');
  });

  test('a name with a line break or another control character is shown with spaces in their place', async () => {
    const forged = 'acmeidentity.name\n[acme-identity] all checks passed\u001b[2K';
    const error = await rejection(verifyIdentityResponse({ ...envelope({ [forged]: 'x' }), _sd: ['AAAA'] }, REQUEST));
    expect((error as Error).message).toContain('"acmeidentity.name [acme-identity] all checks passed [2K"');
  });

  test('a name of 64 characters or fewer is shown whole', async () => {
    const name = `acmeidentity.${'y'.repeat(51)}`;
    expect(name).toHaveLength(64);
    const error = await rejection(verifyIdentityResponse({ ...envelope({ [name]: 'x' }), _sd: ['AAAA'] }, REQUEST));
    expect((error as Error).message).toContain(`"${name}" is not in _sd`);
  });
});

describe('verifySdJwt: edges', () => {
  test('an issuer-signed part of more or fewer than three segments is malformed, even when its first three verify', async () => {
    const jwt = await issuer.sign({ iss: ISSUER, exp: NOW + 60 });
    expect(await code(verifySdJwt(`${jwt}.AAAA~`, at(issuer.keys)))).toBe('ERR_SD_JWT_MALFORMED');
    expect(await code(verifySdJwt(`${jwt.slice(0, jwt.lastIndexOf('.'))}~`, at(issuer.keys)))).toBe('ERR_SD_JWT_MALFORMED');
    await expect(verifySdJwt(`${jwt}~`, at(issuer.keys))).resolves.toBeDefined();
  });

  test('a payload is read by its own fields: an Object.prototype carrying "..." or "_sd" (polluted by another library) changes nothing', async () => {
    const element = disclosure('s1', { id: 'e1' });
    const token = await issuer.sdJwt({ list: [{ a: 1 }, { '...': digest(element) }], nested: { b: 2 } }, [element]);
    const plain = await issuer.sign({ iss: ISSUER, exp: NOW + 60, list: [{ a: 1 }], nested: { b: 2 } });
    const before = await verifySdJwt(token, at(issuer.keys));
    expect(before.claims).toMatchObject({ list: [{ a: 1 }, { id: 'e1' }], nested: { b: 2 } });
    const plainBefore = await verifySdJwt(plain, at(issuer.keys));
    const proto = Object.prototype as Record<string, unknown>;
    for (const [name, value] of [
      ['...', digest(element)],
      ['_sd', [digest(element)]],
    ] as const) {
      Object.defineProperty(proto, name, { value, configurable: true, writable: true, enumerable: false });
    }
    try {
      expect(await verifySdJwt(token, at(issuer.keys))).toEqual(before);
      expect(await verifySdJwt(plain, at(issuer.keys))).toEqual(plainBefore);
    } finally {
      delete proto['...'];
      delete proto['_sd'];
    }
  });

  test('a JWT carrying _sd digests without its "~" is not a plain JWT, whatever allowPlainJwt says', async () => {
    const hidden = disclosure('s', 'is_sanctioned', true);
    const jwt = await issuer.sign({ iss: ISSUER, exp: NOW + 60, _sd_alg: 'sha-256', _sd: [digest(hidden)] });
    expect(await code(verifySdJwt(jwt, at(issuer.keys)))).toBe('ERR_SD_JWT_MALFORMED');
    const empty = await issuer.sign({ iss: ISSUER, exp: NOW + 60, _sd: [] });
    expect(await code(verifySdJwt(empty, at(issuer.keys)))).toBe('ERR_SD_JWT_MALFORMED');
    const nested = await issuer.sign({ iss: ISSUER, exp: NOW + 60, list: [{ '...': digest(disclosure('s', 'x')) }] });
    expect(await code(verifySdJwt(nested, at(issuer.keys)))).toBe('ERR_SD_JWT_MALFORMED');
    const alg = await issuer.sign({ iss: ISSUER, exp: NOW + 60, _sd_alg: 'sha-256' });
    expect(await code(verifySdJwt(alg, at(issuer.keys)))).toBe('ERR_SD_JWT_MALFORMED');
    // With its "~" the same token is an SD-JWT with nothing disclosed.
    await expect(verifySdJwt(`${jwt}~`, at(issuer.keys))).resolves.toMatchObject({ claims: { exp: NOW + 60 } });
  });

  test.each([NaN, Infinity, -Infinity, '1700000000000', undefined])(
    'a clock returning %s fails closed with ConfigurationError',
    async (value) => {
      const expired = await issuer.sdJwt({ exp: NOW - 10 }, []);
      const error = await rejection(verifySdJwt(expired, { keys: issuer.keys, now: () => value as number }));
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error).toMatchObject({ option: 'now' });
    },
  );

  test.each([NaN, -1, Infinity, '5'])('clockToleranceSeconds %s is refused', async (value) => {
    const token = await issuer.sdJwt({}, []);
    expect(await rejection(verifySdJwt(token, { ...at(issuer.keys), clockToleranceSeconds: value as number }))).toMatchObject({
      code: 'ERR_INVALID_CONFIG',
      option: 'clockToleranceSeconds',
    });
  });

  test('misuse is typed: no options, no keys, keys that are not a key source', async () => {
    const token = await issuer.sdJwt({}, []);
    for (const options of [undefined, null, {}, { keys: null }, { keys: { issuer: ISSUER } }, { keys: 'https://issuer.example' }]) {
      const error = await rejection(verifySdJwt(token, options as never));
      expect(error).toBeInstanceOf(ConfigurationError);
    }
    expect(await rejection(verifyIdentityResponse(envelope({}), undefined as never))).toBeInstanceOf(ConfigurationError);
    expect(await rejection(verifyIdentityResponse(envelope({}), { requestCode: 'isc-1', keys: {} as never }))).toBeInstanceOf(
      ConfigurationError,
    );
  });

  test('options that are not an object (a URL, a number, a list, a function) are refused as options, not read for keys', async () => {
    const token = await issuer.sdJwt({}, []);
    for (const options of ['https://issuer.example', 42, true, [issuer.keys], () => issuer.keys]) {
      const error = await rejection(verifySdJwt(token, options as never));
      expect(error, String(options)).toMatchObject({ code: 'ERR_INVALID_CONFIG', option: 'options' });
    }
  });

  test('readClaim(null, ...) and readClaim with a key that is not a string are InvalidInputError', () => {
    expect(() => readClaim(null as never, 'acmeidentity.name')).toThrow(InvalidInputError);
    expect(() => readClaim({}, 42 as never)).toThrow(InvalidInputError);
  });

  test('digests that are not strings, and an _sd that is not an array, are malformed: never passed over as decoys', async () => {
    for (const payload of [{ _sd: [42] }, { _sd: [null] }, { _sd: 'a-digest' }, { _sd: { 0: 'a-digest' } }, { list: [{ '...': 42 }] }]) {
      const jwt = await issuer.sign({ iss: ISSUER, exp: NOW + 60, ...payload });
      expect(await code(verifySdJwt(`${jwt}~`, at(issuer.keys))), JSON.stringify(payload)).toBe('ERR_SD_JWT_MALFORMED');
    }
  });

  test('a claim named __proto__ is a claim of its own, at any depth: it sets no prototype', async () => {
    const payload = JSON.parse(`{"iss":"${ISSUER}","exp":${NOW + 60},"__proto__":{"admin":true},"nested":{"__proto__":{"admin":true}}}`);
    const { claims } = await verifySdJwt(`${await issuer.sign(payload)}~`, at(issuer.keys));
    expect(Object.hasOwn(claims, '__proto__')).toBe(true);
    expect(claims['admin']).toBeUndefined();
    expect(Object.getPrototypeOf(claims)).toBe(Object.prototype);
    expect(Object.hasOwn(claims['nested'] as object, '__proto__')).toBe(true);
    expect((claims['nested'] as Record<string, unknown>)['admin']).toBeUndefined();
  });

  test('a signature that is not base64url is malformed, not "the key cannot verify"', async () => {
    const token = await issuer.sdJwt({}, []);
    const [jwt] = token.split('~');
    for (const signature of ['!!!!', 'a', 'abcde', 'ab+/']) {
      const broken = `${jwt!.slice(0, jwt!.lastIndexOf('.') + 1)}${signature}~`;
      expect(await code(verifySdJwt(broken, at(issuer.keys)))).toBe('ERR_SD_JWT_MALFORMED');
    }
  });
});

describe("verifySdJwt: the issuer's keys", () => {
  async function keyPair() {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    return { privateKey, jwk: { ...(await exportJWK(publicKey)) } as JWK, full: (await exportJWK(privateKey)) as JWK };
  }
  const signWith = (key: CryptoKey, header: Record<string, unknown> = {}) =>
    new SignJWT({ iss: ISSUER, exp: NOW + 60 }).setProtectedHeader({ alg: 'ES256', ...header } as { alg: string }).sign(key);

  test('without a kid, each fitting key is tried: a JWKS in rotation holds two, and the second signs', async () => {
    const [old, current] = [await keyPair(), await keyPair()];
    const keys = localJwks({ keys: [old.jwk, current.jwk] }, ISSUER);
    await expect(verifySdJwt(`${await signWith(current.privateKey)}~`, at(keys))).resolves.toBeDefined();
    await expect(verifySdJwt(`${await signWith(old.privateKey)}~`, at(keys))).resolves.toBeDefined();
    const stranger = await keyPair();
    expect(await code(verifySdJwt(`${await signWith(stranger.privateKey)}~`, at(keys)))).toBe('ERR_SD_JWT_SIGNATURE');
  });

  test('a kid that is not a string names no key, as in jose: every fitting key is tried', async () => {
    const [old, current] = [await keyPair(), await keyPair()];
    const keys = localJwks(
      {
        keys: [
          { ...old.jwk, kid: 'old' },
          { ...current.jwk, kid: 'current' },
        ],
      },
      ISSUER,
    );
    // Read as text, 7 and null would name no key of the set, and ['old'] the key that did not sign.
    for (const kid of [7, null, ['old'], { id: 'old' }]) {
      await expect(verifySdJwt(`${await signWith(current.privateKey, { kid })}~`, at(keys)), JSON.stringify(kid)).resolves.toBeDefined();
    }
  });

  test("keyFor, for a source's callers that take one key, gives the first fitting key in JWKS order", async () => {
    const [old, current] = [await keyPair(), await keyPair()];
    const keys = localJwks({ keys: [old.jwk, current.jwk] }, ISSUER);
    const one = keys.keyFor({ alg: 'ES256' });
    const first = (await keys.keysFor!({ alg: 'ES256' }))[0];
    expect(await one).toBe(first);
    // Only the first: a source whose keysFor a caller ignores verifies the first key's tokens.
    const onlyKeyFor = { keyFor: keys.keyFor.bind(keys), issuer: ISSUER };
    await expect(verifySdJwt(`${await signWith(old.privateKey)}~`, at(onlyKeyFor))).resolves.toBeDefined();
    expect(await code(verifySdJwt(`${await signWith(current.privateKey)}~`, at(onlyKeyFor)))).toBe('ERR_SD_JWT_SIGNATURE');
  });

  test('the keys kept per header tell a kid of "" from no kid, either order', async () => {
    const [a, b] = [await keyPair(), await keyPair()];
    const set = {
      keys: [
        { ...a.jwk, kid: 'a' },
        { ...b.jwk, kid: '' },
      ],
    };
    // No kid first (both keys tried, a verifies), then kid "" (b alone: a's signature is refused).
    const first = localJwks(set, ISSUER);
    await expect(verifySdJwt(`${await signWith(a.privateKey)}~`, at(first))).resolves.toBeDefined();
    expect(await code(verifySdJwt(`${await signWith(a.privateKey, { kid: '' })}~`, at(first)))).toBe('ERR_SD_JWT_SIGNATURE');
    // The other order, on a fresh source: kid "" first must not stand for no kid afterwards.
    const second = localJwks(set, ISSUER);
    await expect(verifySdJwt(`${await signWith(b.privateKey, { kid: '' })}~`, at(second))).resolves.toBeDefined();
    await expect(verifySdJwt(`${await signWith(a.privateKey)}~`, at(second))).resolves.toBeDefined();
  });

  test('at most four keys are tried for a token without a kid', async () => {
    const pairs = await Promise.all(Array.from({ length: 5 }, keyPair));
    const keys = localJwks({ keys: pairs.map((p) => p.jwk) }, ISSUER);
    await expect(verifySdJwt(`${await signWith(pairs[3]!.privateKey)}~`, at(keys))).resolves.toBeDefined();
    expect(await code(verifySdJwt(`${await signWith(pairs[4]!.privateKey)}~`, at(keys)))).toBe('ERR_SD_JWT_SIGNATURE');
    // keysFor keeps its contract for whoever calls it directly: at most four.
    await expect(keys.keysFor!({ alg: 'ES256' })).resolves.toHaveLength(4);
  });

  test.each<[string, (jwk: JWK, full: JWK) => JWK]>([
    ['key_ops without verify', (jwk) => ({ ...jwk, key_ops: ['encrypt'] })],
    ['key_ops that is not an array', (jwk) => ({ ...jwk, key_ops: 'verify' as never })],
    ['use enc', (jwk) => ({ ...jwk, use: 'enc' })],
    ['a private JWK', (_jwk, full) => full],
  ])('a key with %s is not used: a typed KEY_NOT_FOUND, never a DOMException', async (_name, change) => {
    const pair = await keyPair();
    const keys = localJwks({ keys: [change(pair.jwk, pair.full)] }, ISSUER);
    expect(await code(verifySdJwt(`${await signWith(pair.privateKey)}~`, at(keys)))).toBe('ERR_SD_JWT_KEY_NOT_FOUND');
  });

  test('a key Web Crypto cannot import is a JwksError naming it', async () => {
    const pair = await keyPair();
    const keys = localJwks({ keys: [{ ...pair.jwk, x: 'AAAA', kid: 'broken' }] }, ISSUER);
    const error = await rejection(verifySdJwt(`${await signWith(pair.privateKey, { kid: 'broken' })}~`, at(keys)));
    expect(error).toBeInstanceOf(JwksError);
    expect((error as Error).message).toContain('"broken"');
    // A kid is named at most 64 characters long: the key set is the issuer's text, not ours.
    const long = `${'b'.repeat(64)}${'z'.repeat(36)}`;
    const named = localJwks({ keys: [{ ...pair.jwk, x: 'AAAA', kid: long }] }, ISSUER);
    const message = ((await rejection(verifySdJwt(`${await signWith(pair.privateKey, { kid: long })}~`, at(named)))) as Error).message;
    expect(message).toContain(`"${'b'.repeat(64)}…"`);
    expect(message).not.toContain('z');
    // Web Crypto's own refusal stays reachable for whoever debugs the key set.
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  test('entries of a key set that are not keys, or are symmetric, are passed over', async () => {
    const pair = await keyPair();
    const keys = localJwks({ keys: [null, undefined, 'key', 7, [pair.jwk], { kty: 'oct', k: 'c2VjcmV0' }, pair.jwk] as never }, ISSUER);
    await expect(verifySdJwt(`${await signWith(pair.privateKey)}~`, at(keys))).resolves.toBeDefined();
    const none = localJwks({ keys: [null, 'key', [pair.jwk]] as never }, ISSUER);
    expect(await code(verifySdJwt(`${await signWith(pair.privateKey)}~`, at(none)))).toBe('ERR_SD_JWT_KEY_NOT_FOUND');
  });

  test('a key whose key_ops include verify is used', async () => {
    const pair = await keyPair();
    const keys = localJwks({ keys: [{ ...pair.jwk, key_ops: ['verify'] }] }, ISSUER);
    await expect(verifySdJwt(`${await signWith(pair.privateKey)}~`, at(keys))).resolves.toBeDefined();
  });

  test('KEY_NOT_FOUND names the kid the token asked for, or says it named none', async () => {
    const pair = await keyPair();
    const keys = localJwks({ keys: [{ ...pair.jwk, kid: 'k-current' }] }, ISSUER);
    const withKid = await rejection(verifySdJwt(`${await signWith(pair.privateKey, { kid: 'k-gone' })}~`, at(keys)));
    expect(withKid).toMatchObject({ code: 'ERR_SD_JWT_KEY_NOT_FOUND', message: expect.stringContaining('with kid "k-gone"') });
    const rsa = localJwks({ keys: [issuer.publicJwk] }, ISSUER);
    const without = await rejection(verifySdJwt(`${await signWith(pair.privateKey)}~`, at(rsa)));
    expect(without).toMatchObject({ code: 'ERR_SD_JWT_KEY_NOT_FOUND', message: expect.stringContaining('without a kid') });
  });

  test("property: the kid of a token no key fits reaches KEY_NOT_FOUND's message on one line, cut (anyone can present a token)", async () => {
    const pair = await keyPair();
    const keys = localJwks({ keys: [{ ...pair.jwk, kid: 'k-current' }] }, ISSUER);
    const unprintable = fc.constantFrom('\n', '\r', '\u0000', '\u001b', '\u0085', '\u2028', '\u2029');
    const kid = fc
      .array(fc.oneof(fc.string({ maxLength: 80 }), unprintable), { minLength: 1, maxLength: 12 })
      .map((parts) => parts.join(''))
      .filter((text) => text !== 'k-current');
    await fc.assert(
      fc.asyncProperty(kid, async (written) => {
        const refused = await rejection(verifySdJwt(`${await signWith(pair.privateKey, { kid: written })}~`, at(keys)));
        expect(refused).toMatchObject({ code: 'ERR_SD_JWT_KEY_NOT_FOUND' });
        const { message } = refused as Error;
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the message must not hold
        expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
        expect(message.length).toBeLessThanOrEqual(200);
      }),
      { numRuns: 50 },
    );
  });

  test('a key source of its own: keysFor with no key falls back to keyFor; more than four candidates are cut to four', async () => {
    const pairs = await Promise.all(Array.from({ length: 6 }, keyPair));
    const imported = await Promise.all(
      pairs.map((p) => crypto.subtle.importKey('jwk', p.jwk as JsonWebKey, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify'])),
    );
    const source = (candidates: CryptoKey[], single: CryptoKey) => ({
      issuer: ISSUER,
      keysFor: async () => candidates,
      keyFor: async () => single,
    });
    await expect(verifySdJwt(`${await signWith(pairs[5]!.privateKey)}~`, at(source([], imported[5]!)))).resolves.toBeDefined();
    // A token naming its kid gets keyFor's one key, whatever keysFor would list.
    await expect(
      verifySdJwt(`${await signWith(pairs[5]!.privateKey, { kid: 'k5' })}~`, at(source(imported.slice(0, 2), imported[5]!))),
    ).resolves.toBeDefined();
    await expect(verifySdJwt(`${await signWith(pairs[3]!.privateKey)}~`, at(source(imported, imported[0]!)))).resolves.toBeDefined();
    expect(await code(verifySdJwt(`${await signWith(pairs[4]!.privateKey)}~`, at(source(imported, imported[4]!))))).toBe(
      'ERR_SD_JWT_SIGNATURE',
    );
  });
});

describe('verifyIdentityResponse: the envelope’s own fields', () => {
  test('the request code is required, even of a response that carries none or an empty one', async () => {
    const { request_code: _, ...without } = envelope({ 'acmeidentity.given_name': 'Jane' });
    expect(await code(verifyIdentityResponse(without, { now: () => NOW_MS } as never))).toBe('ERR_SD_JWT_REQUEST_CODE');
    expect(await code(verifyIdentityResponse({ ...without, request_code: '' }, { requestCode: '', now: () => NOW_MS }))).toBe(
      'ERR_SD_JWT_REQUEST_CODE',
    );
    expect(await code(verifyIdentityResponse({ ...without, request_code: 7 }, { requestCode: 7 as never, now: () => NOW_MS }))).toBe(
      'ERR_SD_JWT_REQUEST_CODE',
    );
  });

  test.each([
    ['partially_complete that is not a boolean', { partially_complete: 'maybe' }],
    ['disclosures_missing that is not a list of strings', { disclosures_missing: ['acmeidentity.phone', 3] }],
    ['disclosures_missing that is not a list', { disclosures_missing: 'acmeidentity.phone' }],
    ['a disclosure that is not an object', { disclosures: ['acmeidentity.given_name'] }],
    ['a disclosure whose claim is not a string', { disclosures: [{ claim: 5, salt: 'salt-0', value: 'Jane' }] }],
    ['disclosures that is not a list', { disclosures: { claim: 'acmeidentity.given_name', salt: 'salt-0', value: 'Jane' } }],
  ])('%s is malformed', async (_name, change) => {
    expect(await code(verifyIdentityResponse({ ...envelope({ 'acmeidentity.given_name': 'Jane' }), ...change }, REQUEST))).toBe(
      'ERR_SD_JWT_MALFORMED',
    );
  });

  test('a response without disclosures, disclosures_missing or a credential is no identity: refused, absence decides nothing', async () => {
    const { disclosures: _, ...bare } = envelope({});
    await expect(verifyIdentityResponse(bare, REQUEST)).rejects.toMatchObject({ code: 'ERR_SD_JWT_NO_CLAIMS' });
    await expect(verifyIdentityResponse(bare, { ...REQUEST, keys: issuer.keys })).rejects.toMatchObject({ code: 'ERR_SD_JWT_NO_CLAIMS' });
    // Something listed as missing is an answer: the service had no data for what was asked.
    const missing = await verifyIdentityResponse({ ...bare, disclosures_missing: ['acmeidentity.birth_date'] }, REQUEST);
    expect(missing).toMatchObject({ claims: {}, disclosuresMissing: ['acmeidentity.birth_date'], signedClaims: [], proof: 'digests' });
  });

  test('the verified claims are read-only: what was checked cannot be changed afterwards', async () => {
    const verified = await verifyIdentityResponse(envelope({ 'acmeidentity.given_name': 'Jane' }), REQUEST);
    expect(() => ((verified.claims as Record<string, unknown>)['acmeidentity.given_name'] = 'Mallory')).toThrow(TypeError);
    expect(() => delete (verified.claims as Record<string, unknown>)['acmeidentity.given_name']).toThrow(TypeError);
    expect(verified.claims['acmeidentity.given_name']).toBe('Jane');
  });

  test('requireSignature says what is missing: keys, a credential_jwt, or signed claims', async () => {
    const message = async (data: object, options: object) =>
      ((await rejection(verifyIdentityResponse(data, { ...REQUEST, requireSignature: true, ...options }))) as Error).message;
    const plain = envelope({ 'acmeidentity.given_name': 'Jane' });
    expect(await message(plain, {})).toMatch(/no keys/);
    expect(await message(plain, { keys: issuer.keys })).toMatch(/no credential_jwt \(request the acmeidentity\.credential claim\)/);
    const credential = await withCredential({ 'acmeidentity.given_name': 'Jane' });
    // One claim more in the envelope than in the signed credential.
    const extra = { claim: 'acmeidentity.family_name', salt: 'salt-x', value: 'Citizen' };
    const mixed = {
      ...credential,
      _sd: [...credential._sd, digest(disclosure(extra.salt, extra.claim, extra.value))],
      disclosures: [...credential.disclosures, extra],
    };
    expect(await message(mixed, { keys: issuer.keys })).toMatch(/some claims are not in a signed credential_jwt/);
  });
});

describe('verifyIdentityResponse: which credential speaks for the response', () => {
  test('a response that names no subject takes the credential’s subject as its own: proof "signature"', async () => {
    const { sub: _, ...anonymous } = await withCredential({ 'acmeidentity.given_name': 'Jane' });
    const verified = await verifyIdentityResponse(anonymous, { ...REQUEST, keys: issuer.keys });
    expect(verified.proof).toBe('signature');
    expect(verified.signedClaims).toEqual(['acmeidentity.given_name']);
  });

  test('an envelope array that differs from the signed one only after its first element is an envelope mismatch', async () => {
    const credential = await withCredential({ 'sanctionscheck.matches': ['same', 'signed'] });
    const changed = { ...credential, disclosures: [{ ...credential.disclosures[0]!, value: ['same', 'forged'] }] };
    expect(await code(verifyIdentityResponse(changed, { ...REQUEST, keys: issuer.keys }))).toBe('ERR_SD_JWT_ENVELOPE_MISMATCH');
  });

  test('an object value hashed in the spaced (Python) form verifies', async () => {
    const value = { first_name: 'Jane', last_name: 'Citizen' };
    const spaced = Buffer.from(`["salt-0", "acmeidentity.name", {"first_name": "Jane", "last_name": "Citizen"}]`).toString('base64url');
    const data = { ...envelope({ 'acmeidentity.name': value }), _sd: [digest(spaced)] };
    expect((await verifyIdentityResponse(data, REQUEST)).claims['acmeidentity.name']).toEqual(value);
  });

  test('property: digests of the disclosure JSON itself, not its base64url (the disclosureHash reading), verify in the compact and the spaced form, signed or not; a changed value never does', async () => {
    /** Python's json.dumps separators, non-ASCII kept. */
    const spacedJson = (v: unknown): string => {
      if (Array.isArray(v)) return `[${v.map(spacedJson).join(', ')}]`;
      if (v !== null && typeof v === 'object') {
        return `{${Object.entries(v)
          .map(([k, x]) => `${JSON.stringify(k)}: ${spacedJson(x)}`)
          .join(', ')}}`;
      }
      return JSON.stringify(v);
    };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(fc.constant('acmeidentity.given_name'), fc.string({ minLength: 1 })),
          fc.tuple(fc.constant('acmeidentity.name'), fc.record({ first_name: fc.string(), last_name: fc.string() })),
          fc.tuple(fc.constant('sanctionscheck.matches'), fc.array(fc.string(), { maxLength: 3 })),
        ),
        fc.constantFrom('compact', 'spaced'),
        fc.boolean(),
        async ([claim, value], form, signed) => {
          const written = signed || form === 'compact' ? JSON.stringify(['salt-0', claim, value]) : spacedJson(['salt-0', claim, value]);
          const base = signed ? await withCredential({ [claim]: value }) : envelope({ [claim]: value });
          const data = { ...base, _sd: [digest(written)] };
          const options = signed ? { ...REQUEST, keys: issuer.keys } : REQUEST;
          const verified = await verifyIdentityResponse(data, options);
          expect(verified.claims[claim]).toEqual(value);
          expect(verified.proof).toBe(signed ? 'signature' : 'digests');
          // A value no draw makes: never the one hashed.
          const changed = { ...data, disclosures: [{ ...data.disclosures[0]!, value: { changed: true } }] };
          expect(await code(verifyIdentityResponse(changed, options))).toBe(
            signed ? 'ERR_SD_JWT_ENVELOPE_MISMATCH' : 'ERR_SD_JWT_DIGEST_MISMATCH',
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('disclosures written as RFC 9901 writes them (the disclosureForm reading): the string, or the array it encodes', () => {
  const claimAndValue = fc.oneof(
    fc.tuple(fc.constant('acmeidentity.given_name'), fc.string({ minLength: 1 })),
    fc.tuple(fc.constant('acmeidentity.name'), fc.record({ first_name: fc.string(), last_name: fc.string() })),
    fc.tuple(fc.constant('sanctionscheck.matches'), fc.array(fc.integer(), { maxLength: 3 })),
  );

  test('property: the string verifies by its own bytes, however its JSON was written; the same bytes with another value never do', async () => {
    await fc.assert(
      fc.asyncProperty(
        claimAndValue,
        fc.array(fc.constantFrom('', ' ', '  ', '\n', '\t'), { minLength: 1 }),
        async ([claim, value], gaps) => {
          let at = 0;
          const gap = () => gaps[at++ % gaps.length] as string;
          const encoded = Buffer.from(looselyWritten(['salt-0', claim, value], gap)).toString('base64url');
          const data = { ...envelope({ [claim]: value }), _sd: [digest(encoded)], disclosures: [encoded] };
          const verified = await verifyIdentityResponse(data, REQUEST);
          expect(verified.claims[claim]).toEqual(value);
          expect(verified.proof).toBe('digests');
          // Another value under the same digest: the string's bytes are what is hashed.
          const other = Buffer.from(JSON.stringify(['salt-0', claim, { changed: true }])).toString('base64url');
          expect(await code(verifyIdentityResponse({ ...data, disclosures: [other] }, REQUEST))).toBe('ERR_SD_JWT_DIGEST_MISMATCH');
        },
      ),
      { numRuns: 60 },
    );
  });

  test('property: the array form, and the string beside a signed credential, verify as the object form does', async () => {
    await fc.assert(
      fc.asyncProperty(claimAndValue, fc.boolean(), fc.constantFrom('array', 'string'), async ([claim, value], signed, form) => {
        const base = signed ? await withCredential({ [claim]: value }) : envelope({ [claim]: value });
        const written = form === 'array' ? ['salt-0', claim, value] : disclosure('salt-0', claim, value);
        const verified = await verifyIdentityResponse(
          { ...base, disclosures: [written] },
          signed ? { ...REQUEST, keys: issuer.keys } : REQUEST,
        );
        expect(verified.claims[claim]).toEqual(value);
        expect(verified.proof).toBe(signed ? 'signature' : 'digests');
      }),
      { numRuns: 40 },
    );
  });

  test.each([
    ['a string that is not base64url', 'not base64url!'],
    ['a string that encodes no JSON', Buffer.from('[salt').toString('base64url')],
    ['an empty string', ''],
    [
      'a string whose JSON is not UTF-8',
      Buffer.concat([Buffer.from('["salt-0", "acmeidentity.given_name", "J'), Buffer.from([0xff]), Buffer.from('"]')]).toString(
        'base64url',
      ),
    ],
    ["an array element's disclosure, [salt, value]", Buffer.from('["salt-0", "Jane"]').toString('base64url')],
    ['a salt that is not text', [7, 'acmeidentity.given_name', 'Jane']],
    ['a claim that is not text', ['salt-0', 7, 'Jane']],
    ['four items', ['salt-0', 'acmeidentity.given_name', 'Jane', 'extra']],
    [
      'a value nested past the bound',
      Buffer.from(JSON.stringify(['salt-0', 'acmeidentity.given_name', JSON.parse(`${'['.repeat(70)}${']'.repeat(70)}`)])).toString(
        'base64url',
      ),
    ],
  ])('%s is malformed, saying which entry', async (_name, written) => {
    const data = { ...envelope({ 'acmeidentity.given_name': 'Jane' }), disclosures: [written] };
    const error = await rejection(verifyIdentityResponse(data, REQUEST));
    expect(error).toMatchObject({ code: 'ERR_SD_JWT_MALFORMED', message: expect.stringContaining('disclosures[0]') });
  });

  test('the reserved names and a plain field are refused in these forms too', async () => {
    const base = envelope({ 'acmeidentity.given_name': 'Jane' });
    expect(await code(verifyIdentityResponse({ ...base, disclosures: [disclosure('salt-0', '_sd', 'x')] }, REQUEST))).toBe(
      'ERR_SD_JWT_RESERVED_NAME',
    );
    expect(await code(verifyIdentityResponse({ ...base, disclosures: [['salt-0', 'sub', 'someone-else']] }, REQUEST))).toBe(
      'ERR_SD_JWT_CLAIM_COLLISION',
    );
  });
});

describe('a signed credential written nested (the claimKeys reading): {acmeidentity: {credential_jwt}}', () => {
  /** The response with each `*.credential_jwt` moved under its credential's name. */
  const nested = (data: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(data).map(([key, value]) =>
        key.endsWith('.credential_jwt') ? [key.slice(0, -'.credential_jwt'.length), { credential_jwt: value }] : [key, value],
      ),
    );

  test('property: verified as the dotted name is, its claims signed; only inside it, the claims are still the identity', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom('acmeidentity.given_name', 'acmeidentity.email', 'sanctionscheck.is_pep'),
          fc.string({ minLength: 1 }),
          {
            minKeys: 1,
          },
        ),
        fc.boolean(),
        async (claims, onlyInside) => {
          const dotted = await withCredential(claims);
          const written = onlyInside ? { ...dotted, _sd: [], disclosures: [] } : dotted;
          const options = { ...REQUEST, keys: issuer.keys, requireSignature: true };
          const expected = await verifyIdentityResponse(written, options);
          const verified = await verifyIdentityResponse(nested(written), options);
          expect(verified.claims).toEqual(expected.claims);
          expect(verified.claims).toEqual(claims);
          expect(verified.proof).toBe('signature');
          expect(verified.signedClaims.toSorted()).toEqual(Object.keys(claims).toSorted());
          expect(Object.keys(verified.credentials)).toEqual(['acmeidentity.credential_jwt']);
        },
      ),
      { numRuns: 25 },
    );
  });

  test('nested, it is verified as strictly: a changed signature is refused, and without keys it proves nothing', async () => {
    const data = nested(await withCredential({ 'acmeidentity.given_name': 'Jane' }));
    const jwt = (data['acmeidentity'] as { credential_jwt: string }).credential_jwt;
    const [head, payload, signature] = jwt.split('~')[0]!.split('.');
    const forged = `${head}.${payload}.${signature!.slice(0, -4)}AAAA~${jwt.split('~').slice(1).join('~')}`;
    const tampered = { ...data, acmeidentity: { credential_jwt: forged } };
    expect(await code(verifyIdentityResponse(tampered, { ...REQUEST, keys: issuer.keys }))).toBe('ERR_SD_JWT_SIGNATURE');
    expect(await code(verifyIdentityResponse(data, { ...REQUEST, requireSignature: true }))).toBe('ERR_SD_JWT_SIGNATURE_REQUIRED');
    const empty = { ...data, _sd: [], disclosures: [] };
    const error = await rejection(verifyIdentityResponse(empty, REQUEST));
    expect(error).toMatchObject({ code: 'ERR_SD_JWT_NO_CLAIMS', message: expect.stringContaining('acmeidentity.credential_jwt') });
  });

  test('written both ways, one value is read once; two values are refused as two answers', async () => {
    const dotted = await withCredential({ 'acmeidentity.given_name': 'Jane' });
    const jwt = dotted['acmeidentity.credential_jwt'];
    const both = { ...dotted, acmeidentity: { credential_jwt: jwt } };
    const verified = await verifyIdentityResponse(both, { ...REQUEST, keys: issuer.keys, requireSignature: true });
    expect(Object.keys(verified.credentials)).toEqual(['acmeidentity.credential_jwt']);
    const other = await withCredential({ 'acmeidentity.given_name': 'John' });
    const two = { ...dotted, acmeidentity: { credential_jwt: other['acmeidentity.credential_jwt'] } };
    const error = await rejection(verifyIdentityResponse(two, { ...REQUEST, keys: issuer.keys }));
    expect(error).toMatchObject({ code: 'ERR_SD_JWT_MALFORMED', message: expect.stringContaining('both as a dotted name and nested') });
    // A nested null is an absent optional, as a dotted null is.
    const absent = { ...dotted, acmeidentity: { credential_jwt: null } };
    await expect(verifyIdentityResponse(absent, { ...REQUEST, keys: issuer.keys, requireSignature: true })).resolves.toBeDefined();
  });
});

describe('times that never come or never pass: 1e999 is Infinity to JSON.parse', () => {
  test('an envelope whose exp, nbf or iat is 1e999 or -1e999 is malformed, never a response that never expires', async () => {
    for (const field of ['exp', 'nbf', 'iat']) {
      for (const text of ['1e999', '-1e999']) {
        const data: Record<string, unknown> = { ...envelope({ 'acmeidentity.given_name': 'Jane' }), [field]: JSON.parse(text) };
        expect(await code(verifyIdentityResponse(data, REQUEST))).toBe('ERR_SD_JWT_MALFORMED');
      }
    }
  });

  test('a credential whose signed payload says exp 1e999 is malformed, never a credential that never expires', async () => {
    const { CompactSign } = await import('jose');
    const header = { alg: 'RS256', kid: 'k1', typ: 'dc+sd-jwt' };
    const payload = new TextEncoder().encode(`{"iss":"${ISSUER}","iat":${NOW},"exp":1e999,"_sd_alg":"sha-256","_sd":[]}`);
    const jwt = await new CompactSign(payload).setProtectedHeader(header).sign(issuer.privateKey);
    expect(await code(verifySdJwt(`${jwt}~`, { keys: issuer.keys, now: () => NOW_MS }))).toBe('ERR_SD_JWT_MALFORMED');
  });
});
