/**
 * The rules that decide when a sign-in reads userinfo, and what userinfo may add to the ID token's
 * claims (oidc/userinfo.ts), proven over generated claims: a service may deliver the claims a
 * sign-in asked for in the ID token, from userinfo, or split between them (not shown).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { readClaim } from '../../src/claims/index.js';
import { isObject } from '../../src/internal/guards.js';
import type { IdTokenClaims } from '../../src/oidc/flow.js';
import { completedClaims, lacksRequestedClaims, type UserInfo } from '../../src/oidc/userinfo.js';

/** The ID token's own claims, which userinfo never supplies. */
const PROTOCOL = [
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'nbf',
  'jti',
  'nonce',
  'auth_time',
  'acr',
  'amr',
  'azp',
  'at_hash',
  'c_hash',
  's_hash',
  'sid',
];

/** An ID token's claims: its protocol claims, and `claims`. */
const token = (claims: Record<string, unknown>): IdTokenClaims => ({
  iss: 'https://auth.example',
  aud: 'rp',
  iat: 0,
  exp: 1,
  sub: 'p',
  ...claims,
});

/** Member names as an adversary picks them: protocol claims, prototype names, claim keys and anything else. */
const name = fc.oneof(
  fc.constantFrom(...PROTOCOL),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'acme', 'acmeidentity', 'email', 'given_name'),
  fc.constantFrom('acmeidentity.name', 'sanctionscheck.is_pep', 'document.passport.number'),
  fc.string({ maxLength: 12 }),
);
/**
 * A claims object: parsed JSON, as both the ID token's payload and userinfo's answer are, its
 * members often objects of the same names on both sides (an `acme` object, a credential's).
 */
const { claims: claimsObject } = fc.letrec<{ claims: Record<string, unknown> }>((tie) => ({
  claims: fc
    .dictionary(name, fc.oneof({ maxDepth: 3 }, fc.jsonValue({ maxDepth: 2 }), tie('claims')), { maxKeys: 8 })
    .map((claims) => JSON.parse(JSON.stringify(claims)) as Record<string, unknown>),
}));

/** A member's own value (never one read through the prototype). */
const own = (object: Record<string, unknown>, key: string): unknown => Object.getOwnPropertyDescriptor(object, key)?.value;

/**
 * The rule `completed` keeps at one level of the claims: each member of the ID token's as it is,
 * but an object where userinfo offers an object too, which is completed the same way; each other
 * member one userinfo offers, as it is; nothing userinfo offers dropped. Userinfo offers every
 * member but, at the top, a protocol claim.
 */
function expectCompleted(completed: unknown, ours: Record<string, unknown>, info: Record<string, unknown>, top: boolean): void {
  expect(isObject(completed) && Object.getPrototypeOf(completed) === Object.prototype).toBe(true);
  const result = completed as Record<string, unknown>;
  const offered = (key: string) => Object.hasOwn(info, key) && !(top && PROTOCOL.includes(key));
  for (const key of Object.keys(ours)) {
    const [mine, theirs] = [own(ours, key), own(info, key)];
    if (offered(key) && isObject(mine) && isObject(theirs)) expectCompleted(own(result, key), mine, theirs, false);
    else expect(own(result, key)).toBe(mine);
  }
  for (const key of Object.keys(result)) {
    if (Object.hasOwn(ours, key)) continue;
    expect(offered(key)).toBe(true);
    expect(own(result, key)).toBe(own(info, key));
  }
  for (const key of Object.keys(info)) if (offered(key)) expect(Object.hasOwn(result, key)).toBe(true);
}

/** Claim keys a sign-in asks for, and how an ID token may write one (under its dotted name, in an `acme` object, as a path). */
const claimKey = fc.constantFrom(
  'acmeidentity.name',
  'acmeidentity.given_name',
  'sanctionscheck.is_pep',
  'acmeidentity.email_verified',
  'phonenumber.phone',
);
const written = (
  keys: readonly string[],
  form: 'flat' | 'acme' | 'nested',
  value: (key: string) => unknown = () => 'x',
): Record<string, unknown> => {
  if (form === 'acme') return keys.length ? { acme: Object.fromEntries(keys.map((k) => [k, value(k)])) } : {};
  const claims: Record<string, unknown> = {};
  for (const key of keys) {
    if (form === 'flat') claims[key] = value(key);
    else {
      const [credential, field] = key.split('.') as [string, string];
      claims[credential] = { ...(claims[credential] as object), [field]: value(key) };
    }
  }
  return claims;
};
const form = fc.constantFrom('flat' as const, 'acme' as const, 'nested' as const);
/** Each claim's value as the ID token writes it, and as userinfo does: read, they differ. */
const SIDES: Readonly<Record<string, readonly [unknown, unknown]>> = {
  'acmeidentity.name': [
    JSON.stringify({ first_name: 'Ida', last_name: 'Token' }),
    JSON.stringify({ first_name: 'Una', last_name: 'Info' }),
  ],
  'acmeidentity.given_name': ['Ida', 'Una'],
  'sanctionscheck.is_pep': ['Yes', 'No'],
  'acmeidentity.email_verified': [true, false],
  'phonenumber.phone': ['+61400000001', '+61400000002'],
};

