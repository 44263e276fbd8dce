import { KeyObject, createSign } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { CompactSign, SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import { ConfigurationError, SdJwtVerificationError, localJwks, verifySdJwt, type SdJwtErrorCode } from '../../src/sd-jwt/index.js';
import { rejection } from '../helpers.js';
import { ISSUER, NOW, NOW_MS, at, digest, disclosure, testIssuer, type TestIssuer } from './issuer.js';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await testIssuer();
});

async function refusal(sdJwt: string, options: Partial<Parameters<typeof verifySdJwt>[1]> = {}): Promise<SdJwtErrorCode> {
  const error = await rejection(verifySdJwt(sdJwt, { ...at(issuer.keys), ...options }));
  expect(error).toBeInstanceOf(SdJwtVerificationError);
  return (error as SdJwtVerificationError).code;
}

describe('verifySdJwt: what it accepts', () => {
  test('flat disclosures are put in place; decoys and undisclosed digests are dropped', async () => {
    const given = disclosure('salt-1', 'given_name', 'Jane');
    const family = disclosure('salt-2', 'family_name', 'Citizen');
    const hidden = disclosure('salt-3', 'birth_date', '1990-01-01');
    const sdJwt = await issuer.sdJwt({ sub: 'p1', _sd: [digest(given), digest(family), digest(hidden), digest('decoy')] }, [given, family]);
    const verified = await verifySdJwt(sdJwt, at(issuer.keys));
    expect(verified.claims).toEqual({ iss: ISSUER, iat: NOW, exp: NOW + 3600, sub: 'p1', given_name: 'Jane', family_name: 'Citizen' });
    expect(verified.disclosures.map((d) => d.name)).toEqual(['given_name', 'family_name']);
    expect(verified.hashAlgorithm).toBe('sha-256');
  });

  test('nested objects, array elements and recursive disclosures', async () => {
    const street = disclosure('s1', 'street', '1 Main St');
    const address = disclosure('s2', 'address', { _sd: [digest(street)], country: 'AU' });
    const fr = disclosure('s3', 'FR');
    const de = disclosure('s4', 'DE');
    const sdJwt = await issuer.sdJwt(
      { _sd: [digest(address)], nationalities: [{ '...': digest(fr) }, { '...': digest(de) }, 'AU', { '...': digest('decoy') }] },
      [street, address, fr],
    );
    const { claims } = await verifySdJwt(sdJwt, at(issuer.keys));
    expect(claims['address']).toEqual({ street: '1 Main St', country: 'AU' });
    expect(claims['nationalities']).toEqual(['FR', 'AU']);
  });

  test('a plain JWT (as the credential API issues) verifies with no disclosures', async () => {
    const jwt = await issuer.sign({ iss: ISSUER, exp: NOW + 60, vc: { type: ['VerifiableCredential'] } });
    const { claims } = await verifySdJwt(jwt, at(issuer.keys));
    expect(claims['vc']).toEqual({ type: ['VerifiableCredential'] });
    expect(await refusal(jwt, { allowPlainJwt: false })).toBe('ERR_SD_JWT_MALFORMED');
  });

  test('_sd_alg sha-384 and sha-512 are accepted', async () => {
    for (const [alg, node] of [
      ['sha-384', 'sha384'],
      ['sha-512', 'sha512'],
    ] as const) {
      const d = disclosure('s', 'name', 'x');
      const sdJwt = await issuer.sdJwt({ _sd_alg: alg, _sd: [digest(d, node)] }, [d]);
      expect((await verifySdJwt(sdJwt, at(issuer.keys))).claims['name']).toBe('x');
    }
  });

  test('a claim named __proto__ is an own property, not a prototype', async () => {
    const d = disclosure('s', '__proto__', { polluted: true });
    const { claims } = await verifySdJwt(await issuer.sdJwt({ _sd: [digest(d)] }, [d]), at(issuer.keys));
    expect(Object.getPrototypeOf(claims)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(claims, '__proto__')).toEqual({
      value: { polluted: true },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
});

describe('verifySdJwt: signature and algorithm', () => {
  test('rejects alg none', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ iss: ISSUER, exp: NOW + 60 })).toString('base64url');
    expect(await refusal(`${header}.${payload}.~`)).toBe('ERR_SD_JWT_ALG_NOT_ALLOWED');
  });

  test('rejects an HMAC-signed SD-JWT, even when asked to allow HS256', async () => {
    const secret = new TextEncoder().encode('a-shared-secret-of-thirty-two-bytes!');
    const jwt = await new SignJWT({ iss: ISSUER, exp: NOW + 60 }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    expect(await refusal(`${jwt}~`, { algorithms: ['HS256', 'RS256'] })).toBe('ERR_SD_JWT_ALG_NOT_ALLOWED');
  });

  test('algorithms narrows the asymmetric ones accepted: a token in the list verifies, one outside it is refused', async () => {
    const jwt = await issuer.sign({ iss: ISSUER, exp: NOW + 60 });
    await expect(verifySdJwt(`${jwt}~`, { ...at(issuer.keys), algorithms: ['ES256', 'RS256'] })).resolves.toBeDefined();
    expect(await refusal(`${jwt}~`, { algorithms: ['ES256', 'PS256'] })).toBe('ERR_SD_JWT_ALG_NOT_ALLOWED');
    // Symmetric names in the list are dropped, never the asymmetric ones beside them.
    await expect(verifySdJwt(`${jwt}~`, { ...at(issuer.keys), algorithms: ['HS256', 'none', 'RS256'] })).resolves.toBeDefined();
  });

  test('rejects a signature by another key with the same kid', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const jwt = await issuer.sign({ iss: ISSUER, exp: NOW + 60 }, {}, privateKey);
    expect(await refusal(`${jwt}~`)).toBe('ERR_SD_JWT_SIGNATURE');
  });

  test('rejects a tampered payload even when its disclosures also fail', async () => {
    const d = disclosure('s', 'name', 'x');
    const [h, , s] = (await issuer.sdJwt({ _sd: [digest(d)] }, [d])).split('~')[0]!.split('.');
    const forged = Buffer.from(JSON.stringify({ iss: ISSUER, exp: NOW + 60, _sd: ['other'] })).toString('base64url');
    expect(await refusal(`${h}.${forged}.${s}~${d}~`)).toBe('ERR_SD_JWT_SIGNATURE');
  });

  test('rejects a kid the JWKS does not have', async () => {
    const jwt = await issuer.sign({ iss: ISSUER, exp: NOW + 60 }, { kid: 'unknown' });
    expect(await refusal(`${jwt}~`)).toBe('ERR_SD_JWT_KEY_NOT_FOUND');
  });

  test('rejects an issuer other than the expected one', async () => {
    const jwt = await issuer.sign({ iss: 'https://evil.example', exp: NOW + 60 });
    expect(await refusal(`${jwt}~`)).toBe('ERR_SD_JWT_ISSUER');
  });

  test('rejects a token without iss where an issuer is required (#45: the check must not be skipped for an absent iss)', async () => {
    const jwt = await issuer.sign({ exp: NOW + 60 });
    expect(await refusal(`${jwt}~`)).toBe('ERR_SD_JWT_ISSUER');
  });

  test('an issuer with or without its trailing slash is the same issuer; another path or case is not (#39)', async () => {
    for (const iss of [`${ISSUER}/`, ISSUER.replace(/\/$/, '')]) {
      const jwt = await issuer.sign({ iss, exp: NOW + 60 });
      await expect(verifySdJwt(`${jwt}~`, at(issuer.keys))).resolves.toMatchObject({ claims: { iss } });
    }
    for (const iss of [`${ISSUER}/x`, `${ISSUER}//`, ` ${ISSUER}`, ISSUER.toUpperCase()]) {
      const jwt = await issuer.sign({ iss, exp: NOW + 60 });
      expect(await refusal(`${jwt}~`)).toBe('ERR_SD_JWT_ISSUER');
    }
  });

  test('verifies ES256 keys too (asymmetric algorithms other than RSA)', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const keys = localJwks({ keys: [{ ...(await exportJWK(publicKey)), kid: 'ec' }] }, ISSUER);
    const jwt = await new SignJWT({ iss: ISSUER, exp: NOW + 60 }).setProtectedHeader({ alg: 'ES256', kid: 'ec' }).sign(privateKey);
    expect((await verifySdJwt(`${jwt}~`, at(keys))).claims['iss']).toBe(ISSUER);
  });
});

