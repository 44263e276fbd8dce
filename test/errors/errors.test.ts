import { inspect } from 'node:util';
import { describe, expect, test } from 'vitest';
import * as sdk from '../../src/index.js';
import { apiErrorFrom, type ApiErrorInit } from '../../src/errors/index.js';

const init = (status: number, body: ApiErrorInit['body'], headers: Record<string, string> = {}): ApiErrorInit => ({
  status,
  body,
  requestCorrelationId: 'sent-corr',
  headers: new Headers(headers),
});

describe('apiErrorFrom maps the spec error table to classes', () => {
  const table: [code: string, type: string, status: number, cls: new (...args: never[]) => sdk.ApiError, sdkCode: sdk.ErrorCode][] = [
    ['E1001', 'VALIDATION_ERROR', 400, sdk.ValidationError, 'ERR_VALIDATION'],
    ['E1002', 'INVALID_REQUEST', 400, sdk.BadRequestError, 'ERR_BAD_REQUEST'],
    ['E1003', 'AUTHENTICATION_FAILED', 401, sdk.AuthenticationError, 'ERR_AUTHENTICATION'],
    ['E1004', 'UNAUTHORIZED', 403, sdk.PermissionDeniedError, 'ERR_PERMISSION_DENIED'],
    ['E1005', 'NOT_FOUND', 404, sdk.NotFoundError, 'ERR_NOT_FOUND'],
    ['E1006', 'CONFLICT', 409, sdk.ConflictError, 'ERR_CONFLICT'],
    ['E1007', 'RATE_LIMIT_EXCEEDED', 429, sdk.RateLimitError, 'ERR_RATE_LIMITED'],
    ['E1008', 'PRECONDITION_FAILED', 412, sdk.PreconditionFailedError, 'ERR_PRECONDITION_FAILED'],
    ['E1009', 'CREDENTIAL_EXPIRED', 412, sdk.CredentialExpiredError, 'ERR_CREDENTIAL_EXPIRED'],
    ['E1010', 'CREDENTIAL_REVOKED', 412, sdk.CredentialRevokedError, 'ERR_CREDENTIAL_REVOKED'],
    ['E1011', 'CREDENTIAL_PENDING_ACCEPTANCE', 412, sdk.CredentialPendingAcceptanceError, 'ERR_CREDENTIAL_PENDING_ACCEPTANCE'],
    ['E1012', 'CREDENTIAL_VERIFICATION_FAILED', 412, sdk.CredentialVerificationFailedError, 'ERR_CREDENTIAL_VERIFICATION_FAILED'],
    ['E2001', 'INTERNAL_ERROR', 500, sdk.InternalServerError, 'ERR_INTERNAL'],
    ['E2002', 'INTERNAL_ERROR_EMAIL', 500, sdk.EmailDeliveryError, 'ERR_EMAIL_DELIVERY'],
    ['E2003', 'DATABASE_ERROR', 500, sdk.DatabaseError, 'ERR_DATABASE'],
    ['E2004', 'EXTERNAL_SERVICE_ERROR', 502, sdk.ExternalServiceError, 'ERR_EXTERNAL_SERVICE'],
    ['E2005', 'SERVICE_UNAVAILABLE', 503, sdk.ServiceUnavailableError, 'ERR_SERVICE_UNAVAILABLE'],
  ];

  test.each(table)('%s %s (HTTP %i) by code', (code, type, status, cls, sdkCode) => {
    const error = apiErrorFrom(init(status, { code, type, correlation_id: 'svc-corr' }));
    expect(error).toBeInstanceOf(cls);
    expect(error).toBeInstanceOf(sdk.AcmeIdentityError);
    expect(error).toMatchObject({ code: sdkCode, status, type, serviceCode: code, correlationId: 'svc-corr' });
  });

  test.each(table)('%s %s (HTTP %i) by type alone', (_code, type, status, cls) => {
    expect(apiErrorFrom(init(status, { type }))).toBeInstanceOf(cls);
  });

  // Every status the spec's table or its credential rules name, each without a code or type.
  test.each([
    [400, sdk.BadRequestError],
    [404, sdk.NotFoundError],
    [409, sdk.ConflictError],
    [410, sdk.CredentialRevokedError],
    [412, sdk.PreconditionFailedError],
    [413, sdk.PayloadTooLargeError],
    [422, sdk.ValidationError],
    [401, sdk.AuthenticationError],
    [403, sdk.PermissionDeniedError],
    [429, sdk.RateLimitError],
    [500, sdk.InternalServerError],
    [502, sdk.ExternalServiceError],
    [503, sdk.ServiceUnavailableError],
    [504, sdk.InternalServerError],
    [418, sdk.ApiError],
  ] as const)('HTTP %i with no body code maps by status', (status, cls) => {
    const error = apiErrorFrom(init(status, undefined));
    expect(error).toBeInstanceOf(cls);
    expect(error.correlationId).toBe('sent-corr');
  });

  test('a 422 exposes its validation_errors like a 400', () => {
    const error = apiErrorFrom(init(422, { details: { validation_errors: { file_name: 'bad extension' } } })) as sdk.ValidationError;
    expect(error.fields).toEqual(['file_name']);
    expect(error.validationErrors).toEqual({ file_name: 'bad extension' });
  });

  test('validation_errors as a list, as common validators write it, names the same fields (#39, every spelling)', () => {
    for (const list of [
      [
        { field: 'email', message: 'must be an email address' },
        { field: 'phone', message: 'digits only' },
      ],
      [
        { loc: ['body', 'email'], msg: 'must be an email address' },
        { name: 'phone', error: 'digits only' },
      ],
    ]) {
      const error = apiErrorFrom(init(400, { code: 'E1001', details: { validation_errors: list } })) as sdk.ValidationError;
      expect(error.fields).toHaveLength(2);
      expect(error.fields.join(' ')).toMatch(/email/);
      expect(error.fields.join(' ')).toMatch(/phone/);
      expect(error.message).not.toMatch(/\b0\b/);
    }
  });

  test('a refused field named __proto__ is named like any other, in either form (never taken for the prototype)', () => {
    const map = JSON.parse('{"__proto__":"not allowed","email":"must be an email address"}');
    for (const validationErrors of [
      map,
      [
        { field: '__proto__', message: 'not allowed' },
        { field: 'email', message: 'must be an email address' },
      ],
    ]) {
      const error = apiErrorFrom(init(400, { code: 'E1001', details: { validation_errors: validationErrors } })) as sdk.ValidationError;
      expect(error.fields).toEqual(['__proto__', 'email']);
      expect(Object.getPrototypeOf(error.validationErrors)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(error.validationErrors, '__proto__')?.value).toBe('not allowed');
    }
  });

  test('a RateLimitError carries the wait it was given', () => {
    expect(apiErrorFrom(init(429, { type: 'RATE_LIMIT_EXCEEDED', code: 'E1007' }), 3000)).toMatchObject({ retryAfterMs: 3000 });
  });
});