describe('completedClaims: what userinfo adds to the ID token', () => {
  test('every member of the ID token is kept as it is, objects both hold merged alike; every member userinfo adds is one the ID token lacks and not a protocol claim', () => {
    fc.assert(
      fc.property(claimsObject, claimsObject, (idToken, info) => {
        expectCompleted(completedClaims(idToken as IdTokenClaims, info as UserInfo), idToken, info, true);
      }),
    );
  });

  test("claims split between the ID token and userinfo, in any one form, are all read from the completed claims: the ID token's value where both write one", () => {
    fc.assert(
      fc.property(fc.uniqueArray(claimKey, { minLength: 1 }), form, fc.nat(), (asked, how, cut) => {
        // The ID token writes the first part of the claims asked for, userinfo every one, each its own values.
        const inIdToken = asked.slice(0, cut % (asked.length + 1));
        const idToken = token(written(inIdToken, how, (key) => SIDES[key]?.[0]));
        const info = { sub: 'p', ...written(asked, how, (key) => SIDES[key]?.[1]) } as UserInfo;
        const completed = completedClaims(idToken, info);
        for (const key of asked) {
          expect(readClaim(completed, key)).toEqual(readClaim(inIdToken.includes(key) ? idToken : info, key));
          // Told apart: each claim's two values read differently.
          expect(readClaim(idToken, key)).not.toEqual(readClaim(info, key));
        }
      }),
    );
  });

  test('a protocol claim userinfo adds is never taken, whatever the ID token lacks', () => {
    fc.assert(
      fc.property(fc.subarray(PROTOCOL, { minLength: 1 }), fc.jsonValue(), (names, value) => {
        const info = Object.fromEntries(names.map((n) => [n, value])) as UserInfo;
        expect(completedClaims(token({}), info)).toEqual(token({}));
      }),
    );
  });
});

describe('lacksRequestedClaims: when a sign-in reads userinfo', () => {
  test('an ID token holding every claim asked for, wherever it writes them, lacks nothing; one missing claim makes it lack', () => {
    fc.assert(
      fc.property(fc.uniqueArray(claimKey, { minLength: 1 }), form, fc.nat(), (asked, how, drop) => {
        const all = token({ sub: 'p', ...written(asked, how) });
        expect(lacksRequestedClaims({ scope: ['openid'], claims: asked }, all)).toBe(false);
        const missing = asked[drop % asked.length]!;
        const partial = {
          sub: 'p',
          ...written(
            asked.filter((k) => k !== missing),
            how,
          ),
        } as IdTokenClaims;
        expect(lacksRequestedClaims({ scope: ['openid'], claims: asked }, partial)).toBe(true);
      }),
    );
  });

  test('a standard scope asked for is answered by any one of its claims (OpenID Connect Core §5.4); none of them makes the ID token lack', () => {
    const scopes = {
      profile: ['name', 'given_name', 'updated_at'],
      email: ['email', 'email_verified'],
      phone: ['phone_number'],
      address: ['address'],
    };
    fc.assert(
      fc.property(fc.constantFrom(...(Object.keys(scopes) as (keyof typeof scopes)[])), fc.nat(), (scope, pick) => {
        const claim = scopes[scope][pick % scopes[scope].length]!;
        const transaction = { scope: ['openid', scope], claims: [] };
        expect(lacksRequestedClaims(transaction, token({ sub: 'p', [claim]: 'x' }))).toBe(false);
        expect(lacksRequestedClaims(transaction, token({ sub: 'p', 'acmeidentity.name': 'x' }))).toBe(true);
      }),
    );
    // openid and scopes OpenID Connect gives no claims ask for none.
    expect(lacksRequestedClaims({ scope: ['openid', 'offline_access'], claims: [] }, token({ sub: 'p' }))).toBe(false);
  });

  test('a transaction from a session store without the lists, or with lists holding anything, asks only for the names it holds', () => {
    const standardScopes = ['profile', 'email', 'phone', 'address'];
    const listOf = fc.oneof(
      fc.anything(),
      fc.array(fc.oneof(fc.anything(), fc.constantFrom(...standardScopes, 'openid', '__proto__', 'constructor', 'sub', 'x'))),
    );
    fc.assert(
      fc.property(listOf, listOf, (scope, claims) => {
        const strings = (list: unknown) => (Array.isArray(list) ? list.filter((n): n is string => typeof n === 'string') : []);
        // Against an ID token holding `sub` alone: a standard scope, or a claim other than `sub`, is lacking.
        const expected = strings(scope).some((s) => standardScopes.includes(s)) || strings(claims).some((n) => n !== 'sub');
        expect(lacksRequestedClaims({ scope, claims } as never, token({ sub: 'p' }))).toBe(expected);
      }),
    );
    expect(lacksRequestedClaims({} as never, token({ sub: 'p' }))).toBe(false);
  });
});
