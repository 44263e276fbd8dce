/** The fake answers as the spec says, whatever the client does: these tests speak raw HTTP to it. */
import { describe, expect, test } from 'vitest';
import { createFakeService, DEFAULT_CLIENT, openApiDocument, type FakeServiceOptions } from '../../src/testing/index.js';

const T0 = Date.UTC(2026, 10, 22, 12);

async function fake(options: FakeServiceOptions = {}) {
  const clock = { now: T0 };
  const service = await createFakeService({ now: () => clock.now, ...options });
  const call = async (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) => {
    const response = await service.fetch(
      new Request(`${service.baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...init.headers },
        ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
      }),
    );
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: the tests read answers of every shape by path
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, json, text };
  };
  const token = async () => {
    const { json } = await call('POST', '/auth/api-token', {
      body: { client_id: DEFAULT_CLIENT.clientId, client_secret: DEFAULT_CLIENT.clientSecret },
    });
    return json.data as { access_token: string; refresh_token: string; expires_in: number; expires: string };
  };
  const identityHeaders = async (extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${(await token()).access_token}`,
    'x-tenant-id': DEFAULT_CLIENT.tenantId,
    'x-request-timestamp': String(Math.floor(clock.now / 1000)),
    ...extra,
  });
  return { service, clock, call, token, identityHeaders };
}

const body = (overrides: Record<string, unknown> = {}) => ({
  first_name: 'Jane',
  last_name: 'Citizen',
  email: 'jane@example.com',
  phone: '412345678',
  phone_country_code: 61,
  purpose: 'kyc',
  return_url: 'https://rp.example/r',
  off_ramp_url: 'https://rp.example/o',
  claims: ['acmeidentity.given_name'],
  ...overrides,
});

describe('fake service: auth', () => {
  test('serves its OpenAPI document at /docs/spec', async () => {
    const { call } = await fake();
    const { status, json } = await call('GET', '/docs/spec');
    expect(status).toBe(200);
    expect(json).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });

  test('issues a wrapped token response with all four fields, the expiry as an RFC 2822 date', async () => {
    const { token } = await fake({ accessTokenTtlSeconds: 600 });
    const t = await token();
    expect(t.expires_in).toBe(600);
    expect(Date.parse(t.expires)).toBe(T0 + 600_000);
    expect(t.access_token.split('.')).toHaveLength(3);
  });

  test('a missing key pair field is E1001 naming it; a wrong secret is 401 with only type and code', async () => {
    const { call } = await fake();
    const missing = await call('POST', '/auth/api-token', { body: { client_id: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatchObject({
      code: 'E1001',
      type: 'VALIDATION_ERROR',
      details: { validation_errors: { client_secret: expect.any(String) } },
    });
    const wrong = await call('POST', '/auth/api-token', { body: { client_id: DEFAULT_CLIENT.clientId, client_secret: 'nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: { type: 'AUTHENTICATION_FAILED', code: 'E1003' } });
  });

  test("the absent: 'null' reading writes an error's absent message and details as null, and keeps those it has", async () => {
    const { call } = await fake({ readings: { absent: 'null' } });
    const wrong = await call('POST', '/auth/api-token', { body: { client_id: DEFAULT_CLIENT.clientId, client_secret: 'nope' } });
    expect(wrong.json).toEqual({ error: { type: 'AUTHENTICATION_FAILED', code: 'E1003', message: null, details: null } });
    const missing = await call('POST', '/auth/api-token', { body: { client_id: 'x' } });
    expect(missing.json.error).toMatchObject({
      message: expect.any(String),
      details: { validation_errors: { client_secret: expect.any(String) } },
    });
  });

  test('refresh tokens rotate: each works once', async () => {
    const { call, token } = await fake();
    const { refresh_token } = await token();
    expect((await call('POST', '/auth/api-token/refresh', { body: { refresh_token } })).status).toBe(200);
    expect((await call('POST', '/auth/api-token/refresh', { body: { refresh_token } })).status).toBe(401);
  });

  test('an expired access token is refused', async () => {
    const { call, clock, identityHeaders } = await fake({ accessTokenTtlSeconds: 60 });
    const headers = await identityHeaders();
    clock.now += 61_000;
    headers['x-request-timestamp'] = String(Math.floor(clock.now / 1000));
    expect((await call('POST', '/identity/request', { body: body(), headers })).status).toBe(401);
  });

  test.each([
    ['no Authorization', { authorization: '' }, 401],
    ['no X-Tenant-Id', { 'x-tenant-id': '' }, 401],
    ['no X-Request-Timestamp', { 'x-request-timestamp': '' }, 401],
    ['a stale X-Request-Timestamp', { 'x-request-timestamp': String(Math.floor(T0 / 1000) - 301) }, 401],
    ['a millisecond X-Request-Timestamp', { 'x-request-timestamp': String(T0) }, 401],
    ['another tenant', { 'x-tenant-id': 'tenant-other' }, 403],
  ])('identity endpoints refuse %s', async (_name, change, status) => {
    const { call, identityHeaders } = await fake();
    const headers = Object.fromEntries(Object.entries(await identityHeaders(change)).filter(([, v]) => v !== ''));
    const answer = await call('POST', '/identity/request', { body: body(), headers });
    expect(answer.status).toBe(status);
    expect(Object.keys(answer.json.error).sort()).toEqual(['code', 'type']);
  });
});

describe('fake service: identity requests', () => {
  test('reports every invalid field at once with E1001', async () => {
    const { call, identityHeaders } = await fake();
    const answer = await call('POST', '/identity/request', {
      body: body({ phone: '+61412345678', phone_country_code: '61', email: 'x', claims: ['acmeidentity.unknown'], expiry_hours: -1 }),
      headers: await identityHeaders(),
    });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.json.error.details.validation_errors).sort()).toEqual([
      'claims',
      'email',
      'expiry_hours',
      'phone',
      'phone_country_code',
    ]);
    expect(answer.json.error).toMatchObject({ correlation_id: expect.any(String), timestamp: expect.any(String) });
  });

  test.each([
    [{ 'document.passport.travel_document_number': { essential: true } }],
    [{ 'acmeidentity.given_name': { essential: true } }],
    [{ 'sanctionscheck.is_pep': { essential: false } }],
  ])('refuses a bad essential marker: %j', async (claims) => {
    const { call, identityHeaders } = await fake();
    const answer = await call('POST', '/identity/request', { body: body({ claims }), headers: await identityHeaders() });
    expect(answer.json.error.details.validation_errors).toHaveProperty('claims');
  });

  test('a malformed JSON body is E1002', async () => {
    const { call, identityHeaders } = await fake();
    const answer = await call('POST', '/identity/request', { body: '{"first_name":', headers: await identityHeaders() });
    expect(answer).toMatchObject({ status: 400, json: { error: { code: 'E1002', type: 'INVALID_REQUEST' } } });
  });

  test('conflicts with an open request to the same person, but not once it has expired', async () => {
    const { call, clock, identityHeaders } = await fake({ accessTokenTtlSeconds: 86_400 * 2 });
    const first = await call('POST', '/identity/request', { body: body({ expiry_hours: 1 }), headers: await identityHeaders() });
    const again = await call('POST', '/identity/request', { body: body({ phone: '499999999' }), headers: await identityHeaders() });
    expect(again.status).toBe(409);
    expect(again.json.error.details.existing_code).toBe(first.json.data.access_request_code);
    clock.now += 3_600_000;
    const later = await call('POST', '/identity/request', { body: body(), headers: await identityHeaders() });
    expect(later.status).toBe(200);
  });

  test.each([
    ['the same email in another case', { email: 'JANE@Example.COM', phone: '400000001' }, 409],
    ['the same phone and country code, another email', { email: 'other@example.com' }, 409],
    ['the same phone with another country code', { email: 'other@example.com', phone_country_code: 64 }, 200],
    ['another email and another phone', { email: 'other@example.com', phone: '400000001' }, 200],
  ])('the 409 rule: %s answers %i', async (_name, overrides, status) => {
    const { call, identityHeaders } = await fake();
    await call('POST', '/identity/request', { body: body(), headers: await identityHeaders() });
    expect((await call('POST', '/identity/request', { body: body(overrides), headers: await identityHeaders() })).status).toBe(status);
  });

  test('the 409 rule holds per client: another client may ask the same person', async () => {
    const other = { ...DEFAULT_CLIENT, clientId: 'other', clientSecret: 'other-secret-0123456789abcdef', tenantId: 'tenant-other' };
    const { call, identityHeaders, clock } = await fake({ clients: [DEFAULT_CLIENT, other] });
    await call('POST', '/identity/request', { body: body(), headers: await identityHeaders() });
    const token = await call('POST', '/auth/api-token', { body: { client_id: 'other', client_secret: other.clientSecret } });
    const headers = {
      authorization: `Bearer ${token.json.data.access_token}`,
      'x-tenant-id': other.tenantId,
      'x-request-timestamp': String(Math.floor(clock.now / 1000)),
    };
    expect((await call('POST', '/identity/request', { body: body(), headers })).status).toBe(200);
  });

  test('DELETE cancels without a webhook (the caller knows), and the person may be asked again', async () => {
    const { call, service, identityHeaders } = await fake();
    service.setWebhookUrl('https://rp.example/webhooks');
    const created = (await call('POST', '/identity/request', { body: body(), headers: await identityHeaders() })).json.data;
    const path = `/identity/request/${created.access_request_code}/${created.identity_session_code}`;
    expect((await call('DELETE', path, { headers: await identityHeaders() })).json.data).toEqual({ message: expect.any(String) });
    await service.webhooksSettled();
    expect(service.events).toEqual([]);
    expect(service.deliveries).toEqual([]);
    expect((await call('POST', '/identity/request', { body: body(), headers: await identityHeaders() })).status).toBe(200);
  });

  test('E2002 when the email fails, with the code and redirect URL of the request it still created', async () => {
    const { call, service, identityHeaders } = await fake();
    service.settings.emailDelivery = 'fail';
    const answer = await call('POST', '/identity/request', { body: body({ send_email: true }), headers: await identityHeaders() });
    expect(answer.status).toBe(500);
    expect(answer.json.error).toMatchObject({ code: 'E2002', type: 'INTERNAL_ERROR_EMAIL' });
    // details.code is the identity_session_code (the access_request_code comes with the webhook, and names the journey).
    const accessRequestCode = new URL(answer.json.error.details.redirect_url).pathname.split('/').at(-1)!;
    expect(service.identityRequest(accessRequestCode)?.identitySessionCode).toBe(answer.json.error.details.code);
  });
});

describe('fake service: credentials', () => {
  const credential = (overrides: Record<string, unknown> = {}) => ({
    type: 'acicncchc',
    person_ref: 'a/b',
    file_data: Buffer.from('%PDF-1.4 test').toString('base64'),
    file_name: 'x.pdf',
    issuer_name: 'RP',
    issuer_url: 'https://rp.example',
    issuer_ref: 'r-1',
    ...overrides,
  });

  async function submit(svc: Awaited<ReturnType<typeof fake>>, overrides: Record<string, unknown> = {}) {
    const { access_token } = await svc.token();
    return svc.call('POST', '/credentials/submit', { body: credential(overrides), headers: { authorization: `Bearer ${access_token}` } });
  }

  test('takes only Authorization: no tenant or timestamp needed', async () => {
    expect((await submit(await fake())).status).toBe(200);
  });

  test('413 for a file over 5 MB, with a type and code as every error has (the spec shows none for 413: E1001)', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 1, 0x25).toString('base64');
    const answer = await submit(await fake(), { file_data: big });
    expect(answer.status).toBe(413);
    expect(answer.json.error).toMatchObject({ type: 'VALIDATION_ERROR', code: 'E1001' });
  });

  test('422 for content that is not PNG, JPG or PDF, and for a mismatched extension', async () => {
    const svc = await fake();
    expect((await submit(svc, { file_data: Buffer.from('GIF89a').toString('base64'), file_name: 'x.gif' })).status).toBe(422);
    const mismatch = await submit(svc, { file_name: 'x.png', issuer_ref: 'r-2' });
    expect(mismatch.status).toBe(422);
    expect(mismatch.json.error).toMatchObject({ type: 'VALIDATION_ERROR', code: 'E1001' });
    expect(mismatch.json.error.details.validation_errors).toHaveProperty('file_name');
  });

  test('400 for a missing field, and display fields are required for types other than acicncchc', async () => {
    const svc = await fake({ credentialTypes: ['acicncchc', 'vevortw'] });
    const answer = await submit(svc, { type: 'vevortw' });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.json.error.details.validation_errors).sort()).toEqual(['description', 'name', 'time_expires']);
  });

  test('409 for a duplicate', async () => {
    const svc = await fake();
    await submit(svc);
    expect((await submit(svc)).json.error).toMatchObject({ code: 'E1006' });
  });

  test.each([
    ['no extension at all', { file_name: 'pdf' }, 'file_name'],
    ['only an extension', { file_name: '.pdf' }, 'file_name'],
    ['a path, not a file name', { file_name: 'scans/x.pdf' }, 'file_name'],
    ['an issuer_url that is not a URL', { issuer_url: 'rp.example' }, 'issuer_url'],
    ['an issuer_url that is not http(s)', { issuer_url: 'javascript:alert(1)' }, 'issuer_url'],
    ['a person_ref with whitespace', { person_ref: 'a b/c' }, 'person_ref'],
  ])('400 for %s, naming the field', async (_name, overrides, field) => {
    const answer = await submit(await fake(), overrides);
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ type: 'VALIDATION_ERROR', code: 'E1001' });
    expect(Object.keys(answer.json.error.details.validation_errors)).toEqual([field]);
  });

  test("any extension case is the content's extension: X.PDF and a.b.jpeg are accepted", async () => {
    const svc = await fake();
    expect((await submit(svc, { file_name: 'X.PDF' })).status).toBe(200);
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]).toString('base64');
    expect((await submit(svc, { file_data: jpeg, file_name: 'a.b.jpeg', issuer_ref: 'r-2' })).status).toBe(200);
  });

  describe('revoke: any credential the caller issued and has not revoked', () => {
    async function issued(svc: Awaited<ReturnType<typeof fake>>, overrides: Record<string, unknown> = {}) {
      const ref = (await submit(svc, overrides)).json.data.credential_ref as string;
      const { access_token } = await svc.token();
      const revoke = () => svc.call('POST', `/credentials/revoke/${ref}`, { headers: { authorization: `Bearer ${access_token}` } });
      const verify = () => svc.call('GET', `/credentials/verify/${ref}`, { headers: { authorization: `Bearer ${access_token}` } });
      return { ref, revoke, verify };
    }

    test.each(['pending_acceptance', 'verification_failed'] as const)(
      'a %s credential is revoked (verify answers 412 before, 410 after)',
      async (condition) => {
        const svc = await fake();
        const { ref, revoke, verify } = await issued(svc);
        svc.service.setCredentialCondition(ref, condition);
        expect((await verify()).status).toBe(412);
        const answer = await revoke();
        expect(answer.status).toBe(200);
        expect(answer.json.data).toEqual({ revoked: true });
        expect((await verify()).status).toBe(410);
      },
    );

    test('an expired credential is revoked', async () => {
      const svc = await fake();
      const { revoke, verify } = await issued(svc, { time_expires: Math.floor(T0 / 1000) + 60 });
      svc.clock.now += 120_000;
      expect((await verify()).json.error).toMatchObject({ code: 'E1009' });
      expect((await revoke()).json.data).toEqual({ revoked: true });
    });

    test("a revoked one answers 410, another client's 404", async () => {
      const svc = await fake({
        clients: [
          DEFAULT_CLIENT,
          { ...DEFAULT_CLIENT, clientId: 'other', clientSecret: 'other-secret-0123456789abcdef', tenantId: 'tenant-other' },
        ],
      });
      const { ref, revoke } = await issued(svc);
      const other = await svc.call('POST', '/auth/api-token', {
        body: { client_id: 'other', client_secret: 'other-secret-0123456789abcdef' },
      });
      const foreign = await svc.call('POST', `/credentials/revoke/${ref}`, {
        headers: { authorization: `Bearer ${other.json.data.access_token}` },
      });
      expect(foreign.status).toBe(404);
      expect((await revoke()).status).toBe(200);
      expect((await revoke()).status).toBe(410);
    });
  });
});

