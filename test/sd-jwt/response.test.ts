import { describe, expect, test } from 'vitest';
import type { ClaimKey, IdentityRequestInput } from '../../src/index.js';
import {
  ClaimDecodeError,
  SdJwtVerificationError,
  readClaim,
  remoteJwks,
  verifyIdentityResponse,
  type KeySource,
  type SdJwtErrorCode,
} from '../../src/sd-jwt/index.js';
import type { FakeServiceOptions } from '../../src/testing/index.js';
import { harness, person, rejection } from '../helpers.js';
import { NOW, NOW_MS, digest, disclosure, testIssuer } from './issuer.js';

const CLAIMS: IdentityRequestInput['claims'] = [
  'acmeidentity.name',
  'acmeidentity.given_name',
  'acmeidentity.valid',
  'sanctionscheck.is_pep',
  'sanctionscheck.matches',
  'document.passport.travel_document_number',
];

/** An approved request's response, fetched with the client, and what verifying it needs. */
async function fetched(claims: IdentityRequestInput['claims'] = CLAIMS, fake: FakeServiceOptions = {}, values?: Record<string, unknown>) {
  let clock = Date.now();
  const h = await harness({ fake: { now: () => clock, ...fake }, client: { now: () => clock } });
  const { data } = await h.client.identityRequests.create(person({ claims }));
  const event = await h.service.approve(data.access_request_code, values ? { values } : {});
  const response = await h.client.identityResponses.get({
    accessRequestCode: data.access_request_code,
    identitySessionCode: data.identity_session_code,
    accessToken: event.access_token,
  });
  const options = { requestCode: data.identity_session_code, keys: remoteJwks(h.service.authUrl), now: () => clock };
  return { ...h, response, options, advance: (seconds: number) => (clock += seconds * 1000) };
}

async function refusal(response: unknown, options: Parameters<typeof verifyIdentityResponse>[1]): Promise<SdJwtErrorCode> {
  const error = await rejection(verifyIdentityResponse(response, options));
  expect(error).toBeInstanceOf(SdJwtVerificationError);
  return (error as SdJwtVerificationError).code;
}

/** A response's `data` for request `isc-1`, valid on the frozen clock, with `fields` after its `sub`, `exp` and `request_code`. */
function envelope<T extends object>(fields: T = {} as T) {
  return { sub: 'person-1', exp: NOW + 600, request_code: 'isc-1', ...fields };
}

/** `verifyIdentityResponse`'s options for request `isc-1` on the frozen clock: with the issuer's keys when one is given. */
function optionsFor(issuer?: { keys: KeySource }) {
  return issuer ? { requestCode: 'isc-1', keys: issuer.keys, now: () => NOW_MS } : { requestCode: 'isc-1', now: () => NOW_MS };
}

/** A copy of the response data with `change` applied. */
function tampered(response: { data: Record<string, unknown> }, change: (data: Record<string, unknown>) => void) {
  const data = structuredClone(response.data);
  change(data);
  return { data };
}

