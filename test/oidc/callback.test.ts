/**
 * The callback's checks (`checkCallback` in src/oidc/flow.ts) held to oauth4webapi's
 * `validateAuthResponse`, whose verdicts they copy to spare the sign-in page its bytes: the same
 * callbacks accepted and refused, over every mix of the parameters either reads (each absent,
 * empty, right, nearly right, wrong or sent twice), and over every accepted callback with one
 * parameter changed (a mix of all of them is rarely accepted), with discovery promising `iss` or
 * not. Then the code each refusal carries.
 */
import fc from 'fast-check';
import { AuthorizationResponseError, validateAuthResponse, type AuthorizationServer } from 'oauth4webapi';
import { describe, expect, test } from 'vitest';
import { OidcError } from '../../src/errors/index.js';
import { checkCallback } from '../../src/oidc/flow.js';

const ISSUER = 'https://auth.acme.test';
const STATE = 'state-of-the-sign-in';
const server = (issSupported: boolean): AuthorizationServer => ({
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/oauth/oidc/authorize`,
  ...(issSupported ? { authorization_response_iss_parameter_supported: true } : {}),
});

/**
 * What a parameter is sent as: the values, in order (none, one, or two). A near miss too: the right
 * value with a character more or one less, or in another case, which only an exact comparison refuses.
 */
const values = (right: string) =>
  fc.constantFrom<string[]>(
    [],
    [''],
    [right],
    ['wrong'],
    [right, right],
    [right, 'wrong'],
    // Sent twice with the first empty: a check reading only the first value would see it absent.
    ['', right],
    [`${right}x`],
    [right.slice(0, -1)],
    [right.toUpperCase()],
  );

const parameters = {
  code: fc.constantFrom<string[]>(['the-code'], [], ['']),
  iss: values(ISSUER),
  state: values(STATE),
  error: values('access_denied'),
  error_description: fc.constantFrom<string[]>([], ['the person said no']),
  response: values('eyJ.jarm.x'),
  id_token: values('eyJ.id.x'),
  token: values('opaque'),
};
type Parameters = { [name in keyof typeof parameters]: string[] };

/** A callback both checks accept, and one parameter of it changed to any form it can take. */
const ACCEPTED: Parameters = {
  code: ['the-code'],
  iss: [ISSUER],
  state: [STATE],
  error: [],
  error_description: [],
  response: [],
  id_token: [],
  token: [],
};
const nearlyAccepted = fc
  .constantFrom(...(Object.keys(parameters) as (keyof Parameters)[]))
  .chain((name) => parameters[name].map((sent): Parameters => ({ ...ACCEPTED, [name]: sent })));

const callbacks = fc.oneof(fc.record(parameters), nearlyAccepted).chain((sent) =>
  // The order parameters arrive in does not change a verdict.
  fc.shuffledSubarray(Object.keys(sent), { minLength: Object.keys(sent).length }).map((order) => {
    const params = new URLSearchParams();
    for (const name of order) for (const value of sent[name as keyof Parameters]) params.append(name, value);
    return params;
  }),
);

const verdict = (run: () => unknown): 'accepted' | unknown => {
  try {
    run();
    return 'accepted';
  } catch (error) {
    return error;
  }
};

describe("the callback's checks: oauth4webapi's verdicts, with a code per refusal", () => {
  test('every callback is accepted or refused as validateAuthResponse does (with a code, as its token request needs)', () => {
    fc.assert(
      fc.property(callbacks, fc.boolean(), (params, issSupported) => {
        const as = server(issSupported);
        const theirs = verdict(() => validateAuthResponse(as, { client_id: 'c' }, params, STATE));
        const ours = verdict(() => checkCallback(as, params, STATE));
        // The token request reads `code` once (oauth4webapi's authorizationCodeGrantRequest refuses
        // it twice or missing); checkCallback asks for it before the exchange.
        const codes = params.getAll('code');
        const expected = theirs === 'accepted' && codes.length === 1 && codes[0] !== '' ? 'accepted' : 'refused';
        expect(ours === 'accepted' ? 'accepted' : 'refused', String(params)).toBe(expected);
        if (ours !== 'accepted') expect(ours).toBeInstanceOf(OidcError);
        // An error the service sent is reported as one exactly where oauth4webapi reports it.
        if (theirs instanceof AuthorizationResponseError) {
          expect((ours as OidcError).code).toBe('ERR_OIDC_AUTHORIZATION');
          expect((ours as OidcError).error).toBe(params.get('error'));
        }
      }),
      { numRuns: 3000 },
    );
  });

  test.each([
    ['a JARM response', `response=x&iss=${ISSUER}&state=${STATE}&code=c`, 'ERR_OIDC_RESPONSE'],
    ['an iss of another issuer', `iss=https://evil.test&state=${STATE}&code=c`, 'ERR_OIDC_ISSUER'],
    // RFC 9207 compares the whole identifier: one that begins or extends the issuer's is another issuer.
    ['an iss that is the start of the issuer', `iss=${ISSUER.slice(0, -1)}&state=${STATE}&code=c`, 'ERR_OIDC_ISSUER'],
    ['an iss that extends the issuer', `iss=${ISSUER}.evil.test&state=${STATE}&code=c`, 'ERR_OIDC_ISSUER'],
    ['iss sent twice', `iss=${ISSUER}&iss=${ISSUER}&state=${STATE}&code=c`, 'ERR_OIDC_ISSUER'],
    ['no iss where discovery promises it', `state=${STATE}&code=c`, 'ERR_OIDC_ISSUER'],
    ['another state', `iss=${ISSUER}&state=other&code=c`, 'ERR_OIDC_STATE'],
    // The state is compared whole, as a CSRF value must be: one it begins or extends is another.
    ['a state that extends the sign-in’s', `iss=${ISSUER}&state=${STATE}x&code=c`, 'ERR_OIDC_STATE'],
    ['a state that is the start of the sign-in’s', `iss=${ISSUER}&state=${STATE.slice(0, -1)}&code=c`, 'ERR_OIDC_STATE'],
    ['state sent twice', `iss=${ISSUER}&state=${STATE}&state=${STATE}&code=c`, 'ERR_OIDC_STATE'],
    ['no state', `iss=${ISSUER}&code=c`, 'ERR_OIDC_STATE'],
    ['an error with another state: the state is what fails', `iss=${ISSUER}&state=other&error=access_denied`, 'ERR_OIDC_STATE'],
    ['an error the service sent', `iss=${ISSUER}&state=${STATE}&error=access_denied`, 'ERR_OIDC_AUTHORIZATION'],
    ['an ID token in the callback (hybrid)', `iss=${ISSUER}&state=${STATE}&code=c&id_token=x`, 'ERR_OIDC_RESPONSE'],
    ['an empty token in the callback (implicit)', `iss=${ISSUER}&state=${STATE}&code=c&token=`, 'ERR_OIDC_RESPONSE'],
    ['no code', `iss=${ISSUER}&state=${STATE}`, 'ERR_OIDC_RESPONSE'],
    ['code sent twice', `iss=${ISSUER}&state=${STATE}&code=c&code=c`, 'ERR_OIDC_RESPONSE'],
    ['a JARM response sent twice, the first empty', `response=&response=x&iss=${ISSUER}&state=${STATE}&code=c`, 'ERR_OIDC_RESPONSE'],
  ])('%s is refused as %s', (_name, query, code) => {
    const error = verdict(() => checkCallback(server(true), new URLSearchParams(query), STATE));
    expect(error).toBeInstanceOf(OidcError);
    expect((error as OidcError).code).toBe(code);
  });

  test("an error's description is kept; an empty iss is missing, accepted where discovery does not promise one", () => {
    const error = verdict(() =>
      checkCallback(server(false), new URLSearchParams(`state=${STATE}&error=access_denied&error_description=said+no`), STATE),
    ) as OidcError;
    expect(error.message).toBe('access_denied: said no');
    expect(error.errorDescription).toBe('said no');
    expect(verdict(() => checkCallback(server(false), new URLSearchParams(`iss=&state=${STATE}&code=c`), STATE))).toBe('accepted');
    expect((verdict(() => checkCallback(server(true), new URLSearchParams(`iss=&state=${STATE}&code=c`), STATE)) as OidcError).code).toBe(
      'ERR_OIDC_ISSUER',
    );
  });

  test('property: an error and description a link carries (anyone can write one) reach the message on one line, cut; the fields keep them as sent', () => {
    const unprintable = fc.constantFrom('\n', '\r', '\u0000', '\u001b', '\u0085', '\u2028', '\u2029');
    const text = fc
      .array(fc.oneof(fc.string({ maxLength: 40 }), unprintable), { minLength: 1, maxLength: 20 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text.filter(Boolean), text, (error, description) => {
        const query = new URLSearchParams({ state: STATE, error, error_description: description });
        const refused = verdict(() => checkCallback(server(false), query, STATE)) as OidcError;
        expect(refused.code).toBe('ERR_OIDC_AUTHORIZATION');
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the message must not hold
        expect(refused.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
        expect(refused.message.length).toBeLessThanOrEqual(64 + 1 + 2 + 256 + 1);
        expect(refused.error).toBe(error);
        if (description) expect(refused.errorDescription).toBe(description);
      }),
    );
  });
});