describe('fake service: limits and faults', () => {
  test('rate limits with 429, E1007 and Retry-After', async () => {
    const { call, service } = await fake();
    service.settings.rateLimit = { limit: 1, windowSeconds: 30 };
    await call('POST', '/auth/api-token', { body: {} });
    const limited = await call('POST', '/auth/api-token', { body: {} });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('30');
    expect(limited.json).toEqual({ error: { type: 'RATE_LIMIT_EXCEEDED', code: 'E1007' } });
  });

  test('a network fault rejects like a failed fetch; a malformed fault answers broken JSON', async () => {
    const { service, call } = await fake();
    service.injectFault({ kind: 'network', path: '/status/current' });
    await expect(service.fetch(new Request(`${service.baseUrl}/status/current`))).rejects.toBeInstanceOf(TypeError);
    service.injectFault({ kind: 'malformed', path: '/status/current' });
    expect((await call('GET', '/status/current')).json).toBeUndefined();
    expect((await call('GET', '/status/current')).json.status).toBe('operational');
  });

  test('answers carry its Date and echo X-Correlation-Id', async () => {
    const { call } = await fake();
    const answer = await call('GET', '/status/health', { headers: { 'x-correlation-id': 'abc' } });
    expect(Date.parse(answer.headers.get('date')!)).toBe(T0);
    expect(answer.headers.get('x-correlation-id')).toBe('abc');
  });

  test('an unknown path is a 404 E1005', async () => {
    const { call } = await fake();
    expect((await call('GET', '/nope')).json.error).toMatchObject({ code: 'E1005' });
  });
});

