/**
 * A successful status whose envelope says the call failed (`{success: false, …}`, JSend's
 * `{status: 'fail' | 'error', …}`) is the error it carries, never a success opened from its `data`:
 * a DELETE answered `{success: false, data: {message: 'not found'}}` deleted nothing. Properties
 * over generated operations, failure forms, error placements and codes.
 */
import fc from 'fast-check';
import { http, HttpResponse } from 'msw';
import { describe, expect, test } from 'vitest';
import {
  ApiError,
  BadRequestError,
  ConflictError,
  CredentialExpiredError,
  CredentialVerificationFailedError,
  EmailDeliveryError,
  InvalidResponseError,
  NotFoundError,
  PermissionDeniedError,
  ValidationError,
} from '../../src/index.js';
import { ERROR_TABLE } from '../../src/contract/errors.js';
import { credentialInput, harness, person, rejection, server } from '../helpers.js';

/** The spec's type of each code below. */
const TYPES: Record<Code, string> = {
  E1001: 'VALIDATION_ERROR',
  E1002: 'INVALID_REQUEST',
  E1004: 'UNAUTHORIZED',
  E1005: 'NOT_FOUND',
  E1006: 'CONFLICT',
  E1009: 'CREDENTIAL_EXPIRED',
  E1012: 'CREDENTIAL_VERIFICATION_FAILED',
};

/** Codes whose class is not retried or replayed, and the class each names. */
const CODES = {
  E1001: ValidationError,
  E1002: BadRequestError,
  E1004: PermissionDeniedError,
  E1005: NotFoundError,
  E1006: ConflictError,
  E1009: CredentialExpiredError,
  E1012: CredentialVerificationFailedError,
} as const;
type Code = keyof typeof CODES;

/** How an envelope says it failed. */
const failure = fc.constantFrom<Record<string, unknown>>(
  { success: false },
  { ok: false },
  { ok: 'false' },
  { success: 'false' },
  { success: 'No' },
  { success: 0 },
  { status: 'fail' },
  { status: 'error' },
  { status: ' ERROR ' },
);

/** Where the error's code sits: the spec's `error` object, the top level, inside `data`, or nowhere. */
const placement = fc.constantFrom('error', 'top', 'data', 'none');

function failedBody(said: Record<string, unknown>, where: string, code: Code): Record<string, unknown> {
  const error = { code, type: 'SOMETHING', message: 'the call failed' };
  const record = { message: 'not deleted', revoked: true, file_data: 'AA==', status: 'operational', request_code: 'r' };
  switch (where) {
    case 'error':
      return { ...said, error, correlation_id: 'corr-1' };
    case 'top':
      return { ...said, ...error, correlation_id: 'corr-1' };
    case 'data':
      return { ...said, data: { ...record, ...error }, correlation_id: 'corr-1' };
    default:
      return { ...said, data: record, correlation_id: 'corr-1' };
  }
}

/** A client on a fresh fake, a request's codes and a credential's ref, and a call of every operation that reads an answer. */
async function everyOperation() {
  const { client } = await harness();
  const { data } = await client.identityRequests.create(person());
  const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
  const ref = (await client.credentials.submit(credentialInput())).data.credential_ref;
  const operations = {
    create: () => client.identityRequests.create(person()),
    get: () => client.identityRequests.get(codes),
    delete: () => client.identityRequests.delete(codes),
    submit: () => client.credentials.submit(credentialInput()),
    verify: () => client.credentials.verify(ref),
    fileData: () => client.credentials.fileData(ref),
    revoke: () => client.credentials.revoke(ref),
    status: () => client.status.current(),
    health: () => client.status.health(),
  };
  const names = Object.keys(operations) as (keyof typeof operations)[];
  return { client, codes, ref, operations, names };
}

