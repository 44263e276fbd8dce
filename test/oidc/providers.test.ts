/**
 * What the sign-in integrations share (`src/oidc/providers.ts`), on its own: the user a framework
 * keeps, decoded from an ID token's claims; the parameters as the SDK sends them; the startup check.
 * The integrations' own tests sign in through Chromium; these pin each rule without a browser.
 */
import { describe, expect, test } from 'vitest';
import { InvalidInputError } from '../../src/errors/index.js';
import { acmeIdentityProfile, authorizationParams, checkSignIn, scopeList } from '../../src/oidc/providers.js';
import { DEFAULT_OIDC_CLIENT } from '../../src/testing/index.js';
import { oidcSetup } from './setup.js';

describe('acmeIdentityProfile: the user a framework keeps', () => {
  test('every claim but the standard ones is kept, decoded; one the decoder cannot read is kept as sent', () => {
    const user = acmeIdentityProfile({
      iss: 'https://auth.acme.test',
      sub: 'person-1',
      aud: 'client',
      exp: 1,
      iat: 1,
      nbf: 1,
      auth_time: 1,
      nonce: 'n',
      acr: 'a',
      amr: ['pwd'],
      azp: 'client',
      at_hash: 'h',
      c_hash: 'h',
      sid: 's',
      jti: 'j',
      'sanctionscheck.is_pep': 'Yes',
      'sanctionscheck.is_sanctioned': 'perhaps',
      given_name: 'Jane',
    });
    expect(user.acme).toEqual({ 'sanctionscheck.is_pep': true, 'sanctionscheck.is_sanctioned': 'perhaps', given_name: 'Jane' });
    expect(user.id).toBe('person-1');
    expect(user.image).toBeNull();
  });

  test("the name: the service's name claim first, else given_name and family_name, part by part; empty parts skipped; none is null", () => {
    const name = (profile: Record<string, unknown>) => acmeIdentityProfile({ sub: 'p', ...profile }).name;
    expect(name({ 'acmeidentity.name': '{"first_name":"Jane","last_name":"Citizen"}', given_name: 'J', family_name: 'C' })).toBe(
      'Jane Citizen',
    );
    expect(name({ given_name: 'Jane', family_name: 'Citizen' })).toBe('Jane Citizen');
    expect(name({ 'acmeidentity.name': { first_name: 'Jane', last_name: '' }, family_name: 'Citizen' })).toBe('Jane Citizen');
    expect(name({ 'acmeidentity.name': { first_name: 'Jane' } })).toBe('Jane');
    expect(name({ given_name: 7, family_name: 'Citizen' })).toBe('Citizen');
    expect(name({ given_name: 'Jane', family_name: 7 })).toBe('Jane');
    expect(name({ 'acmeidentity.name': { first_name: 7, last_name: 'Citizen' }, given_name: 'Jane' })).toBe('Jane Citizen');
    expect(name({ 'acmeidentity.name': 'not JSON' })).toBeNull();
    expect(name({})).toBeNull();
  });

  test('email only when it is a string; the id is the subject as a string', () => {
    expect(acmeIdentityProfile({ sub: 'p', email: 'jane@example.com' }).email).toBe('jane@example.com');
    expect(acmeIdentityProfile({ sub: 'p', email: 7 }).email).toBeNull();
    expect(acmeIdentityProfile({ sub: 42 }).id).toBe('42');
  });

  test('a claim named __proto__ is kept as a claim, never made the prototype the other claims are read through', () => {
    // JSON.parse makes "__proto__" an own key, as an ID token's or userinfo's claims arrive.
    const profile = JSON.parse('{"sub":"p","__proto__":{"acmeidentity.name":{"first_name":"Eve"},"x":1},"given_name":"Jane"}');
    const user = acmeIdentityProfile(profile);
    expect(user.name).toBe('Jane');
    expect(Object.getPrototypeOf(user.acme)).toBe(Object.prototype);
    expect(Object.hasOwn(user.acme, '__proto__')).toBe(true);
    expect(Object.keys(user.acme)).toEqual(['__proto__', 'given_name']);
    expect((user.acme as Record<string, unknown>)['x']).toBeUndefined();
  });

  test('a profile without a subject is refused, naming profile.sub: never one user "undefined" for every such profile', () => {
    for (const sub of [undefined, null, '', Number.NaN, {}, ['p']]) {
      expect(() => acmeIdentityProfile({ sub, email: 'jane@example.com' } as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_INPUT', issues: [expect.objectContaining({ field: 'profile.sub' })] }),
      );
    }
    expect(() => acmeIdentityProfile({ email: 'jane@example.com' } as never)).toThrow(InvalidInputError);
  });

  test('a profile that is not an object is a typed input error naming it', () => {
    for (const profile of [null, undefined, 'claims', 7]) {
      expect(() => acmeIdentityProfile(profile as never)).toThrow(InvalidInputError);
      expect(() => acmeIdentityProfile(profile as never)).toThrow(
        expect.objectContaining({ issues: [expect.objectContaining({ field: 'profile' })] }),
      );
    }
  });
});

describe('the parameters, as the SDK sends them', () => {
  test("scopeList: ['openid'] when absent, a string split on spaces, a list copied", () => {
    expect(scopeList({})).toEqual(['openid']);
    expect(scopeList({ scope: 'openid profile' })).toEqual(['openid', 'profile']);
    const scope = ['openid', 'email'] as const;
    const listed = scopeList({ scope });
    expect(listed).toEqual(['openid', 'email']);
    expect(listed).not.toBe(scope);
  });

  test('each option under its OpenID Connect name; lists space-separated; the country code as text; absent ones not sent', () => {
    const claims = { acme: ['acmeidentity.given_name'] } as const;
    expect(
      authorizationParams({
        scope: ['openid', 'profile'],
        claims,
        ruleset: 'r',
        aobo: 'uid',
        email: 'jane@example.com',
        phone: '400000000',
        phoneCountryCode: 61,
        prompt: 'login',
        uiLocales: ['fr-CA', 'fr'],
        acrValues: 'urn:acme:loa:2',
      }),
    ).toEqual({
      scope: 'openid profile',
      claims,
      ruleset: 'r',
      aobo: 'uid',
      email: 'jane@example.com',
      phone: '400000000',
      phone_country_code: '61',
      prompt: 'login',
      ui_locales: 'fr-CA fr',
      acr_values: 'urn:acme:loa:2',
    });
    // Absent options are not sent at all (not sent as undefined).
    expect(Object.keys(authorizationParams({}))).toEqual(['scope']);
    expect(authorizationParams({ uiLocales: 'en', acrValues: ['a', 'b'] })).toEqual({
      scope: 'openid',
      ui_locales: 'en',
      acr_values: 'a b',
    });
  });
});

describe('checkSignIn: the startup check against the live service', () => {
  test('what the service takes passes; what it would refuse is an InvalidInputError naming the parameter', async () => {
    const { service } = await oidcSetup();
    const { clientId } = DEFAULT_OIDC_CLIENT;
    await expect(checkSignIn(service.authUrl, clientId, { claims: { acme: ['acmeidentity.given_name'] } })).resolves.toBeUndefined();
    await expect(checkSignIn(service.authUrl, clientId, undefined)).resolves.toBeUndefined();
    const refused = checkSignIn(service.authUrl, clientId, {
      scope: ['profile'],
      claims: { acme: { 'document.passport.travel_document_number': { essential: true } } },
    });
    await expect(refused).rejects.toBeInstanceOf(InvalidInputError);
    await expect(refused).rejects.toMatchObject({
      issues: expect.arrayContaining([
        expect.objectContaining({ field: 'scope' }),
        expect.objectContaining({ field: expect.stringContaining('document.passport.travel_document_number') }),
      ]),
    });
  });
});
