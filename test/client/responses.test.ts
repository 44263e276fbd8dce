import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  AcmeIdentityClient,
  AuthenticationError,
  ConfigurationError,
  CredentialVerificationFailedError,
  ExternalServiceError,
  InvalidInputError,
  InvalidResponseError,
  PreconditionFailedError,
  ServiceUnavailableError,
  responseOf,
  type ClientOptions,
} from '../../src/index.js';
import { DEFAULT_CLIENT } from '../../src/testing/index.js';
import { ERROR_TABLE } from '../../src/contract/errors.js';
import { credentialInput, harness, person, received, rejection } from '../helpers.js';

const base: ClientOptions = {
  baseUrl: 'https://api.acme.test/api/v1',
  clientId: DEFAULT_CLIENT.clientId,
  clientSecret: DEFAULT_CLIENT.clientSecret,
  tenantId: DEFAULT_CLIENT.tenantId,
  maxRetries: 0,
};

/** A client whose every request is answered by `answer` (token requests get a valid token first). */
function clientAnswering(answer: (request: Request) => Response): AcmeIdentityClient {
  return new AcmeIdentityClient({
    ...base,
    fetch: async (request) =>
      new URL(request.url).pathname.endsWith('/auth/api-token')
        ? Response.json({ data: { access_token: 'a.b.c', expires_in: 900 }, correlation_id: 'c' })
        : answer(request),
  });
}