describe('verifyIdentityResponse: claims wherever the service put them', () => {
  test('claims disclosed only inside the signed credential_jwt are the identity\'s claims (regression: claims {} with proof "signature")', async () => {
    const { response, options } = await fetched([...(CLAIMS as ClaimKey[]), 'acmeidentity.credential']);
    const onlySigned = tampered(response, (d) => {
      d['disclosures'] = [];
      d['_sd'] = [];
    });
    const verified = await verifyIdentityResponse(onlySigned, { ...options, requireSignature: true });
    expect(verified.proof).toBe('signature');
    expect(verified.claims['acmeidentity.given_name']).toBe('Jane');
    expect(verified.signedClaims).toContain('acmeidentity.given_name');
    // No JWT claim of the credential (iss, vct, exp…) becomes a claim of the identity.
    expect(Object.keys(verified.claims).every((key) => key.includes('.'))).toBe(true);
  });

  test("of a signed credential, only the claims (dotted keys) become the identity's: a disclosure of another name, or a credential_jwt it carries, does not (#45)", async () => {
    const issuer = await testIssuer();
    const given = disclosure('salt-g', 'acmeidentity.given_name', 'Jane');
    const note = disclosure('salt-n', 'internal_note', 'not a claim');
    const inner = disclosure('salt-i', 'acicncchc.credential_jwt', 'eyJ.inner.sig~');
    const credential = await issuer.sdJwt({ sub: 'person-1', _sd: [digest(given), digest(note), digest(inner)] }, [given, note, inner]);
    const data = envelope({
      'acmeidentity.credential_jwt': credential,
      disclosures: [],
      _sd: [],
    });
    const verified = await verifyIdentityResponse({ data }, optionsFor(issuer));
    expect(verified.credentials['acmeidentity.credential_jwt']?.claims['internal_note']).toBe('not a claim');
    expect(verified.claims).toEqual({ 'acmeidentity.given_name': 'Jane' });
    expect(verified.proof).toBe('signature');
  });

  test("a signed claim the envelope also states as a plain field of data is the identity's claim, with the signed value (a reading with claims flat in data)", async () => {
    const issuer = await testIssuer();
    const pep = disclosure('salt-p', 'sanctionscheck.is_pep', 'No');
    const given = disclosure('salt-g', 'acmeidentity.given_name', 'Jane');
    const credential = await issuer.sdJwt({ sub: 'person-1', _sd: [digest(pep), digest(given)] }, [pep, given]);
    const data = envelope({
      // Flat, unsigned and undigested: one as the credential says, one not.
      'sanctionscheck.is_pep': 'Yes',
      'acmeidentity.given_name': 'Jane',
      'acmeidentity.credential_jwt': credential,
      disclosures: [],
      _sd: [],
    });
    const verified = await verifyIdentityResponse({ data }, optionsFor(issuer));
    expect(verified.claims).toEqual({ 'sanctionscheck.is_pep': 'No', 'acmeidentity.given_name': 'Jane' });
    expect(verified.signedClaims).toEqual(['sanctionscheck.is_pep', 'acmeidentity.given_name']);
    expect(verified.proof).toBe('signature');
    expect(verified.data['sanctionscheck.is_pep']).toBe('Yes');
  });

  test("two signed credentials that disclose one claim with different values are refused: which is the person's cannot be told (#45)", async () => {
    const issuer = await testIssuer();
    const jane = disclosure('salt-1', 'acmeidentity.given_name', 'Jane');
    const mallory = disclosure('salt-2', 'acmeidentity.given_name', 'Mallory');
    const first = await issuer.sdJwt({ sub: 'person-1', _sd: [digest(jane)] }, [jane]);
    const second = await issuer.sdJwt({ sub: 'person-1', _sd: [digest(mallory)] }, [mallory]);
    const data = envelope({
      'acmeidentity.credential_jwt': first,
      'acicncchc.credential_jwt': second,
    });
    const options = optionsFor(issuer);
    const error = await rejection(verifyIdentityResponse({ data }, options));
    expect(error).toMatchObject({ code: 'ERR_SD_JWT_ENVELOPE_MISMATCH', message: expect.stringContaining('two signed credentials') });
    // The same value in both: one claim, proven.
    const again = await issuer.sdJwt({ sub: 'person-1', _sd: [digest(jane)] }, [jane]);
    const agreeing = await verifyIdentityResponse({ data: { ...data, 'acicncchc.credential_jwt': again } }, options);
    expect(agreeing.claims).toEqual({ 'acmeidentity.given_name': 'Jane' });
  });

  test('two signed credentials that disclose one claim with one object value agree; array elements (no name) are never compared as claims', async () => {
    const issuer = await testIssuer();
    const address = { street: '1 Main St', city: 'Sydney' };
    const first = disclosure('salt-1', 'acmeidentity.address', address);
    const second = disclosure('salt-2', 'acmeidentity.address', { ...address });
    // One credential with two selectively disclosed array elements of different values.
    const fr = disclosure('salt-e1', 'FR');
    const au = disclosure('salt-e2', 'AU');
    const one = await issuer.sdJwt(
      { sub: 'person-1', _sd: [digest(first)], nationalities: [{ '...': digest(fr) }, { '...': digest(au) }] },
      [first, fr, au],
    );
    const two = await issuer.sdJwt({ sub: 'person-1', _sd: [digest(second)] }, [second]);
    const data = envelope({
      'acmeidentity.credential_jwt': one,
      'acicncchc.credential_jwt': two,
    });
    const verified = await verifyIdentityResponse({ data }, optionsFor(issuer));
    expect(verified.claims).toEqual({ 'acmeidentity.address': address });
    expect(verified.credentials['acmeidentity.credential_jwt']?.claims['nationalities']).toEqual(['FR', 'AU']);
    expect(verified.proof).toBe('signature');
  });

  test('a credential_jwt that is not text is refused, naming it, never passed over unverified', async () => {
    const issuer = await testIssuer();
    for (const value of [42, true, { jwt: 'eyJ.x.y~' }, ['eyJ.x.y~']]) {
      const data = envelope({ 'acmeidentity.credential_jwt': value });
      const error = await rejection(verifyIdentityResponse({ data }, optionsFor(issuer)));
      expect(error).toMatchObject({ code: 'ERR_SD_JWT_MALFORMED', message: 'acmeidentity.credential_jwt is not a string' });
    }
  });

  test('options.requestCode given as an empty list is refused as missing, not as a code that does not match', async () => {
    const issuer = await testIssuer();
    const data = envelope();
    const error = await rejection(verifyIdentityResponse({ data }, { requestCode: [], keys: issuer.keys, now: () => NOW_MS }));
    expect(error).toMatchObject({ code: 'ERR_SD_JWT_REQUEST_CODE', message: expect.stringContaining('is required') });
  });

  test('a credential_jwt that is a plain JWT is refused as not the full SD-JWT credential the spec names (#45)', async () => {
    const issuer = await testIssuer();
    const plain = await issuer.sign({ iss: 'https://issuer.example', sub: 'person-1', exp: NOW + 3600, 'acmeidentity.given_name': 'Jane' });
    const data = envelope({ 'acmeidentity.credential_jwt': plain });
    const error = await rejection(verifyIdentityResponse({ data }, optionsFor(issuer)));
    expect(error).toMatchObject({ code: 'ERR_SD_JWT_MALFORMED', message: expect.stringContaining('not the full SD-JWT credential') });
  });

  test('only a {credential}.credential_jwt field is a credential: a field merely ending in credential_jwt is data, as any unknown field', async () => {
    const { response, options } = await fetched([...(CLAIMS as ClaimKey[]), 'acmeidentity.credential']);
    const withOthers = tampered(response, (d) => {
      d['credential_jwt'] = 'not a credential';
      d['legacycredential_jwt'] = 'nor this';
    });
    const verified = await verifyIdentityResponse(withOthers, options);
    expect(Object.keys(verified.credentials)).toEqual(['acmeidentity.credential_jwt']);
    expect(verified.data).toMatchObject({ credential_jwt: 'not a credential', legacycredential_jwt: 'nor this' });
  });

  test('claims only inside a credential_jwt, verified without keys: no claim, and the refusal says to pass keys (#45)', async () => {
    const issuer = await testIssuer();
    const given = disclosure('salt-g', 'acmeidentity.given_name', 'Jane');
    const credential = await issuer.sdJwt({ sub: 'person-1', _sd: [digest(given)] }, [given]);
    const data = envelope({ 'acmeidentity.credential_jwt': credential });
    const error = await rejection(verifyIdentityResponse({ data }, optionsFor()));
    expect(error).toMatchObject({ code: 'ERR_SD_JWT_NO_CLAIMS', message: expect.stringContaining('pass keys') });
    expect((error as Error).message).toContain('"acmeidentity.credential_jwt"');
    // Nothing at all: no hint about keys, which would not help.
    const empty = await rejection(verifyIdentityResponse({ data: envelope() }, optionsFor()));
    expect(empty).toMatchObject({ code: 'ERR_SD_JWT_NO_CLAIMS' });
    expect((empty as Error).message).not.toContain('pass keys');
    // A field that only ends like one is not a credential, and neither is one named by a prefix.
    const other = await rejection(verifyIdentityResponse({ data: envelope({ note: 'x', 'credential_jwt.note': 'y' }) }, optionsFor()));
    expect((other as Error).message).not.toContain('pass keys');
  });

  test('a disclosure without a salt is proven by a signed credential that carries it, and refused when the credential disagrees', async () => {
    const { response, options } = await fetched([...(CLAIMS as ClaimKey[]), 'acmeidentity.credential']);
    // A salt written as null is no salt (the absent reading), not a salt that is not a string.
    const nullSalted = tampered(response, (d) => {
      for (const item of d['disclosures'] as Record<string, unknown>[]) item['salt'] = null;
    });
    const unsalted = tampered(response, (d) => {
      for (const item of d['disclosures'] as Record<string, unknown>[]) delete item['salt'];
    });
    for (const form of [unsalted, nullSalted]) {
      const verified = await verifyIdentityResponse(form, { ...options, requireSignature: true });
      expect(verified.claims['acmeidentity.given_name']).toBe('Jane');
      expect(verified.uncheckedClaims).toEqual([]);
    }
    const changed = tampered(unsalted, (d) => {
      const item = (d['disclosures'] as Record<string, unknown>[]).find((x) => x['claim'] === 'acmeidentity.given_name')!;
      item['value'] = 'Mallory';
    });
    expect(await refusal(changed, options)).toBe('ERR_SD_JWT_ENVELOPE_MISMATCH');
  });

  test('a disclosure without a salt and no credential is kept, listed as unchecked, and refused where a signature is required', async () => {
    const { response, options } = await fetched();
    const unsalted = tampered(response, (d) => {
      delete (d['disclosures'] as Record<string, unknown>[])[0]!['salt'];
    });
    const claim = (response.data['disclosures'] as { claim: string }[])[0]!.claim;
    const verified = await verifyIdentityResponse(unsalted, options);
    expect(verified.uncheckedClaims).toEqual([claim]);
    expect(Object.hasOwn(verified.claims, claim)).toBe(true);
    expect(verified.proof).toBe('digests');
    expect(await refusal(unsalted, { ...options, requireSignature: true })).toBe('ERR_SD_JWT_SIGNATURE_REQUIRED');
  });
});

