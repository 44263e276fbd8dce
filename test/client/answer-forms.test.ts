/**
 * The forms of one value the client reads (#39, "tolerant on form, strict on meaning"), as
 * properties over generated values: every form of an instant names that instant, every form of a
 * boolean its one meaning, and what names no single value (a date without a zone, "yes") is refused.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import * as z from 'zod/mini';
import {
  CredentialFileData,
  CredentialRevoked,
  CredentialSubmitted,
  IdentityRequestDetails,
  IdentityResponseData,
  StatusCurrent,
  TokenResponse,
} from '../../src/client/schemas.js';
import { tokenLifetime } from '../../src/client/lifetime.js';

const read = (details: Record<string, unknown>) => z.safeParse(IdentityRequestDetails, details);

/** Seconds between 2001 and 2286: dates of 10 digits. */
const seconds = fc.integer({ min: 1_000_000_000, max: 9_999_999_999 });

describe('a UNIX time, in every form that names one instant', () => {
  test('property: whole seconds, digits, a fraction, milliseconds and a zoned ISO 8601 or RFC 2822 date read as the same second', () => {
    fc.assert(
      fc.property(seconds, fc.integer({ min: 0, max: 999 }), fc.integer({ min: -14, max: 14 }), (at, ms, zoneHours) => {
        const instant = new Date(at * 1000 + ms);
        const offset = new Date(instant.getTime() + zoneHours * 3_600_000).toISOString().slice(0, 23);
        const zone = `${zoneHours < 0 ? '-' : '+'}${String(Math.abs(zoneHours)).padStart(2, '0')}:00`;
        for (const form of [
          at,
          String(at),
          at + ms / 1000,
          `${at}.${String(ms).padStart(3, '0')}`,
          at * 1000 + ms,
          instant.toISOString(),
          `${offset}${zone}`,
          instant.toUTCString(),
        ]) {
          const parsed = read({ time_expires: form });
          expect(parsed.success, String(form)).toBe(true);
          expect(parsed.data?.time_expires, String(form)).toBe(at);
        }
      }),
      { numRuns: 200 },
    );
  });

  test('property: a date without a zone names no instant and is refused, naming the field', () => {
    fc.assert(
      fc.property(seconds, (at) => {
        const naive = new Date(at * 1000).toISOString().replace(/Z$/, '');
        const parsed = read({ time_expires: naive });
        expect(parsed.success).toBe(false);
        expect(parsed.error?.issues[0]?.path).toEqual(['time_expires']);
      }),
      { numRuns: 100 },
    );
  });
});