describe('reading answers', () => {
  test("status values in another case, or with spaces around, are the spec's values; a value the spec does not name is refused", async () => {
    const answers = [
      { status: 'OPERATIONAL', timestamp: 1_790_000_000 },
      { status: 'Healthy', database: 'CONNECTED' },
      { status: ' degraded\n', database: '\tError ' },
      { status: 'up' },
    ];
    const client = clientAnswering(() => Response.json(answers.shift()));
    expect(await client.status.current()).toMatchObject({ status: 'operational', timestamp: 1_790_000_000 });
    expect(await client.status.health()).toMatchObject({ status: 'healthy', database: 'connected' });
    // Spaces around a value, as booleans and numbers are read with them.
    expect(await client.status.health()).toMatchObject({ status: 'degraded', database: 'error' });
    expect(await rejection(client.status.current())).toMatchObject({ code: 'ERR_INVALID_RESPONSE', issues: ['status'] });
  });

  test('a status timestamp in milliseconds is read in seconds', async () => {
    const client = clientAnswering(() => Response.json({ status: 'operational', timestamp: 1_790_000_000_123 }));
    expect(await client.status.current()).toMatchObject({ timestamp: 1_790_000_000 });
  });

  test('a body that is not JSON is an InvalidResponseError, not a crash', async () => {
    const { client, service } = await harness();
    service.injectFault({ kind: 'malformed', path: '/status/current' });
    const error = await rejection(client.status.current());
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ code: 'ERR_INVALID_RESPONSE', status: 200 });
  });

  test('a body of the wrong shape is an InvalidResponseError naming where, never the values', async () => {
    const client = clientAnswering(() =>
      Response.json({ data: { access_request_code: 42, redirect_url: 'https://x' }, correlation_id: 'c9' }),
    );
    const error = await rejection(client.identityRequests.create(person()));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).issues).toEqual(['data.access_request_code', 'data.identity_session_code']);
    expect((error as Error).message).not.toContain('https://x');
    expect(error).toMatchObject({ correlationId: 'c9' });
  });

  test("a value one of the SDK's readers refuses is named with what it expects, never the value; a type mismatch with its path alone", async () => {
    const client = clientAnswering(() =>
      Response.json({
        data: { time_expires: 123_456_789, send_email: 'perhaps', first_name: 42, phone_country_code: [61] },
        correlation_id: 'c',
      }),
    );
    const error = await rejection(client.identityRequests.get({ accessRequestCode: 'a', identitySessionCode: 'i' }));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).issues).toEqual([
      'data.first_name',
      'data.phone_country_code',
      'data.time_expires',
      'data.send_email',
    ]);
    const { message } = error as Error;
    expect(message).toContain('data.time_expires: expected a UNIX time');
    expect(message).toContain('before 2001');
    expect(message).toContain('data.send_email: expected a boolean');
    expect(message).not.toContain('data.first_name:');
    expect(message).not.toContain('data.phone_country_code:');
    for (const value of ['123456789', 'perhaps', '42']) expect(message).not.toContain(value);
  });

  test.each([
    ['with data of the wrong type', { data: { message: 3 }, correlation_id: 'c' }, ['data.message']],
    ['that is an array', [{ data: { message: 'ok' }, correlation_id: 'c' }], ['(root)']],
  ])('an envelope %s is an InvalidResponseError naming the path', async (_name, body, issues) => {
    const client = clientAnswering(() => Response.json(body));
    const error = await rejection(client.identityRequests.delete({ accessRequestCode: 'a', identitySessionCode: 'i' }));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).issues).toEqual(issues);
  });

  test('form is read generously: a correlation_id that is not a string gives way to the header, a meta that is not an object is dropped', async () => {
    const answers = [
      { data: { message: 'ok' }, correlation_id: 7 },
      { data: { message: 'ok' }, correlation_id: 'c', meta: [1] },
      { data: { message: 'ok' }, correlation_id: null, meta: null },
    ];
    const client = clientAnswering(() => Response.json(answers.shift(), { headers: { 'x-correlation-id': 'cor_h' } }));
    const codes = { accessRequestCode: 'a', identitySessionCode: 'i' };
    expect(await client.identityRequests.delete(codes)).toEqual({ data: { message: 'ok' }, correlationId: 'cor_h' });
    expect(await client.identityRequests.delete(codes)).toEqual({ data: { message: 'ok' }, correlationId: 'c' });
    expect(await client.identityRequests.delete(codes)).toEqual({ data: { message: 'ok' }, correlationId: 'cor_h' });
  });

  test('envelopes with more fields, or one more level, are opened for every operation (regression: {success: true, data} gave status records of undefined)', async () => {
    const current = { status: 'operational', timestamp: 1_790_000_000, environment: 'sandbox' };
    const health = { status: 'healthy', database: 'connected' };
    const wraps = (record: object) => [
      record,
      { data: record, correlation_id: 'c' },
      { success: true, data: record, correlation_id: 'c' },
      { status: 'success', data: record },
      { data: { data: record, correlation_id: 'c' } },
    ];
    for (const [record, call] of [
      [current, (client: AcmeIdentityClient) => client.status.current()],
      [health, (client: AcmeIdentityClient) => client.status.health()],
    ] as const) {
      for (const body of wraps(record)) {
        const client = clientAnswering(() => Response.json(body));
        expect(await call(client)).toEqual(record);
      }
    }
    const details = { request_code: 'isc_1', opened_at: 1_790_000_000, redirect_url: 'https://id.example/r' };
    for (const body of wraps(details)) {
      const client = clientAnswering(() => Response.json(body));
      expect((await client.identityRequests.get({ accessRequestCode: 'a', identitySessionCode: 'i' })).data).toEqual(details);
    }
  });

  test("envelope in envelope: the correlation id and meta of the outermost that carries one are the answer's; a third envelope is not opened", async () => {
    const details = { request_code: 'isc_1', opened_at: 1_790_000_000 };
    const codes = { accessRequestCode: 'a', identitySessionCode: 'i' };
    const both = {
      correlation_id: 'outer',
      meta: { from: 'outer' },
      data: { data: details, correlation_id: 'inner', meta: { from: 'inner' } },
    };
    expect(await clientAnswering(() => Response.json(both)).identityRequests.get(codes)).toEqual({
      data: details,
      correlationId: 'outer',
      meta: { from: 'outer' },
    });
    // Two envelopes are opened, the spec's and a gateway's; a third is not guessed at: no record is found.
    const thrice = { data: { data: { data: details, correlation_id: 'c3' }, correlation_id: 'c2' }, correlation_id: 'c1' };
    expect(await rejection(clientAnswering(() => Response.json(thrice)).identityRequests.get(codes))).toBeInstanceOf(InvalidResponseError);
    const innerOnly = { success: true, data: { data: details, correlation_id: 'inner', meta: { from: 'inner' } } };
    expect(await clientAnswering(() => Response.json(innerOnly)).identityRequests.get(codes)).toEqual({
      data: details,
      correlationId: 'inner',
      meta: { from: 'inner' },
    });
  });

  test('a record in which none of the documented fields arrived is refused, naming the fields that did (never their values)', async () => {
    for (const body of [
      { success: true, result: { status: 'operational' } },
      {},
      { data: {}, correlation_id: 'c' },
      { ok: 'secret-value' },
    ]) {
      const client = clientAnswering(() => Response.json(body));
      const error = await rejection(client.status.current());
      expect(error).toMatchObject({
        code: 'ERR_INVALID_RESPONSE',
        message: expect.stringContaining('none of the documented fields arrived'),
      });
      expect((error as Error).message).not.toContain('secret-value');
    }
    const client = clientAnswering(() => Response.json({ success: true, result: {} }));
    expect((await rejection(client.status.health())) as Error).toMatchObject({ message: expect.stringContaining('(success, result)') });
    // Nothing at all is said so; a record of many fields is named by its first eight, and an ellipsis.
    const empty = clientAnswering(() => Response.json({}));
    expect((await rejection(empty.status.health())) as Error).toMatchObject({ message: expect.stringContaining('(nothing)') });
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`field_${i}`, i]));
    const crowded = clientAnswering(() => Response.json(many));
    const { message } = (await rejection(crowded.status.health())) as Error;
    expect(message).toContain(`(${Object.keys(many).slice(0, 8).join(', ')}, …)`);
    expect(message).not.toContain('field_8');
  });

  test('a bare record that carries a field named data beside its own fields is read as itself: data is opened only when it holds the record', async () => {
    const client = clientAnswering(() => Response.json({ status: 'healthy', database: 'connected', data: { region: 'eu' } }));
    expect(await client.status.health()).toMatchObject({ status: 'healthy', database: 'connected', data: { region: 'eu' } });
  });

  test("property: a bare status record of its status alone beside a data field is read as itself, though `status` is also a field JSend's envelope carries (regression: the data field's contents were read as the record)", async () => {
    const notStatusFields = fc
      .dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.oneof(fc.string(), fc.integer()), { minKeys: 1, maxKeys: 3 })
      .filter((data) => !['status', 'timestamp', 'environment', 'components', 'maintenance_mode', 'database'].some((key) => key in data));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('current', 'health') as fc.Arbitrary<'current' | 'health'>,
        notStatusFields,
        async (endpoint, data) => {
          const status = endpoint === 'current' ? 'operational' : 'healthy';
          const client = clientAnswering(() => Response.json({ status, data }));
          expect(await client.status[endpoint]()).toMatchObject({ status, data });
        },
      ),
      { numRuns: 40 },
    );
  });

  test('a numeric field reads a number or its digits as that number, and refuses any other kind naming the field; absent stays absent (property)', async () => {
    const codes = { accessRequestCode: 'arc_1', identitySessionCode: 'isc_1' };
    const fields = ['phone_country_code', 'time_expires', 'opened_at', 'completed_at'] as const;
    let answer: Record<string, unknown> = {};
    const client = clientAnswering(() => Response.json({ data: answer, correlation_id: 'c' }));
    const other = fc.oneof(fc.boolean(), fc.constant({}), fc.constant([1]), fc.constant('soon'));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...fields),
        // From 2001 on: a request's time before it is refused (test/client/answer-forms.test.ts).
        fc.integer({ min: 1_000_000_000, max: 4_000_000_000 }),
        fc.constantFrom('number', 'digits', 'other', 'absent'),
        other,
        async (field, value, form, wrong) => {
          const given = { number: value, digits: String(value), other: wrong, absent: undefined }[form];
          answer = { first_name: 'Ada', ...(given === undefined ? {} : { [field]: given }) };
          const read = client.identityRequests.get(codes);
          if (form === 'other') {
            expect(await rejection(read)).toMatchObject({ code: 'ERR_INVALID_RESPONSE', issues: [`data.${field}`] });
            return;
          }
          const { data } = await read;
          if (form === 'absent') expect(data).not.toHaveProperty(field);
          else expect(data[field]).toBe(value);
        },
      ),
      { seed: 45, numRuns: 200 },
    );
  });

  test('null stands for an absent optional field', async () => {
    const client = clientAnswering(() =>
      Response.json({ status: 'operational', timestamp: null, components: { api: { status: 'ok', version: null } } }),
    );
    expect(await client.status.current()).toEqual({ status: 'operational', components: { api: { status: 'ok' } } });
  });

  test("an envelope without correlation_id, and a bare result, are read with the header's correlation id (the spec's envelope rule read otherwise)", async () => {
    const answers = [{ data: { message: 'deleted' } }, { message: 'deleted' }];
    const client = clientAnswering(() => Response.json(answers.shift(), { headers: { 'x-correlation-id': 'cor_h' } }));
    const codes = { accessRequestCode: 'a', identitySessionCode: 'i' };
    expect(await client.identityRequests.delete(codes)).toEqual({ data: { message: 'deleted' }, correlationId: 'cor_h' });
    expect(await client.identityRequests.delete(codes)).toEqual({ data: { message: 'deleted' }, correlationId: 'cor_h' });
  });

  test("property: a DELETE's record with none of its fields (empty, its message null, or data null) in any envelope is that record, with the envelope's correlation id, never the envelope read as the record", async () => {
    const record = fc.constantFrom({}, { message: null }, null);
    const envelope = fc.oneof(
      record.map((data) => ({ body: { data, correlation_id: 'c-env' }, correlationId: 'c-env' })),
      record.map((data) => ({ body: { data }, correlationId: 'cor_h' })),
      record.map((data) => ({ body: { success: true, data, correlation_id: 'c-env' }, correlationId: 'c-env' })),
      record.map((data) => ({ body: { status: 'success', data, request_id: 'r' }, correlationId: 'cor_h' })),
      record.map((data) => ({ body: { data: { data, correlation_id: 'c-in' }, correlation_id: 'c-out' }, correlationId: 'c-out' })),
    );
    await fc.assert(
      fc.asyncProperty(envelope, async ({ body, correlationId }) => {
        const client = clientAnswering(() => Response.json(body, { headers: { 'x-correlation-id': 'cor_h' } }));
        expect(await client.identityRequests.delete({ accessRequestCode: 'a', identitySessionCode: 'i' })).toEqual({
          data: {},
          correlationId,
        });
      }),
      { numRuns: 40 },
    );
  });

  test("a body that holds none of the record's fields is opened only where it is an envelope by its fields: one with other fields, or a record whose only field is data inside an envelope, is read as sent", async () => {
    const codes = { accessRequestCode: 'a', identitySessionCode: 'i' };
    for (const [body, data] of [
      [
        { data: { x: 1 }, trace: 't' },
        { data: { x: 1 }, trace: 't' },
      ],
      [{ data: { data: {} }, correlation_id: 'c' }, { data: {} }],
      [{ data: null, trace: 't' }, { trace: 't' }],
    ] as const) {
      const client = clientAnswering(() => Response.json(body));
      expect((await client.identityRequests.delete(codes)).data, JSON.stringify(body)).toEqual(data);
    }
  });

  test("a record of none of its fields, in the spec's envelope, is refused naming the fields it holds, not its envelope's", async () => {
    const client = clientAnswering(() => Response.json({ data: { unexpected: 1 }, correlation_id: 'c' }));
    const error = await rejection(client.identityRequests.get({ accessRequestCode: 'a', identitySessionCode: 'i' }));
    expect(error).toMatchObject({ code: 'ERR_INVALID_RESPONSE', correlationId: 'c' });
    expect((error as Error).message).toContain('(unexpected)');
  });

  test('a bare record that merely has a data field among others is read whole, never taken for an envelope', async () => {
    const credential = { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiableCredential'], data: { score: 1 } };
    const client = clientAnswering(() => Response.json(credential, { headers: { 'x-correlation-id': 'cor_h' } }));
    expect(await client.credentials.verify('cred:1')).toEqual({ data: credential, correlationId: 'cor_h' });
  });

  test("what an envelope holds is named from the body's root, through each envelope opened (data.data.<field>)", async () => {
    const client = clientAnswering(() =>
      Response.json({ data: { data: { access_request_code: 42 }, correlation_id: 'c' }, success: true }),
    );
    const error = await rejection(client.identityRequests.create(person()));
    expect(error).toMatchObject({
      code: 'ERR_INVALID_RESPONSE',
      issues: ['data.data.access_request_code', 'data.data.identity_session_code', 'data.data.redirect_url'],
    });
  });

  test('a null field beside data did not arrive: it does not make the body the record', async () => {
    const details = { request_code: 'isc_1' };
    const client = clientAnswering(() =>
      Response.json({ request_code: null, opened_at: null, redirect_url: null, data: details, correlation_id: 'c' }),
    );
    expect(await client.identityRequests.get({ accessRequestCode: 'a', identitySessionCode: 'i' })).toEqual({
      data: details,
      correlationId: 'c',
    });
  });

  test('a credential is kept exactly as sent: its null fields stay, and a credential of type and data alone is no envelope', async () => {
    const withNull = {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential'],
      validUntil: null,
      proof: { note: null },
    };
    const typed = { type: ['VerifiableCredential'], data: { score: 1 } };
    for (const credential of [withNull, typed]) {
      const client = clientAnswering(() => Response.json(credential, { headers: { 'x-correlation-id': 'cor_h' } }));
      expect(await client.credentials.verify('cred:1')).toEqual({ data: credential, correlationId: 'cor_h' });
    }
  });

  test('an envelope whose data holds no credential (null, a string, a list, nothing) is refused, never read as the credential', async () => {
    for (const [body, where] of [
      [{ data: null, correlation_id: 'c' }, 'data'],
      [{ data: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', correlation_id: 'c' }, 'data'],
      [{ success: true, data: [{ type: 'VerifiableCredential' }] }, 'data'],
      [{ data: { data: null, correlation_id: 'c' } }, 'data.data'],
      // Nothing but envelope fields, and no data: no credential either.
      [{ correlation_id: 'c' }, 'data'],
      [{ success: true, message: 'ok' }, 'data'],
      [{}, 'data'],
    ] as const) {
      const client = clientAnswering(() => Response.json(body));
      const error = await rejection(client.credentials.verify('cred:1'));
      // Named by where it sat: the envelope's data, never read as the credential.
      expect(error, JSON.stringify(body)).toMatchObject({ code: 'ERR_INVALID_RESPONSE', issues: [where] });
      expect(JSON.stringify(error)).not.toContain('eyJhbGciOiJFUzI1NiJ9');
    }
  });

  test("a credential whose only field is data, in the spec's envelope: the envelope is opened, the credential is not", async () => {
    const credential = { data: { score: 1 } };
    const client = clientAnswering(() => Response.json({ data: credential, correlation_id: 'c' }));
    expect(await client.credentials.verify('cred:1')).toEqual({ data: credential, correlationId: 'c' });
  });

  test("envelopes are opened two deep (the spec's, and one a gateway adds): what the second holds is the credential, even one that looks like a third", async () => {
    const credential = { status: 'active', data: { score: 1 } };
    const client = clientAnswering(() => Response.json({ data: { data: credential, correlation_id: 'c2' }, correlation_id: 'c' }));
    expect(await client.credentials.verify('cred:1')).toEqual({ data: credential, correlationId: 'c' });
  });

  test("a disclosed value keeps its null fields as sent (the digest covers them); the record's own null fields are dropped, at every depth", async () => {
    const now = Math.floor(Date.now() / 1000);
    const value = { street: '1 Main St', unit: null, lines: [null, 'x'] };
    const record = {
      ref: 'r',
      iss: 'https://auth.acme.test',
      sub: 'p',
      iat: now,
      nbf: now,
      exp: now + 600,
      jti: 'j',
      _sd_alg: 'sha-256',
      disclosures: [{ claim: 'acmeidentity.address', salt: 's', value, note: null }],
      request_code: 'arc',
      partially_complete: null,
    };
    const client = clientAnswering(() => Response.json({ data: record, correlation_id: 'c' }));
    const { data } = await client.identityResponses.get({ accessRequestCode: 'arc', identitySessionCode: 'isc', accessToken: 'x.y.z' });
    expect(data.disclosures?.[0]?.value).toEqual(value);
    expect(data).not.toHaveProperty('partially_complete');
    // At every depth, inside lists too: a disclosure's own null field.
    expect(data.disclosures?.[0]).not.toHaveProperty('note');
  });

  test('a well-formed envelope gives data, correlation id and meta; meta is left out when absent', async () => {
    const answers = [
      { data: { message: 'deleted' }, correlation_id: 'c1', meta: { request_id: 'r' } },
      { data: { message: 'deleted' }, correlation_id: 'c2' },
    ];
    const client = clientAnswering(() => Response.json(answers.shift()));
    const codes = { accessRequestCode: 'a', identitySessionCode: 'i' };
    expect(await client.identityRequests.delete(codes)).toEqual({
      data: { message: 'deleted' },
      correlationId: 'c1',
      meta: { request_id: 'r' },
    });
    const bare = await client.identityRequests.delete(codes);
    expect(bare).toEqual({ data: { message: 'deleted' }, correlationId: 'c2' });
    expect(Object.keys(bare)).not.toContain('meta');
  });

  test('a 412 without a known code is a failed verification from every credential endpoint, and a failed precondition from any other', async () => {
    const client = clientAnswering(() => Response.json({ error: { message: 'no' } }, { status: 412 }));
    const credentialCalls = [
      client.credentials.submit(credentialInput()),
      client.credentials.verify('ref-1'),
      client.credentials.fileData('ref-1'),
      client.credentials.revoke('ref-1'),
    ];
    for (const call of credentialCalls) expect(await rejection(call)).toBeInstanceOf(CredentialVerificationFailedError);
    const other = await rejection(client.identityRequests.get({ accessRequestCode: 'a', identitySessionCode: 'b' }));
    expect(other).toBeInstanceOf(PreconditionFailedError);
  });

  test('an error body without its envelope is read when it carries a type or a code; any other JSON is no error body of the service', async () => {
    const bodies: unknown[] = [
      { code: 'E1001', message: 'no' },
      { type: 'VALIDATION_ERROR' },
      { message: 'upstream says no', retry: true },
    ];
    const client = clientAnswering(() => Response.json(bodies.shift(), { status: 400 }));
    const codes = { accessRequestCode: 'a', identitySessionCode: 'b' };
    expect(await rejection(client.identityRequests.get(codes))).toMatchObject({ serviceCode: 'E1001', body: { code: 'E1001' } });
    expect(await rejection(client.identityRequests.get(codes))).toMatchObject({ type: 'VALIDATION_ERROR' });
    const other = (await rejection(client.identityRequests.get(codes))) as { body: unknown; serviceMessage: unknown };
    expect([other.body, other.serviceMessage]).toEqual([undefined, undefined]);
  });

  test('property: a field of the error written as null or of another type is left out, never hiding the code that decides the class', async () => {
    const junk = fc.constantFrom<unknown>(null, 7, true, [], ['E1001'], {});
    // A field absent, of its type (TABLE: the table's value), or junk.
    const field = (value: string) => fc.option(fc.oneof(fc.constant<unknown>(value), junk), { nil: undefined });
    const answer = fc.record({
      table: fc.constantFrom(...Object.entries(ERROR_TABLE)),
      wrapped: fc.boolean(),
      message: field('refused'),
      type: field('TABLE'),
      code: field('TABLE'),
      timestamp: field('2026-11-30T00:00:00Z'),
      correlation_id: field('cor_1'),
      details: fc.option(fc.oneof(junk, fc.constant<unknown>('none'), fc.constant<unknown>({ existing_code: 'x' })), { nil: undefined }),
    });
    const request = { accessRequestCode: 'a', identitySessionCode: 'b' };
    const isRecord = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
    await fc.assert(
      fc.asyncProperty(answer, async ({ table: [code, { type, status }], wrapped, ...fields }) => {
        const named = { ...fields, type: fields.type === 'TABLE' ? type : fields.type, code: fields.code === 'TABLE' ? code : fields.code };
        const error = Object.fromEntries(Object.entries(named).filter(([, v]) => v !== undefined));
        // What is read: each text field that is text, and details that are an object.
        const clean = Object.fromEntries(
          Object.entries(error).filter(([name, v]) => (name === 'details' ? isRecord(v) : typeof v === 'string')),
        );
        const sent = (body: object) => rejection(clientAnswering(() => Response.json(body, { status })).identityRequests.get(request));
        const [odd, expected] = [await sent(wrapped ? { error } : error), await sent({ error: clean })];
        expect(odd).toBeInstanceOf((expected as object).constructor);
        expect((odd as { code: string }).code).toBe((expected as { code: string }).code);
        expect((expected as { body: unknown }).body).toEqual(clean);
        // Without its envelope, a body is the service's error only when it names a type or a code.
        const read = wrapped || typeof clean['type'] === 'string' || typeof clean['code'] === 'string';
        expect((odd as { body: unknown }).body).toEqual(read ? clean : undefined);
      }),
      { numRuns: 200 },
    );
  });

  test('a refresh goes to /auth/api-token/refresh with the refresh token, a first token to /auth/api-token', async () => {
    const paths: string[] = [];
    const client = new AcmeIdentityClient({
      ...base,
      fetch: async (request) => {
        paths.push(`${new URL(request.url).pathname} ${request.method}`);
        return Response.json({ data: { access_token: 'a.b.c', refresh_token: 'r1', expires_in: 900 } });
      },
    });
    await client.auth.createToken();
    await client.auth.refreshToken('r0');
    expect(paths).toEqual(['/api/v1/auth/api-token POST', '/api/v1/auth/api-token/refresh POST']);
    // And a refusal names the endpoint the refresh went to.
    const missing = new AcmeIdentityClient({ ...base, fetch: async () => Response.json({}, { status: 404 }) });
    expect(await rejection(missing.auth.refreshToken('r0'))).toMatchObject({
      message: expect.stringContaining(`no token endpoint at ${base.baseUrl}/auth/api-token/refresh;`),
    });
  });

  test('refreshToken refuses anything but a non-empty string, naming it, with nothing sent (undefined would otherwise ask /auth/api-token for a first token)', async () => {
    let sent = 0;
    const client = new AcmeIdentityClient({
      ...base,
      fetch: async () => {
        sent += 1;
        return Response.json({ data: { access_token: 'a.b.c', refresh_token: 'r1', expires_in: 900 } });
      },
    });
    for (const refreshToken of ['', undefined, null, 42]) {
      const error = await rejection(client.auth.refreshToken(refreshToken as string));
      expect(error, String(refreshToken)).toBeInstanceOf(InvalidInputError);
      expect(error).toMatchObject({ issues: [{ field: 'refreshToken', message: 'is required and must be a non-empty string' }] });
    }
    expect(sent).toBe(0);
  });

  test('what a result carries beside its data: its answer (status, headers, attempts) on `response`, not enumerable; none on a status record', async () => {
    const client = clientAnswering(() =>
      Response.json({ data: { first_name: 'Jane' }, correlation_id: 'c' }, { headers: { 'x-served-by': 'edge-1' } }),
    );
    const result = await client.identityRequests.get({ accessRequestCode: 'a', identitySessionCode: 'b' });
    expect(result.response).toMatchObject({ status: 200, attempts: 1 });
    expect(result.response?.headers.get('x-served-by')).toBe('edge-1');
    expect(Object.keys(result)).toEqual(['data', 'correlationId']);
    // As an error's own fields: read-only, and a caller's wrapper (a cache, a test double) may redefine it.
    expect(Object.getOwnPropertyDescriptor(result, 'response')).toMatchObject({ enumerable: false, writable: false, configurable: true });
    expect(responseOf(result)).toBe(result.response);
    const health = await clientAnswering(() => Response.json({ status: 'healthy' })).status.health();
    expect(Object.hasOwn(health, 'response')).toBe(false);
    expect(responseOf(health)?.status).toBe(200);
  });

  test('an error answer without a correlation id in its body carries the one of its header', async () => {
    const client = clientAnswering(() =>
      Response.json({ error: { code: 'E1001' } }, { status: 400, headers: { 'x-correlation-id': 'from-header' } }),
    );
    expect(await rejection(client.identityRequests.get({ accessRequestCode: 'a', identitySessionCode: 'b' }))).toMatchObject({
      correlationId: 'from-header',
    });
  });

  test('a body that is blank or not JSON is refused for what it is; a status endpoint answering nothing too', async () => {
    const bodies = ['  \n', '{"data": ', ''];
    const client = clientAnswering(() => new Response(bodies.shift(), { status: 200 }));
    const codes = { accessRequestCode: 'a', identitySessionCode: 'b' };
    expect(await rejection(client.identityRequests.get(codes))).toMatchObject({
      code: 'ERR_INVALID_RESPONSE',
      message: expect.stringContaining('empty body'),
    });
    expect(await rejection(client.identityRequests.get(codes))).toMatchObject({ message: expect.stringContaining('the body is not JSON') });
    expect(await rejection(client.status.health())).toMatchObject({
      code: 'ERR_INVALID_RESPONSE',
      message: expect.stringContaining('empty body'),
    });
  });

  test('a DELETE answered with no body, or a blank one, is the success it says', async () => {
    const client = clientAnswering(() => new Response(' ', { status: 200 }));
    await expect(client.identityRequests.delete({ accessRequestCode: 'a', identitySessionCode: 'b' })).resolves.toMatchObject({ data: {} });
  });

  test('a record in which none of the documented fields arrived is refused as a whole, at the root; fields that all arrived as null did not arrive', async () => {
    const codes = { accessRequestCode: 'a', identitySessionCode: 'b' };
    for (const data of [{ unexpected: 1 }, { request_code: null, opened_at: null }]) {
      const client = clientAnswering(() => Response.json({ data, correlation_id: 'c' }));
      expect(await rejection(client.identityRequests.get(codes)), JSON.stringify(data)).toMatchObject({
        code: 'ERR_INVALID_RESPONSE',
        issues: ['(root)'],
      });
    }
  });

  test('file_data that is not base64 is refused by download, naming the field, never returned as bytes', async () => {
    const client = clientAnswering(() => Response.json({ data: { file_data: '*** not base64 ***' } }));
    expect(await rejection(client.credentials.download('ref-1'))).toMatchObject({
      code: 'ERR_INVALID_RESPONSE',
      issues: ['data.file_data'],
    });
  });

  test('an empty 200 is an InvalidResponseError', async () => {
    const client = clientAnswering(() => new Response(null, { status: 200 }));
    expect(await rejection(client.identityRequests.create(person()))).toBeInstanceOf(InvalidResponseError);
  });

  test('an HTML error page from a proxy still maps by status', async () => {
    const client = clientAnswering(
      () => new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
    );
    const error = await rejection(client.identityRequests.create(person()));
    expect(error).toBeInstanceOf(ExternalServiceError);
    expect(error).toMatchObject({ status: 502, type: undefined, serviceCode: undefined });
  });

  test('a successful answer that is not UTF-8 is an InvalidResponseError with its correlation id; an error page that is not is still read', async () => {
    // JSON with a Latin-1 "é" (0xE9), which is not UTF-8: never decoded into a replacement character.
    const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
    const ok = clientAnswering(
      () =>
        new Response(latin1('{"data":{"status":"op\xe9rationnel"},"correlation_id":"c1"}'), {
          headers: { 'x-correlation-id': 'c-latin1' },
        }),
    );
    const error = await rejection(ok.status.current());
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ status: 200, correlationId: 'c-latin1' });
    expect((error as Error).message).toContain('UTF-8');
    const noHeader = clientAnswering(() => new Response(latin1('{"x":"\xe9"}')));
    expect(await rejection(noHeader.status.current({ correlationId: 'mine' }))).toMatchObject({
      code: 'ERR_INVALID_RESPONSE',
      correlationId: 'mine',
    });
    const page = clientAnswering(
      () => new Response(latin1('{"type":"SERVICE_UNAVAILABLE","message":"indisponibilit\xe9"}'), { status: 503 }),
    );
    const unavailable = await rejection(page.status.current());
    expect(unavailable).toBeInstanceOf(ServiceUnavailableError);
    expect(unavailable).toMatchObject({ type: 'SERVICE_UNAVAILABLE', serviceMessage: 'indisponibilit\ufffd' });
  });

  test('the body of an answer that is retried or replayed is let go at once, not left holding its connection', async () => {
    const cancelled: string[] = [];
    const body = (name: string) =>
      new ReadableStream({
        pull: () => new Promise(() => undefined), // a body that would never end if read
        cancel: () => void cancelled.push(name),
      });
    let tokens = 0;
    let calls = 0;
    const client = new AcmeIdentityClient({
      ...base,
      maxRetries: 1,
      fetch: async (request) => {
        if (request.url.endsWith('/auth/api-token'))
          return Response.json({ data: { access_token: `token-${++tokens}`, expires_in: 900 }, correlation_id: 'c' });
        calls += 1;
        if (calls === 1) return new Response(body('401'), { status: 401 });
        if (calls === 2) return new Response(body('503'), { status: 503, headers: { 'retry-after-ms': '1' } });
        return Response.json({ data: { status: 'ok' }, correlation_id: 'c' });
      },
    });
    await client.identityRequests.get({ accessRequestCode: 'a'.repeat(8), identitySessionCode: 'b'.repeat(8) }).catch(() => undefined);
    expect(calls).toBe(3);
    expect(cancelled).toEqual(['401', '503']);
  });

  test('fields the service adds later pass through', async () => {
    const client = clientAnswering(() =>
      Response.json({
        data: { access_request_code: 'a', identity_session_code: 'i', redirect_url: 'https://x', new_field: { nested: true } },
        correlation_id: 'c',
        meta: { page: 1 },
      }),
    );
    const result = await client.identityRequests.create(person());
    expect(result.data).toMatchObject({ new_field: { nested: true } });
    expect(result.meta).toEqual({ page: 1 });
  });

  test('a field named __proto__ in an answer stays a field: never the prototype its record is read through', async () => {
    // As JSON.parse reads it: "__proto__" an own key, whose fields must not stand in for the record's.
    const body =
      '{"data":{"access_request_code":"a","identity_session_code":"i","__proto__":{"redirect_url":"https://evil.example"}},"correlation_id":"c"}';
    const client = clientAnswering(() => new Response(body, { headers: { 'content-type': 'application/json' } }));
    // redirect_url, required, is not the record's: the answer is refused (it was read through the prototype).
    const error = await rejection(client.identityRequests.create(person()));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).issues).toEqual(['data.redirect_url']);
    // Beside the record's own fields, the key is kept as the data it is.
    const kept = '{"data":{"access_request_code":"a","identity_session_code":"i","redirect_url":"https://x","__proto__":{"y":1}}}';
    const fine = clientAnswering(() => new Response(kept, { headers: { 'content-type': 'application/json' } }));
    const data = (await fine.identityRequests.create(person())).data as Record<string, unknown>;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(data['y']).toBeUndefined();
  });

  test('a token response is accepted wrapped in {data} or bare', async () => {
    const client = new AcmeIdentityClient({
      ...base,
      fetch: async () => Response.json({ access_token: 'bare.token.jwt', expires_in: 60 }),
    });
    expect(await client.auth.accessToken()).toBe('bare.token.jwt');
  });
});

