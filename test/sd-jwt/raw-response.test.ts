/**
 * An identity response passed to `verifyIdentityResponse` raw (the service's envelope, or its
 * `data`, fetched without the client) means what it means through the client: its times and
 * booleans in every form the service may write them, absent fields written as `null`, and the
 * envelopes a gateway adds. The adversary here is the reading nobody listed: an `exp` written in
 * milliseconds was once read as seconds, so a response that had expired was accepted.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod/mini';
import { IdentityResponseData } from '../../src/client/schemas.js';
import { verifyIdentityResponse, verifySdJwt } from '../../src/sd-jwt/index.js';
import { rejection } from '../helpers.js';
import { NOW, NOW_MS, at, digest, disclosure, testIssuer, type TestIssuer } from './issuer.js';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await testIssuer();
});

/** Each form a service may write the UNIX second `t` in; every one names the same instant. */
const TIME_FORMS: Readonly<Record<string, (t: number) => unknown>> = {
  seconds: (t) => t,
  milliseconds: (t) => t * 1000,
  'seconds with a fraction': (t) => t + 0.25,
  'digits of the seconds': (t) => String(t),
  'digits of the milliseconds': (t) => String(t * 1000),
  'digits with a fraction': (t) => `${t}.5`,
  'ISO 8601 in UTC': (t) => new Date(t * 1000).toISOString(),
  'ISO 8601 at +10:00': (t) => new Date((t + 36_000) * 1000).toISOString().replace('Z', '+10:00'),
  'RFC 2822': (t) => new Date(t * 1000).toUTCString(),
};

/** The ways a response may arrive: `data` itself, or inside the envelopes the service and a gateway write. */
const WRAPPERS: Readonly<Record<string, (data: Record<string, unknown>) => unknown>> = {
  'data itself': (data) => data,
  'the spec envelope': (data) => ({ data, correlation_id: 'c-1' }),
  'with success: true': (data) => ({ success: true, data, correlation_id: 'c-1' }),
  'with meta: null': (data) => ({ data, correlation_id: 'c-1', meta: null }),
  'wrapped by a gateway': (data) => ({ data: { data, correlation_id: 'c-1' } }),
};

/** A response disclosing one claim, whose fields are then changed by `fields`. */
function response(fields: Record<string, unknown>): Record<string, unknown> {
  const d = { claim: 'acmeidentity.given_name', salt: 'salt-0', value: 'Jane' };
  return {
    sub: 'person-1',
    request_code: 'isc-1',
    _sd_alg: 'sha256',
    _sd: [digest(disclosure(d.salt, d.claim, d.value))],
    disclosures: [d],
    ...fields,
  };
}
const REQUEST = { requestCode: 'isc-1', now: () => NOW_MS };

/** Whole seconds from {@link NOW}: up to 30 years either way, never 0 (the instant itself is tested on its own). */
const offsets = fc.integer({ min: -30 * 365 * 86_400, max: 30 * 365 * 86_400 }).filter((s) => s !== 0);

