/**
 * #26: oauth4webapi's failures are sorted by their codes and causes, never by their messages: each
 * case below carries a message that says nothing, and is still sorted as the real one is.
 */
import { INVALID_RESPONSE, JWT_CLAIM_COMPARISON, JWT_TIMESTAMP_CHECK, OperationProcessingError, PARSE_ERROR } from 'oauth4webapi';
import { describe, expect, test } from 'vitest';
import { OidcError } from '../../src/errors/index.js';
import { mapFailure } from '../../src/oidc/failures.js';

/** An ID token's claims as the SDK's sign-in receives them: it always sends a nonce, so one is always required. */
const good = { aud: 'c', exp: 2e9, iat: 1e9, iss: 'https://i.example', sub: 'p', nonce: 'n' };
const failure = (code: string, cause: unknown) => new OperationProcessingError('reworded', { code, cause });

describe('mapFailure', () => {
  test.each([
    ['an expired ID token', failure(JWT_TIMESTAMP_CHECK, { claim: 'exp', claims: good }), 'ERR_OIDC_ID_TOKEN_EXPIRED', 'exp'],
    ['an ID token not yet valid', failure(JWT_TIMESTAMP_CHECK, { claim: 'nbf', claims: good }), 'ERR_OIDC_ID_TOKEN', 'nbf'],
    ['a nonce that differs', failure(JWT_CLAIM_COMPARISON, { claim: 'nonce', claims: good }), 'ERR_OIDC_NONCE', 'nonce'],
    ['an audience that differs', failure(JWT_CLAIM_COMPARISON, { claim: 'aud', claims: good }), 'ERR_OIDC_ID_TOKEN', 'aud'],
    ['an alg not allowed', failure(INVALID_RESPONSE, { header: { alg: 'HS256' } }), 'ERR_OIDC_ID_TOKEN_SIGNATURE', undefined],
    ['exp of the wrong type', failure(INVALID_RESPONSE, { claims: { ...good, exp: '2000000000' } }), 'ERR_OIDC_ID_TOKEN', 'exp'],
    ['aud of the wrong type', failure(INVALID_RESPONSE, { claims: { ...good, aud: 7 } }), 'ERR_OIDC_ID_TOKEN', 'aud'],
    ['nbf of the wrong type', failure(INVALID_RESPONSE, { claims: { ...good, nbf: '1000000000' } }), 'ERR_OIDC_ID_TOKEN', 'nbf'],
    ['a list as aud', failure(INVALID_RESPONSE, { claims: { ...good, aud: ['c'], sub: undefined } }), 'ERR_OIDC_ID_TOKEN', 'sub'],
    ['no sub', failure(INVALID_RESPONSE, { claims: { ...good, sub: undefined } }), 'ERR_OIDC_ID_TOKEN', 'sub'],
    // #46: oauth4webapi names a missing claim only in its message; a missing nonce is the nonce check's failure.
    ['no nonce', failure(INVALID_RESPONSE, { claims: { ...good, nonce: undefined } }), 'ERR_OIDC_NONCE', 'nonce'],
    ['no auth_time where max_age asks for one', failure(INVALID_RESPONSE, { claims: good }), 'ERR_OIDC_ID_TOKEN', 'auth_time'],
    [
      'a token response without id_token',
      failure(INVALID_RESPONSE, { body: { access_token: 'a', token_type: 'Bearer' } }),
      'ERR_OIDC_ID_TOKEN',
      undefined,
    ],
    ['a token response without access_token', failure(INVALID_RESPONSE, { body: { token_type: 'Bearer' } }), 'ERR_OIDC_TOKEN', undefined],
    ['an unreadable JWT', failure(PARSE_ERROR, new SyntaxError('x')), 'ERR_OIDC_TOKEN', undefined],
    // nbf is a number like exp and iat: a numeric nbf is not the fault, the string aud after it is.
    [
      'aud of the wrong type after a numeric nbf',
      failure(INVALID_RESPONSE, { claims: { ...good, nbf: 1e9, aud: 7 } }),
      'ERR_OIDC_ID_TOKEN',
      'aud',
    ],
    // A list is an aud only: as iss (or sub) it is the fault.
    ['a list as iss', failure(INVALID_RESPONSE, { claims: { ...good, iss: ['https://i.example'] } }), 'ERR_OIDC_ID_TOKEN', 'iss'],
    // Another code's cause is not read: a header in it does not make a signature refusal.
    ['a parse error whose cause has a header', failure(PARSE_ERROR, { header: { alg: 'HS256' } }), 'ERR_OIDC_TOKEN', undefined],
  ])('%s', (name, error, code, claim) => {
    const mapped = mapFailure(error, 'ERR_OIDC_TOKEN');
    expect(mapped).toBeInstanceOf(OidcError);
    expect(mapped.code).toBe(code);
    expect(mapped.claim).toBe(claim);
    // The cause (which holds the claims or the token response) is never attached.
    expect(mapped.cause).toBeUndefined();
    // Only a nonce left out says what to set (a service that ignores it); one that differs is no setting's to fix.
    expect(mapped.message.includes('nonce: false'), mapped.message).toBe(name === 'no nonce');
  });

  test('an error that is not oauth4webapi’s (a network failure) keeps its cause; an OidcError passes through', () => {
    const network = new TypeError('fetch failed');
    expect(mapFailure(network, 'ERR_OIDC_DISCOVERY')).toMatchObject({ code: 'ERR_OIDC_DISCOVERY', cause: network });
    // Its message says what failed (it carries no secret), and so does anything thrown that is no Error.
    expect(mapFailure(network, 'ERR_OIDC_DISCOVERY').message).toContain('fetch failed');
    expect(mapFailure('a string', 'ERR_OIDC_TOKEN')).toMatchObject({ code: 'ERR_OIDC_TOKEN', message: expect.stringContaining('failed') });
    const own = new OidcError('ERR_OIDC_STATE', 'x');
    expect(mapFailure(own, 'ERR_OIDC_TOKEN')).toBe(own);
  });
});