describe('no secret or personal data leaks from errors', () => {
  const SECRET = 'sk_live_do_not_print_me';
  const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ0b2tlbiJ9.c2lnbmF0dXJl';
  const PERSONAL = 'jane.secret@example.com';
  const body = {
    message: `Email ${PERSONAL} with token ${TOKEN} is invalid (secret ${SECRET})`,
    type: 'VALIDATION_ERROR',
    code: 'E1001',
    details: { validation_errors: { email: `${PERSONAL} is not allowed` }, redirect_url: `https://x/${TOKEN}`, code: 'arc' },
  };
  const headers = { 'set-cookie': `session=${TOKEN}`, authorization: `Bearer ${TOKEN}` };

  const errors: [string, Error][] = [
    ...[400, 401, 403, 404, 409, 410, 412, 413, 422, 429, 500, 502, 503].map(
      (status) => [`HTTP ${status}`, apiErrorFrom(init(status, body, headers), 1000)] as [string, Error],
    ),
    ['E2002', apiErrorFrom(init(500, { ...body, type: 'INTERNAL_ERROR_EMAIL', code: 'E2002' }, headers))],
    ['ConnectionError', new sdk.ConnectionError('c', new TypeError(`fetch failed`))],
    ['TimeoutError', new sdk.TimeoutError('c', 1000)],
    ['AbortError', new sdk.AbortError('c', 'user cancelled')],
    ['InvalidResponseError', new sdk.InvalidResponseError(200, 'c', 'not JSON', ['data.access_token'])],
    ['InvalidInputError', new sdk.InvalidInputError([{ field: 'email', message: 'must be an email address' }])],
    ['ConfigurationError', new sdk.ConfigurationError('clientSecret', 'is required')],
    [
      'SdJwtVerificationError',
      new sdk.SdJwtVerificationError('ERR_SD_JWT_DIGEST_MISMATCH', 'the digest of claim acmeidentity.email is not in _sd'),
    ],
    ['JwksError', new sdk.JwksError('https://auth.example/jwks', 'answered HTTP 500')],
    ['IdentityFlowError', new sdk.IdentityFlowError('fetch', 'GET /identity/response failed', apiErrorFrom(init(401, body, headers)))],
  ];

  test('verifying a tampered response never prints the disclosed values', async () => {
    const { verifyIdentityResponse } = await import('../../src/sd-jwt/index.js');
    const data = {
      exp: 4_102_444_800,
      request_code: 'isc_1',
      _sd: ['x'],
      disclosures: [{ claim: 'acmeidentity.email', salt: 's', value: PERSONAL }],
    };
    const error = (await verifyIdentityResponse({ data }, { requestCode: 'isc_1' }).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(sdk.SdJwtVerificationError);
    for (const text of [error.message, JSON.stringify(error), inspect(error, { depth: 10 })]) expect(text).not.toContain(PERSONAL);
  });

  test('a claim that cannot be decoded is named, its value is not printed', () => {
    let error: unknown;
    try {
      sdk.readClaim({ 'acmeidentity.name': `{"first_name": "${PERSONAL}"` }, 'acmeidentity.name');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(sdk.ClaimDecodeError);
    for (const text of [(error as Error).message, JSON.stringify(error), inspect(error, { depth: 10 })])
      expect(text).not.toContain(PERSONAL);
  });

  test.each(errors)('%s: not in message, JSON.stringify, util.inspect or enumerable keys', (_name, error) => {
    const renderings = [error.message, JSON.stringify(error), inspect(error, { depth: 10 }), String(error), Object.values(error).join(' ')];
    for (const text of renderings) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(PERSONAL);
    }
  });

  test('the service message and details stay reachable in code', () => {
    const error = apiErrorFrom(init(400, body, headers)) as sdk.ValidationError;
    expect(error.serviceMessage).toBe(body.message);
    expect(error.details).toEqual(body.details);
    expect(error.validationErrors['email']).toContain(PERSONAL);
    expect(error.headers.get('set-cookie')).toContain(TOKEN);
  });

  test('JSON.stringify gives a useful, safe summary', () => {
    const json = JSON.parse(
      JSON.stringify(apiErrorFrom(init(409, { type: 'CONFLICT', code: 'E1006', details: { existing_code: 'arc_1' } }))),
    );
    expect(json).toMatchObject({ name: 'ConflictError', code: 'ERR_CONFLICT', status: 409, serviceCode: 'E1006', existingCode: 'arc_1' });
  });
});

describe('statuses with one meaning win over the body', () => {
  test('a 413 is PayloadTooLargeError even when its body says E1001', () => {
    const error = apiErrorFrom(init(413, { code: 'E1001', type: 'VALIDATION_ERROR' }));
    expect(error).toBeInstanceOf(sdk.PayloadTooLargeError);
    expect(error).toMatchObject({ code: 'ERR_PAYLOAD_TOO_LARGE', serviceCode: 'E1001' });
  });

  test('a 410 is CredentialRevokedError whatever code its body names', () => {
    expect(apiErrorFrom(init(410, { code: 'E1005', type: 'NOT_FOUND' }))).toBeInstanceOf(sdk.CredentialRevokedError);
  });

  test('a 429 is RateLimitError whatever code its body names', () => {
    expect(apiErrorFrom(init(429, { code: 'E2001', type: 'INTERNAL_ERROR' }), 3_000)).toMatchObject({
      code: 'ERR_RATE_LIMITED',
      retryAfterMs: 3_000,
    });
  });

  test('on a credential endpoint, a 412 without a known code is a failed verification', () => {
    expect(apiErrorFrom(init(412, { message: 'no' }), undefined, { credential: true })).toBeInstanceOf(
      sdk.CredentialVerificationFailedError,
    );
    expect(apiErrorFrom(init(412, { message: 'no' }))).toBeInstanceOf(sdk.PreconditionFailedError);
    // A code the table knows still decides.
    expect(apiErrorFrom(init(412, { code: 'E1009' }), undefined, { credential: true })).toBeInstanceOf(sdk.CredentialExpiredError);
  });

  test.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('a code named %s picks no class from the prototype', (code) => {
    const error = apiErrorFrom(init(404, { code, type: code }));
    expect(error).toBeInstanceOf(sdk.NotFoundError);
    expect(error).toBeInstanceOf(sdk.ApiError);
  });
});

describe('what the server wrote is made printable before it reaches a message (log injection)', () => {
  test('control characters and line breaks in type and code do not reach the message', () => {
    const forged = 'E1001\n2026-11-24T00:00:00Z level=info msg="login ok" user=admin\r\u001b[2J\u2028';
    const error = apiErrorFrom(init(400, { code: forged, type: 'VALIDATION_ERROR\u0000\u0085' }));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be there
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(error.serviceCode).not.toMatch(/[\n\r]/);
    expect(error.type).toBe('VALIDATION_ERROR  ');
    // The raw body stays reachable, but not enumerable.
    expect(error.body?.code).toBe(forged);
    expect(Object.keys(error)).not.toContain('body');
    // A logger that serialises the error writes one line: no escaped line break or escape sequence.
    expect(JSON.stringify(error)).not.toMatch(/\\[nr]|\\u001b|\\u2028/);
  });

  test('a megabyte of type or code is cut to 64 characters in the message and the fields', () => {
    const huge = 'A'.repeat(1 << 20);
    const error = apiErrorFrom(init(500, { code: huge, type: huge, correlation_id: huge }));
    // Summary, status, type and code (64 each) and the correlation id (128): bounded whatever the service sent.
    expect(error.message.length).toBeLessThan(400);
    expect(error.serviceCode).toHaveLength(65); // 64 and an ellipsis
    expect(error.correlationId!.length).toBeLessThanOrEqual(129);
    expect(inspect(error).length).toBeLessThan(4_000);
  });

  test('validation field names are made printable, and at most ten are named', () => {
    const validation_errors = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`field${i}\nforged`, 'bad']));
    const error = apiErrorFrom(init(400, { code: 'E1001', details: { validation_errors } })) as sdk.ValidationError;
    expect(error.message).not.toContain('\n');
    expect(error.message).toContain('and 15 more');
    expect(error.fields).toHaveLength(25);
  });

  test('existing_code and the E2002 request code are made printable', () => {
    const conflict = apiErrorFrom(init(409, { code: 'E1006', details: { existing_code: 'arc_1\r\nX-Forged: 1' } })) as sdk.ConflictError;
    expect(conflict.existingCode).toBe('arc_1  X-Forged: 1');
    const email = apiErrorFrom(init(500, { code: 'E2002', details: { code: 'arc_2\u0007' } })) as sdk.EmailDeliveryError;
    expect(email.requestCode).toBe('arc_2 ');
  });

  test('E2002 whose details name both codes, as the creation answers them: each kept, requestCode the one that retrieves the result', () => {
    const both = { access_request_code: 'arc_9', identity_session_code: 'isc_9', redirect_url: 'https://id.example/r/9' };
    const email = apiErrorFrom(init(500, { code: 'E2002', details: both })) as sdk.EmailDeliveryError;
    expect(email).toMatchObject({
      accessRequestCode: 'arc_9',
      identitySessionCode: 'isc_9',
      requestCode: 'isc_9',
      redirectUrl: both.redirect_url,
    });
    // details.code, when given, stays requestCode; the named codes are kept beside it.
    const withCode = apiErrorFrom(init(500, { code: 'E2002', details: { ...both, code: 'arc_9' } })) as sdk.EmailDeliveryError;
    expect(withCode).toMatchObject({ requestCode: 'arc_9', accessRequestCode: 'arc_9', identitySessionCode: 'isc_9' });
    const onlyAccess = apiErrorFrom(init(500, { code: 'E2002', details: { access_request_code: 'arc_8' } })) as sdk.EmailDeliveryError;
    expect(onlyAccess).toMatchObject({ requestCode: 'arc_8', accessRequestCode: 'arc_8', identitySessionCode: undefined });
    const none = apiErrorFrom(init(500, { code: 'E2002', details: { identity_session_code: 7 } })) as sdk.EmailDeliveryError;
    expect(none).toMatchObject({ requestCode: undefined, identitySessionCode: undefined });
  });

  test("a 409 whose details name the existing request's codes, as the creation answers them: each kept, existingCode the access_request_code", () => {
    const conflict = (details: Record<string, unknown>) => apiErrorFrom(init(409, { code: 'E1006', details })) as sdk.ConflictError;
    const both = { access_request_code: 'arc_9', identity_session_code: 'isc_9' };
    expect(conflict(both)).toMatchObject({ existingCode: 'arc_9', accessRequestCode: 'arc_9', identitySessionCode: 'isc_9' });
    expect(conflict(both).message).toContain('existingCode arc_9');
    // existing_code, when given, stays existingCode; the named codes are kept beside it.
    expect(conflict({ ...both, existing_code: 'x_1' })).toMatchObject({ existingCode: 'x_1', accessRequestCode: 'arc_9' });
    expect(conflict({ identity_session_code: 'isc_8' })).toMatchObject({ existingCode: 'isc_8', accessRequestCode: undefined });
    expect(conflict({ access_request_code: 7, identity_session_code: 'isc\r\n7' })).toMatchObject({
      existingCode: 'isc  7',
      accessRequestCode: undefined,
      identitySessionCode: 'isc  7',
    });
  });
});