describe('verifySdJwt: the MUSTs of RFC 9901 §7.1', () => {
  test('rejects a disclosure named _sd', async () => {
    const d = disclosure('s', '_sd', ['x']);
    expect(await refusal(await issuer.sdJwt({ _sd: [digest(d)] }, [d]))).toBe('ERR_SD_JWT_RESERVED_NAME');
  });

  test('rejects a disclosure named ...', async () => {
    const d = disclosure('s', '...', 'x');
    expect(await refusal(await issuer.sdJwt({ _sd: [digest(d)] }, [d]))).toBe('ERR_SD_JWT_RESERVED_NAME');
  });

  test('rejects a two-element disclosure referenced from _sd', async () => {
    const d = disclosure('s', 'value');
    expect(await refusal(await issuer.sdJwt({ _sd: [digest(d)] }, [d]))).toBe('ERR_SD_JWT_DISCLOSURE_FORM');
  });

  test('rejects a three-element disclosure referenced from an array', async () => {
    const d = disclosure('s', 'name', 'value');
    expect(await refusal(await issuer.sdJwt({ list: [{ '...': digest(d) }] }, [d]))).toBe('ERR_SD_JWT_DISCLOSURE_FORM');
  });

  test('rejects a disclosure of one element, or of four, as neither form, and says which forms there are', async () => {
    for (const d of [disclosure('s'), disclosure('s', 'name', 'value', 'more')]) {
      const error = await rejection(verifySdJwt(await issuer.sdJwt({ _sd: [digest(d)] }, [d]), at(issuer.keys)));
      expect(error).toMatchObject({ code: 'ERR_SD_JWT_MALFORMED', message: 'disclosure 1 is not [salt, name, value] or [salt, value]' });
    }
  });

  test('rejects a digest that appears twice in the payload', async () => {
    const d = disclosure('s', 'name', 'value');
    expect(await refusal(await issuer.sdJwt({ _sd: [digest(d)], nested: { _sd: [digest(d)] } }, [d]))).toBe('ERR_SD_JWT_DUPLICATE_DIGEST');
  });

  test('rejects a digest that appears twice through a recursive disclosure', async () => {
    const inner = disclosure('s1', 'inner', 'x');
    const outer = disclosure('s2', 'outer', { _sd: [digest(inner)] });
    expect(await refusal(await issuer.sdJwt({ _sd: [digest(outer), digest(inner)] }, [inner, outer]))).toBe('ERR_SD_JWT_DUPLICATE_DIGEST');
  });

  test('rejects a disclosure sent twice', async () => {
    const d = disclosure('s', 'name', 'value');
    expect(await refusal(await issuer.sdJwt({ _sd: [digest(d)] }, [d, d]))).toBe('ERR_SD_JWT_DUPLICATE_DISCLOSURE');
  });

  test('rejects a disclosure no digest references', async () => {
    const d = disclosure('s', 'name', 'value');
    const stray = disclosure('t', 'other', 'value');
    expect(await refusal(await issuer.sdJwt({ _sd: [digest(d)] }, [d, stray]))).toBe('ERR_SD_JWT_UNREFERENCED_DISCLOSURE');
  });

  test('rejects a disclosed name that collides with a plaintext claim', async () => {
    const d = disclosure('s', 'sub', 'someone-else');
    expect(await refusal(await issuer.sdJwt({ sub: 'p1', _sd: [digest(d)] }, [d]))).toBe('ERR_SD_JWT_CLAIM_COLLISION');
  });

  test('rejects two disclosures of one name at one level: the second never silently replaces the first', async () => {
    const first = disclosure('s1', 'age_over_18', true);
    const second = disclosure('s2', 'age_over_18', false);
    expect(await refusal(await issuer.sdJwt({ _sd: [digest(first), digest(second)] }, [first, second]))).toBe('ERR_SD_JWT_CLAIM_COLLISION');
    // At a nested level too.
    expect(await refusal(await issuer.sdJwt({ address: { _sd: [digest(first), digest(second)] } }, [first, second]))).toBe(
      'ERR_SD_JWT_CLAIM_COLLISION',
    );
  });

  test('rejects a missing trailing ~ (the last disclosure read as a key-binding JWT)', async () => {
    const d = disclosure('s', 'name', 'value');
    const sdJwt = await issuer.sdJwt({ _sd: [digest(d)] }, [d]);
    expect(await refusal(sdJwt.slice(0, -1))).toBe('ERR_SD_JWT_MALFORMED');
    // After the last ~, only a compact JWS (three segments) is a key-binding JWT: two or four are malformed.
    for (const tail of ['aGVhZA.Ym9keQ', 'aGVhZA.Ym9keQ.c2ln.ZXh0cmE'])
      expect(await refusal(sdJwt + tail), tail).toBe('ERR_SD_JWT_MALFORMED');
  });

  test('rejects an unsupported or truncated _sd_alg', async () => {
    for (const alg of ['sha-256/128', 'md5', 'sha3-256', 'sha-1', 7]) {
      expect(await refusal(await issuer.sdJwt({ _sd_alg: alg as string, _sd: [] }, []))).toBe('ERR_SD_JWT_HASH_ALG');
    }
  });

  test('rejects a disclosure that is not base64url JSON, or not an array of 2 or 3', async () => {
    const good = await issuer.sdJwt({ _sd: [] }, []);
    for (const bad of ['%%%', Buffer.from('not json').toString('base64url'), disclosure('only-salt'), disclosure(1, 'n', 'v')]) {
      expect(await refusal(`${good}${bad}~`)).toBe('ERR_SD_JWT_MALFORMED');
    }
  });
});