describe('fake service: discovery and the person journey', () => {
  test('discovery names the issuer, the JWKS and acme_claims_supported; the JWKS holds the signing key', async () => {
    const { service } = await fake();
    const discovery = await (await service.fetch(new Request(`${service.authUrl}/.well-known/openid-configuration`))).json();
    expect(discovery).toMatchObject({ issuer: service.authUrl, acme_claims_supported: expect.arrayContaining(['acmeidentity.name']) });
    const jwks = await (await service.fetch(new Request(discovery.jwks_uri))).json();
    expect(jwks.keys).toEqual([service.keys.publicJwk]);
    await service.rotateSigningKey();
    expect((await (await service.fetch(new Request(discovery.jwks_uri))).json()).keys).toHaveLength(2);
  });

  async function created(options: FakeServiceOptions = {}, overrides: Record<string, unknown> = {}) {
    const f = await fake(options);
    const { json } = await f.call('POST', '/identity/request', { body: body(overrides), headers: await f.identityHeaders() });
    return { ...f, arc: json.data.access_request_code as string, redirectUrl: json.data.redirect_url as string };
  }

  test('redirect_url is a page showing what is asked, with approve, partial and cancel', async () => {
    const { service, arc, redirectUrl } = await created();
    const page = await service.fetch(new Request(redirectUrl));
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    for (const action of ['approve', 'partial', 'cancel']) expect(html).toContain(`/journey/${arc}/${action}`);
    expect(html).toContain('acmeidentity.given_name');
    expect(service.identityRequest(arc)?.status).toBe('opened');
  });

  test.each([
    ['approve', 'approved', 'https://rp.example/r'],
    ['partial', 'approved', 'https://rp.example/o'],
    ['cancel', 'cancelled', 'https://rp.example/r'],
  ])('%s sends the person back and settles the request as %s', async (action, status, location) => {
    const { service, arc, redirectUrl } = await created();
    const answer = await service.fetch(new Request(`${redirectUrl}/${action}`, { method: 'POST' }));
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(location);
    expect(service.identityRequest(arc)?.status).toBe(status);
    expect(service.events.at(-1)).toMatchObject({ event: status, access_request_code: arc });
    if (action === 'partial') expect(service.identityRequest(arc)?.response?.['partially_complete']).toBe(true);
    const again = await service.fetch(new Request(`${redirectUrl}/approve`, { method: 'POST' }));
    expect(again.status).toBe(409);
  });

  test.each([
    ['as-given', 'https://rp.example/r?ref=a%2Bb'],
    ['appended', 'https://rp.example/r?ref=a%2Bb&status=completed&access_request_code=ARC'],
    ['concatenated', 'https://rp.example/r?ref=a%2Bb?status=completed&access_request_code=ARC'],
    ['unescaped', 'https://rp.example/r?ref=a+b&status=completed&access_request_code=ARC'],
  ] as const)('returnUrl %s: the person is sent back so', async (returnUrl, expected) => {
    const { service, arc, redirectUrl } = await created({ readings: { returnUrl } }, { return_url: 'https://rp.example/r?ref=a%2Bb' });
    const answer = await service.fetch(new Request(`${redirectUrl}/approve`, { method: 'POST' }));
    expect(answer.headers.get('location')).toBe(expected.replace('ARC', arc));
  });

  test('returnUrl unescaped: an escape that is no UTF-8 is left as it is, the outcome added after it', async () => {
    const { service, arc, redirectUrl } = await created(
      { readings: { returnUrl: 'unescaped' } },
      { return_url: 'https://rp.example/r?x=%E0' },
    );
    const answer = await service.fetch(new Request(`${redirectUrl}/cancel`, { method: 'POST' }));
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`https://rp.example/r?x=%E0&status=cancelled&access_request_code=${arc}`);
  });
});