describe('messages a person can act on', () => {
  test.each<[string, number, Record<string, unknown>, RegExp]>([
    [
      'a conflict names the open request and how to reuse it',
      409,
      { type: 'CONFLICT', code: 'E1006', details: { existing_code: 'arc_9' } },
      /^an open identity request to this person exists \(existingCode arc_9\): use it, or delete it and create the request again \(HTTP 409, CONFLICT E1006, correlation id corr-1\)$/,
    ],
    [
      'a rate limit says when to retry',
      429,
      { type: 'RATE_LIMIT_EXCEEDED', code: 'E1007' },
      /^rate limited by the service: retry after 30 s \(HTTP 429, RATE_LIMIT_EXCEEDED E1007, correlation id corr-1\)$/,
    ],
    ['a 410 without a body says what happened', 410, {}, /^the credential was revoked \(HTTP 410, correlation id corr-1\)$/],
    [
      'an authentication failure says what to check',
      401,
      { type: 'AUTHENTICATION_FAILED', code: 'E1003' },
      /check clientId and clientSecret/,
    ],
    [
      'a validation error names the fields',
      400,
      { code: 'E1001', details: { validation_errors: { email: 'bad' } } },
      /^the service refused a parameter: email \(see validationErrors\) \(HTTP 400, E1001/,
    ],
  ])('%s', (_name, status, body, expected) => {
    const headers = new Headers(status === 429 ? { 'retry-after': '30' } : {});
    const error = apiErrorFrom({ status, body, requestCorrelationId: 'corr-1', headers }, status === 429 ? 30_000 : undefined);
    expect(error.message).toMatch(expected);
  });

  test('a wait that is not whole seconds is said rounded up, never shorter than asked; an error with no correlation id names none', () => {
    const rate = (ms: number) => apiErrorFrom({ ...init(429, { code: 'E1007' }), requestCorrelationId: undefined }, ms).message;
    expect(rate(1_500)).toMatch(/^rate limited by the service: retry after 2 s \(HTTP 429, E1007\)$/);
    expect(rate(2_000)).toMatch(/retry after 2 s /);
    expect(rate(1)).toMatch(/retry after 1 s /);
    expect(apiErrorFrom({ ...init(404, {}), requestCorrelationId: undefined }).message).not.toContain('correlation id');
  });

  test("an unreadable response's correlation id (from the answer's header) is kept printable and bounded", () => {
    const error = new sdk.InvalidResponseError(200, `corr\u0085\u2028${'x'.repeat(300)}`, 'the body is not JSON');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be there
    expect(error.correlationId).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(error.correlationId!.length).toBeLessThanOrEqual(129);
  });

  test('names are string literals that survive minification', () => {
    for (const [name, value] of Object.entries(sdk)) {
      if (typeof value === 'function' && value.prototype instanceof sdk.AcmeIdentityError) {
        // Each class sets its own (a class that forgot would take its parent's name).
        expect(Object.getOwnPropertyDescriptor(value, 'errorName')?.value, name).toBe(name);
        expect((Object.create(value.prototype) as Error).name).toBe(name);
        // On the prototype, not a field of each error.
        expect(Object.keys(Object.create(value.prototype) as object)).not.toContain('name');
      }
    }
  });
});

describe('ConnectionError', () => {
  test('names the phase and the system error code, found along the cause chain', () => {
    const cause = new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
    const error = new sdk.ConnectionError('c', cause, 'body');
    expect(error).toMatchObject({ code: 'ERR_CONNECTION', phase: 'body', systemCode: 'UND_ERR_SOCKET' });
    expect(error.message).toBe('the connection to the service failed while the response body was read (UND_ERR_SOCKET)');
    expect(new sdk.ConnectionError('c', cause, 'send', 'api.acme.test').message).toBe('could not reach api.acme.test (UND_ERR_SOCKET)');
    expect(new sdk.ConnectionError('c', new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })).message).toBe(
      'could not reach the service (ECONNREFUSED)',
    );
  });

  test('a code that is not of the system form is left out of the message', () => {
    const error = new sdk.ConnectionError('c', { code: 'not a code\nforged' });
    expect(error.systemCode).toBeUndefined();
    expect(error.message).toBe('could not reach the service');
  });
});