describe('verifyIdentityResponse against the fake', () => {
  test('verifies the digests and returns the claims, the missing ones and the proof', async () => {
    const { response, options } = await fetched();
    const verified = await verifyIdentityResponse(response, options);
    expect(verified.claims['acmeidentity.given_name']).toBe('Jane');
    expect(verified.disclosuresMissing).toEqual(['document.passport.travel_document_number']);
    expect(verified.partiallyComplete).toBe(false);
    expect(verified.proof).toBe('digests');
    expect(verified.signedClaims).toEqual([]);
  });

  test('with acmeidentity.credential requested, the claims are proven by the signed credential_jwt', async () => {
    const { response, options } = await fetched([...(CLAIMS as ClaimKey[]), 'acmeidentity.credential']);
    const verified = await verifyIdentityResponse(response, { ...options, requireSignature: true });
    expect(verified.proof).toBe('signature');
    expect(verified.signedClaims).toContain('acmeidentity.given_name');
    expect(verified.credentials['acmeidentity.credential_jwt']?.claims['acmeidentity.given_name']).toBe('Jane');
  });

  test('requireSignature refuses a response with no credential_jwt', async () => {
    const { response, options } = await fetched();
    expect(await refusal(response, { ...options, requireSignature: true })).toBe('ERR_SD_JWT_SIGNATURE_REQUIRED');
  });

  test('accepts digests over the spaced (Python) JSON form, non-ASCII escaped', async () => {
    const { response, options } = await fetched(CLAIMS, { disclosureEncoding: 'spaced' }, { 'acmeidentity.given_name': 'Zoë' });
    const verified = await verifyIdentityResponse(response, options);
    expect(verified.claims['acmeidentity.given_name']).toBe('Zoë');
  });

  test("accepts digests over Python's json.dumps form: DEL (U+007F) is escaped with the non-ASCII characters, as ensure_ascii does", async () => {
    // json.dumps(["salt-d", "acmeidentity.given_name", "Ja\x7fne Zoë"]) in Python 3.
    const python = '["salt-d", "acmeidentity.given_name", "Ja\\u007fne Zo\\u00eb"]';
    const data = {
      exp: NOW + 600,
      request_code: 'isc-1',
      _sd_alg: 'sha256',
      _sd: [digest(Buffer.from(python).toString('base64url'))],
      disclosures: [{ claim: 'acmeidentity.given_name', salt: 'salt-d', value: 'Ja\u007fne Zoë' }],
    };
    const verified = await verifyIdentityResponse({ data }, optionsFor());
    expect(verified.claims['acmeidentity.given_name']).toBe('Ja\u007fne Zoë');
  });

  test("acmeidentity.valid is the service's verdict, in any form that says a boolean; undefined when not disclosed; one that says none is refused", async () => {
    for (const [written, valid] of [
      [true, true],
      [false, false],
      ['No', false],
      ['false', false],
      ['Yes', true],
      [0, false],
    ] as const) {
      const { response, options } = await fetched(CLAIMS, {}, { 'acmeidentity.valid': written });
      const verified = await verifyIdentityResponse(response, options);
      expect(verified.valid).toBe(valid);
      expect(verified.claims['acmeidentity.valid']).toBe(written);
    }
    const notAsked = await fetched(['acmeidentity.given_name']);
    expect((await verifyIdentityResponse(notAsked.response, notAsked.options)).valid).toBeUndefined();
    for (const written of ['maybe', null, '']) {
      const { response, options } = await fetched(CLAIMS, {}, { 'acmeidentity.valid': written });
      expect(await refusal(response, options)).toBe('ERR_SD_JWT_MALFORMED');
    }
  });

  test('partially_complete is reported plainly', async () => {
    const h = await harness();
    const { data } = await h.client.identityRequests.create(person());
    const event = await h.service.approve(data.access_request_code, { partiallyComplete: true });
    const response = await h.client.identityResponses.get({
      accessRequestCode: data.access_request_code,
      identitySessionCode: data.identity_session_code,
      accessToken: event.access_token,
    });
    const verified = await verifyIdentityResponse(response, { requestCode: data.identity_session_code });
    expect(verified.partiallyComplete).toBe(true);
  });
});

