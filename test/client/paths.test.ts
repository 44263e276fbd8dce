import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { pathSerializer } from '../../src/client/paths.js';

const encoded = pathSerializer(encodeURIComponent);

describe('path serializer', () => {
  test('fills each {name} with its value, percent-encoded', () => {
    const url = 'https://acme.test/api/v1/identity/request/{access_request_code}/{identity_session_code}';
    expect(encoded(url, { access_request_code: 'a/b c', identity_session_code: 'x?y#z' })).toBe(
      'https://acme.test/api/v1/identity/request/a%2Fb%20c/x%3Fy%23z',
    );
  });

  test('a parameter not given (undefined or null, as openapi-fetch reads them) keeps its {name}; a template without parameters is returned as is', () => {
    expect(encoded('/a/{one}/b/{two}', { one: 1 })).toBe('/a/1/b/{two}');
    expect(encoded('/a/{one}/b/{two}', { one: null, two: undefined })).toBe('/a/{one}/b/{two}');
    expect(encoded('/status/health', {})).toBe('/status/health');
  });

  test('values are never read as replacement patterns or templates', () => {
    const verbatim = pathSerializer((value) => value);
    expect(verbatim('/credentials/verify/{credential_ref}', { credential_ref: "$&$'$`$1{x}" })).toBe("/credentials/verify/$&$'$`$1{x}");
  });

  test('the same template gives the same answer on every call (it is split once)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const url = '/p/{a}/q/{b}/r';
        const expected = `/p/${encodeURIComponent(a)}/q/${encodeURIComponent(b)}/r`;
        expect(encoded(url, { a, b })).toBe(expected);
        expect(encoded(url, { a, b })).toBe(expected);
      }),
    );
  });
});