describe('verifyIdentityResponse on a raw response', () => {
  test('property: an exp in any form is the same instant; the response is refused as expired exactly when that instant is past', async () => {
    await fc.assert(
      fc.asyncProperty(
        offsets,
        fc.constantFrom(...Object.keys(TIME_FORMS)),
        fc.constantFrom(...Object.keys(WRAPPERS)),
        async (offset, form, wrapper) => {
          const exp = NOW + offset;
          const raw = WRAPPERS[wrapper]?.(response({ exp: TIME_FORMS[form]?.(exp) }));
          const verdict = await verifyIdentityResponse(raw, REQUEST).then(
            (verified) => ({ expiresAt: verified.expiresAt, claims: verified.claims }),
            (error: { code: string }) => error.code,
          );
          if (offset < 0) expect(verdict).toBe('ERR_SD_JWT_EXPIRED');
          else expect(verdict).toEqual({ expiresAt: exp, claims: { 'acmeidentity.given_name': 'Jane' } });
        },
      ),
      { numRuns: 300 },
    );
  });

  test.each(Object.keys(TIME_FORMS))('an exp at the very second of now, written as %s, has elapsed', async (form) => {
    const raw = response({ exp: TIME_FORMS[form]?.(NOW) });
    expect((await rejection(verifyIdentityResponse(raw, REQUEST))) as { code: string }).toMatchObject({ code: 'ERR_SD_JWT_EXPIRED' });
  });

  test('property: the verdict on a raw response is the verdict on what the client reads from it', async () => {
    const times = fc.record({ offset: offsets, form: fc.constantFrom(...Object.keys(TIME_FORMS)) });
    const flag = fc.constantFrom<unknown>(true, false, 'Yes', 'No', 'true', 'FALSE', ' yes ', 1, 0, '1', '0', null, undefined, 'maybe', 2);
    await fc.assert(
      fc.asyncProperty(
        times,
        fc.option(times, { nil: undefined }),
        fc.option(times, { nil: undefined }),
        flag,
        async (exp, nbf, iat, partial) => {
          const fields: Record<string, unknown> = { exp: TIME_FORMS[exp.form]?.(NOW + exp.offset), partially_complete: partial, iat: null };
          if (nbf) fields['nbf'] = TIME_FORMS[nbf.form]?.(NOW + nbf.offset);
          if (iat) fields['iat'] = TIME_FORMS[iat.form]?.(NOW + iat.offset);
          const raw = response(fields);
          const verdict = (input: unknown) =>
            verifyIdentityResponse(input, REQUEST).then(
              (v) => ({ claims: v.claims, expiresAt: v.expiresAt, partiallyComplete: v.partiallyComplete }),
              (error: { code: string }) => error.code,
            );
          // The client drops a null field (an absent optional) before its schema reads the rest.
          const parsed = z.safeParse(IdentityResponseData, Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null)));
          const throughClient = parsed.success ? await verdict(parsed.data) : 'ERR_SD_JWT_MALFORMED';
          expect(await verdict(raw)).toEqual(throughClient);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('partially_complete in every form that says one thing; anything else is malformed', async () => {
    for (const [form, meaning] of [
      ['Yes', true],
      ['No', false],
      ['true', true],
      [' FALSE ', false],
      [1, true],
      ['0', false],
      [null, false],
    ] as const) {
      const verified = await verifyIdentityResponse({ data: response({ exp: NOW + 60, partially_complete: form }) }, REQUEST);
      expect(verified.partiallyComplete, String(form)).toBe(meaning);
    }
    for (const form of ['maybe', 'y', 2, '', [true], {}]) {
      const error = await rejection(verifyIdentityResponse(response({ exp: NOW + 60, partially_complete: form }), REQUEST));
      expect(error, JSON.stringify(form)).toMatchObject({
        code: 'ERR_SD_JWT_MALFORMED',
        message: expect.stringContaining('partially_complete'),
      });
    }
  });

  test('a time that names no instant is malformed, never read as no time', async () => {
    for (const exp of ['2026-11-22T13:00:00', 'tomorrow', '', Number.NaN, true, {}, '1795345200s']) {
      const error = await rejection(verifyIdentityResponse(response({ exp }), REQUEST));
      expect(error, JSON.stringify(exp)).toMatchObject({ code: 'ERR_SD_JWT_MALFORMED', message: expect.stringContaining('"exp"') });
    }
    // An nbf in milliseconds still to come is not yet valid; one past is no bar.
    const later = response({ exp: NOW + 3600, nbf: (NOW + 600) * 1000 });
    expect(await rejection(verifyIdentityResponse(later, REQUEST))).toMatchObject({ code: 'ERR_SD_JWT_NOT_YET_VALID' });
    expect((await verifyIdentityResponse(response({ exp: NOW + 3600, nbf: (NOW - 600) * 1000 }), REQUEST)).expiresAt).toBe(NOW + 3600);
  });

  test('an exp written as null is absent, and so refused as missing; the other fields written as null are absent', async () => {
    expect(await rejection(verifyIdentityResponse(response({ exp: null }), REQUEST))).toMatchObject({ code: 'ERR_SD_JWT_MISSING_CLAIM' });
    const verified = await verifyIdentityResponse(
      response({ exp: NOW + 60, nbf: null, iat: null, disclosures_missing: null, 'acmeidentity.credential_jwt': null, opened_at: null }),
      { ...REQUEST, keys: issuer.keys },
    );
    expect(verified).toMatchObject({
      claims: { 'acmeidentity.given_name': 'Jane' },
      disclosuresMissing: [],
      credentials: {},
      expiresAt: NOW + 60,
    });
    // `data` is the response as received.
    expect(verified.data).toMatchObject({ nbf: null, opened_at: null });
  });

  test('envelopes are opened two deep (the spec’s, and a gateway’s around it), no deeper', async () => {
    const data = response({ exp: NOW + 60 });
    expect((await verifyIdentityResponse({ data: { data, correlation_id: 'c-1' } }, REQUEST)).expiresAt).toBe(NOW + 60);
    const third = { data: { data: { data, correlation_id: 'c-1' } } };
    expect(await rejection(verifyIdentityResponse(third, REQUEST))).toMatchObject({ code: 'ERR_SD_JWT_MISSING_CLAIM' });
  });

  test('an object with its own request_code is the response, whatever its data field holds', async () => {
    const raw = response({ exp: NOW + 60, data: { request_code: 'other', exp: NOW - 60 } });
    expect((await verifyIdentityResponse(raw, REQUEST)).expiresAt).toBe(NOW + 60);
  });
});

describe('a credential JWT whose exp is in milliseconds', () => {
  test('property: its exp and nbf are read as the instants they name, never thousands of years away', async () => {
    await fc.assert(
      fc.asyncProperty(offsets, async (offset) => {
        const encoded = disclosure('salt-0', 'acmeidentity.given_name', 'Jane');
        const jwt = await issuer.sdJwt({ exp: (NOW + offset) * 1000, _sd: [digest(encoded)] }, [encoded]);
        const verdict = await verifySdJwt(jwt, at(issuer.keys)).then(
          () => 'verified',
          (error: { code: string }) => error.code,
        );
        expect(verdict).toBe(offset < 0 ? 'ERR_SD_JWT_EXPIRED' : 'verified');
      }),
      { numRuns: 40 },
    );
    const encoded = disclosure('salt-0', 'acmeidentity.given_name', 'Jane');
    const early = await issuer.sdJwt({ nbf: (NOW + 600) * 1000, _sd: [digest(encoded)] }, [encoded]);
    expect(await rejection(verifySdJwt(early, at(issuer.keys)))).toMatchObject({ code: 'ERR_SD_JWT_NOT_YET_VALID' });
    // One that has come is no bar (read as seconds, it would be thousands of years away).
    const come = await issuer.sdJwt({ nbf: (NOW - 600) * 1000, _sd: [digest(encoded)] }, [encoded]);
    expect((await verifySdJwt(come, at(issuer.keys))).claims['acmeidentity.given_name']).toBe('Jane');
  });
});