describe('verifyIdentityResponse refuses', () => {
  test('a response one second past exp, and accepts it within the tolerance', async () => {
    const { response, options } = await fetched();
    const exp = response.data.exp!;
    expect(await refusal(response, { ...options, now: () => exp * 1000 })).toBe('ERR_SD_JWT_EXPIRED');
    expect(await refusal(response, { ...options, now: () => (exp + 1) * 1000 })).toBe('ERR_SD_JWT_EXPIRED');
    await expect(
      verifyIdentityResponse(response, { ...options, now: () => (exp + 1) * 1000, clockToleranceSeconds: 5 }),
    ).resolves.toBeDefined();
  });

  test('a sparse disclosures or _sd array (holes) is ERR_SD_JWT_MALFORMED, never a raw TypeError (fuzz seed 1173314716)', async () => {
    const { response, options } = await fetched();
    const holed = tampered(response, (d) => {
      const list = d['disclosures'] as unknown[];
      list.splice(0, 1);
      list.splice(0, 1);
      list[list.length + 1] = structuredClone(list[0]);
    });
    expect(await refusal(holed, options)).toBe('ERR_SD_JWT_MALFORMED');
    const sd = tampered(response, (d) => {
      const digests = d['_sd'] as unknown[];
      digests[digests.length + 2] = digests[0];
    });
    expect(await refusal(sd, options)).toBe('ERR_SD_JWT_MALFORMED');
  });

  test('a response whose nbf is in the future by more than the clock resolution (2 s)', async () => {
    const { response, options } = await fetched();
    const early = (seconds: number) => () => (response.data.nbf! - seconds) * 1000;
    expect(await refusal(response, { ...options, now: early(3) })).toBe('ERR_SD_JWT_NOT_YET_VALID');
    await expect(verifyIdentityResponse(response, { ...options, now: early(3), clockToleranceSeconds: 1 })).resolves.toBeDefined();
    // Stamped in the second it is read, by a clock known to a second: not "not yet valid".
    await expect(verifyIdentityResponse(response, { ...options, now: early(2) })).resolves.toBeDefined();
  });

  test('a response without exp', async () => {
    const { response, options } = await fetched();
    expect(
      await refusal(
        tampered(response, (d) => delete d['exp']),
        options,
      ),
    ).toBe('ERR_SD_JWT_MISSING_CLAIM');
  });

  test('a response for another request', async () => {
    const { response, options } = await fetched();
    expect(await refusal(response, { ...options, requestCode: 'isc_someone_else' })).toBe('ERR_SD_JWT_REQUEST_CODE');
    expect(await refusal(response, { ...options, requestCode: ['arc_someone_else', 'isc_someone_else'] })).toBe('ERR_SD_JWT_REQUEST_CODE');
    // A response that names no request at all is bound to none: refused, never taken as this one's.
    for (const change of [
      (d: Record<string, unknown>) => delete d['request_code'],
      (d: Record<string, unknown>) => (d['request_code'] = null),
    ]) {
      expect(await refusal(tampered(response, change), options)).toBe('ERR_SD_JWT_REQUEST_CODE');
    }
  });

  test('requestCode as a list: the response may carry any of the codes; an empty list, or an empty code in it, is refused', async () => {
    const { response, options } = await fetched();
    const own = options.requestCode as string;
    await expect(verifyIdentityResponse(response, { ...options, requestCode: ['arc_other_code', own] })).resolves.toBeDefined();
    expect(await refusal(response, { ...options, requestCode: [] })).toBe('ERR_SD_JWT_REQUEST_CODE');
    expect(await refusal(response, { ...options, requestCode: [own, ''] })).toBe('ERR_SD_JWT_REQUEST_CODE');
    // A code that is no string is refused as such, never compared as its text: not even with a response naming that text.
    for (const [requestCode, written] of [
      [undefined, 'undefined'],
      [42, '42'],
      [null, 'null'],
    ] as const) {
      const naming = tampered(response, (d) => (d['request_code'] = written));
      expect(await refusal(naming, { ...options, requestCode: requestCode as never }), written).toBe('ERR_SD_JWT_REQUEST_CODE');
    }
  });

  test('a tampered disclosed value', async () => {
    const { response, options } = await fetched();
    const forged = tampered(response, (d) => {
      (d['disclosures'] as { value: unknown }[])[0]!.value = 'Mallory';
    });
    expect(await refusal(forged, options)).toBe('ERR_SD_JWT_DIGEST_MISMATCH');
  });

  test('a disclosure moved to another claim key', async () => {
    const { response, options } = await fetched();
    const forged = tampered(response, (d) => {
      (d['disclosures'] as { claim: string }[])[0]!.claim = 'acmeidentity.family_name';
    });
    expect(await refusal(forged, options)).toBe('ERR_SD_JWT_DIGEST_MISMATCH');
  });

  test('the same claim disclosed twice', async () => {
    const { response, options } = await fetched();
    const forged = tampered(response, (d) => {
      const list = d['disclosures'] as unknown[];
      list.push(list[0]);
    });
    expect(await refusal(forged, options)).toBe('ERR_SD_JWT_DUPLICATE_DISCLOSURE');
  });

  test('a digest listed twice in _sd', async () => {
    const { response, options } = await fetched();
    const forged = tampered(response, (d) => (d['_sd'] as string[]).push((d['_sd'] as string[])[0]!));
    expect(await refusal(forged, options)).toBe('ERR_SD_JWT_DUPLICATE_DIGEST');
  });

  test('an _sd_alg it does not support, truncated hashes included', async () => {
    const { response, options } = await fetched();
    for (const alg of ['md5', 'sha-256/128', 'sha1']) {
      expect(
        await refusal(
          tampered(response, (d) => (d['_sd_alg'] = alg)),
          options,
        ),
      ).toBe('ERR_SD_JWT_HASH_ALG');
    }
  });

  test('decoded disclosures that disagree with the signed credential_jwt', async () => {
    const { response, options } = await fetched([...(CLAIMS as ClaimKey[]), 'acmeidentity.credential']);
    const forged = tampered(response, (d) => {
      (d['disclosures'] as { value: unknown }[])[0]!.value = 'Mallory';
    });
    expect(await refusal(forged, options)).toBe('ERR_SD_JWT_ENVELOPE_MISMATCH');
  });

  test('a tampered credential_jwt', async () => {
    const { response, options } = await fetched([...(CLAIMS as ClaimKey[]), 'acmeidentity.credential']);
    const forged = tampered(response, (d) => {
      const [jwt, ...rest] = (d['acmeidentity.credential_jwt'] as string).split('~');
      const [h, p, s] = jwt!.split('.');
      const payload = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>;
      payload['sub'] = 'someone-else';
      d['acmeidentity.credential_jwt'] = [`${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`, ...rest].join('~');
    });
    expect(await refusal(forged, options)).toBe('ERR_SD_JWT_SIGNATURE');
  });

  test('a disclosure whose salt is not a string', async () => {
    const { response, options } = await fetched();
    const forged = tampered(response, (d) => {
      (d['disclosures'] as Record<string, unknown>[])[0]!['salt'] = 12;
    });
    expect(await refusal(forged, options)).toBe('ERR_SD_JWT_MALFORMED');
  });
});

