/**
 * The claim rules of `src/claims/` on their own: the key form, which credentials may be essential,
 * a claims request in either form, and the decoders `readClaim` applies to the values the spec
 * calls out. (The client and the OIDC helper apply the same rules before sending; their tests show
 * the service agrees.)
 */
import { describe, expect, expectTypeOf, test } from 'vitest';
import fc from 'fast-check';
import {
  ClaimDecodeError,
  InvalidInputError,
  OBTAINABLE_CREDENTIALS,
  canBeEssential,
  claimKey,
  claimsIssues,
  readClaim,
  readClaims,
  type PersonName,
} from '../../src/index.js';
import { AcmeIdentityClient } from '../../src/index.js';
import { DEFAULT_CLIENT, createFakeService } from '../../src/testing/index.js';
import { person as samplePerson } from '../fixtures.js';

const fields = (claims: unknown, supported?: readonly string[]) =>
  claimsIssues(claims, supported && new Set(supported)).map((i) => i.field);
const messages = (claims: unknown, supported?: readonly string[]) =>
  claimsIssues(claims, supported && new Set(supported)).map((i) => i.message);

describe('claim keys: their form, without the live list', () => {
  test.each(['acmeidentity.name', 'sanctionscheck.is_pep', 'document.passport.travel_document_number', 'a-b_c.D9'])(
    '%s is a key',
    (key) => {
      expect(claimsIssues([key])).toEqual([]);
    },
  );

  test.each([
    ['name', /must be \{credential\}\.\{field\}/],
    ['acmeidentity.name.first', /must be \{credential\}\.\{field\}/],
    ['document.passport', /document\.\{doc_type\}\.\{field\}/],
    ['document.passport.a.b', /document\.\{doc_type\}\.\{field\}/],
    ['acmeidentity..name', /letters, digits/],
    ['acme identity.name', /letters, digits/],
    ['acmeidentity.name!', /letters, digits/],
    ['.name', /letters, digits/],
  ])('%s is not, and the message says why', (key, message) => {
    expect(messages([key])).toEqual([expect.stringMatching(message)]);
  });
});

describe('claim keys: with the live list, the list decides', () => {
  test('a listed key is accepted whatever its form; an unlisted one is refused whatever its form', () => {
    expect(claimsIssues(['loyalty_tier'], new Set(['loyalty_tier']))).toEqual([]);
    expect(messages(['acmeidentity.name'], ['loyalty_tier'])).toEqual([expect.stringContaining('acme_claims_supported')]);
    expect(messages(['nope'], ['loyalty_tier'])).toEqual([expect.stringContaining('acme_claims_supported')]);
  });
});

describe('essential', () => {
  test('only the obtainable credentials, never a document claim', () => {
    for (const credential of OBTAINABLE_CREDENTIALS) expect(canBeEssential(`${credential}.field`), credential).toBe(true);
    for (const key of ['acmeidentity.name', 'document.passport.travel_document_number', 'document', 'studentx.field', '', 'toString.x']) {
      expect(canBeEssential(key), key).toBe(false);
    }
  });

  test('{essential: true} is taken on an obtainable credential and refused elsewhere; null is optional; anything else is neither', () => {
    expect(claimsIssues({ 'sanctionscheck.is_pep': { essential: true }, 'acmeidentity.name': null })).toEqual([]);
    expect(fields({ 'acmeidentity.name': { essential: true } })).toEqual(['claims.acmeidentity.name']);
    expect(messages({ 'document.passport.travel_document_number': { essential: true } })).toEqual([
      expect.stringContaining('cannot be essential'),
    ]);
    for (const marker of [{ essential: 'true' }, { essential: true, value: 1 }, {}, true, 'essential', 0]) {
      expect(messages({ 'sanctionscheck.is_pep': marker }), JSON.stringify(marker)).toEqual([
        expect.stringContaining('must be null (optional) or {essential: true}'),
      ]);
    }
  });

  test('{essential: false} is what a person writes in a variable (TypeScript widens true to boolean there): taken on any key, and sent as null (#43)', async () => {
    expect(claimsIssues({ 'acmeidentity.name': { essential: false }, 'sanctionscheck.is_pep': { essential: false } })).toEqual([]);
    // As a user writes it: an object in a variable, not a literal at the call. It compiles under strict.
    const person = {
      ...samplePerson(),
      claims: { 'sanctionscheck.is_pep': { essential: true }, 'acmeidentity.name': { essential: false } },
    };
    const sent: unknown[] = [];
    const service = await createFakeService();
    const client = new AcmeIdentityClient({
      baseUrl: service.baseUrl,
      ...DEFAULT_CLIENT,
      fetch: async (request) => {
        if (new URL(request.url).pathname.endsWith('/identity/request')) sent.push(await request.clone().json());
        return service.fetch(request);
      },
    });
    await client.identityRequests.create(person);
    expect(sent).toMatchObject([{ claims: { 'sanctionscheck.is_pep': { essential: true }, 'acmeidentity.name': null } }]);
  });
});

