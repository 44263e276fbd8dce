/**
 * Where a sign-in's ID token and userinfo put the `acme` claims is not shown: under their dotted
 * names, inside an `acme` object, or as paths (the fake's `signInClaims` reading). `readClaim`,
 * `readClaims` and the frameworks' profile read every place alike, and never choose between two.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { claimKeysIn } from '../../src/claims/decoders.js';
import { claimList, readClaim, readClaims } from '../../src/claims/index.js';
import { ClaimDecodeError } from '../../src/errors/index.js';
import { acmeIdentityProfile } from '../../src/oidc/providers.js';

type Placement = 'flat' | 'acme' | 'nested';

/** The claims as an issuer of each placement writes them (written here by hand, not by the SDK's rule). */
function written(claims: Record<string, unknown>, placement: Placement): Record<string, unknown> {
  const out: Record<string, unknown> = { sub: 'person-1', given_name: 'Jane' };
  for (const [key, value] of Object.entries(claims)) {
    if (placement === 'flat') out[key] = value;
    else if (placement === 'acme') out['acme'] = { ...(out['acme'] as object), [key]: value };
    else {
      const [first, ...rest] = key.split('.');
      const [parent, field] = first === 'document' ? [`document.${rest[0]}`, rest.slice(1).join('.')] : [first!, rest.join('.')];
      const path = parent.split('.');
      let at = out;
      for (const name of path) {
        at[name] ??= {};
        at = at[name] as Record<string, unknown>;
      }
      at[field] = value;
    }
  }
  return out;
}

const KEY = fc.oneof(
  fc
    .tuple(fc.constantFrom('acmeidentity', 'sanctionscheck', 'vevortw'), fc.constantFrom('given_name', 'is_pep', 'x_1'))
    .map(([c, f]) => `${c}.${f}`),
  fc
    .tuple(fc.constantFrom('passport', 'driving_license'), fc.constantFrom('licence_number', 'passport_number'))
    .map(([t, f]) => `document.${t}.${f}`),
);
const VALUE = fc.oneof(
  fc.string(),
  fc.boolean(),
  fc.integer(),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
);

/** What readClaim makes of a key: its decoded value, or the error it refuses it with. */
function outcome(claims: Record<string, unknown>, key: string): unknown {
  try {
    return { value: readClaim(claims, key) };
  } catch (error) {
    return { error: (error as ClaimDecodeError).code, message: (error as Error).message };
  }
}

describe('claims wherever a sign-in put them', () => {
  test('property: every placement reads the same value under every key, and lists the same keys', () => {
    fc.assert(
      fc.property(
        fc.dictionary(KEY, VALUE, { minKeys: 1, maxKeys: 4 }),
        fc.constantFrom<Placement>('acme', 'nested'),
        (claims, placement) => {
          const flat = written(claims, 'flat');
          const other = written(claims, placement);
          for (const key of Object.keys(claims)) expect(outcome(other, key)).toEqual(outcome(flat, key));
          expect(claimKeysIn(other).toSorted()).toEqual(claimKeysIn(flat).toSorted());
          expect(acmeIdentityProfile({ ...other, sub: 'p' }).acme).toEqual(acmeIdentityProfile({ ...flat, sub: 'p' }).acme);
        },
      ),
      { numRuns: 100 },
    );
  });

  test('property: two places with two values are refused, naming the claim; two with one value read once', () => {
    fc.assert(
      fc.property(KEY, fc.string(), fc.string(), fc.constantFrom<Placement>('acme', 'nested'), (key, a, b, placement) => {
        const both = { ...written({ [key]: b }, placement), [key]: a };
        // One value: read as that value alone is, decoded or refused by the claim's own rule (an is_pep of "" is no boolean; fuzz seed 956096205).
        if (a === b) expect(outcome(both, key)).toEqual(outcome({ [key]: a }, key));
        else {
          expect(() => readClaim(both, key)).toThrow(ClaimDecodeError);
          expect(() => readClaim(both, key)).toThrow(key);
        }
      }),
    );
  });

  test('property: one value written in two places as two copies, keys in another order, is read once: the same JSON, not the same object', () => {
    /** A copy of a JSON value with every object's keys in the reverse order. */
    const reversed = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(reversed);
      if (value === null || typeof value !== 'object') return value;
      return Object.fromEntries(
        Object.entries(value)
          .map(([name, inner]) => [name, reversed(inner)])
          .reverse(),
      );
    };
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom<Placement>('acme', 'nested'), (value, placement) => {
        const key = 'vevortw.x_1';
        const both = { ...written({ [key]: reversed(value) }, placement), [key]: value };
        expect(readClaim(both, key)).toEqual(value);
      }),
    );
  });

  test('decoded as the identity response is: a JSON name, "No" for is_pep, in any placement', () => {
    const claims = { 'acmeidentity.name': '{"first_name":"Jane","last_name":"Citizen"}', 'sanctionscheck.is_pep': 'No' };
    for (const placement of ['flat', 'acme', 'nested'] as const) {
      expect(readClaims(written(claims, placement), ['acmeidentity.name', 'sanctionscheck.is_pep'])).toEqual({
        'acmeidentity.name': { first_name: 'Jane', last_name: 'Citizen' },
        'sanctionscheck.is_pep': false,
      });
      expect(acmeIdentityProfile(written(claims, placement)).name).toBe('Jane Citizen');
    }
  });

  test("OpenID Connect's address, __proto__, and the prototype's names are never walked into", () => {
    const address = { street_address: '1 Main St', country: 'AU' };
    const claims = JSON.parse('{"sub":"p","address":{"street_address":"1 Main St","country":"AU"},"__proto__":{"x":1}}');
    expect(claimKeysIn(claims)).toEqual(['sub', 'address', '__proto__']);
    expect(readClaim(claims, 'address')).toEqual(address);
    expect(acmeIdentityProfile(claims).acme).toMatchObject({ address });
    expect(readClaim({}, 'constructor.name')).toBeUndefined();
    expect(readClaim({ acme: {} }, 'toString')).toBeUndefined();
    expect(readClaim({ acmeidentity: 'not an object' }, 'acmeidentity.name')).toBeUndefined();
  });

  test('document claims as paths: each document type that is an object lists its fields; one that is not names no claim key', () => {
    const claims = { document: { passport: 'not an object', driving_license: { licence_number: 'DL-1' }, passport_foreign: null } };
    expect(claimKeysIn(claims)).toEqual(['document.driving_license.licence_number']);
  });
});

describe("discovery's acme_claims_supported in either form (the claimsSupported reading)", () => {
  test('property: a JSON array and the same keys as one string, separated by spaces or commas, are one list; anything else lists none', () => {
    fc.assert(
      fc.property(fc.uniqueArray(KEY, { minLength: 0, maxLength: 5 }), fc.constantFrom(' ', ',', ', ', '  '), (keys, separator) => {
        expect(claimList(keys)).toEqual(keys);
        expect(claimList(keys.join(separator))).toEqual(keys);
      }),
    );
    expect(claimList(['a.b', 7, null, 'c.d'])).toEqual(['a.b', 'c.d']);
    for (const value of [undefined, null, 7, { 'a.b': true }]) expect(claimList(value)).toEqual([]);
  });
});