describe('verifyIdentityResponse: known answers from RFC 9901', () => {
  const base = { exp: 4_102_444_800, request_code: 'isc_1', _sd_alg: 'sha256' };

  test('§4.2.3: the Möbius disclosure (spaced JSON, UTF-8) matches its published digest', async () => {
    const data = {
      ...base,
      _sd: ['X9yH0Ajrdm1Oij4tWso9UzzKJvPoDxwmuEcO3XAdRC0'],
      disclosures: [{ salt: '_26bc4LT-ac6q2KI6cBW5es', claim: 'family_name', value: 'Möbius' }],
    };
    const verified = await verifyIdentityResponse({ data }, { requestCode: 'isc_1' });
    expect(verified.claims['family_name']).toBe('Möbius');
  });

  test('§4.2.2 and §4.2.3: digests of the published disclosure strings', () => {
    expect(digest('WyJfMjZiYzRMVC1hYzZxMktJNmNCVzVlcyIsICJmYW1pbHlfbmFtZSIsICJNw7ZiaXVzIl0')).toBe(
      'X9yH0Ajrdm1Oij4tWso9UzzKJvPoDxwmuEcO3XAdRC0',
    );
    expect(digest('WyJsa2x4RjVqTVlsR1RQVW92TU5JdkNBIiwgIkZSIl0')).toBe('w0I8EKcdCtUPkGCNUrfwVp2xEgNjtoIDlOxc9-PlOhs');
  });
});

