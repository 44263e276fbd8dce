/** `acme-identity doctor` (#29) against the fake: a sound deployment, the readings of the spec's open choices, and each thing an integrator gets wrong. */
import { describe, expect, test } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { formatReport, runDoctor, type DoctorConfig } from '../../src/cli/doctor.js';
import { contractDrift } from '../../src/cli/drift.js';
import { runDoctorWithReceiver } from '../../src/cli/doctor-webhook.js';
import { createWebhookReceiver, createWebhookVerifier } from '../../src/webhooks/index.js';
import { openApiDocument } from '../../src/contract/openapi.js';
import { DEFAULT_CLIENT, createFakeService, type FakeReadings } from '../../src/testing/index.js';
import { describeReadings, pairwise } from '../readings/space.js';
import { soundConfig } from './doctor-config.js';

async function doctor(
  options: {
    readings?: FakeReadings;
    config?: Partial<DoctorConfig>;
    fetch?: (f: (r: Request) => Promise<Response>) => (r: Request) => Promise<Response>;
  } = {},
) {
  const service = await createFakeService({ readings: options.readings ?? {} });
  const fetch = options.fetch ? options.fetch(service.fetch) : service.fetch;
  const report = await runDoctor({
    baseUrl: service.baseUrl,
    authUrl: service.authUrl,
    clientId: DEFAULT_CLIENT.clientId,
    clientSecret: DEFAULT_CLIENT.clientSecret,
    tenantId: DEFAULT_CLIENT.tenantId,
    fetch,
    ...options.config,
  });
  const byName = Object.fromEntries(report.checks.map((check) => [check.name, check]));
  return { report, byName, text: formatReport(report, false) };
}

/** A `doctor({ fetch })` wrapper: `answer()` at a path ending in `path`, the service's own answer elsewhere. */
function answeredAt(path: string, answer: () => Response) {
  return (f: (r: Request) => Promise<Response>) => async (request: Request) =>
    new URL(request.url).pathname.endsWith(path) ? answer() : f(request);
}

/**
 * A `doctor({ fetch })` wrapper: each request to a path containing `path` is shown to `see`; what
 * `see` answers is the answer, and the service answers when it answers nothing.
 */
function watchedAt(path: string, see: (request: Request) => Response | undefined) {
  return (f: (r: Request) => Promise<Response>) => async (request: Request) =>
    (new URL(request.url).pathname.includes(path) ? see(request) : undefined) ?? f(request);
}

/** A `doctor({ fetch })` wrapper: the JSON answer at a path ending in `path`, changed by `change` (its Date kept). */
function answerChanged(path: string, change: (body: Record<string, unknown>) => Record<string, unknown>) {
  return (f: (r: Request) => Promise<Response>) => async (request: Request) => {
    const response = await f(request);
    if (!new URL(request.url).pathname.endsWith(path)) return response;
    return Response.json(change((await response.json()) as Record<string, unknown>), {
      headers: { date: response.headers.get('date') ?? '' },
    });
  };
}

/** An OpenAPI document as the drift tests edit it: only the members they touch are typed. */
type EditableDocument = {
  components?: { schemas: Record<string, unknown> };
  definitions?: Record<string, unknown>;
  paths: Record<
    string,
    Record<
      string,
      {
        requestBody?: { content: Record<string, { schema: unknown }> };
        parameters?: unknown[];
        responses: Record<string, { description: string; content?: Record<string, { schema: unknown }>; schema?: unknown }>;
      }
    >
  >;
};