describe('a claims request in either form', () => {
  test('an array of keys, or an object of keys; each problem reported, each naming its key or position', () => {
    expect(claimsIssues(['acmeidentity.name', 'sanctionscheck.is_pep'])).toEqual([]);
    expect(fields(['acmeidentity.name', 7, 'bad'])).toEqual(['claims[1]', 'claims.bad']);
    expect(fields({ bad: null, 'acmeidentity.name': { essential: true } })).toEqual(['claims.bad', 'claims.acmeidentity.name']);
  });

  test('neither an array nor an object, or an empty one, is refused as a whole', () => {
    for (const claims of ['acmeidentity.name', 7, null, undefined, true]) {
      expect(claimsIssues(claims), String(claims)).toEqual([
        { field: 'claims', message: expect.stringContaining('must be an array of claim keys or an object') },
      ]);
    }
    expect(claimsIssues([])).toEqual([{ field: 'claims', message: 'must request at least one claim' }]);
    expect(claimsIssues({})).toEqual([{ field: 'claims', message: 'must request at least one claim' }]);
    // Not empty when something was given, even if none of it was a key.
    expect(fields([7])).toEqual(['claims[0]']);
  });

  test('the field names start with the path given', () => {
    expect(claimsIssues(['bad'], undefined, 'claims.acme').map((i) => i.field)).toEqual(['claims.acme.bad']);
  });
});