describe("a request's times: no time before 2001 (a duration where an instant belongs)", () => {
  test('property: a positive number below 1,000,000,000 in any form (seconds or hours left, in a finer unit too) is refused naming its field; 0 stays "not set"', () => {
    const fields = fc.constantFrom('time_expires', 'opened_at', 'completed_at');
    // Seconds or hours; or milliseconds of 12 digits and more, read as milliseconds (internal/times.ts's unitsPerSecond).
    const duration = fc.oneof(
      fc.integer({ min: 1, max: 999_999_999 }),
      fc.integer({ min: 100_000_000, max: 999_999_999 }).map((seconds) => seconds * 1000),
    );
    fc.assert(
      fc.property(fields, duration, fc.boolean(), (field, value, asDigits) => {
        const parsed = read({ [field]: asDigits ? String(value) : value });
        expect(parsed.success, `${field}: ${value}`).toBe(false);
        expect(parsed.error?.issues[0]?.path).toEqual([field]);
        expect(parsed.error?.issues[0]?.message).toContain('before 2001');
        expect(read({ [field]: asDigits ? '0' : 0 }).data?.[field as 'time_expires']).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  test('property: from 2001 on, every time reads as itself; the boundary is the first second with ten digits', () => {
    fc.assert(
      fc.property(seconds, (at) => {
        expect(read({ opened_at: at }).data?.opened_at).toBe(at);
      }),
    );
    expect(read({ time_expires: 1_000_000_000 }).data?.time_expires).toBe(1_000_000_000);
    expect(read({ time_expires: 999_999_999 }).success).toBe(false);
  });
});

describe('a whole number (phone_country_code), as a number or its digits', () => {
  test('property: an integer or its digits (spaces around allowed) reads as itself; a fraction, in either form, is refused naming the field', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 1, max: 9 }), (code, tenth) => {
        for (const form of [code, String(code), ` ${code} `])
          expect(read({ phone_country_code: form }).data?.phone_country_code).toBe(code);
        for (const fraction of [code + tenth / 10, `${code}.${tenth}`]) {
          const parsed = read({ phone_country_code: fraction });
          expect(parsed.success, String(fraction)).toBe(false);
          expect(parsed.error?.issues[0]?.path).toEqual(['phone_country_code']);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('a boolean, in every form that has one meaning', () => {
  test('property: true/false and yes/no (as the spec writes is_pep) in any case and with spaces, 1/0 as numbers or strings; anything else refused', () => {
    const WORDS: Record<string, readonly [string, string]> = { true: ['true', 'yes'], false: ['false', 'no'] };
    const forms = fc.oneof(
      fc.boolean().map((value) => [value, value] as const),
      fc
        .tuple(fc.boolean(), fc.nat(1), fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }), fc.constantFrom('', ' ', '\t'))
        .map(([value, which, upper, pad]) => {
          const word = [...(WORDS[`${value}`]?.[which] ?? '')].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('');
          return [`${pad}${word}${pad}`, value] as const;
        }),
      fc.constantFrom([1, true] as const, [0, false] as const, ['1', true] as const, ['0', false] as const),
    );
    fc.assert(
      fc.property(forms, ([form, meaning]) => {
        expect(read({ send_email: form }).data?.send_email).toBe(meaning);
        expect(z.safeParse(CredentialRevoked, { revoked: form }).data?.revoked).toBe(meaning);
        expect(z.safeParse(IdentityResponseData, { partially_complete: form }).data?.partially_complete).toBe(meaning);
        expect(z.safeParse(StatusCurrent, { maintenance_mode: form }).data?.maintenance_mode).toBe(meaning);
      }),
      { numRuns: 200 },
    );
    for (const ambiguous of ['y', 'n', 'Y', 'yess', 'non', 'oui', '', 2, -1, 1.5, 'truthy', null, [true], { value: true }]) {
      expect(z.safeParse(CredentialRevoked, { revoked: ambiguous }).success, String(ambiguous)).toBe(false);
    }
  });
});

describe('a token answer whose lifetime fields hold anything', () => {
  test('property: the answer is still read, and the lifetime used is never later than the JWT exp, nor past', () => {
    const now = Date.UTC(2026, 10, 27, 12);
    const junk = fc.oneof(fc.anything(), fc.string(), fc.integer(), fc.double(), fc.constantFrom('900s', '15m', 'never', '', 'NaN'));
    fc.assert(
      fc.property(junk, junk, fc.integer({ min: 60, max: 86_400 }), (expiresIn, expires, lifetimeSeconds) => {
        const parsed = z.safeParse(TokenResponse, { access_token: 'a.b.c', expires_in: expiresIn, expires });
        expect(parsed.success).toBe(true);
        const exp = now + lifetimeSeconds * 1000;
        const fields = parsed.data as { expires_in?: number; expires?: string };
        const { expiresAt } = tokenLifetime(fields, exp, now, 0, 300_000);
        expect(expiresAt).toBeGreaterThan(now);
        expect(expiresAt).toBeLessThanOrEqual(exp);
      }),
      { numRuns: 300 },
    );
  });

  test('expires_in is seconds as a number or decimal digits; any other form (a boolean, hex, an exponent, a blank) is set aside, never read as some seconds', () => {
    for (const form of [true, false, '0x384', '9e2', '', '  ', null]) {
      const parsed = z.safeParse(TokenResponse, { access_token: 'a.b.c', expires_in: form });
      expect(parsed.data?.expires_in, JSON.stringify(form)).toBeNaN();
    }
    for (const [form, seconds] of [
      [900, 900],
      ['900', 900],
      [' 900.5 ', 900.5],
      ['-900', -900],
    ] as const) {
      expect(z.safeParse(TokenResponse, { access_token: 'a.b.c', expires_in: form }).data?.expires_in, String(form)).toBe(seconds);
    }
    // A negative lifetime, as a number or its digits, is one already past, and set aside as that (not as no number).
    for (const form of [-900, '-900']) {
      const fields = z.safeParse(TokenResponse, { access_token: 'a.b.c', expires_in: form }).data as { expires_in?: number };
      expect(tokenLifetime(fields, undefined, Date.UTC(2026, 10, 27, 12), 0, 300_000).ignored).toEqual([
        'expires_in (-900 s) is already past',
      ]);
    }
  });

  test('an expires written as a UNIX time (seconds or milliseconds) is the instant it names', () => {
    const at = Date.UTC(2026, 10, 27, 12, 15);
    for (const form of [at / 1000, String(at / 1000), at]) {
      const parsed = z.safeParse(TokenResponse, { access_token: 'a.b.c', expires: form });
      expect(Date.parse(parsed.data?.expires ?? '')).toBe(at);
    }
  });

  test("a few digits in expires (a lifetime written where the date belongs: '900') are no UNIX time: kept as written, set aside as no date, never as a date of 1970", () => {
    for (const form of ['900', '86400', ' 12345678 ']) {
      const parsed = z.safeParse(TokenResponse, { access_token: 'a.b.c', expires: form });
      expect(parsed.data?.expires, form).toBe(form);
      const { ignored } = tokenLifetime(parsed.data as { expires?: string }, undefined, Date.UTC(2026, 10, 27, 12), 0, 300_000);
      expect(ignored, form).toEqual([expect.stringMatching(/^expires is not an RFC 2822 or ISO 8601 date/)]);
    }
  });
});

describe("a record's text fields and required fields: anything else is refused, naming the field", () => {
  /** A value that is no text: a number, a boolean, null, an array or an object. */
  const notText = fc.oneof(
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string(), { maxLength: 2 }),
    fc.dictionary(fc.string(), fc.string()),
  );

  test("property: each text field of an identity response (the digests' algorithm, the request code, the credential JWT among them) holding no text is refused at that field", () => {
    const fields = fc.constantFrom('ref', 'iss', 'sub', 'jti', '_sd_alg', 'acmeidentity.credential_jwt', 'request_code');
    fc.assert(
      fc.property(fields, notText, (field, value) => {
        const parsed = z.safeParse(IdentityResponseData, { [field]: value });
        expect(parsed.success, `${field}: ${JSON.stringify(value)}`).toBe(false);
        expect(parsed.error?.issues[0]?.path).toEqual([field]);
      }),
      { numRuns: 150 },
    );
  });

  test('property: a disclosure object without its claim, or with a claim that is no text, is refused at that disclosure', () => {
    fc.assert(
      fc.property(fc.option(notText, { nil: undefined }), fc.string(), fc.jsonValue(), (claim, salt, value) => {
        const disclosure = claim === undefined ? { salt, value } : { claim, salt, value };
        const parsed = z.safeParse(IdentityResponseData, { disclosures: [disclosure] });
        expect(parsed.success, JSON.stringify(disclosure)).toBe(false);
        expect(parsed.error?.issues[0]?.path.slice(0, 2)).toEqual(['disclosures', 0]);
      }),
      { numRuns: 100 },
    );
  });

  test("property: a submitted credential's credential_ref and a credential file's file_data are required text", () => {
    fc.assert(
      fc.property(fc.option(notText, { nil: undefined }), (value) => {
        const field = (name: string) => (value === undefined ? {} : { [name]: value });
        expect(z.safeParse(CredentialSubmitted, field('credential_ref')).success, JSON.stringify(value)).toBe(false);
        expect(z.safeParse(CredentialFileData, field('file_data')).success, JSON.stringify(value)).toBe(false);
      }),
      { numRuns: 60 },
    );
    expect(z.safeParse(CredentialSubmitted, { credential_ref: 'cred_1' }).success).toBe(true);
    expect(z.safeParse(CredentialFileData, { file_data: 'JVBERi0=' }).success).toBe(true);
  });
});