describe('verifySdJwt: a refusal names the disclosure by its place in the SD-JWT (1 for the first)', () => {
  const first = disclosure('salt-1', 'given_name', 'Jane');
  test.each<[string, (d: string) => { payload: Record<string, unknown>; sent: string[] }, RegExp]>([
    ['sent twice', (d) => ({ payload: { _sd: [digest(first), digest(d)] }, sent: [first, d, d] }), /disclosure 3 was sent twice/],
    ['referenced by no digest', (d) => ({ payload: { _sd: [digest(first)] }, sent: [first, d] }), /disclosure 2 is not referenced/],
    [
      'of four elements',
      () => ({ payload: { _sd: [digest(first)] }, sent: [first, disclosure('s', 'a', 'b', 'c')] }),
      /disclosure 2 is not \[salt, name, value\]/,
    ],
    [
      'with a name that is not a string',
      () => ({ payload: { _sd: [digest(first)] }, sent: [first, disclosure('s', 5, 'v')] }),
      /disclosure 2 has a claim name that is not a string/,
    ],
    [
      'of three elements referenced from an array',
      (d) => ({ payload: { _sd: [digest(first)], list: [{ '...': digest(d) }] }, sent: [first, d] }),
      /disclosure 2 has three elements/,
    ],
    [
      'of two elements referenced from _sd',
      () => ({ payload: { _sd: [digest(first), digest(disclosure('s', 'v'))] }, sent: [first, disclosure('s', 'v')] }),
      /disclosure 2 has two elements/,
    ],
    [
      'that is not base64url JSON',
      () => ({ payload: { _sd: [digest(first)] }, sent: [first, '!!!'] }),
      /disclosure 2 is not base64url-encoded JSON/,
    ],
    [
      'naming _sd',
      () => ({ payload: { _sd: [digest(first), digest(disclosure('s', '_sd', 'v'))] }, sent: [first, disclosure('s', '_sd', 'v')] }),
      /disclosure 2 names the reserved claim/,
    ],
  ])('a disclosure %s', async (_name, build, message) => {
    const { payload, sent } = build(disclosure('salt-2', 'family_name', 'Citizen'));
    const error = await rejection(verifySdJwt(await issuer.sdJwt(payload, sent), at(issuer.keys)));
    expect(error).toBeInstanceOf(SdJwtVerificationError);
    expect((error as Error).message).toMatch(message);
  });

  test('a segment that is not base64url JSON is malformed, with the decoder’s error as its cause', async () => {
    const jwt = await issuer.sdJwt({}, []);
    const error = await rejection(verifySdJwt(`!!!${jwt.slice(jwt.indexOf('.'))}`, at(issuer.keys)));
    expect(error).toMatchObject({ code: 'ERR_SD_JWT_MALFORMED' });
    expect((error as Error).cause).toBeInstanceOf(Error);
    // A refusal that has no cause carries none.
    const plain = await rejection(verifySdJwt(`${jwt}${disclosure('s', 'x', 1)}~`, at(issuer.keys)));
    expect('cause' in (plain as Error)).toBe(false);
  });

  test('a header that is empty, or JSON with bytes that are not UTF-8, is malformed: never read with replacement characters', async () => {
    const jwt = await issuer.sdJwt({}, []);
    const rest = jwt.slice(jwt.indexOf('.'));
    expect(await refusal(rest)).toBe('ERR_SD_JWT_MALFORMED');
    const latin1 = Buffer.concat([Buffer.from('{"alg":"RS256","kid":"k1","x":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    expect(await refusal(latin1.toString('base64url') + rest)).toBe('ERR_SD_JWT_MALFORMED');
  });
});

describe('verifySdJwt: the payload’s shape', () => {
  const nest = (depth: number, wrap: (inner: unknown) => unknown) => {
    let value: unknown = 'x';
    for (let i = 0; i < depth; i++) value = wrap(value);
    return value;
  };
  /** `n` disclosures, each revealing the next: `link(inner)` wraps the digest of the next in its place. */
  const chain = (n: number, disclose: (value: unknown) => string, link: (digest: string) => unknown) => {
    const sent: string[] = [];
    let value: unknown = 'x';
    for (let i = 0; i < n; i++) {
      const d = disclose(value);
      sent.unshift(d);
      value = link(digest(d));
    }
    return { value, sent };
  };
  // The payload is level 0; each object, array or disclosed value is one level further in; 64 is the last allowed.
  test.each<[string, number, (n: number) => { payload: Record<string, unknown>; sent: string[] }]>([
    ['objects', 63, (n) => ({ payload: { deep: nest(n, (v) => ({ v })) }, sent: [] })],
    ['arrays', 63, (n) => ({ payload: { deep: nest(n, (v) => [v]) }, sent: [] })],
    [
      'a disclosed claim',
      63,
      (n) => {
        const d = disclosure(
          's',
          'deep',
          nest(n, (v) => ({ v })),
        );
        return { payload: { _sd: [digest(d)] }, sent: [d] };
      },
    ],
    [
      'a disclosed array element',
      62,
      (n) => {
        const d = disclosure(
          's',
          nest(n, (v) => [v]),
        );
        return { payload: { list: [{ '...': digest(d) }] }, sent: [d] };
      },
    ],
    [
      'disclosed claims, each inside the one before',
      64,
      (n) => {
        const { value, sent } = chain(
          n,
          (v) => disclosure('s', 'c', v),
          (d) => ({ _sd: [d] }),
        );
        return { payload: value as Record<string, unknown>, sent };
      },
    ],
    [
      'disclosed array elements, each inside the one before',
      63,
      (n) => {
        const { value, sent } = chain(
          n,
          (v) => disclosure('s', v),
          (d) => [{ '...': d }],
        );
        return { payload: { list: value }, sent };
      },
    ],
  ])('nesting through %s: %i of them are fine, one more is malformed', async (_name, limit, build) => {
    const fine = build(limit);
    await expect(verifySdJwt(await issuer.sdJwt(fine.payload, fine.sent), at(issuer.keys))).resolves.toBeDefined();
    const deep = build(limit + 1);
    expect(await refusal(await issuer.sdJwt(deep.payload, deep.sent))).toBe('ERR_SD_JWT_MALFORMED');
  });

  test('an array element with a digest and anything else beside it is malformed', async () => {
    const d = disclosure('s', 'FR');
    expect(await refusal(await issuer.sdJwt({ list: [{ '...': digest(d), extra: 1 }] }, [d]))).toBe('ERR_SD_JWT_MALFORMED');
  });

  test('an SD-JWT that is not a string is malformed; a clock that is not a function is a ConfigurationError', async () => {
    expect(await refusal(42 as never)).toBe('ERR_SD_JWT_MALFORMED');
    const error = await rejection(verifySdJwt(await issuer.sdJwt({}, []), { keys: issuer.keys, now: NOW_MS as never }));
    expect(error).toMatchObject({ code: 'ERR_INVALID_CONFIG', option: 'now' });
  });

  test('without an issuer to hold it to (keys that name none, no issuer option), any iss is taken', async () => {
    const keys = localJwks({ keys: [issuer.publicJwk] });
    const verified = await verifySdJwt(await issuer.sdJwt({ iss: 'https://anyone.example' }, []), { keys, now: () => NOW_MS });
    expect(verified.claims['iss']).toBe('https://anyone.example');
  });
});

describe('verifySdJwt: time, after processing', () => {
  const plain = (payload: JWTPayload) => issuer.sdJwt(payload, []);

  test('one second past exp is refused; at exp - 1 it is accepted', async () => {
    const sdJwt = await plain({ exp: NOW });
    expect(await refusal(sdJwt)).toBe('ERR_SD_JWT_EXPIRED');
    await expect(verifySdJwt(sdJwt, at(issuer.keys, NOW_MS - 1000))).resolves.toBeDefined();
    expect(await refusal(sdJwt, { now: () => NOW_MS + 1000 })).toBe('ERR_SD_JWT_EXPIRED');
  });

  test('exp is an instant: a clock in the last second before it (ms floored, never rounded up) still accepts', async () => {
    const sdJwt = await plain({ exp: NOW });
    for (const msBefore of [1, 400, 600, 999]) {
      await expect(verifySdJwt(sdJwt, at(issuer.keys, NOW_MS - msBefore)), `${msBefore} ms before exp`).resolves.toBeDefined();
    }
    expect(await refusal(sdJwt, { now: () => NOW_MS })).toBe('ERR_SD_JWT_EXPIRED');
  });

  test('clock tolerance works both ways', async () => {
    const expired = await plain({ exp: NOW - 5 });
    await expect(verifySdJwt(expired, { ...at(issuer.keys), clockToleranceSeconds: 10 })).resolves.toBeDefined();
    expect(await refusal(expired, { clockToleranceSeconds: 4 })).toBe('ERR_SD_JWT_EXPIRED');
    const early = await plain({ nbf: NOW + 5 });
    expect(await refusal(early)).toBe('ERR_SD_JWT_NOT_YET_VALID');
    await expect(verifySdJwt(early, { ...at(issuer.keys), clockToleranceSeconds: 10 })).resolves.toBeDefined();
  });

  test('a disclosed exp counts', async () => {
    const d = disclosure('s', 'exp', NOW - 1);
    const jwt = await issuer.sign({ iss: ISSUER, _sd_alg: 'sha-256', _sd: [digest(d)] });
    expect(await refusal(`${jwt}~${d}~`)).toBe('ERR_SD_JWT_EXPIRED');
  });

  test('a missing exp is refused unless the caller does not require it', async () => {
    const jwt = await issuer.sign({ iss: ISSUER });
    expect(await refusal(`${jwt}~`)).toBe('ERR_SD_JWT_MISSING_CLAIM');
    await expect(verifySdJwt(`${jwt}~`, { ...at(issuer.keys), requiredClaims: [] })).resolves.toBeDefined();
  });

  test('a required claim is one the payload carries: a name every object inherits (toString, constructor) is absent until it does (#45)', async () => {
    const jwt = await issuer.sign({ iss: ISSUER, exp: NOW + 60, vct: 'id' });
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(await refusal(`${jwt}~`, { requiredClaims: ['exp', name] }), name).toBe('ERR_SD_JWT_MISSING_CLAIM');
    }
    await expect(verifySdJwt(`${jwt}~`, { ...at(issuer.keys), requiredClaims: ['exp', 'vct'] })).resolves.toBeDefined();
    // Carried, even as null: present. A claim named like an inherited one counts once it is the payload's.
    const own = await issuer.sign({ iss: ISSUER, exp: NOW + 60, toString: 'x', constructor: null });
    await expect(verifySdJwt(`${own}~`, { ...at(issuer.keys), requiredClaims: ['toString', 'constructor'] })).resolves.toBeDefined();
  });
});

describe('verifySdJwt: key binding (RFC 9901 §7.3)', () => {
  async function withHolder() {
    const holder = await generateKeyPair('ES256');
    const cnf = { jwk: await exportJWK(holder.publicKey) };
    const d = disclosure('s', 'name', 'value');
    const presented = await issuer.sdJwt({ cnf, _sd: [digest(d)] }, [d]);
    // A field given as undefined is left out of the JWT; a typ of null leaves it out of the header.
    const kb = (payload: Record<string, unknown>, typ: string | null = 'kb+jwt', key = holder.privateKey) =>
      new SignJWT({ iat: NOW, aud: 'https://rp.example', nonce: 'n-1', sd_hash: digest(presented), ...payload } as JWTPayload)
        .setProtectedHeader(typ === null ? { alg: 'ES256' } : { alg: 'ES256', typ })
        .sign(key);
    return { presented, kb };
  }
  const expectations = { keyBinding: { audience: 'https://rp.example', nonce: 'n-1' } };

  test("sd_hash is the SD-JWT's own hash (_sd_alg): under sha-384 and sha-512 a SHA-256 sd_hash is refused, the right one accepted", async () => {
    const holder = await generateKeyPair('ES256');
    const cnf = { jwk: await exportJWK(holder.publicKey) };
    for (const [sdAlg, node] of [
      ['sha-384', 'sha384'],
      ['sha-512', 'sha512'],
    ] as const) {
      const d = disclosure('s', 'name', 'value');
      const presented = await issuer.sdJwt({ cnf, _sd_alg: sdAlg, _sd: [digest(d, node)] }, [d]);
      const kb = (sdHash: string) =>
        new SignJWT({ iat: NOW, aud: 'https://rp.example', nonce: 'n-1', sd_hash: sdHash })
          .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
          .sign(holder.privateKey);
      const verified = await verifySdJwt(presented + (await kb(digest(presented, node))), { ...at(issuer.keys), ...expectations });
      expect(verified.hashAlgorithm, sdAlg).toBe(sdAlg);
      expect(await refusal(presented + (await kb(digest(presented))), expectations), sdAlg).toBe('ERR_SD_JWT_KEY_BINDING');
    }
  });

  test('a correct key-binding JWT is accepted and returned', async () => {
    const { presented, kb } = await withHolder();
    const verified = await verifySdJwt(presented + (await kb({})), { ...at(issuer.keys), ...expectations });
    expect(verified.keyBinding?.['nonce']).toBe('n-1');
  });

  test('without an expected nonce (the option is optional), the key-binding JWT is accepted whatever nonce it carries; the other fields are still checked', async () => {
    const { presented, kb } = await withHolder();
    const audienceOnly = { keyBinding: { audience: 'https://rp.example' } };
    const verified = await verifySdJwt(presented + (await kb({ nonce: 'chosen-by-the-holder' })), { ...at(issuer.keys), ...audienceOnly });
    expect(verified.keyBinding?.['nonce']).toBe('chosen-by-the-holder');
    await expect(
      verifySdJwt(presented + (await kb({ aud: 'https://other.example' })), { ...at(issuer.keys), ...audienceOnly }),
    ).rejects.toMatchObject({ code: 'ERR_SD_JWT_KEY_BINDING' });
  });

  test('each wrong or missing field is refused: typ, sd_hash, aud, nonce, iat, signer; and absence when required; aud and nonce are the very strings expected, not a list holding them', async () => {
    const { presented, kb } = await withHolder();
    const other = await generateKeyPair('ES256');
    const cases = [
      await kb({}, 'JWT'),
      await kb({ sd_hash: digest('something else') }),
      await kb({ aud: 'https://other.example' }),
      await kb({ nonce: 'n-2' }),
      await kb({ iat: NOW + 60 }),
      await kb({ iat: NOW - 3600 }),
      await kb({}, 'kb+jwt', other.privateKey),
      // Each field the checks read, left out: a missing one is never taken as a match.
      await kb({ sd_hash: undefined }),
      await kb({ aud: undefined }),
      await kb({ nonce: undefined }),
      await kb({ iat: undefined }),
      await kb({}, ''),
      await kb({}, null),
      // Equal only loosely (a one-element list compares equal to its string with ==): refused (#45).
      await kb({ aud: ['https://rp.example'] }),
      await kb({ nonce: ['n-1'] }),
    ];
    for (const kbJwt of cases) expect(await refusal(presented + kbJwt, expectations)).toBe('ERR_SD_JWT_KEY_BINDING');
    expect(await refusal(presented, expectations)).toBe('ERR_SD_JWT_KEY_BINDING');
    // Required and absent, whatever else is absent: an SD-JWT with no disclosure, and a plain JWT.
    const bare = await issuer.sign({ iss: ISSUER, exp: NOW + 60 });
    expect(await refusal(`${bare}~`, expectations)).toBe('ERR_SD_JWT_KEY_BINDING');
    expect(await refusal(bare, expectations)).toBe('ERR_SD_JWT_KEY_BINDING');
    // An expected nonce of '' is expected all the same: another nonce is refused.
    const emptyNonce = { keyBinding: { audience: 'https://rp.example', nonce: '' } };
    expect(await refusal(presented + (await kb({})), emptyNonce)).toBe('ERR_SD_JWT_KEY_BINDING');
    await expect(verifySdJwt(presented + (await kb({ nonce: '' })), { ...at(issuer.keys), ...emptyNonce })).resolves.toBeDefined();
  });

  test('a key-binding JWT present where none is required is checked all the same: a forged or stale one is refused, a good one returned whatever its aud and nonce', async () => {
    const { presented, kb } = await withHolder();
    const other = await generateKeyPair('ES256');
    const notRequired = at(issuer.keys);
    for (const kbJwt of [
      await kb({}, 'kb+jwt', other.privateKey),
      await kb({ sd_hash: digest('something else') }),
      await kb({}, 'JWT'),
      await kb({ iat: NOW + 3600 }),
      await kb({ iat: NOW - 3600 }),
    ]) {
      await expect(verifySdJwt(presented + kbJwt, notRequired)).rejects.toMatchObject({ code: 'ERR_SD_JWT_KEY_BINDING' });
    }
    const verified = await verifySdJwt(presented + (await kb({ aud: 'https://anyone.example', nonce: 'any' })), notRequired);
    expect(verified.keyBinding).toMatchObject({ aud: 'https://anyone.example', nonce: 'any' });
  });

  test('a key-binding JWT whose payload is JSON but not an object is refused as such', async () => {
    const holder = await generateKeyPair('ES256');
    const d = disclosure('s', 'name', 'value');
    const presented = await issuer.sdJwt({ cnf: { jwk: await exportJWK(holder.publicKey) }, _sd: [digest(d)] }, [d]);
    for (const payload of [[{ iat: NOW, aud: 'https://rp.example', nonce: 'n-1', sd_hash: digest(presented) }], 5, 'kb', null]) {
      const kbJwt = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
        .sign(holder.privateKey);
      const error = await rejection(verifySdJwt(presented + kbJwt, { ...at(issuer.keys), ...expectations }));
      expect(error, JSON.stringify(payload)).toMatchObject({
        code: 'ERR_SD_JWT_KEY_BINDING',
        message: expect.stringContaining('payload is not an object'),
      });
    }
  });

  test('a key-binding JWT on an SD-JWT without cnf.jwk is refused for that, before any key is tried (#45)', async () => {
    const holder = await generateKeyPair('ES256');
    const d = disclosure('s', 'name', 'value');
    for (const cnf of [undefined, {}, { jwk: 'not a key' }]) {
      const presented = await issuer.sdJwt({ ...(cnf === undefined ? {} : { cnf }), _sd: [digest(d)] }, [d]);
      const kbJwt = await new SignJWT({ iat: NOW, aud: 'https://rp.example', nonce: 'n-1', sd_hash: digest(presented) })
        .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
        .sign(holder.privateKey);
      const error = await rejection(verifySdJwt(presented + kbJwt, { ...at(issuer.keys), ...expectations }));
      expect(error, JSON.stringify(cnf)).toMatchObject({ code: 'ERR_SD_JWT_KEY_BINDING', message: expect.stringContaining('no cnf.jwk') });
    }
  });

  test('a cnf.jwk Web Crypto cannot import is a key-binding refusal with the import’s error as its cause', async () => {
    const holder = await generateKeyPair('ES256');
    const jwk = await exportJWK(holder.publicKey);
    const d = disclosure('s', 'name', 'value');
    // A point that is not on the curve.
    const presented = await issuer.sdJwt({ cnf: { jwk: { ...jwk, x: Buffer.alloc(32, 1).toString('base64url') } }, _sd: [digest(d)] }, [d]);
    const kbJwt = await new SignJWT({ iat: NOW, aud: 'https://rp.example', nonce: 'n-1', sd_hash: digest(presented) })
      .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
      .sign(holder.privateKey);
    const error = await rejection(verifySdJwt(presented + kbJwt, { ...at(issuer.keys), ...expectations }));
    expect(error).toMatchObject({ code: 'ERR_SD_JWT_KEY_BINDING' });
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  test('iat on both sides of its bounds: no later than now (plus tolerance), no older than maxAgeSeconds (300 by default)', async () => {
    const { presented, kb } = await withHolder();
    const verify = async (iat: number, extra: { clockToleranceSeconds?: number; maxAgeSeconds?: number } = {}) => {
      const { maxAgeSeconds, ...rest } = extra;
      const keyBinding = { ...expectations.keyBinding, ...(maxAgeSeconds !== undefined ? { maxAgeSeconds } : {}) };
      return verifySdJwt(presented + (await kb({ iat })), { ...at(issuer.keys), ...rest, keyBinding }).then(
        () => 'accepted',
        (error: SdJwtVerificationError) => error.code,
      );
    };
    expect(await verify(NOW)).toBe('accepted');
    expect(await verify(NOW + 1)).toBe('ERR_SD_JWT_KEY_BINDING');
    expect(await verify(NOW + 5, { clockToleranceSeconds: 5 })).toBe('accepted');
    expect(await verify(NOW + 6, { clockToleranceSeconds: 5 })).toBe('ERR_SD_JWT_KEY_BINDING');
    expect(await verify(NOW - 300)).toBe('accepted');
    expect(await verify(NOW - 301)).toBe('ERR_SD_JWT_KEY_BINDING');
    // The tolerance widens the age too.
    expect(await verify(NOW - 305, { clockToleranceSeconds: 5 })).toBe('accepted');
    expect(await verify(NOW - 306, { clockToleranceSeconds: 5 })).toBe('ERR_SD_JWT_KEY_BINDING');
    expect(await verify(NOW - 60, { maxAgeSeconds: 60 })).toBe('accepted');
    expect(await verify(NOW - 61, { maxAgeSeconds: 60 })).toBe('ERR_SD_JWT_KEY_BINDING');
    // A number written as a string is no iat, even one that would be in bounds as a number.
    expect(await verify(String(NOW) as unknown as number)).toBe('ERR_SD_JWT_KEY_BINDING');
  });

  test('the keyBinding option is checked before any token is read: each bound that would not bound is a ConfigurationError naming it', async () => {
    const { presented, kb } = await withHolder();
    // Old enough to be refused under any real maximum age.
    const old = presented + (await kb({ iat: NOW - 10 * 365 * 86_400 }));
    const option = (keyBinding: unknown) =>
      verifySdJwt(old, { ...at(issuer.keys), keyBinding: keyBinding as never }).then(
        () => 'accepted',
        (error: Error) => (error instanceof ConfigurationError ? error.option : (error as SdJwtVerificationError).code),
      );
    for (const maxAgeSeconds of [Number.NaN, -1, '300']) {
      expect(await option({ ...expectations.keyBinding, maxAgeSeconds }), String(maxAgeSeconds)).toBe('keyBinding.maxAgeSeconds');
    }
    for (const audience of [undefined, '', 5])
      expect(await option({ audience, nonce: 'n-1' }), String(audience)).toBe('keyBinding.audience');
    expect(await option({ audience: 'https://rp.example', nonce: 1 })).toBe('keyBinding.nonce');
    expect(await option('https://rp.example')).toBe('keyBinding.audience');
    // Well formed, the same token is refused for its age.
    expect(await option(expectations.keyBinding)).toBe('ERR_SD_JWT_KEY_BINDING');
  });
});

describe('verifySdJwt: JWS rules', () => {
  test('rejects a JWS that asks for a crit extension (RFC 7515 §4.1.11), even one its signer understood', async () => {
    const jwt = await new SignJWT({ iss: ISSUER, exp: NOW + 60 })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1', crit: ['acme-ext'], 'acme-ext': true } as { alg: string })
      .sign(issuer.privateKey, { crit: { 'acme-ext': true } });
    expect(await refusal(`${jwt}~`)).toBe('ERR_SD_JWT_ALG_NOT_ALLOWED');
    // The same token without crit verifies: the refusal is the extension's.
    const plain = await issuer.sign({ iss: ISSUER, exp: NOW + 60 });
    await expect(verifySdJwt(`${plain}~`, at(issuer.keys))).resolves.toBeDefined();
  });

  test('a signed payload that is JSON but not an object (an array, a number, a string, true, null) is malformed, never claims', async () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const signed = (payload: unknown) => {
      const input = `${encode({ alg: 'RS256', kid: 'k1' })}.${encode(payload)}`;
      return `${input}.${createSign('RSA-SHA256').update(input).sign(KeyObject.from(issuer.privateKey)).toString('base64url')}`;
    };
    // An array's elements would read as claims "0", "1"…; a number or a string as none at all.
    for (const payload of [[{ iss: ISSUER, exp: NOW + 60 }], 5, 'claims', true, null]) {
      for (const options of [{}, { requiredClaims: [], keys: localJwks({ keys: [issuer.publicJwk] }) }]) {
        expect(await refusal(`${signed(payload)}~`, options), JSON.stringify(payload)).toBe('ERR_SD_JWT_MALFORMED');
      }
    }
  });

  test('rejects a crit that is not even a list of names (a malformed JWS jose would not sign), whatever its value', async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const signed = (header: object) => {
      const input = `${encode(header)}.${encode({ iss: ISSUER, exp: NOW + 60 })}`;
      return `${input}.${createSign('RSA-SHA256').update(input).sign(KeyObject.from(issuer.privateKey)).toString('base64url')}`;
    };
    // Signed by hand the same way, without crit: verified (the refusals below are crit's).
    await expect(verifySdJwt(`${signed({ alg: 'RS256', kid: 'k1' })}~`, at(issuer.keys))).resolves.toBeDefined();
    for (const crit of ['acme-ext', {}, null, false, []]) {
      expect(await refusal(`${signed({ alg: 'RS256', kid: 'k1', crit })}~`), JSON.stringify(crit)).toBe('ERR_SD_JWT_ALG_NOT_ALLOWED');
    }
  });

  test.each(['exp', 'nbf', 'iat'])('a %s that is not a number is malformed, never skipped', async (claim) => {
    // A string exp in the past: read as a string, the expiry check would not run at all.
    const jwt = await issuer.sign({ iss: ISSUER, exp: NOW + 60, [claim]: String(NOW - 3600) });
    expect(await refusal(`${jwt}~`)).toBe('ERR_SD_JWT_MALFORMED');
  });
});
