/**
 * How the error classes read what the service sent, rule by rule (#45: the errors mutation group
 * found these rules held by no test): every form of `validation_errors` and how many fields a
 * message names; which class an answer outside the table becomes; what a system error's code is
 * along its `cause` chain; what each class keeps of its cause; and the shape of a hidden property.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import * as sdk from '../../src/index.js';
import { apiErrorFrom, type ApiErrorInit } from '../../src/errors/index.js';
import { IdentityFlowError, InboxError, systemCode } from '../../src/errors/classes.js';
import { ERROR_TABLE } from '../../src/contract/errors.js';

const init = (status: number, body: ApiErrorInit['body']): ApiErrorInit => ({
  status,
  body,
  requestCorrelationId: 'sent-corr',
  headers: new Headers(),
});

const validation = (errors: unknown) =>
  apiErrorFrom(init(400, { code: 'E1001', type: 'VALIDATION_ERROR', details: { validation_errors: errors } })) as sdk.ValidationError;

describe('validation_errors, in each form a service writes', () => {
  test('a list skips what is not an object or names no field, and reads message, msg or error, in that order', () => {
    const error = validation([
      null,
      7,
      'email',
      { message: 'no field' },
      { field: '', message: 'an empty field' },
      { field: 'a', message: 'from message', msg: 'not this', error: 'nor this' },
      { name: 'b', msg: 'from msg', error: 'not this' },
      { path: 'c', error: 'from error' },
      { loc: ['body', 'd'] },
    ]);
    expect(error.fields).toEqual(['a', 'b', 'c', 'body.d']);
    expect(error.validationErrors).toEqual({ a: 'from message', b: 'from msg', c: 'from error', 'body.d': '' });
  });

  test('a map is read as it is; anything else (a string, a number, null) names no field and keeps the general message', () => {
    expect(validation({ email: 'bad', phone: 3 }).validationErrors).toEqual({ email: 'bad', phone: '3' });
    for (const junk of ['email: bad', 42, null, undefined]) {
      const error = validation(junk);
      expect(error.fields).toEqual([]);
      expect(error.message).not.toMatch(/refused (a parameter|parameters):/);
    }
  });

  test('the message names one parameter as such, several as such, and at most ten of them, then how many more', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 25 }), (count) => {
        const names = Array.from({ length: count }, (_, i) => `field_${i}`);
        const error = validation(Object.fromEntries(names.map((name) => [name, 'bad'])));
        expect(error.fields).toEqual(names);
        const [, noun, named, more] =
          /refused (a parameter|parameters): (.*?)(?: and (\d+) more)? \(see validationErrors\)/.exec(error.message) ?? [];
        expect(noun).toBe(count === 1 ? 'a parameter' : 'parameters');
        expect(named?.split(', ')).toEqual(names.slice(0, 10));
        expect(more).toBe(count > 10 ? String(count - 10) : undefined);
      }),
    );
  });
});

describe('which class an answer outside the table becomes', () => {
  test('E1007 or RATE_LIMIT_EXCEEDED is a RateLimitError whatever its status', () => {
    expect(apiErrorFrom(init(400, { code: 'E1007' }))).toBeInstanceOf(sdk.RateLimitError);
    expect(apiErrorFrom(init(503, { type: 'RATE_LIMIT_EXCEEDED', code: 'E9999' }))).toBeInstanceOf(sdk.RateLimitError);
    expect(apiErrorFrom(init(400, { code: 'E9999', type: 'SOMETHING_ELSE' }))).not.toBeInstanceOf(sdk.RateLimitError);
    // Each carries the wait the answer asked for.
    expect(apiErrorFrom(init(503, { type: 'RATE_LIMIT_EXCEEDED' }), 2_000)).toMatchObject({ retryAfterMs: 2_000 });
    expect(apiErrorFrom(init(400, { code: 'E1007' }), 3_000)).toMatchObject({ retryAfterMs: 3_000 });
  });

  test('property: where the code and the type name different classes, the code decides', () => {
    const table = Object.entries(ERROR_TABLE).filter(([code]) => code !== 'E1007');
    fc.assert(
      fc.property(
        fc.constantFrom(...table),
        fc.constantFrom(...table),
        fc.constantFrom(400, 401, 403, 404, 409, 422, 500, 503),
        ([code], [, { type }], status) => {
          const byCode = apiErrorFrom(init(status, { code }));
          const both = apiErrorFrom(init(status, { code, type }));
          expect(both.constructor).toBe(byCode.constructor);
        },
      ),
    );
  });

  test('property: a code or a type written in any case is the same code or type (e2002, validation_error), whatever the status', () => {
    const table = Object.entries(ERROR_TABLE);
    const anyCase = (text: string) =>
      fc
        .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
        .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(''));
    fc.assert(
      fc.property(
        fc
          .constantFrom(...table)
          .chain(([code, { type, status }]) =>
            fc.tuple(fc.constant({ code, type, status }), anyCase(code), anyCase(type), fc.constantFrom(status, 400, 500)),
          ),
        ([spec, code, type, status]) => {
          const expected = apiErrorFrom(init(status, { code: spec.code, type: spec.type }));
          expect(apiErrorFrom(init(status, { code })).constructor, code).toBe(apiErrorFrom(init(status, { code: spec.code })).constructor);
          expect(apiErrorFrom(init(status, { type })).constructor, type).toBe(apiErrorFrom(init(status, { type: spec.type })).constructor);
          expect(apiErrorFrom(init(status, { code, type })).constructor).toBe(expected.constructor);
          // As sent: the error keeps the service's words.
          expect(apiErrorFrom(init(status, { code })).serviceCode).toBe(code);
        },
      ),
    );
    // A lower-case validation error keeps its fields.
    const lower = apiErrorFrom(init(400, { code: 'e1001', type: 'validation_error', details: { validation_errors: { email: 'bad' } } }));
    expect(lower).toBeInstanceOf(sdk.ValidationError);
    expect((lower as sdk.ValidationError).fields).toEqual(['email']);
  });

  test('a code or a type that is not text names nothing: the status decides', () => {
    for (const body of [{ code: 2002 }, { type: ['INTERNAL_ERROR'] }, { code: null, type: {} }]) {
      expect(apiErrorFrom(init(500, body as never)).constructor, JSON.stringify(body)).toBe(sdk.InternalServerError);
    }
  });

  test('a 412 with no known code is CredentialVerificationFailedError only from a credential endpoint', () => {
    const body = { code: 'E9999', type: 'SOMETHING_NEW' };
    expect(apiErrorFrom(init(412, body), undefined, { credential: true })).toBeInstanceOf(sdk.CredentialVerificationFailedError);
    expect(apiErrorFrom(init(412, body))).not.toBeInstanceOf(sdk.CredentialVerificationFailedError);
    expect(apiErrorFrom(init(412, body))).toBeInstanceOf(sdk.PreconditionFailedError);
    expect(apiErrorFrom(init(400, body), undefined, { credential: true })).not.toBeInstanceOf(sdk.CredentialVerificationFailedError);
  });

  test('an unknown 5xx is an InternalServerError; an unknown 4xx is a plain ApiError', () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 599 }), (status) => {
        const error = apiErrorFrom(init(status, { code: 'E9999', type: 'SOMETHING_NEW' }));
        expect(error).toBeInstanceOf(sdk.ApiError);
        const known = [400, 401, 403, 404, 409, 410, 412, 413, 422, 429, 500, 502, 503].includes(status);
        if (!known) expect(error instanceof sdk.InternalServerError).toBe(status >= 500);
      }),
    );
  });
});

describe("a system error's code along the cause chain", () => {
  const chain = (depth: number, code: unknown): unknown => {
    let error: unknown = { code };
    for (let i = 0; i < depth; i++) error = { message: 'wrapped', cause: error };
    return error;
  };

  test('found up to three causes deep, not four', () => {
    for (const depth of [0, 1, 2, 3]) expect(systemCode(chain(depth, 'ECONNRESET'))).toBe('ECONNRESET');
    expect(systemCode(chain(4, 'ECONNRESET'))).toBeUndefined();
  });

  test('a code is capitals, digits and _ from start to end, 2 to 41 characters; anything else is none', () => {
    for (const code of ['UND_ERR_SOCKET', 'E2', `E${'X'.repeat(40)}`]) expect(systemCode({ code })).toBe(code);
    for (const code of ['E', `E${'X'.repeat(41)}`, 'xECONNRESET', 'ECONNRESET x', 'econnreset', 42, null]) {
      expect(systemCode({ code })).toBeUndefined();
    }
    expect(systemCode({ code: 'lower', cause: { code: 'EPIPE' } })).toBe('EPIPE');
    expect(systemCode({ cause: null })).toBeUndefined();
    expect(systemCode(null)).toBeUndefined();
    expect(systemCode('ECONNRESET')).toBeUndefined();
  });
});

describe('what each error keeps of its cause', () => {
  const cause = new Error('underneath');

  test('a connection failure, an abort and an identity flow failure keep theirs', () => {
    expect(new sdk.ConnectionError('corr', cause).cause).toBe(cause);
    expect(new sdk.AbortError('corr', cause).cause).toBe(cause);
    expect(new IdentityFlowError('fetch', 'failed', cause).cause).toBe(cause);
  });

  test('a cause is kept out of what serialisers walk: it may be a library error that quotes a token', () => {
    const quoting = new Error('request failed with Authorization: Bearer eyJ.secret.token');
    for (const error of [
      new sdk.ConnectionError('corr', quoting),
      new sdk.AbortError('corr', quoting),
      new IdentityFlowError('fetch', 'failed', quoting),
      new InboxError('ERR_INBOX_RETRIES_EXHAUSTED', 'arc_1', 'every attempt failed', quoting),
    ]) {
      expect(Object.getOwnPropertyDescriptor(error, 'cause')).toMatchObject({ value: quoting, enumerable: false });
      expect(Object.keys(error)).not.toContain('cause');
      expect(JSON.stringify(error)).not.toContain('eyJ.secret.token');
    }
  });

  test('an inbox error has a cause only when it was given one', () => {
    expect(new InboxError('ERR_INBOX_RETRIES_EXHAUSTED', 'arc_1', 'every attempt failed', cause).cause).toBe(cause);
    expect('cause' in new InboxError('ERR_INBOX_RETRIES_EXHAUSTED', 'arc_1', 'every attempt failed')).toBe(false);
  });

  test('an answer made into an error without an attempt count counts one attempt', () => {
    expect(apiErrorFrom(init(404, { code: 'E1005', type: 'NOT_FOUND' })).attempts).toBe(1);
    expect(apiErrorFrom({ ...init(404, { code: 'E1005', type: 'NOT_FOUND' }), attempts: 3 }).attempts).toBe(3);
  });

  test('an unreadable answer lists no issues unless given some', () => {
    expect(new sdk.InvalidResponseError(500, 'corr', 'not JSON').issues).toEqual([]);
  });

  test('refused input names its first field and how many more', () => {
    const issue = (field: string) => ({ field, message: 'is wrong' });
    expect(new sdk.InvalidInputError([issue('a')]).message).toBe('a: is wrong');
    expect(new sdk.InvalidInputError([issue('a'), issue('b'), issue('c')]).message).toBe('a: is wrong (and 2 more)');
    expect(new sdk.InvalidInputError([]).message).toBe('(input): invalid');
  });
});

describe('a hidden property', () => {
  test('is read by code, not walked by serialisers, not written, and can be redefined by a caller who redacts', () => {
    const error = validation({ email: 'jane@example.com is taken' });
    const descriptor = Object.getOwnPropertyDescriptor(error, 'validationErrors');
    expect(descriptor).toMatchObject({ enumerable: false, writable: false, configurable: true });
    expect(JSON.stringify(error)).not.toContain('jane@example.com');
    Object.defineProperty(error, 'validationErrors', { value: {} });
    expect(error.validationErrors).toEqual({});
  });

  test("an email failure's redirectUrl is kept only as text", () => {
    const failed = (url: unknown) =>
      apiErrorFrom(init(500, { code: 'E2002', type: 'EMAIL_DELIVERY_FAILED', details: { redirect_url: url } })) as sdk.EmailDeliveryError;
    expect(failed('https://verify.example/x').redirectUrl).toBe('https://verify.example/x');
    for (const junk of [5, { href: 'https://x' }, null]) expect(failed(junk).redirectUrl).toBeUndefined();
  });
});