describe('readClaim: the documented form of each value', () => {
  const claims = {
    'acmeidentity.valid': true,
    'acmeidentity.name': '{"first_name":"Jane","last_name":"Citizen","extra":1}',
    'acmeidentity.given_name': 'Jane',
    'sanctionscheck.is_pep': 'No',
    'sanctionscheck.is_sanctioned': true,
    'sanctionscheck.matches': '[{"list":"un"}]',
    'future.claim': { any: 'shape' },
    'document.passport.travel_document_number': 'PA1234567',
  };

  test('each known claim decoded to its type; an unknown one returned as it is; a missing one undefined', () => {
    expect(readClaim(claims, 'acmeidentity.valid')).toBe(true);
    expect(readClaim(claims, 'acmeidentity.name')).toEqual({ first_name: 'Jane', last_name: 'Citizen' });
    expect(readClaim(claims, 'acmeidentity.given_name')).toBe('Jane');
    expect(readClaim(claims, 'sanctionscheck.is_pep')).toBe(false);
    expect(readClaim({ 'sanctionscheck.is_pep': 'Yes' }, 'sanctionscheck.is_pep')).toBe(true);
    expect(readClaim({ 'sanctionscheck.is_pep': false }, 'sanctionscheck.is_pep')).toBe(false);
    expect(readClaim(claims, 'sanctionscheck.is_sanctioned')).toBe(true);
    expect(readClaim(claims, 'sanctionscheck.matches')).toEqual([{ list: 'un' }]);
    expect(readClaim(claims, 'document.passport.travel_document_number')).toBe('PA1234567');
    expect(readClaim(claims, 'future.claim')).toEqual({ any: 'shape' });
    expect(readClaim(claims, 'acmeidentity.email')).toBeUndefined();
    expect(readClaim({ 'acmeidentity.email': undefined }, 'acmeidentity.email')).toBeUndefined();
  });

  test('a text claim sent as a JSON number reads as its digits while JSON kept them, and is refused once it could not (past 2^53)', () => {
    const key = 'document.passport.travel_document_number';
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }), (n) => {
        const parsed: unknown = JSON.parse(`{"${key}":${n}}`);
        if (n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= BigInt(Number.MIN_SAFE_INTEGER)) {
          expect(readClaim(parsed as Record<string, unknown>, key)).toBe(n.toString());
        } else {
          // The digits JSON.parse returned are not the ones sent (or not for certain): refused, never another number.
          expect(() => readClaim(parsed as Record<string, unknown>, key)).toThrow(ClaimDecodeError);
        }
      }),
    );
    expect(() => readClaim(JSON.parse(`{"${key}":12345678901234567890}`), key)).toThrow(/too large for its digits/);
    expect(() => readClaim(JSON.parse(`{"${key}":-12345678901234567890}`), key)).toThrow(/too large for its digits/);
    expect(readClaim({ 'acmeidentity.given_name': 1.5 }, 'acmeidentity.given_name')).toBe('1.5');
  });

  test('a name from the prototype is not a claim', () => {
    expect(readClaim({}, 'toString')).toBeUndefined();
    expect(readClaim({ toString: 'x' }, 'toString')).toBe('x');
  });

  test.each([
    ['acmeidentity.valid', 'true', true],
    ['acmeidentity.valid', ' FALSE ', false],
    ['acmeidentity.email_verified', 1, true],
    ['acmeidentity.email_verified', '0', false],
    ['acmeidentity.phone_verified', 'Yes', true],
    ['sanctionscheck.is_pep', 'yes', true],
    ['sanctionscheck.is_pep', 'NO', false],
    ['sanctionscheck.is_pep', 1, true],
    ['sanctionscheck.is_sanctioned', 'false', false],
    ['acmeidentity.given_name', 7, '7'],
    ['document.passport.travel_document_number', 123456789, '123456789'],
    ['sanctionscheck.matches', [], []],
    ['sanctionscheck.matches', { list: 'un' }, { list: 'un' }],
    ['acmeidentity.name', { first_name: 'Jane', last_name: 'Citizen', middle: 'x' }, { first_name: 'Jane', last_name: 'Citizen' }],
  ])('%s = %j, a form the service may send ("claim value types are not uniform"), reads as %j', (key, value, expected) => {
    expect(readClaim({ [key]: value }, key)).toEqual(expected);
  });

  test.each([
    ['acmeidentity.valid', 'maybe', /not a boolean/],
    ['acmeidentity.valid', 2, /not a boolean/],
    ['acmeidentity.valid', 'truthy', /not a boolean/],
    // Whole words only: each form is anchored at both ends.
    ['acmeidentity.valid', 'notrue', /not a boolean/],
    ['acmeidentity.valid', 'yesterday', /not a boolean/],
    ['acmeidentity.valid', '10', /not a boolean/],
    ['acmeidentity.valid', '20', /not a boolean/],
    ['acmeidentity.valid', 'nope', /not a boolean/],
    ['acmeidentity.email_verified', null, /not a boolean/],
    ['acmeidentity.valid', ['true'], /not a boolean/],
    ['acmeidentity.given_name', Number.NaN, /not a string/],
    ['acmeidentity.given_name', { first: 'Jane' }, /not a string/],
    // A credential_jwt is a token's text: an object there is no token, never handed on as one.
    ['acmeidentity.credential_jwt', { alg: 'none' }, /not a string/],
    ['acmeidentity.credential_jwt', true, /not a string/],
    ['sanctionscheck.is_pep', 'Y', /not a boolean/],
    ['sanctionscheck.matches', 7, /JSON-encoded string/],
    // null is no list of matches, decoded or not: never taken as one already decoded.
    ['sanctionscheck.matches', null, /JSON-encoded string/],
    ['sanctionscheck.matches', '{oops', /not valid JSON/],
    ['acmeidentity.name', 'Jane Citizen', /not valid JSON/],
    ['acmeidentity.name', '{"first_name":"Jane"}', /first_name and last_name/],
    ['acmeidentity.name', '{"first_name":"Jane","last_name":7}', /first_name and last_name/],
    ['acmeidentity.name', 'null', /first_name and last_name/],
  ])('%s = %j is refused with ClaimDecodeError, naming the claim', (key, value, message) => {
    let error: unknown;
    try {
      readClaim({ [key]: value }, key);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ClaimDecodeError);
    expect(error).toMatchObject({ code: 'ERR_CLAIM_DECODE', message: expect.stringMatching(message) });
    expect((error as Error).message).toContain(key);
  });

  test('misuse is a typed input error naming the argument', () => {
    expect(() => readClaim(null as never, 'acmeidentity.name')).toThrow(InvalidInputError);
    expect(() => readClaim(null as never, 'acmeidentity.name')).toThrow(expect.objectContaining({ field: 'claims' }));
    expect(() => readClaim('x' as never, 'acmeidentity.name')).toThrow(expect.objectContaining({ field: 'claims' }));
    expect(() => readClaim({}, 7 as never)).toThrow(expect.objectContaining({ field: 'key' }));
  });
});