describe('status', () => {
  test('current and health answer the unwrapped records', async () => {
    const { client, service } = await harness();
    expect(await client.status.current()).toMatchObject({
      status: 'operational',
      components: { api: { version: '1.0.0' } },
      maintenance_mode: false,
    });
    service.settings.database = 'error';
    expect(await client.status.health()).toMatchObject({ status: 'degraded', database: 'error' });
  });

  test('status endpoints take no headers: no token is fetched', async () => {
    const { client, service } = await harness();
    await client.status.current();
    expect(received(service, /^\/auth\//)).toHaveLength(0);
    expect(received(service, /^\/status\/current$/)[0]!.headers['authorization']).toBeUndefined();
  });

  test('health answering 503 is a ServiceUnavailableError', async () => {
    const { client, service } = await harness();
    service.injectFault({ kind: 'status', status: 503, path: '/status/health', times: 5 });
    expect(await rejection(client.status.health({ maxRetries: 0 }))).toBeInstanceOf(ServiceUnavailableError);
  });
});

describe('identity headers', () => {
  test('X-Request-Timestamp is UNIX seconds by default, and other formats are options', async () => {
    const { client, service } = await harness({ fake: { timestampFormat: 'unix-seconds' } });
    await client.identityRequests.create(person());
    const stamp = received(service, /^\/identity\/request$/)[0]!.headers['x-request-timestamp']!;
    expect(stamp).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(stamp) - Date.now() / 1000)).toBeLessThan(5);

    const iso = await harness({ fake: { timestampFormat: 'iso8601' } });
    await iso.makeClient({ timestampFormat: 'iso8601' }).identityRequests.create(person());
    expect(received(iso.service, /^\/identity\/request$/)[0]!.headers['x-request-timestamp']).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  test('the timestamp is corrected for the service clock, learnt from its Date header', async () => {
    const skew = 3_600_000;
    const { client, service } = await harness({ fake: { now: () => Date.now() + skew } });
    await client.status.current(); // learns the offset
    await client.identityRequests.create(person());
    const stamp = Number(received(service, /^\/identity\/request$/)[0]!.headers['x-request-timestamp']);
    expect(Math.abs(stamp * 1000 - (Date.now() + skew))).toBeLessThan(5_000);
  });

  test('an offset under 2 s is within the Date header’s resolution and ignored; 2 s or more is applied, either way; a Date header seen again teaches nothing new', async () => {
    const T0 = Date.UTC(2026, 10, 24, 12);
    const clock = { now: T0 };
    let date = T0;
    const { makeClient, service } = await harness({ fake: { now: () => clock.now } });
    const client = makeClient({
      now: () => clock.now,
      // The service's answers, with the Date header the test chooses.
      fetch: async (request) => {
        const answer = await service.fetch(request);
        const headers = new Headers(answer.headers);
        headers.set('date', new Date(date).toUTCString());
        return new Response(await answer.arrayBuffer(), { status: answer.status, headers });
      },
    });
    const { data } = await client.identityRequests.create(person());
    const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
    /** The X-Request-Timestamp of a call, in seconds after T0: what the client had learnt before it. */
    const stamped = async (answerDate: number) => {
      date = answerDate;
      await client.identityRequests.get(codes);
      return Number(received(service, /^\/identity\/request\/[^/]+\/[^/]+$/).at(-1)!.headers['x-request-timestamp']) - T0 / 1000;
    };
    expect(await stamped(T0 + 1_000)).toBe(0);
    expect(await stamped(T0 + 2_000)).toBe(0); // learnt 1 s before it: ignored
    clock.now = T0 + 900;
    expect(await stamped(T0 + 2_000)).toBe(2); // learnt 2 s: applied
    // The same Date header again, 0.9 s later on the local clock: the offset stays 2 s (relearnt, it would be 1.1 s, and ignored).
    expect(await stamped(T0 + 2_000)).toBe(2);
    clock.now = T0;
    expect(await stamped(T0 - 2_000)).toBe(2);
    expect(await stamped(T0)).toBe(-2); // learnt 2 s behind: applied
  });

  test('without the correction, a skewed clock is refused by the service', async () => {
    const { makeClient } = await harness({ fake: { now: () => Date.now() + 3_600_000 } });
    const client = makeClient({ correctClockSkew: false });
    await client.status.current();
    expect(await rejection(client.identityRequests.create(person()))).toBeInstanceOf(AuthenticationError);
  });

  test('a tenant the token does not belong to is refused with 403', async () => {
    const { makeClient } = await harness();
    const error = await rejection(makeClient({ tenantId: 'tenant-other' }).identityRequests.create(person()));
    expect(error).toMatchObject({ code: 'ERR_PERMISSION_DENIED', status: 403, type: 'UNAUTHORIZED', serviceCode: 'E1004' });
  });
});

describe('configuration', () => {
  test.each([
    ['baseUrl', { baseUrl: '' }],
    ['baseUrl', { baseUrl: 'not a url' }],
    ['baseUrl', { baseUrl: 'http://api.example.com/api/v1' }],
    ['clientId', { clientId: undefined }],
    ['clientSecret', { clientSecret: '' }],
    ['tenantId', { tenantId: 'has space' }],
    ['timeoutMs', { timeoutMs: -1 }],
    ['maxRetries', { maxRetries: 1.5 }],
    ['timestampFormat', { timestampFormat: 'rfc2822' }],
  ] as const)('refuses a bad %s with a ConfigurationError', (option, change) => {
    expect(() => new AcmeIdentityClient({ ...base, ...change } as ClientOptions)).toThrow(ConfigurationError);
    try {
      new AcmeIdentityClient({ ...base, ...change } as ClientOptions);
    } catch (error) {
      expect(error).toMatchObject({ code: 'ERR_INVALID_CONFIG', option });
    }
  });

  test('property: every numeric option follows the one rule (errors/options.ts): a finite number, 0 or more, that a timer can hold; null or nothing takes the default; anything else is refused naming the option and its unit', () => {
    const MAX_TIMER_MS = 2 ** 31 - 1;
    const units = {
      timeoutMs: ' of milliseconds',
      tokenTimeoutMs: ' of milliseconds',
      tokenHedgeDelayMs: ' of milliseconds',
      maxRetryAfterMs: ' of milliseconds',
      refreshMarginSeconds: ' of seconds',
      maxRetries: '',
    } as const;
    const edges = fc.constantFrom(
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -1,
      -0,
      0,
      1.5,
      null,
      undefined,
      MAX_TIMER_MS,
      MAX_TIMER_MS + 1,
      '5',
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...(Object.keys(units) as (keyof typeof units)[])),
        fc.oneof(edges, fc.double(), fc.anything()),
        (name, value) => {
          const build = () => new AcmeIdentityClient({ ...base, [name]: value } as ClientOptions);
          const refused = (message: string) =>
            expect(build).toThrow(expect.objectContaining({ option: name, message: `${name}: ${message}` }));
          if (value === null || value === undefined) expect(build).not.toThrow();
          else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
            refused(`must be a finite number${units[name]}, 0 or more`);
          else if (name === 'maxRetries' && !Number.isInteger(value)) refused('must be a whole number');
          else if (name.endsWith('Ms') && value > MAX_TIMER_MS) refused(`must be at most ${MAX_TIMER_MS} ms (about 24.8 days)`);
          else expect(build).not.toThrow();
        },
      ),
      { numRuns: 400 },
    );
  });

  test('baseUrl may be a URL object: the client calls the same root as with its string', async () => {
    const { service } = await harness();
    const client = new AcmeIdentityClient({ ...base, baseUrl: new URL(service.baseUrl) });
    await expect(client.auth.accessToken()).resolves.toMatch(/^ey/);
    // Trailing slashes, however many, are not part of the root.
    const slashed = new AcmeIdentityClient({ ...base, baseUrl: `${service.baseUrl}///` });
    await expect(slashed.auth.createToken()).resolves.toMatchObject({ data: { access_token: expect.stringMatching(/^ey/) } });
    expect(() => new AcmeIdentityClient({ ...base, baseUrl: new URL('http://api.example.com/api/v1') })).toThrow(
      expect.objectContaining({ option: 'baseUrl' }),
    );
  });

  test('plain http is allowed for localhost; no other scheme, there or anywhere', () => {
    expect(() => new AcmeIdentityClient({ ...base, baseUrl: 'http://127.0.0.1:8080/api/v1' })).not.toThrow();
    expect(() => new AcmeIdentityClient({ ...base, baseUrl: 'http://localhost:8080/api/v1' })).not.toThrow();
    for (const baseUrl of [
      'ftp://localhost/api/v1',
      'ws://127.0.0.1:8080/api/v1',
      'file://localhost/api/v1',
      'wss://api.example.com/api/v1',
    ]) {
      expect(() => new AcmeIdentityClient({ ...base, baseUrl }), baseUrl).toThrow(expect.objectContaining({ option: 'baseUrl' }));
    }
  });

  test('a ConfigurationError does not echo the secret', () => {
    const error = (() => {
      try {
        new AcmeIdentityClient({ ...base, tenantId: 'bad tenant sk_live_1234' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(inspect(error)).not.toContain(base.clientSecret);
    expect(inspect(error)).not.toContain('sk_live_1234');
  });
});

test('a refused key pair never shows the client secret or a token in the error', async () => {
  const { makeClient } = await harness();
  const secret = 'sk_wrong_secret_never_printed';
  const error = await rejection(makeClient({ clientSecret: secret }).identityRequests.create(person()));
  expect(error).toBeInstanceOf(AuthenticationError);
  for (const text of [(error as Error).message, JSON.stringify(error), inspect(error, { depth: 10 })]) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain('jane.citizen@example.com');
  }
});