describe('an envelope that says the call failed', () => {
  test('is the error it carries, classed by its code (a plain ApiError without one), for every operation', async () => {
    const { operations, names } = await everyOperation();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        failure,
        placement,
        fc.constantFrom(...(Object.keys(CODES) as Code[])),
        async (operation, said, where, code) => {
          const body = failedBody(said, where, code);
          server.use(http.all(/\/api\/v1\/(identity|credentials|status)\//, () => HttpResponse.json(body)));
          const error = await rejection(operations[operation]());
          expect(error).toBeInstanceOf(ApiError);
          expect(error).toMatchObject({ status: 200 });
          if (where === 'none') expect((error as ApiError).code).toBe('ERR_API');
          else expect(error).toBeInstanceOf(CODES[code]);
        },
      ),
      { numRuns: 80 },
    );
  });

  test("so does an answer that carries an error without a word of failure: the spec's error object, its fields at the top, a list of errors, OAuth's form", async () => {
    const { operations, names } = await everyOperation();
    const record = { message: 'deleted', revoked: true, file_data: 'AA==', status: 'operational', credential_ref: 'c:1/2' };
    /** Each form, and whether it names the code (else a plain ApiError). */
    const forms: Record<string, (code: Code, cased: (text: string) => string) => [Record<string, unknown>, boolean]> = {
      'error object alone': (code, cased) => [
        { error: { code: cased(code), type: TYPES[code], message: 'no' }, correlation_id: 'c' },
        true,
      ],
      'error object beside data': (code, cased) => [{ data: record, error: { code: cased(code) }, correlation_id: 'c' }, true],
      'fields at the top': (code, cased) => [{ code: cased(code), message: 'no', timestamp: '2026-12-01T00:00:00Z' }, true],
      'fields at the top beside an empty data': (code, cased) => [{ code: ` ${cased(code)}`, type: TYPES[code], data: null }, true],
      'a list of errors': (code, cased) => [{ errors: [{ code: cased(code), message: 'no' }], correlation_id: 'c' }, true],
      "OAuth's form": (code, cased) => [{ error: cased(TYPES[code]), error_description: 'no' }, true],
      "OAuth's form without a description": (code, cased) => [{ error: cased(TYPES[code]) }, true],
      'an error flag': () => [{ error: true, data: record }, false],
      'an error text': () => [{ error: 'it broke', data: record }, false],
      "JSend's fail with an empty error": () => [{ status: 'fail', error: null }, false],
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.constantFrom(...Object.keys(forms)),
        fc.constantFrom(...(Object.keys(CODES) as Code[])),
        fc.constantFrom(
          (text: string) => text,
          (text: string) => text.toLowerCase(),
        ),
        async (operation, form, code, cased) => {
          const [body, named] = (forms[form] as (typeof forms)[string])(code, cased);
          server.use(http.all(/\/api\/v1\/(identity|credentials|status)\//, () => HttpResponse.json(body)));
          const error = await rejection(operations[operation]());
          expect(error).toBeInstanceOf(ApiError);
          expect(error).toMatchObject({ status: 200 });
          if (named) expect(error).toBeInstanceOf(CODES[code]);
          else expect((error as ApiError).code).toBe('ERR_API');
        },
      ),
      { numRuns: 120 },
    );
  });

  test("an answer whose error fields say nothing (null, empty, false) or whose code is not of the service's form is opened as before", async () => {
    const { client, codes, ref } = await everyOperation();
    const silent = fc.record(
      {
        error: fc.constantFrom(null, false, 'false', '', ' ', {}, 0),
        errors: fc.constantFrom(null, [], false),
        ok: fc.constantFrom(true, 'true', 1),
        success: fc.constantFrom(true, 'Yes'),
      },
      { requiredKeys: [] },
    );
    // A credential's own code that contains, starts or ends with the service's form is not it.
    const lookalike = fc.constantFrom('NCHC-E2026-0042', 'E20260042', 'REF-E1005', 'e1005x', ' E1005 0');
    await fc.assert(
      fc.asyncProperty(silent, fc.boolean(), lookalike, async (fields, enveloped, code) => {
        const credential = { type: ['VerifiableCredential'], code, issuer: 'https://issuer.example' };
        const answer = (record: Record<string, unknown>) =>
          HttpResponse.json(enveloped ? { ...fields, data: record, correlation_id: 'c' } : { ...fields, ...record });
        server.use(
          http.delete(/\/api\/v1\/identity\/request\//, () => answer({ message: 'deleted' })),
          http.get(/\/api\/v1\/credentials\/verify\//, () => answer(credential)),
        );
        expect((await client.identityRequests.delete(codes)).data).toMatchObject({ message: 'deleted' });
        expect((await client.credentials.verify(ref)).data).toMatchObject(credential);
      }),
      { numRuns: 60 },
    );
  });

  test('with an error status, the code is read from each of those forms too: the code decides the class where the status alone would say less', async () => {
    const { client, codes, ref } = await everyOperation();
    // Each: the operation, the status, the code, the class of the code (the status alone gives another).
    const cases = [
      { call: () => client.identityRequests.get(codes), status: 400, code: 'E1001', Class: ValidationError },
      { call: () => client.credentials.verify(ref), status: 412, code: 'E1009', Class: CredentialExpiredError },
      { call: () => client.identityRequests.create(person()), status: 500, code: 'E2002', Class: EmailDeliveryError },
    ];
    const details = { code: 'isc_1', redirect_url: 'https://journey.example/1' };
    const forms = [
      (code: string) => ({ errors: [{ code, message: 'no', details }] }),
      (code: string) => ({ status: 'fail', data: { code, details } }),
      (code: string) => ({ success: false, data: { code, details } }),
      (code: string) => ({ error: { code, details }, data: null }),
      (code: string) => ({ code, details }),
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...cases), fc.constantFrom(...forms), fc.boolean(), async (item, form, lower) => {
        const body = form(lower ? item.code.toLowerCase() : item.code);
        server.use(http.all(/\/api\/v1\/(identity|credentials)\//, () => HttpResponse.json(body, { status: item.status })));
        const error = await rejection(item.call());
        expect(error).toBeInstanceOf(item.Class);
        expect(error).toMatchObject({ status: item.status });
      }),
      { numRuns: 40 },
    );
  });

  test("its own error object (or code at its top) wins over a code its data carries: the envelope's error is the spec's place", async () => {
    const { client, codes } = await everyOperation();
    const bodies = [
      { success: false, error: { code: 'E1005' }, data: { code: 'E1001' } },
      { status: 'error', code: 'E1005', data: { code: 'E1001', type: 'VALIDATION_ERROR' } },
    ];
    for (const body of bodies) {
      server.use(http.get(/\/api\/v1\/identity\/request\//, () => HttpResponse.json(body)));
      expect(await rejection(client.identityRequests.get(codes))).toBeInstanceOf(NotFoundError);
    }
  });

  test("JSend's words alone, as a record's own status (a health record saying error beside its database), are the record's: its unknown value is named, not read as a failure", async () => {
    const { client } = await everyOperation();
    const word = fc.constantFrom('error', 'fail', ' Error ', 'FAIL');
    const record = fc.record({ timestamp: fc.integer({ min: 1, max: 2_000_000_000 }), database: fc.constantFrom('error', 'connected') });
    await fc.assert(
      fc.asyncProperty(word, record, async (status, fields) => {
        server.use(http.get(/\/api\/v1\/status\/health$/, () => HttpResponse.json({ status, ...fields })));
        const error = await rejection(client.status.health());
        expect(error).toBeInstanceOf(InvalidResponseError);
        expect((error as InvalidResponseError).issues).toEqual(['status']);
      }),
      { numRuns: 30 },
    );
  });

  test('one that says it succeeded (success true, in any form) is opened as before', async () => {
    const { client, codes } = await everyOperation();
    for (const success of [true, 'true', 'Yes', 1]) {
      server.use(http.delete(/\/api\/v1\/identity\/request\//, () => HttpResponse.json({ success, data: { message: 'deleted' } })));
      expect((await client.identityRequests.delete(codes)).data).toEqual({ message: 'deleted' });
    }
  });
});

describe('a failure carried in a 200 is weighed as the status its code stands for', () => {
  /** The codes whose status the transport acts on, and that status. */
  const ACTED = Object.entries(ERROR_TABLE).filter(([, { status }]) => status === 429 || status >= 500);
  /** Each form a failure is carried in, named by its code or (OAuth's, and one error object) its type. */
  const forms: ((code: string, type: string) => Record<string, unknown>)[] = [
    (code) => ({ error: { code, message: 'no' }, correlation_id: 'c' }),
    (_, type) => ({ error: { type }, data: null }),
    (code) => ({ code, message: 'no' }),
    (code) => ({ errors: [{ code }] }),
    (_, type) => ({ error: type, error_description: 'no' }),
    (code) => ({ success: false, data: { code } }),
    (code) => ({ status: 'fail', data: { code } }),
  ];

  test('property: a rate limit is retried on every operation, a passing server error on a safe one only (as after a 429 or a 5xx), then the next answer is the result', async () => {
    const { client, codes } = await everyOperation();
    let people = 0;
    const calls = {
      get: { call: () => client.identityRequests.get(codes), path: /\/api\/v1\/identity\/request\/[^/]+\/[^/]+$/, safe: true },
      // A new person each time: the fake refuses a second request for the same one (a ConflictError).
      create: {
        call: () => client.identityRequests.create(person({ email: `p${++people}@example.com`, phone: String(411_000_000 + people) })),
        path: /\/api\/v1\/identity\/request$/,
        safe: false,
      },
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(calls) as (keyof typeof calls)[])),
        fc.constantFrom(...ACTED),
        fc.constantFrom(...forms),
        fc.boolean(),
        async (name, [code, { type, status }], form, lower) => {
          const { call, path, safe } = calls[name];
          const cased = (text: string) => (lower ? text.toLowerCase() : text);
          let answered = 0;
          server.use(
            http.all(path, () => {
              answered += 1;
              // The first answer carries the failure (with no wait asked); the fake answers the next.
              return answered === 1 ? HttpResponse.json(form(cased(code), cased(type)), { headers: { 'retry-after': '0' } }) : undefined;
            }),
          );
          // (E2002 included: a 500, as its status would be on a safe call; the create it belongs to is never repeated after one.)
          const retried = status === 429 || safe;
          const outcome = await call().then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
          expect(answered, `${name} ${code}`).toBe(retried ? 2 : 1);
          if (retried) expect(outcome).toHaveProperty('result.data');
          else {
            expect(outcome).toHaveProperty('error');
            expect((outcome as { error: unknown }).error).toBeInstanceOf(ApiError);
            expect(outcome).toMatchObject({ error: { status: 200 } });
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  test("any other code in a 200, or those codes' words outside a failure, is answered at once, without a retry", async () => {
    const { client, codes } = await everyOperation();
    const bodies = [
      ...Object.keys(CODES).map((code) => ({ error: { code } })),
      { error: { code: 'E9999', type: 'SERVICE_UNAVAILABLE_SOMEWHERE' } },
      { data: { first_name: 'E2005', last_name: 'RATE_LIMIT_EXCEEDED' }, correlation_id: 'c' },
      // A record whose own fields have the error's form, in an answer that says nothing failed.
      { data: { code: 'E2005', type: 'SERVICE_UNAVAILABLE', first_name: 'Jane' }, correlation_id: 'c' },
      { success: true, message: 'E1007 INTERNAL_ERROR' },
    ];
    for (const body of bodies) {
      let answered = 0;
      server.use(
        http.get(/\/api\/v1\/identity\/request\//, () => {
          answered += 1;
          return HttpResponse.json(body, { headers: { 'retry-after': '0' } });
        }),
      );
      await client.identityRequests.get(codes).catch(() => undefined);
      expect(answered, JSON.stringify(body)).toBe(1);
    }
  });
});
