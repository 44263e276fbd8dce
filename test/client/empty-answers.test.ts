/**
 * An answer without a body (200 with nothing, or 204): for an action that was done, the success the
 * spec says it is (a DELETE's deletion, a revoke's `revoked: true`); for a read, an
 * `InvalidResponseError`, never an empty record taken for the thing read.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { InvalidResponseError } from '../../src/index.js';
import { credentialInput, harness, person, rejection, server } from '../helpers.js';

const EMPTY = {
  empty: () => new HttpResponse('', { status: 200 }),
  'no-content': () => new HttpResponse(null, { status: 204 }),
} as const;
const FORMS = ['empty', 'no-content'] as const;
/** The status each form of the fake's readings answers with. */
const STATUS = { empty: 200, 'no-content': 204 } as const;

describe('an answer without a body', () => {
  test.each(FORMS)('a DELETE answered %s is the deletion: the request is gone', async (deleteAnswer) => {
    const { client } = await harness({ fake: { readings: { deleteAnswer } } });
    const { data } = await client.identityRequests.create(person());
    const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
    const deleted = await client.identityRequests.delete(codes);
    expect(deleted.data).toEqual({});
    expect(deleted.response?.status).toBe(STATUS[deleteAnswer]);
    await expect(client.identityRequests.get(codes)).rejects.toMatchObject({ status: 404 });
  });

  test.each(FORMS)(
    'a revoke answered %s is the revocation: revoked is true, and the credential answers 410 after',
    async (revokeAnswer) => {
      const { client } = await harness({ fake: { readings: { revokeAnswer } } });
      const ref = (await client.credentials.submit(credentialInput())).data.credential_ref;
      const revoked = await client.credentials.revoke(ref);
      expect(revoked.data).toEqual({ revoked: true });
      expect(revoked.response?.status).toBe(STATUS[revokeAnswer]);
      await expect(client.credentials.verify(ref)).rejects.toMatchObject({ status: 410 });
    },
  );

  test('a revoke answered with an empty record is refused: it says neither revoked nor not', async () => {
    const { client, service } = await harness();
    const ref = (await client.credentials.submit(credentialInput())).data.credential_ref;
    server.use(http.post(`${service.baseUrl}/credentials/revoke/*`, () => HttpResponse.json({ data: {}, correlation_id: 'c' })));
    expect(await rejection(client.credentials.revoke(ref))).toBeInstanceOf(InvalidResponseError);
  });

  test('property: a revoke answered revoked false, in any form that says it, is an InvalidResponseError naming data.revoked, never a success; true in any form is the revocation', async () => {
    const { client, service } = await harness();
    const ref = (await client.credentials.submit(credentialInput())).data.credential_ref;
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.constantFrom('json', 'text', 'word', 'digit'),
        fc.constantFrom('', ' '),
        async (meaning, form, pad) => {
          const words = { json: meaning, text: `${meaning}`, word: meaning ? 'Yes' : 'No', digit: meaning ? 1 : 0 };
          const written = typeof words[form] === 'string' ? `${pad}${words[form]}${pad}` : words[form];
          server.use(
            http.post(`${service.baseUrl}/credentials/revoke/*`, () =>
              HttpResponse.json({ data: { revoked: written }, correlation_id: 'c-r' }),
            ),
          );
          const outcome = await client.credentials.revoke(ref).then(
            (result) => result.data,
            (error: unknown) => error,
          );
          if (meaning) expect(outcome).toEqual({ revoked: true });
          else {
            expect(outcome).toBeInstanceOf(InvalidResponseError);
            expect(outcome).toMatchObject({ status: 200, correlationId: 'c-r', issues: ['data.revoked'] });
            // It says which: false is a revocation refused, not an unreadable field.
            expect((outcome as Error).message).toContain('data.revoked is false: the credential was not revoked');
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  test('property: a DELETE answered deleted false (any form), or deleted that is no boolean, is an InvalidResponseError naming data.deleted; deleted true, or none, is the deletion', async () => {
    const { client, service } = await harness();
    const { data } = await client.identityRequests.create(person());
    const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
    const said = fc.oneof(
      fc.constantFrom<unknown>(true, 'true', ' Yes', 1).map((deleted) => ({ deleted, done: true, why: '' })),
      fc.constant({ deleted: undefined, done: true, why: '' }),
      fc.constantFrom<unknown>(false, 'false', 'No ', 0, '0').map((deleted) => ({ deleted, done: false, why: 'is false' })),
      fc.constantFrom<unknown>('maybe', 2, {}, 'deleted').map((deleted) => ({ deleted, done: false, why: 'is not a boolean' })),
    );
    await fc.assert(
      fc.asyncProperty(said, async ({ deleted, done, why }) => {
        server.use(
          http.delete(`${service.baseUrl}/identity/request/*`, () =>
            HttpResponse.json({ data: { message: 'Request deleted', deleted }, correlation_id: 'c-d' }),
          ),
        );
        const outcome = await client.identityRequests.delete(codes).then(
          (result) => result.data,
          (error: unknown) => error,
        );
        if (done) expect(outcome).toMatchObject({ message: 'Request deleted' });
        else {
          expect(outcome).toMatchObject({ code: 'ERR_INVALID_RESPONSE', status: 200, correlationId: 'c-d', issues: ['data.deleted'] });
          expect((outcome as Error).message).toContain(`data.deleted ${why}`);
        }
      }),
      { numRuns: 40 },
    );
  });

  test.each(FORMS)('a read answered %s is an InvalidResponseError: verify, file-data, submit, get', async (form) => {
    const { client, service } = await harness();
    const ref = (await client.credentials.submit(credentialInput())).data.credential_ref;
    const { data } = await client.identityRequests.create(person());
    const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
    server.use(
      http.get(`${service.baseUrl}/credentials/*`, EMPTY[form]),
      http.post(`${service.baseUrl}/credentials/submit`, EMPTY[form]),
      http.get(`${service.baseUrl}/identity/request/*`, EMPTY[form]),
    );
    for (const call of [
      () => client.credentials.verify(ref),
      () => client.credentials.fileData(ref),
      () => client.credentials.submit(credentialInput()),
      () => client.identityRequests.get(codes),
    ]) {
      expect(await rejection(call())).toBeInstanceOf(InvalidResponseError);
    }
  });
});