describe('readClaims: the keys asked for, decoded, in one object typed by them', () => {
  const claims = {
    'acmeidentity.name': '{"first_name":"Jane","last_name":"Citizen"}',
    'sanctionscheck.is_pep': 'No',
    'loyalty.tier': 'gold',
  };

  test('each disclosed key decoded as readClaim decodes it; one not disclosed is absent, not undefined', () => {
    const read = readClaims(claims, ['acmeidentity.name', 'sanctionscheck.is_pep', 'acmeidentity.birth_date', claimKey('loyalty.tier')]);
    expect(read).toEqual({
      'acmeidentity.name': { first_name: 'Jane', last_name: 'Citizen' },
      'sanctionscheck.is_pep': false,
      'loyalty.tier': 'gold',
    });
    expect(Object.hasOwn(read, 'acmeidentity.birth_date')).toBe(false);
    expectTypeOf(read['acmeidentity.name']).toEqualTypeOf<PersonName | undefined>();
    expectTypeOf(read['sanctionscheck.is_pep']).toEqualTypeOf<boolean | undefined>();
    // A key not asked for is not on the type.
    // @ts-expect-error 'acmeidentity.email' was not asked for
    expect(read['acmeidentity.email']).toBeUndefined();
  });

  test('a key of the wrong form is a compile error; a value of the wrong form a ClaimDecodeError naming the key', () => {
    // @ts-expect-error a typo of 'acmeidentity.name'
    expect(readClaims(claims, ['acmeidentity.nmae'])).toEqual({});
    const error = (() => {
      try {
        readClaims({ 'sanctionscheck.is_pep': 'perhaps' }, ['sanctionscheck.is_pep']);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ClaimDecodeError);
    expect((error as Error).message).toContain('sanctionscheck.is_pep');
  });

  test('a claim named __proto__ is read as a claim, never as the prototype', () => {
    const read = readClaims(JSON.parse('{"__proto__": "x"}') as Record<string, unknown>, [claimKey('__proto__')]);
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(read, '__proto__')?.value).toBe('x');
  });

  test('misuse is a typed input error naming the argument', () => {
    expect(() => readClaims(claims, 'acmeidentity.name' as never)).toThrow(expect.objectContaining({ field: 'keys' }));
    expect(() => readClaims(null as never, ['acmeidentity.name'])).toThrow(expect.objectContaining({ field: 'claims' }));
  });
});

describe('the claim helpers at their edges', () => {
  test('claimKey takes any non-empty string as it is, and refuses anything else naming claimKey', () => {
    expect(claimKey('loyalty.tier')).toBe('loyalty.tier');
    for (const key of ['', 7, undefined, null]) {
      expect(() => claimKey(key as never)).toThrow(InvalidInputError);
      expect(() => claimKey(key as never)).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ field: 'claimKey' })] }));
    }
  });

  test('canBeEssential of anything but a string is false, never a TypeError', () => {
    for (const key of [7, undefined, null, {}]) expect(canBeEssential(key as never)).toBe(false);
  });

  test('a credential claim the spec leaves unshaped (acicncchc.credential) is returned as sent', () => {
    const credential = { type: 'acicncchc', result: { outcome: 'clear' } };
    expect(readClaim({ 'acicncchc.credential': credential }, 'acicncchc.credential')).toBe(credential);
    expect(readClaim({ 'acicncchc.credential': 'opaque' }, 'acicncchc.credential')).toBe('opaque');
  });

  test('readClaims makes a plain object: each claim an own property as an assignment makes it', () => {
    const read = readClaims({ 'sanctionscheck.is_pep': 'Yes' }, ['sanctionscheck.is_pep']);
    expect(Object.getOwnPropertyDescriptor(read, 'sanctionscheck.is_pep')).toEqual({
      value: true,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
});