describe('readClaim', () => {
  test('decodes the values the spec calls out, and keeps the raw value reachable', async () => {
    const { response, options } = await fetched(CLAIMS, {}, { 'sanctionscheck.is_pep': 'Yes', 'sanctionscheck.matches': '[{"list":"x"}]' });
    const { claims } = await verifyIdentityResponse(response, options);
    expect(readClaim(claims, 'acmeidentity.name')).toEqual({ first_name: 'Jane', last_name: 'Citizen' });
    expect(readClaim(claims, 'sanctionscheck.is_pep')).toBe(true);
    expect(readClaim(claims, 'sanctionscheck.matches')).toEqual([{ list: 'x' }]);
    expect(readClaim(claims, 'acmeidentity.valid')).toBe(true);
    expect(readClaim(claims, 'document.passport.travel_document_number')).toBeUndefined();
    expect(claims['acmeidentity.name']).toBe('{"first_name":"Jane","last_name":"Citizen"}');
  });

  test('a claim the SDK does not know passes through as it is', () => {
    expect(readClaim({ 'newcred.level': { tier: 3 } }, 'newcred.level')).toEqual({ tier: 3 });
  });

  test('a malformed value is a ClaimDecodeError naming the claim, never a crash', () => {
    const cases: [string, unknown][] = [
      ['acmeidentity.name', '{not json'],
      ['acmeidentity.name', '{"first_name":"Jane"}'],
      ['sanctionscheck.matches', 42],
      ['sanctionscheck.is_pep', 'maybe'],
      ['acmeidentity.valid', 'sure'],
    ];
    for (const [key, value] of cases) {
      const error = (() => {
        try {
          readClaim({ [key]: value }, key);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ClaimDecodeError);
      expect((error as ClaimDecodeError).claim).toBe(key);
      expect((error as ClaimDecodeError).message).not.toContain(String(value));
    }
  });
});

describe('verifyIdentityResponse: the envelope against the signed credential', () => {
  const SIGNED: IdentityRequestInput['claims'] = ['acmeidentity.name', 'sanctionscheck.matches', 'acmeidentity.credential'];
  const VALUES = {
    'sanctionscheck.matches': [{ list: 'un', score: 0.9, names: ['J. Citizen'] }],
    'acmeidentity.name': { first_name: 'Jane', last_name: 'Citizen' },
  };

  test('a claim only the envelope carries (its digest added to the unsigned _sd) is not proven: requireSignature refuses, and proof says digests', async () => {
    const { response, options } = await fetched(SIGNED, {}, VALUES);
    const extra = disclosure('salt-x', 'acmeidentity.given_name', 'Mallory');
    const forged = tampered(response, (d) => {
      (d['disclosures'] as unknown[]).push({ claim: 'acmeidentity.given_name', salt: 'salt-x', value: 'Mallory' });
      (d['_sd'] as string[]).push(digest(extra));
    });
    const verified = await verifyIdentityResponse(forged, options);
    expect(verified.proof).toBe('digests');
    expect(verified.signedClaims).toEqual(['acmeidentity.name', 'sanctionscheck.matches']);
    const error = await rejection(verifyIdentityResponse(forged, { ...options, requireSignature: true }));
    expect(error).toMatchObject({
      code: 'ERR_SD_JWT_SIGNATURE_REQUIRED',
      message: expect.stringContaining('some claims are not in a signed credential_jwt'),
    });
    // Untouched, the same response is proven by the signature.
    expect((await verifyIdentityResponse(response, { ...options, requireSignature: true })).proof).toBe('signature');
  });

  test('a signed disclosure renamed in the envelope is refused: no issuer disclosed it under that name, and no digest commits to it', async () => {
    const { response, options } = await fetched(SIGNED, {}, VALUES);
    const forged = tampered(response, (d) => {
      const first = (d['disclosures'] as { claim: string }[]).find((x) => x.claim === 'acmeidentity.name')!;
      first.claim = 'acmeidentity.family_name';
    });
    expect(await refusal(forged, options)).toBe('ERR_SD_JWT_DIGEST_MISMATCH');
  });

  test('an issuer that gives every disclosure one salt has each claim found by its name, in whatever order its credentials come', async () => {
    const issuer = await testIssuer();
    const given = disclosure('', 'acmeidentity.given_name', 'Jane');
    const pep = disclosure('', 'sanctionscheck.is_pep', 'No');
    const first = await issuer.sdJwt({ sub: 'person-1', _sd: [digest(given)] }, [given]);
    const second = await issuer.sdJwt({ sub: 'person-1', _sd: [digest(pep)] }, [pep]);
    const stated = [
      { claim: 'acmeidentity.given_name', salt: '', value: 'Jane' },
      { claim: 'sanctionscheck.is_pep', salt: '', value: 'No' },
    ];
    const options = { ...optionsFor(issuer), requireSignature: true };
    for (const [a, b] of [
      [first, second],
      [second, first],
    ]) {
      const data = envelope({
        _sd: [digest(given), digest(pep)],
        disclosures: stated,
        'acmeidentity.credential_jwt': a,
        'acicncchc.credential_jwt': b,
      });
      const verified = await verifyIdentityResponse({ data }, options);
      expect(verified.claims).toEqual({ 'acmeidentity.given_name': 'Jane', 'sanctionscheck.is_pep': 'No' });
      expect(verified.proof).toBe('signature');
      // A value changed in the envelope is still the signed credential's to refuse.
      const changed = { ...data, disclosures: [stated[0], { ...stated[1], value: 'Yes' }] };
      expect(await refusal({ data: changed }, options)).toBe('ERR_SD_JWT_ENVELOPE_MISMATCH');
    }
  });

  test('an envelope that salts its disclosures anew: each checked by its own digest, the signed value wins, and a different one is refused', async () => {
    const issuer = await testIssuer();
    const signed = disclosure('salt-signed', 'acmeidentity.given_name', 'Jane');
    const credential = await issuer.sdJwt({ sub: 'person-1', _sd: [digest(signed)] }, [signed]);
    const options = optionsFor(issuer);
    const response = (value: string) => ({
      data: envelope({
        _sd: [digest(disclosure('salt-envelope', 'acmeidentity.given_name', value))],
        disclosures: [{ claim: 'acmeidentity.given_name', salt: 'salt-envelope', value }],
        'acmeidentity.credential_jwt': credential,
      }),
    });
    // The same value: its own digest verifies it, and the issuer signed that value for this subject.
    const verified = await verifyIdentityResponse(response('Jane'), { ...options, requireSignature: true });
    expect(verified.claims).toEqual({ 'acmeidentity.given_name': 'Jane' });
    expect(verified).toMatchObject({ proof: 'signature', signedClaims: ['acmeidentity.given_name'], uncheckedClaims: [] });
    // Another value, committed to by the unsigned envelope's own digest: never the identity's claim.
    expect(await refusal(response('Mallory'), options)).toBe('ERR_SD_JWT_ENVELOPE_MISMATCH');
  });

  test.each([
    [
      'a nested object field',
      (v: Record<string, unknown>) => ((v['acmeidentity.name'] as Record<string, unknown>)['last_name'] = 'Mallory'),
    ],
    ['an extra object field', (v: Record<string, unknown>) => ((v['acmeidentity.name'] as Record<string, unknown>)['middle_name'] = 'X')],
    [
      'a number deep in an array',
      (v: Record<string, unknown>) => ((v['sanctionscheck.matches'] as Record<string, unknown>[])[0]!['score'] = 0.1),
    ],
    [
      'a string deep in an array',
      (v: Record<string, unknown>) => ((v['sanctionscheck.matches'] as { names: string[] }[])[0]!.names[0] = 'M. Allory'),
    ],
    ['an array made longer', (v: Record<string, unknown>) => (v['sanctionscheck.matches'] as unknown[]).push({ list: 'eu' })],
    [
      'an array turned into an object',
      (v: Record<string, unknown>) => (v['sanctionscheck.matches'] = { 0: (v['sanctionscheck.matches'] as unknown[])[0] }),
    ],
  ])('an envelope value that differs from the signed one in %s only is an envelope mismatch', async (_name, change) => {
    const { response, options } = await fetched(SIGNED, {}, VALUES);
    const forged = tampered(response, (d) => {
      const values: Record<string, unknown> = {};
      for (const x of d['disclosures'] as { claim: string; value: unknown }[]) values[x.claim] = x.value;
      change(values);
      for (const x of d['disclosures'] as { claim: string; value: unknown }[]) x.value = values[x.claim];
    });
    expect(await refusal(forged, options)).toBe('ERR_SD_JWT_ENVELOPE_MISMATCH');
    await expect(verifyIdentityResponse(response, options)).resolves.toHaveProperty('proof', 'signature');
  });

  test('issuer and algorithms are held to the credential_jwt: another issuer, or an algorithm not allowed, is refused', async () => {
    const { response, options } = await fetched(SIGNED, {}, VALUES);
    await expect(verifyIdentityResponse(response, { ...options, issuer: options.keys.issuer! })).resolves.toHaveProperty(
      'proof',
      'signature',
    );
    const otherIssuer = await rejection(verifyIdentityResponse(response, { ...options, issuer: 'https://other.example' }));
    expect(otherIssuer).toBeInstanceOf(SdJwtVerificationError);
    const otherAlgorithm = await rejection(verifyIdentityResponse(response, { ...options, algorithms: ['ES256'] }));
    expect(otherAlgorithm).toMatchObject({ code: 'ERR_SD_JWT_ALG_NOT_ALLOWED' });
  });
});
