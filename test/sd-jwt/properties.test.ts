/** Property tests: no mutation of a valid SD-JWT or response is accepted with other claims, or crashes. */
import { beforeAll, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { AcmeIdentityError } from '../../src/index.js';
import { verifyIdentityResponse, verifySdJwt } from '../../src/sd-jwt/index.js';
import { rejection } from '../fixtures.js';
import { at, digest, disclosure, testIssuer, type TestIssuer } from './issuer.js';

let issuer: TestIssuer;
let sdJwt: string;
let original: Record<string, unknown>;
beforeAll(async () => {
  issuer = await testIssuer();
  const given = disclosure('salt-given', 'given_name', 'Jane');
  const street = disclosure('salt-street', 'street', '1 Main St');
  const address = disclosure('salt-address', 'address', { _sd: [digest(street)], country: 'AU' });
  const fr = disclosure('salt-fr', 'FR');
  sdJwt = await issuer.sdJwt(
    { sub: 'p1', _sd: [digest(given), digest(address), digest('decoy')], nationalities: [{ '...': digest(fr) }, 'AU'] },
    [given, street, address, fr],
  );
  original = (await verifySdJwt(sdJwt, at(issuer.keys))).claims;
});

/** Runs `verify`; returns the claims it accepted, or undefined when it refused with the SDK's own error. */
async function outcome(verify: () => Promise<{ claims: Readonly<Record<string, unknown>> }>) {
  try {
    return (await verify()).claims;
  } catch (error) {
    expect(error).toBeInstanceOf(AcmeIdentityError);
    return undefined;
  }
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const ALPHABET = [...BASE64URL, '~', '.', '=', ' '];

describe('property: mutated SD-JWTs', () => {
  test('changing, deleting or inserting a character never yields other claims, and throws only SDK errors', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: sdJwt.length - 1 }),
        fc.constantFrom(...ALPHABET),
        fc.constantFrom('replace', 'delete', 'insert'),
        async (at_, char, kind) => {
          const edits = { replace: [char, 1], delete: ['', 1], insert: [char, 0] } as const;
          const [put, removed] = edits[kind];
          const mutated = sdJwt.slice(0, at_) + put + sdJwt.slice(at_ + removed);
          const claims = await outcome(() => verifySdJwt(mutated, at(issuer.keys)));
          if (claims) expect(claims).toEqual(original);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('removing, duplicating or reordering disclosures never yields a claim the issuer did not sign', async () => {
    const [jwt, ...rest] = sdJwt.split('~');
    const disclosures = rest.filter(Boolean);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...disclosures), { maxLength: 6 }), async (chosen) => {
        const claims = await outcome(() => verifySdJwt(`${jwt}~${chosen.map((d) => `${d}~`).join('')}`, at(issuer.keys)));
        if (!claims) return;
        // A presentation may hide claims, never change one: every revealed top-level claim is the original's.
        for (const [key, value] of Object.entries(claims)) {
          if (key === 'address') expect(original['address']).toMatchObject(value as object);
          else if (key === 'nationalities') expect(original['nationalities']).toEqual(expect.arrayContaining(value as unknown[]));
          else expect(value).toEqual(original[key]);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('property: mutated identity responses', () => {
  const salts = ['s-1', 's-2', 's-3'];
  const entries: [string, unknown][] = [
    ['acmeidentity.given_name', 'Jane'],
    ['acmeidentity.valid', true],
    ['sanctionscheck.matches', '[]'],
  ];
  const disclosures = entries.map(([claim, value], i) => ({ claim, salt: salts[i]!, value }));
  const data = {
    exp: 4_102_444_800,
    request_code: 'isc_1',
    _sd_alg: 'sha256',
    _sd: disclosures.map((d) => digest(disclosure(d.salt, d.claim, d.value))),
    disclosures,
  };

  test('any change to a disclosure or a digest is refused, or leaves every accepted claim as it was', async () => {
    const mutation = fc.record({
      index: fc.nat({ max: 2 }),
      field: fc.constantFrom('claim', 'salt', 'value', '_sd'),
      replacement: fc.jsonValue(),
    });
    await fc.assert(
      fc.asyncProperty(mutation, async ({ index, field, replacement }) => {
        const copy = structuredClone(data) as typeof data & Record<string, unknown>;
        if (field === '_sd') copy._sd[index] = typeof replacement === 'string' ? replacement : JSON.stringify(replacement);
        else (copy.disclosures[index] as Record<string, unknown>)[field] = replacement;
        const claims = await outcome(() => verifyIdentityResponse({ data: copy }, { requestCode: 'isc_1' }));
        if (!claims) return;
        for (const [key, value] of Object.entries(claims)) expect(value).toEqual(Object.fromEntries(entries)[key]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('property: a disclosure names its claim with a string', () => {
  test('a three-element disclosure whose name is any other JSON value is malformed, and says so', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue().filter((name) => typeof name !== 'string'),
        async (name) => {
          const named = disclosure('salt-named', name, 'Jane');
          const error = await rejection(verifySdJwt(await issuer.sdJwt({ sub: 'p1', _sd: [digest(named)] }, [named]), at(issuer.keys)));
          expect(error).toMatchObject({ code: 'ERR_SD_JWT_MALFORMED', message: 'disclosure 1 has a claim name that is not a string' });
        },
      ),
      { numRuns: 100 },
    );
  });
});
