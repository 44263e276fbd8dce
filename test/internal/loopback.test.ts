/**
 * Where plain http: is allowed (internal/loopback.ts): one rule for the client, the sign-in and the
 * SD-JWT key source. Properties over generated hosts and URLs.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isFetchableUrl, isLoopbackHost } from '../../src/internal/loopback.js';

/** Every case spelling of `text`, one per generated mask. */
const anyCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

describe('isLoopbackHost', () => {
  test('property: localhost, [::1] and every 127.x.y.z are loopback; a public name or address, or one that only starts or ends like them, is not', () => {
    fc.assert(
      fc.property(fc.nat(255), fc.nat(255), fc.nat(255), fc.domain(), (a, b, c, domain) => {
        expect(isLoopbackHost(`127.${a}.${b}.${c}`)).toBe(true);
        expect(isLoopbackHost(`127.${a}.${b}.${c}.${domain}`)).toBe(false);
        expect(isLoopbackHost(`128.${a}.${b}.${c}`)).toBe(false);
        expect(isLoopbackHost(`1127.${a}.${b}.${c}`)).toBe(false);
        expect(isLoopbackHost(`127..${b}.${c}`)).toBe(false);
        expect(isLoopbackHost(`${domain}.127.${a}.${b}.${c}`)).toBe(false);
        expect(isLoopbackHost(`localhost.${domain}`)).toBe(false);
        expect(isLoopbackHost(`${domain}.localhost`)).toBe(false);
        expect(isLoopbackHost(domain)).toBe(domain === 'localhost');
      }),
    );
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('[::2]')).toBe(false);
  });
});

describe('isFetchableUrl', () => {
  test('property: https: in any case is fetchable; http: in any case only where plain http is allowed; any other scheme never', () => {
    fc.assert(
      fc.property(anyCase('https'), anyCase('http'), fc.webUrl(), fc.boolean(), (https, http, url, insecure) => {
        const rest = url.slice(url.indexOf(':'));
        expect(isFetchableUrl(`${https}${rest}`, insecure)).toBe(true);
        expect(isFetchableUrl(`${http}${rest}`, insecure)).toBe(insecure);
        for (const scheme of ['javascript', 'data', 'file', 'httpsx', 'ws', 'wss', ` ${https}`]) {
          expect(isFetchableUrl(`${scheme}${rest}`, insecure)).toBe(false);
        }
        // The scheme is what the URL starts with: one that only holds an https: or http: further on is another scheme.
        for (const held of [https, http]) {
          for (const scheme of ['javascript:', 'data:text/plain,', 'x-', 'web+'])
            expect(isFetchableUrl(`${scheme}${held}${rest}`, insecure)).toBe(false);
        }
      }),
    );
    for (const notUrl of [undefined, null, 1, ['https://a.example'], new URL('https://a.example')]) {
      expect(isFetchableUrl(notUrl, true)).toBe(false);
    }
  });
});
