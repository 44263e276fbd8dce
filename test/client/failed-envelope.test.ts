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
  NotFoundError,
  PermissionDeniedError,
  ValidationError,
} from '../../src/index.js';
import { credentialInput, harness, person, rejection, server } from '../helpers.js';

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

describe('an envelope that says the call failed', () => {
  test('is the error it carries, classed by its code (a plain ApiError without one), for every operation', async () => {
    const { client } = await harness();
    const { data } = await client.identityRequests.create(person());
    const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
    const ref = (await client.credentials.submit(credentialInput())).data.credential_ref;
    const operations = {
      get: () => client.identityRequests.get(codes),
      delete: () => client.identityRequests.delete(codes),
      verify: () => client.credentials.verify(ref),
      fileData: () => client.credentials.fileData(ref),
      revoke: () => client.credentials.revoke(ref),
      status: () => client.status.current(),
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(operations) as (keyof typeof operations)[])),
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

  test("its own error object (or code at its top) wins over a code its data carries: the envelope's error is the spec's place", async () => {
    const { client } = await harness();
    const { data } = await client.identityRequests.create(person());
    const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
    const bodies = [
      { success: false, error: { code: 'E1005' }, data: { code: 'E1001' } },
      { status: 'error', code: 'E1005', data: { code: 'E1001', type: 'VALIDATION_ERROR' } },
    ];
    for (const body of bodies) {
      server.use(http.get(/\/api\/v1\/identity\/request\//, () => HttpResponse.json(body)));
      expect(await rejection(client.identityRequests.get(codes))).toBeInstanceOf(NotFoundError);
    }
  });

  test('one that says it succeeded (success true, in any form) is opened as before', async () => {
    const { client } = await harness();
    const { data } = await client.identityRequests.create(person());
    const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
    for (const success of [true, 'true', 'Yes', 1]) {
      server.use(http.delete(/\/api\/v1\/identity\/request\//, () => HttpResponse.json({ success, data: { message: 'deleted' } })));
      expect((await client.identityRequests.delete(codes)).data).toEqual({ message: 'deleted' });
    }
  });
});
