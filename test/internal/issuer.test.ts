/**
 * sameIssuer(): the one rule by which an `iss` claim, and a discovery document's `issuer`, name
 * the issuer the caller expects. An issuer identifier is compared as a string (OpenID Connect
 * Discovery §4.3, RFC 8414 §3.3), with one allowance: a single trailing slash, which a URL's `href`
 * adds to a bare origin. Properties over generated identifiers: equal, equal but for one slash,
 * and everything near them (another case, more slashes, a longer or shorter path) refused.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { sameIssuer } from '../../src/internal/issuer.js';

/** Issuer-like identifiers: an https origin with a path whose segments mix cases. */
const identifier = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}\.example$/), fc.array(fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/), { maxLength: 3 }))
  .map(([host, path]) => `https://${host}${path.map((segment) => `/${segment}`).join('')}`);

describe('sameIssuer', () => {
  test('property: the same identifier, with or without one trailing slash on either side, is the same issuer', () => {
    fc.assert(
      fc.property(identifier, fc.boolean(), fc.boolean(), (issuer, slashActual, slashExpected) => {
        expect(sameIssuer(slashActual ? `${issuer}/` : issuer, slashExpected ? `${issuer}/` : issuer)).toBe(true);
      }),
    );
  });

  test('property: any other string is another issuer (a case changed, two slashes, a path longer or shorter)', () => {
    fc.assert(
      fc.property(identifier, fc.string({ minLength: 1, maxLength: 6 }), (issuer, extra) => {
        const upper = issuer.toUpperCase();
        if (upper !== issuer) expect(sameIssuer(upper, issuer)).toBe(false);
        const lower = issuer.toLowerCase();
        if (lower !== issuer) expect(sameIssuer(issuer, lower)).toBe(false);
        expect(sameIssuer(`${issuer}//`, issuer)).toBe(false);
        expect(sameIssuer(issuer, `${issuer}//`)).toBe(false);
        if (extra !== '/') {
          expect(sameIssuer(`${issuer}${extra}`, issuer)).toBe(false);
          expect(sameIssuer(issuer, `${issuer}${extra}`)).toBe(false);
        }
      }),
    );
  });

  test('property: it is symmetric, and agrees with string equality once one trailing slash is dropped from each', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        const drop = (text: string) => (text.endsWith('/') ? text.slice(0, -1) : text);
        expect(sameIssuer(a, b)).toBe(drop(a) === drop(b));
        expect(sameIssuer(b, a)).toBe(sameIssuer(a, b));
      }),
    );
  });

  test('a claim that is not a string names no issuer', () => {
    for (const actual of [undefined, null, 1, ['https://auth.example'], { href: 'https://auth.example' }]) {
      expect(sameIssuer(actual, 'https://auth.example')).toBe(false);
    }
  });
});