describe('acme-identity doctor', () => {
  test('a sound deployment: every check passes, and no secret is in the report', async () => {
    const { report, byName, text } = await doctor();
    expect(report.ok).toBe(true);
    expect(report.checks.filter((c) => c.status !== 'ok')).toEqual([]);
    for (const name of [
      'base URL',
      'reachable',
      'health',
      'version',
      'API token',
      'tenant',
      'clock',
      'token answer',
      'error bodies',
      'OIDC discovery',
      'claims',
      'JWKS',
      'contract',
    ])
      expect(byName[name], name).toBeDefined();
    expect(byName['contract']?.detail).toContain('matches');
    const json = JSON.stringify(report);
    for (const secret of [DEFAULT_CLIENT.clientSecret, DEFAULT_CLIENT.tenantId]) {
      expect(json).not.toContain(secret);
      expect(text).not.toContain(secret);
    }
    expect(json).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\./);
    expect(text).toContain('✓ API token');
  });

  test("against services covering every pair of readings: doctor fails nowhere the SDK's flows succeed (test/readings/matrix.test.ts runs those flows on the same services)", async () => {
    for (const readings of pairwise()) {
      const { report } = await doctor({ readings });
      expect(
        report.checks.filter((c) => c.status === 'fail'),
        describeReadings(readings),
      ).toEqual([]);
    }
    // A doctor run per service: 7 s alone, 20 s beside a mutation run. The timeout is room, never a goal.
  }, 120_000);

  test('the X-Request-Timestamp format the SDK cannot detect: doctor finds the one the service takes and names the setting with its value', async () => {
    for (const timestampFormat of ['unix-ms', 'iso8601'] as const) {
      const { byName } = await doctor({ readings: { timestampFormat } });
      expect(byName['tenant']).toMatchObject({ status: 'fail', option: `timestampFormat: '${timestampFormat}'` });
      // Set as doctor says: the SDK's read goes through.
      const fixed = await doctor({ readings: { timestampFormat }, config: { timestampFormat } });
      expect(fixed.byName['tenant']?.status).toBe('ok');
      // With --journey, nothing is created on a service that refuses this format: the run stops at the tenant.
      const journey = await doctor({ readings: { timestampFormat }, config: { journey: true } });
      expect(journey.report.checks.filter((check) => check.name.startsWith('journey'))).toEqual([]);
    }
  });

  test('errors answered 200 (the errorStatus reading): the tenant passes on the NOT_FOUND the body carries, and a warning says what the SDK cannot do with such errors', async () => {
    const { byName } = await doctor({ readings: { errorStatus: 'ok' } });
    expect(byName['tenant']).toMatchObject({ status: 'ok', detail: expect.stringContaining("200 with the service's NOT_FOUND") });
    expect(byName['error statuses']).toMatchObject({ status: 'warn', detail: expect.stringContaining('HTTP 200') });
    expect(byName['error bodies']).toBeUndefined();
    // With the spec's statuses: no such warning, and the error body's form is reported.
    const spec = await doctor();
    expect(spec.byName['error statuses']).toBeUndefined();
    expect(spec.byName['error bodies']).toMatchObject({ status: 'ok' });
    expect(spec.byName['tenant']?.detail).toContain('404, as it should');
  });

  test("a token lifetime the SDK sets aside (an expires without a zone): a warning with the SDK's own line, not a ✓", async () => {
    const { byName } = await doctor({ readings: { expiresForm: 'naive' } });
    expect(byName['API token']).toMatchObject({ status: 'warn', detail: expect.stringContaining('token lifetime: using') });
    expect(byName['API token']?.detail).toMatch(/the SDK uses a lifetime of (899|900) s/);
  });

  test('a status answer from a cache (Age, an old Date) is not blamed on this machine’s clock', async () => {
    const { byName } = await doctor({
      readings: { dateHeader: 'omitted' },
      fetch: (inner) => async (request) => {
        const response = await inner(request);
        if (!new URL(request.url).pathname.endsWith('/status/health')) return response;
        const headers = new Headers(response.headers);
        headers.set('date', new Date(Date.now() - 400_000).toUTCString());
        headers.set('age', '400');
        return new Response(response.body, { status: response.status, headers });
      },
    });
    expect(byName['clock']).toMatchObject({ status: 'ok', detail: expect.stringContaining('Age 400 s') });
  });

  test('an auth URL on plain http: (not loopback) fails OIDC discovery as the verifiers would refuse it, and is never fetched', async () => {
    const asked: string[] = [];
    const { byName, report } = await doctor({
      config: { authUrl: 'http://auth.example' },
      fetch: (inner) => async (request) => {
        asked.push(request.url);
        return inner(request);
      },
    });
    expect(report.ok).toBe(false);
    expect(byName['OIDC discovery']).toMatchObject({ status: 'fail', option: 'authUrl', detail: expect.stringMatching(/authUrl.*https:/) });
    expect(asked.filter((url) => url.startsWith('http://auth.example'))).toEqual([]);
  });

  test('a JWKS that publishes private or secret key material fails, whatever the key type, and the report never shows it', async () => {
    const secret = 'c2VjcmV0LWtleS1tYXRlcmlhbC0wMTIzNDU2Nzg5';
    // Each way a published key can carry what only its owner may hold: RSA's private exponent and
    // primes, EC's and OKP's private scalar, a symmetric key's bytes.
    const leaks: Record<string, unknown>[] = [
      { d: secret },
      { p: secret, q: secret, dp: secret, dq: secret, qi: secret },
      { kty: 'oct', k: secret, kid: 'shared', alg: 'HS256' },
      { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', d: secret, kid: 'ed' },
    ];
    for (const leak of leaks) {
      const { byName, text } = await doctor({
        fetch: (f) => async (request) => {
          const response = await f(request);
          const body = (await response
            .clone()
            .json()
            .catch(() => undefined)) as { keys?: Record<string, unknown>[] } | undefined;
          if (!Array.isArray(body?.keys)) return response;
          // Merged into the service's first key when it names no key type of its own, else published beside it.
          const keys = 'kty' in leak ? [...body.keys, leak] : [{ ...body.keys[0], ...leak }, ...body.keys.slice(1)];
          return Response.json({ keys });
        },
      });
      expect({ leak: Object.keys(leak), status: byName['JWKS']?.status, detail: byName['JWKS']?.detail }).toEqual({
        leak: Object.keys(leak),
        status: 'fail',
        detail: expect.stringContaining('1 PRIVATE'),
      });
      expect(text).not.toContain(secret);
    }
  });

  test('the health record: degraded, or a database in error, is a warning that says so; a status not stated (every field is optional) is no warning', async () => {
    const unstated = await doctor({ fetch: answerChanged('/status/health', ({ status: _, ...rest }) => rest) });
    expect(unstated.byName['health']).toEqual({ name: 'health', status: 'ok', detail: expect.stringContaining('status not stated') });
    const degraded = await doctor({ fetch: answerChanged('/status/health', (record) => ({ ...record, status: 'degraded' })) });
    expect(degraded.byName['health']).toMatchObject({ status: 'warn', advice: 'the service reports itself degraded' });
    // A database in error under a status still healthy (or not stated) is no clean bill either.
    const databaseDown = await doctor({ fetch: answerChanged('/status/health', (record) => ({ ...record, database: 'error' })) });
    expect(databaseDown.byName['health']).toMatchObject({ status: 'warn', advice: 'the service reports its database error' });
    // A status the spec does not list is no clean bill either: status.health() refuses it as unreadable.
    const down = await doctor({ fetch: answerChanged('/status/health', (record) => ({ ...record, status: 'down' })) });
    expect(down.byName['health']).toMatchObject({ status: 'fail', detail: expect.stringContaining('cannot read GET /status/health') });
    const bothDown = await doctor({
      fetch: answerChanged('/status/health', (record) => ({ ...record, status: 'degraded', database: 'error' })),
    });
    expect(bothDown.byName['health']).toMatchObject({
      status: 'warn',
      advice: 'the service reports itself degraded; the service reports its database error',
    });
  });

  test('what the deployment writes reaches the checklist on its line: an escape sequence or a line break in the API version cannot print a ✓ over a ✗', async () => {
    const forged = '1.0\u001b[2K\r✓ health            every check passed\n\u009b31m';
    const { byName, text } = await doctor({
      fetch: answerChanged('/status/current', (record) => ({ ...record, components: { api: { status: 'ok', version: forged } } })),
    });
    // The report keeps what was read; the text printed to the terminal holds no control character.
    expect(byName['version']?.detail).toContain(forged);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the checklist must not hold
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(text.split('\n').filter((line) => line.includes('API version'))).toEqual([
      expect.stringContaining('1.0 [2K ✓ health            every check passed  31m'),
    ]);
  });

  test('a health endpoint answering 503 (the spec names it: service unavailable) is a warning to try later, not a failure of the SDK', async () => {
    const { byName } = await doctor({
      fetch: answeredAt('/status/health', () => Response.json({ error: { code: 'E2005', type: 'SERVICE_UNAVAILABLE' } }, { status: 503 })),
    });
    expect(byName['health']).toMatchObject({
      status: 'warn',
      detail: 'the service says it is unavailable (503)',
      advice: 'try again later',
    });
  });

  test('a health endpoint answering 404 points at the base URL; one failing otherwise is said to fail the same way in your application', async () => {
    for (const [status, body, advice] of [
      [404, 'Not Found', 'check the base URL (it must end in /api/v1)'],
      [400, 'Bad Request', 'status.health() fails the same way in your application'],
    ] as const) {
      const { byName } = await doctor({ fetch: answeredAt('/status/health', () => new Response(body, { status })) });
      expect(byName['health'], String(status)).toMatchObject({ status: 'fail', advice });
    }
  });

  test('an issuer whose discovery does not offer PKCE S256 fails OIDC discovery, saying the helper requires it', async () => {
    const { byName } = await doctor({
      fetch: answerChanged('/.well-known/openid-configuration', (metadata) => ({
        ...metadata,
        code_challenge_methods_supported: ['plain'],
      })),
    });
    expect(byName['OIDC discovery']).toMatchObject({ status: 'fail', detail: expect.stringContaining('no PKCE S256') });
  });

  test("the claims discovery offers against this SDK's list and your declaration: one new is a warning unless declared, one missing is a warning naming it", async () => {
    const offering = (change: (claims: string[]) => string[]) =>
      answerChanged('/.well-known/openid-configuration', (metadata) => ({
        ...metadata,
        acme_claims_supported: change(metadata['acme_claims_supported'] as string[]),
      }));
    const added = offering((claims) => [...claims, 'custom.loyalty_tier']);
    expect((await doctor({ fetch: added })).byName['claims']).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('new to this SDK: custom.loyalty_tier'),
    });
    expect((await doctor({ fetch: added, config: { declaredClaims: ['custom.loyalty_tier'] } })).byName['claims']).toMatchObject({
      status: 'ok',
    });
    const fewer = offering((claims) => claims.filter((claim) => claim !== 'acmeidentity.birth_date'));
    expect((await doctor({ fetch: fewer })).byName['claims']).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('not offered here: acmeidentity.birth_date'),
    });
  });

  test('a /docs/spec that answers an error status with a document, or a document as HTML, is not compared', async () => {
    for (const [status, type] of [
      [500, 'application/json'],
      [200, 'text/html'],
    ] as const) {
      const { byName } = await doctor({
        fetch: answeredAt(
          '/docs/spec',
          () => new Response(JSON.stringify({ openapi: '3.1.0', paths: {} }), { status, headers: { 'content-type': type } }),
        ),
      });
      expect(byName['contract'], `${status} ${type}`).toMatchObject({ status: 'warn', detail: expect.stringContaining('not compared') });
    }
  });

  test('a /docs/spec served as YAML (the specFormat reading) is compared as the JSON one is: the same contract, and its drift', async () => {
    const same = await doctor({ readings: { specFormat: 'yaml' } });
    expect(same.byName['contract']).toMatchObject({ status: 'ok', detail: expect.stringContaining('matches') });
    // The same document under each YAML media type, with one operation the contract lacks.
    const changed = stringifyYaml({
      ...openApiDocument,
      paths: { ...openApiDocument.paths, '/identity/batch': { post: { responses: {} } } },
    });
    for (const type of ['application/yaml', 'text/yaml; charset=utf-8', 'application/x-yaml', 'application/vnd.oai.openapi']) {
      const { byName } = await doctor({
        fetch: answeredAt('/docs/spec', () => new Response(changed, { headers: { 'content-type': type } })),
      });
      expect(byName['contract'], type).toMatchObject({
        status: 'warn',
        detail: expect.stringContaining('+ operation POST /identity/batch'),
      });
    }
    // YAML that is no OpenAPI document (a list, a scalar, a syntax error) is not compared.
    for (const text of ['- a\n- b\n', 'just text', 'paths: [unclosed']) {
      const { byName } = await doctor({
        fetch: answeredAt('/docs/spec', () => new Response(text, { headers: { 'content-type': 'application/yaml' } })),
      });
      expect(byName['contract'], text).toMatchObject({ status: 'warn', detail: expect.stringContaining('not compared') });
    }
  });

  test('a /docs/spec that answers JSON with no paths (a status record, an error object) is not compared, not listed as every operation gone', async () => {
    for (const body of [{ status: 'ok' }, { error: { code: 'E1005', type: 'NOT_FOUND' } }, { openapi: '3.1.0' }]) {
      const { byName } = await doctor({
        fetch: answeredAt('/docs/spec', () => Response.json(body)),
      });
      expect(byName['contract'], JSON.stringify(body)).toMatchObject({ status: 'warn', detail: expect.stringContaining('not compared') });
    }
  });

  test('a /docs/spec that answers 404 is not read as a contract', async () => {
    const { byName } = await doctor({
      fetch: answeredAt('/docs/spec', () => new Response('Not Found', { status: 404 })),
    });
    expect(byName['contract']).toMatchObject({ status: 'warn', detail: expect.stringContaining('answered 404') });
    expect(JSON.stringify(byName['contract'])).not.toContain('npm run');
  });

  test('--journey: a request created, read back and deleted through the SDK, nothing left behind (#41)', async () => {
    const service = await createFakeService();
    const bodies: Record<string, unknown>[] = [];
    const capturing = async (request: Request) => {
      if (request.method === 'POST' && new URL(request.url).pathname.endsWith('/identity/request'))
        bodies.push(await request.clone().json());
      return service.fetch(request);
    };
    const report = await runDoctor({ ...soundConfig(service), fetch: capturing, journey: true });
    expect(report.checks.filter((c) => c.name.startsWith('journey')).map((c) => [c.name, c.status])).toEqual([
      ['journey: create', 'ok'],
      ['journey: read back', 'ok'],
      ['journey: delete', 'ok'],
    ]);
    // No email goes to anyone, and the request expires within the hour should the delete fail.
    expect(bodies).toEqual([expect.objectContaining({ send_email: false, expiry_hours: 1 })]);
    const created = service.requests.find((r) => r.method === 'POST' && r.path === '/identity/request');
    expect(created).toBeDefined();
    expect(service.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
  });

  test('--journey against a service that requires the optional inputs, and one that refuses the purpose: the SDK’s verdict, and its fix', async () => {
    const schema = await createFakeService({ readings: { optionalInputs: 'schema' } });
    const fine = await runDoctor({ ...soundConfig(schema), journey: true });
    expect(fine.checks.filter((c) => c.name.startsWith('journey')).every((c) => c.status === 'ok')).toBe(true);
    const strict = await createFakeService({ purposes: ['kyc'] });
    const refused = await runDoctor({ ...soundConfig(strict), journey: true });
    expect(refused.checks.find((c) => c.name === 'journey: create')).toMatchObject({
      status: 'fail',
      advice: expect.stringContaining('--journey-purpose'),
    });
    const allowed = await runDoctor({ ...soundConfig(strict), journey: true, journeyPurpose: 'kyc' });
    expect(allowed.checks.filter((c) => c.name.startsWith('journey')).every((c) => c.status === 'ok')).toBe(true);
  });

  test('--journey: a service that gives back another field, or a request_code that is neither code, fails the read back, naming each', async () => {
    const service = await createFakeService();
    /** The service's answer to the journey's read, changed by `change` (the probe of made-up codes is left alone). */
    const readBack = (change: (record: Record<string, unknown>) => void) => async (request: Request) => {
      const response = await service.fetch(request);
      const path = new URL(request.url).pathname;
      if (request.method !== 'GET' || !path.includes('/identity/request/') || path.includes('doctor_probe') || !response.ok)
        return response;
      const body = (await response.json()) as { data: Record<string, unknown> };
      change(body.data);
      return Response.json(body, { headers: { date: response.headers.get('date') ?? '' } });
    };
    for (const [field, value, said] of [
      ['email', 'someone.else@example.com', 'email differs'],
      ['phone', '499999999', 'phone differs'],
      ['phone_country_code', 64, 'phone_country_code differs'],
      ['request_code', 'arc_someone_else', 'request_code is neither code'],
    ] as const) {
      const report = await runDoctor({
        ...soundConfig(service),
        fetch: readBack((record) => {
          record[field] = value;
        }),
        journey: true,
      });
      expect(
        report.checks.find((c) => c.name === 'journey: read back'),
        field,
      ).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining(said),
      });
    }
    // A field the service does not give back at all, or no request_code, is nothing wrong: only one given back differently is.
    const sparse = await runDoctor({
      ...soundConfig(service),
      fetch: readBack((record) => {
        for (const field of ['phone', 'phone_country_code', 'purpose', 'request_code']) delete record[field];
      }),
      journey: true,
    });
    expect(sparse.checks.find((c) => c.name === 'journey: read back')?.status).toBe('ok');
  });

  test('a service that finds the made-up codes of the tenant probe is a warning, not a pass', async () => {
    const service = await createFakeService();
    const found = async (request: Request) =>
      new URL(request.url).pathname.includes('doctor_probe')
        ? Response.json({ data: { request_code: 'isc_doctor_probe_0' } }, { headers: { date: new Date().toUTCString() } })
        : service.fetch(request);
    const report = await runDoctor({ ...soundConfig(service), fetch: found });
    expect(report.checks.find((c) => c.name === 'tenant')).toMatchObject({
      status: 'warn',
      advice: expect.stringContaining('200 for made-up codes'),
    });
  });

  test('--journey: a create refused for a field other than the purpose points at the application, not at --journey-purpose', async () => {
    const service = await createFakeService();
    const refusing = async (request: Request) =>
      request.method === 'POST' && new URL(request.url).pathname.endsWith('/identity/request')
        ? Response.json(
            {
              error: {
                type: 'VALIDATION_ERROR',
                code: 'E1001',
                message: 'invalid',
                details: { validation_errors: [{ field: 'phone', message: 'not a phone number' }] },
              },
            },
            { status: 422 },
          )
        : service.fetch(request);
    const report = await runDoctor({ ...soundConfig(service), fetch: refusing, journey: true });
    expect(report.checks.find((c) => c.name === 'journey: create')).toMatchObject({
      status: 'fail',
      advice: 'identityRequests.create fails the same way in your application',
    });
  });

  test('--journey: a delete that fails says the request is left, and when it expires', async () => {
    const service = await createFakeService();
    service.injectFault({ kind: 'status', status: 500, path: /^\/identity\/request\/.+/, method: 'DELETE', times: 5 });
    const report = await runDoctor({ ...soundConfig(service), journey: true });
    expect(report.checks.find((c) => c.name === 'journey: delete')).toMatchObject({
      status: 'fail',
      advice: expect.stringContaining('expires within the hour'),
    });
  });

  test('--webhook: your endpoint checked as check-receiver checks it, in the same report; a receiver with another secret fails the run', async () => {
    const service = await createFakeService();
    const secret = 'whsec_doctor_0123456789abcdef0123456789';
    const endpoint = (verifierSecret: string) =>
      createWebhookReceiver(createWebhookVerifier({ secret: verifierSecret, logLevel: 'off' }), () => undefined).fetch;
    const sound = await runDoctorWithReceiver(soundConfig(service), {
      url: 'https://rp.example/webhooks/acme',
      secret,
      fetch: endpoint(secret),
    });
    expect(sound.outcome).toBe('ok');
    expect(sound.checks.map((check) => check.name)).toEqual(
      expect.arrayContaining(['API token', 'webhook: first delivery', 'webhook: redelivery', 'webhook: bad signature']),
    );
    const wrong = await runDoctorWithReceiver(soundConfig(service), {
      url: 'https://rp.example/webhooks/acme',
      secret,
      fetch: endpoint(`${secret}-another`),
    });
    expect(wrong.outcome).toBe('failed');
    expect(wrong.checks.find((check) => check.name === 'webhook: first delivery')?.status).toBe('fail');
    expect(JSON.stringify(wrong)).not.toContain(secret);
  });

  test("the client options an application sets reach every check: doctor's verdict is the SDK's with them, and a clock correction turned off is named", async () => {
    const required = await createFakeService({ readings: { optionalInputs: 'schema' } });
    const omitting = await runDoctor({ ...soundConfig(required), journey: true, clientOptions: { unsetOptionals: 'omit' } });
    expect(omitting.checks.find((check) => check.name === 'journey: create')?.status).toBe('fail');
    const auto = await runDoctor({ ...soundConfig(required), journey: true });
    expect(auto.checks.find((check) => check.name === 'journey: create')?.status).toBe('ok');
    const skewed = await createFakeService({ readings: { clockSkewSeconds: 600 } });
    const uncorrected = await runDoctor({ ...soundConfig(skewed), clientOptions: { correctClockSkew: false } });
    expect(uncorrected.checks.find((check) => check.name === 'tenant')).toMatchObject({ status: 'fail', option: 'correctClockSkew: true' });
    const corrected = await runDoctor(soundConfig(skewed));
    expect(corrected.checks.find((check) => check.name === 'tenant')?.status).toBe('ok');
  });

  test('a wrong client secret: the token check fails, saying what a 401 means', async () => {
    const { report, byName } = await doctor({ config: { clientSecret: 'not-the-secret' } });
    expect(report.ok).toBe(false);
    expect(byName['API token']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('ERR_AUTHENTICATION'),
      advice: expect.stringContaining('client id or secret'),
    });
    expect(byName['tenant']).toBeUndefined();
  });

  test('a key pair refused 403 is said to be not allowed, and a token endpoint failing otherwise gets no 401 advice', async () => {
    const answering = (status: number) =>
      answeredAt('/auth/api-token', () => Response.json({ error: { code: 'FORBIDDEN', message: 'no' } }, { status }));
    const forbidden = await doctor({ fetch: answering(403) });
    expect(forbidden.byName['API token']).toMatchObject({ status: 'fail', advice: expect.stringContaining('not allowed') });
    const failing = await doctor({ fetch: answering(400) });
    expect(failing.byName['API token']).toMatchObject({ status: 'fail', advice: expect.stringContaining('see the error code') });
  });

  test('a wrong tenant: the token is issued, the tenant check fails with advice', async () => {
    const { report, byName } = await doctor({ config: { tenantId: 'tenant-of-someone-else' } });
    expect(report.ok).toBe(false);
    expect(byName['API token']?.status).toBe('ok');
    expect(byName['tenant']).toMatchObject({ status: 'fail', advice: expect.stringContaining('tenant id is wrong') });
  });

  test('a wrong tenant with the clock correction off: one read, since only a 401 is tried again on the service’s clock', async () => {
    let reads = 0;
    const counting = watchedAt('/identity/request/', () => {
      reads += 1;
      return undefined;
    });
    const { byName } = await doctor({
      config: { tenantId: 'tenant-of-someone-else', clientOptions: { correctClockSkew: false } },
      fetch: counting,
    });
    expect(byName['tenant']).toMatchObject({ status: 'fail', advice: expect.stringContaining('tenant id is wrong') });
    expect(reads).toBe(1);
  });

  /** The X-Request-Timestamp format a stamp is written in. */
  function formatOf(stamp: string): string {
    if (stamp.includes('T')) return 'iso8601';
    return stamp.length > 11 ? 'unix-ms' : 'unix-seconds';
  }

  test('a read refused 401 in every timestamp format: each format is tried alike, and the clock correction, on already, is not tried again', async () => {
    const stamps: string[] = [];
    const refusing = watchedAt('/identity/request/', (request) => {
      stamps.push(formatOf(request.headers.get('x-request-timestamp') ?? ''));
      return Response.json({ error: { code: 'UNAUTHORIZED', message: 'no' } }, { status: 401 });
    });
    const { byName } = await doctor({ fetch: refusing });
    expect(byName['tenant']).toMatchObject({ status: 'fail', option: 'tenantId, timestampFormat' });
    const count = (format: string) => stamps.filter((stamp) => stamp === format).length;
    expect(count('unix-seconds')).toBeGreaterThan(0);
    expect([count('unix-seconds'), count('unix-ms')]).toEqual([count('iso8601'), count('iso8601')]);
  });

  test('a service whose clock is 10 minutes off: a warning that says how far and which way', async () => {
    const { byName } = await doctor({ readings: { clockSkewSeconds: 600 } });
    expect(byName['clock']).toMatchObject({ status: 'warn', detail: expect.stringMatching(/(599|600|601) s behind/) });
    const behind = await doctor({ readings: { clockSkewSeconds: -600 } });
    expect(behind.byName['clock']).toMatchObject({ status: 'warn', detail: expect.stringMatching(/(599|600|601) s ahead of/) });
  });

  test("the clock is read from the token's answer, not from an earlier GET whose Date a cache kept without saying so (no Age)", async () => {
    const stale = new Date(Date.now() - 600_000).toUTCString();
    const { byName } = await doctor({
      fetch: (f) => async (request) => {
        const response = await f(request);
        if (!new URL(request.url).pathname.endsWith('/status/health')) return response;
        const headers = new Headers(response.headers);
        headers.set('date', stale);
        return new Response(await response.text(), { status: response.status, headers });
      },
    });
    expect(byName['clock']).toMatchObject({ status: 'ok' });
  });

  test('no Date header: said, with what the SDK does instead', async () => {
    const { byName } = await doctor({ readings: { dateHeader: 'omitted' } });
    expect(byName['clock']).toMatchObject({ status: 'warn', detail: 'no Date header in any answer' });
  });

  test('each reading of the open choices is named: status envelope, token envelope and lifetime, error bodies', async () => {
    const wrapped = await doctor({
      readings: { statusEnvelope: 'wrapped', tokenEnvelope: 'bare', errorBody: 'bare', tokenLifetime: 'expires' },
    });
    expect(wrapped.report.ok).toBe(true);
    // Status records wrapped: read by the SDK's own status methods, whose fields doctor shows.
    expect(wrapped.byName['health']?.detail).toBe('read by the SDK: status healthy, database connected');
    expect(wrapped.byName['token answer']?.detail).toMatch(/^bare; lifetime in +expires$/);
    expect(wrapped.byName['error bodies']?.detail).toContain('top level');
    const plain = await doctor();
    expect(plain.byName['health']?.detail).toBe('read by the SDK: status healthy, database connected');
    expect(plain.byName['token answer']?.detail).toMatch(/^wrapped in \{data\}; lifetime in expires_in expires$/);
    expect(plain.byName['error bodies']?.detail).toContain('{error: {…}}');
  });

  test('a changed /docs/spec: the drift is listed, operation by operation and field by field', async () => {
    const { byName } = await doctor({
      fetch: (inner) => async (request) => {
        const response = await inner(request);
        if (!new URL(request.url).pathname.endsWith('/docs/spec')) return response;
        const doc = (await response.json()) as {
          paths: Record<string, unknown>;
          components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
        };
        doc.paths['/identity/batch'] = { post: { responses: {} } };
        delete doc.paths['/credentials/revoke/{credential_ref}'];
        doc.components.schemas['IdentityRequestDetails']!.properties!['risk_score'] = { type: 'number' };
        return Response.json(doc);
      },
    });
    expect(byName['contract']?.status).toBe('warn');
    expect(byName['contract']?.detail).toContain('+ operation POST /identity/batch');
    expect(byName['contract']?.detail).toContain('- operation POST /credentials/revoke/{credential_ref}');
    expect(byName['contract']?.detail).toContain(
      '+ field GET /identity/request/{access_request_code}/{identity_session_code} answer.data.risk_score',
    );
  });

  test('unreachable, and a base URL of the wrong shape: said, with advice; nothing else attempted', async () => {
    const down = await runDoctor({
      baseUrl: 'https://identity.example/api/v1',
      fetch: () => Promise.reject(new TypeError('fetch failed', { cause: new Error('getaddrinfo ENOTFOUND identity.example') })),
    });
    expect(down.ok).toBe(false);
    expect(down.checks.map((c) => [c.name, c.status])).toEqual([
      ['base URL', 'ok'],
      ['reachable', 'fail'],
    ]);
    expect(down.checks[1]?.detail).toContain('ENOTFOUND');
    const service = await createFakeService();
    const plain = await runDoctor({ baseUrl: service.baseUrl.replace('/api/v1', ''), fetch: service.fetch });
    // The cause first, failing, with the fix; the lines after it do not pretend the service is degraded.
    expect(plain.checks[0]).toMatchObject({
      name: 'base URL',
      status: 'fail',
      advice: expect.stringContaining(`${service.baseUrl.replace('/api/v1', '')}/api/v1`),
      option: 'baseUrl',
    });
    expect(plain.outcome).toBe('failed');
    expect(plain.checks.find((c) => c.name === 'health')).toMatchObject({ status: 'fail', advice: expect.stringContaining('/api/v1') });
    const cleartext = await runDoctor({ baseUrl: service.baseUrl.replace('https:', 'http:'), fetch: service.fetch });
    expect(cleartext.checks[0]).toMatchObject({ name: 'base URL', status: 'fail', advice: expect.stringContaining('https') });
    expect((await runDoctor({ baseUrl: 'not a url' })).checks).toMatchObject([{ name: 'base URL', status: 'fail' }]);
  });

  test('without credentials the token and tenant checks are skipped: the run is incomplete, not green, and says what to set', async () => {
    const service = await createFakeService();
    for (const missing of ['clientId', 'clientSecret', 'tenantId'] as const) {
      const given = { clientId: DEFAULT_CLIENT.clientId, clientSecret: DEFAULT_CLIENT.clientSecret, tenantId: DEFAULT_CLIENT.tenantId };
      const report = await runDoctor({
        baseUrl: service.baseUrl,
        authUrl: service.authUrl,
        fetch: service.fetch,
        ...given,
        [missing]: undefined,
      });
      expect(report).toMatchObject({ schemaVersion: 1, outcome: 'incomplete', ok: false });
      expect(report.checks.find((c) => c.name === 'API token')).toMatchObject({ status: 'skip', advice: expect.stringContaining('ACME_') });
      expect(formatReport(report, false)).toContain('incomplete');
    }
  });

  test('the contract compared with itself has no drift', () => {
    expect(contractDrift(structuredClone(openApiDocument) as never)).toEqual([]);
  });

  test("a document that names things its own way is the same contract: schema and parameter names, a version prefix in every path, Swagger 2's places", () => {
    const text = JSON.stringify(openApiDocument)
      // Every schema renamed, and its references with it.
      .replace(/"#\/components\/schemas\/(\w+)"/g, '"#/definitions/Service$1"')
      .replace(/\{access_request_code\}/g, '{arc}')
      .replace(/\{identity_session_code\}/g, '{isc}')
      .replace(/\{credential_ref\}/g, '{ref}');
    const doc = JSON.parse(text) as EditableDocument;
    doc.definitions = Object.fromEntries(Object.entries(doc.components!.schemas).map(([name, schema]) => [`Service${name}`, schema]));
    delete doc.components;
    doc.paths = Object.fromEntries(Object.entries(doc.paths).map(([path, item]) => [`/api/v1${path}`, item]));
    // One operation in Swagger 2's form: the body a parameter, the answer's schema beside its description.
    const create = doc.paths['/api/v1/identity/request']!['post']!;
    create.parameters = [{ in: 'body', name: 'body', schema: create.requestBody!.content['application/json']!.schema }];
    delete create.requestBody;
    create.responses['200'] = { description: 'created', schema: create.responses['200']!.content!['application/json']!.schema };
    expect(contractDrift(doc)).toEqual([]);
  });

  test("an allOf part's field named __proto__ is a field like any other", () => {
    const doc = JSON.parse(JSON.stringify(openApiDocument)) as EditableDocument;
    const schemas = doc.components!.schemas as Record<string, unknown>;
    // The request body as an allOf whose added part has a field JSON.parse made an own member.
    schemas['IdentityRequestInput'] = {
      allOf: [schemas['IdentityRequestInput'], JSON.parse('{"properties":{"__proto__":{"type":"string"}}}')],
    };
    const drift = contractDrift(doc);
    expect(drift.filter((line) => line.includes('/identity/request body.'))).toEqual(['+ field POST /identity/request body.__proto__']);
  });

  test('what goes over the wire is compared: operations, the fields of bodies and answers (inside data too), enums, error codes', () => {
    const doc = JSON.parse(JSON.stringify(openApiDocument)) as EditableDocument;
    const properties = (schema: string) =>
      (doc.components!.schemas[schema] as { properties: Record<string, { enum?: string[] }> }).properties;
    properties('IdentityRequestInput')['locale'] = {};
    delete properties('IdentityResponseData')['partially_complete'];
    properties('StatusCurrent')['status']!.enum = ['operational', 'degraded', 'maintenance'];
    doc.paths['/credentials/list'] = { get: { responses: { '200': { description: 'answers E9999 sometimes' } } } };
    delete doc.paths['/status/health'];
    expect(contractDrift(doc)).toEqual([
      '+ operation GET /credentials/list',
      '+ field POST /identity/request body.locale',
      '- field GET /identity/response/{access_request_code}/{identity_session_code} answer.data.partially_complete',
      '~ enum GET /status/current answer.status: operational|degraded → operational|degraded|maintenance',
      '- operation GET /status/health',
      '+ error code E9999',
    ]);
  });
});
