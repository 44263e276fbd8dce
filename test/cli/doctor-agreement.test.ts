/**
 * doctor's verdict against the SDK's, on the same service (#41): an application's journey through
 * the SDK with the README's settings (status, token, create, read back, delete, the issuer's keys)
 * and `doctor --journey` are run on two copies of one service, and must agree. Where the SDK
 * refuses an answer or returns something other than what was sent, doctor fails; where the SDK
 * gives the right result, doctor does not fail. The services: the fake under every reading of
 * every open choice, then, as the adversary, the fake with one answer of the journey corrupted in
 * a generated way (a field dropped, a value of another type, a body that is not JSON or is empty).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { runDoctor, type DoctorClientOptions, type DoctorReport } from '../../src/cli/doctor.js';
import { AcmeIdentityClient, AcmeIdentityError } from '../../src/index.js';
import { remoteJwks } from '../../src/sd-jwt/index.js';
import { DEFAULT_CLIENT, READING_CHOICES, createFakeService, type FakeReadings } from '../../src/testing/index.js';
import { describeReadings, readingsArbitrary } from '../readings/space.js';

type Fetch = (request: Request) => Promise<Response>;
type Verdict = { works: true } | { works: false; why: string };
/** The client's settings an application may give, passed alike to the SDK and to doctor. */
type Settings = DoctorClientOptions & { timestampFormat?: 'unix-seconds' | 'unix-ms' | 'iso8601' };

/** The person the journey creates: what an application would send, the fields read back compared. */
const PERSON = {
  first_name: 'Agreement',
  last_name: 'Probe',
  email: 'agreement.probe@example.com',
  phone: '400000001',
  phone_country_code: 61,
  purpose: 'identity verification',
  return_url: 'https://example.com/return',
  off_ramp_url: 'https://example.com/off-ramp',
  send_email: false,
  expiry_hours: 1,
  claims: ['acmeidentity.given_name' as const],
};
const COMPARED = ['first_name', 'last_name', 'email', 'phone', 'phone_country_code', 'purpose'] as const;

/** What an application sees through the SDK, with the settings the README gives and nothing else. */
async function sdkJourney(baseUrl: string, authUrl: string, fetch: Fetch, settings: Settings = {}): Promise<Verdict> {
  const client = new AcmeIdentityClient({
    ...settings,
    baseUrl,
    clientId: DEFAULT_CLIENT.clientId,
    clientSecret: DEFAULT_CLIENT.clientSecret,
    tenantId: DEFAULT_CLIENT.tenantId,
    fetch,
    maxRetries: 0,
    logLevel: 'off',
  });
  const step = async (name: string, work: () => Promise<unknown>): Promise<string | undefined> => {
    try {
      await work();
      return undefined;
    } catch (error) {
      return `${name}: ${error instanceof AcmeIdentityError ? error.code : String(error)}`;
    }
  };
  let codes: { accessRequestCode: string; identitySessionCode: string } | undefined;
  let wrong: string | undefined;
  const failed =
    (await step('health', () => client.status.health())) ??
    (await step('version', () => client.status.current())) ??
    (await step('token', () => client.auth.accessToken())) ??
    (await step('create', async () => {
      const { data } = await client.identityRequests.create(PERSON);
      codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
    })) ??
    (await step('read back', async () => {
      const { data } = await client.identityRequests.get(codes!);
      const read: Record<string, unknown> = data;
      const differs = COMPARED.filter((field) => read[field] !== undefined && read[field] !== PERSON[field]);
      if (differs.length) wrong = `read back: ${differs.join(', ')} differ`;
    })) ??
    (await step('delete', () => client.identityRequests.delete(codes!))) ??
    (await step('issuer keys', () =>
      remoteJwks(authUrl, { fetch: (url, init) => fetch(new Request(url, init)), logLevel: 'off' }).refresh(),
    ));
  const why = failed ?? wrong;
  return why ? { works: false, why } : { works: true };
}

/** A fresh copy of the service under `readings`, its answers passed through `tamper`. */
async function service(readings: FakeReadings, tamper: (request: Request, response: Response) => Promise<Response> = async (_, r) => r) {
  const fake = await createFakeService({ readings });
  const fetch: Fetch = async (request) => tamper(request, await fake.fetch(request));
  return { baseUrl: fake.baseUrl, authUrl: fake.authUrl, fetch };
}

async function doctorOn(readings: FakeReadings, tamper?: Parameters<typeof service>[1], settings: Settings = {}): Promise<DoctorReport> {
  const { baseUrl, authUrl, fetch } = await service(readings, tamper);
  const { timestampFormat, ...clientOptions } = settings;
  return runDoctor({
    timestampFormat,
    clientOptions,
    baseUrl,
    authUrl,
    clientId: DEFAULT_CLIENT.clientId,
    clientSecret: DEFAULT_CLIENT.clientSecret,
    tenantId: DEFAULT_CLIENT.tenantId,
    fetch,
    journey: true,
  });
}

async function sdkOn(readings: FakeReadings, tamper?: Parameters<typeof service>[1], settings: Settings = {}) {
  const { baseUrl, authUrl, fetch } = await service(readings, tamper);
  return sdkJourney(baseUrl, authUrl, fetch, settings);
}

/** The two verdicts agree: doctor fails exactly where the SDK refuses or is wrong. */
function expectAgreement(sdk: Verdict, report: DoctorReport, label: string): void {
  const failures = report.checks.filter((check) => check.status === 'fail');
  if (sdk.works) expect(failures, `${label}: the SDK works, doctor must not fail`).toEqual([]);
  else expect(report.outcome, `${label}: the SDK fails (${sdk.why}), doctor must fail`).toBe('failed');
}

describe('doctor and the SDK agree', () => {
  test('under every reading of every open choice, one at a time; where the SDK needs a setting, doctor fails on that one line alone and names the setting with its value', async () => {
    for (const [name, values] of Object.entries(READING_CHOICES)) {
      for (const value of values) {
        const readings = { [name]: value } as FakeReadings;
        const label = `${name}=${String(value)}`;
        const [sdk, report] = await Promise.all([sdkOn(readings), doctorOn(readings)]);
        expectAgreement(sdk, report, label);
        if (!sdk.works && name === 'timestampFormat') {
          const failed = report.checks.filter((check) => check.status === 'fail');
          expect(
            failed.map((check) => [check.name, check.option]),
            label,
          ).toEqual([['tenant', `timestampFormat: '${String(value)}'`]]);
          // Set as doctor says, the SDK's journey works.
          expect(await sdkOn(readings, undefined, { timestampFormat: value as 'unix-ms' }), label).toEqual({ works: true });
        }
      }
    }
  }, 300_000);

  test('on services drawn from the whole space of readings, with the client settings an application may give drawn too: property', async () => {
    const settingsArbitrary: fc.Arbitrary<Settings> = fc.record(
      {
        timestampFormat: fc.constantFrom('unix-seconds' as const, 'unix-ms' as const, 'iso8601' as const),
        unsetOptionals: fc.constantFrom('auto' as const, 'omit' as const, 'fill' as const),
        correctClockSkew: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    const seen = { works: 0, refused: 0 };
    const property = fc.asyncProperty(
      readingsArbitrary,
      fc.constantFrom('unix-seconds' as const, 'unix-ms' as const, 'iso8601' as const),
      settingsArbitrary,
      async (readings, served, settings) => {
        const all = { ...readings, timestampFormat: served };
        const [sdk, report] = await Promise.all([sdkOn(all, undefined, settings), doctorOn(all, undefined, settings)]);
        expectAgreement(sdk, report, `${describeReadings(all)} with ${JSON.stringify(settings)}`);
        seen[sdk.works ? 'works' : 'refused'] += 1;
      },
    );
    // Seeded runs of 40 until both sides were tried more than 5 times: a new reading changes what a
    // seed draws, and a run that happened to draw few services the SDK reads proves little.
    for (const seed of [4141, 4142, 4143, 4144]) {
      await fc.assert(property, { seed, numRuns: 40 });
      if (seen.works > 5 && seen.refused > 5) break;
    }
    expect(seen.works).toBeGreaterThan(5);
    expect(seen.refused).toBeGreaterThan(5);
  }, 600_000);

  /** The answers the journey reads, by method and path. */
  const TARGETS = [
    ['GET', /\/status\/health$/],
    ['GET', /\/status\/current$/],
    ['POST', /\/auth\/api-token$/],
    ['POST', /\/identity\/request$/],
    ['GET', /\/identity\/request\//],
    ['DELETE', /\/identity\/request\//],
    ['GET', /\/\.well-known\/openid-configuration$/],
    ['GET', /jwks/],
  ] as const;

  type Corruption = { kind: 'drop' | 'retype'; pick: number; as: unknown } | { kind: 'not-json' | 'empty' };

  /** Every path to a value in `value` (objects and arrays), as keys. */
  function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
    if (value === null || typeof value !== 'object') return at.length ? [at] : [];
    const entries = Array.isArray(value) ? value.map((item, i) => [i, item] as const) : Object.entries(value);
    return [...(at.length ? [at] : []), ...entries.flatMap(([key, item]) => paths(item, [...at, key]))];
  }

  /** `body` with the value at `path` dropped, or replaced with `as`. */
  function corrupt(body: unknown, path: (string | number)[], replace: { as: unknown } | undefined): unknown {
    const copy = structuredClone(body) as Record<string | number, unknown>;
    let parent = copy;
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    const last = path.at(-1)!;
    if (replace) parent[last] = replace.as;
    else if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
    return copy;
  }

  const corruptionArbitrary: fc.Arbitrary<Corruption> = fc.oneof(
    fc.record({
      kind: fc.constantFrom('drop' as const, 'retype' as const),
      pick: fc.nat(),
      as: fc.constantFrom(null, 7, 'x', true, {}, []),
    }),
    fc.record({ kind: fc.constantFrom('not-json' as const, 'empty' as const) }),
  );

  test('on services whose answers are corrupted one at a time (a generated field dropped or retyped, a body not JSON or empty): property', async () => {
    const seen = { works: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(fc.nat(TARGETS.length - 1), corruptionArbitrary, async (target, corruption) => {
        const [method, path] = TARGETS[target]!;
        let applied = '';
        // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the property in one piece: a corruption applied to one answer, doctor and the SDK run on it, their verdicts compared
        const tamper = async (request: Request, response: Response): Promise<Response> => {
          if (request.method !== method || !path.test(new URL(request.url).pathname) || response.status >= 300) return response;
          const text = await response.text();
          const headers = new Headers(response.headers);
          headers.delete('content-length');
          if (corruption.kind === 'empty') return new Response('', { status: response.status, headers });
          if (corruption.kind === 'not-json') return new Response('<html>maintenance</html>', { status: response.status, headers });
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            return new Response(text, { status: response.status, headers });
          }
          const all = paths(body);
          if (all.length === 0) return new Response(text, { status: response.status, headers });
          if (corruption.kind !== 'drop' && corruption.kind !== 'retype') return response;
          const at = all[corruption.pick % all.length]!;
          applied = `${corruption.kind} ${at.join('.')}`;
          return new Response(JSON.stringify(corrupt(body, at, corruption.kind === 'retype' ? { as: corruption.as } : undefined)), {
            status: response.status,
            headers,
          });
        };
        const [sdk, report] = await Promise.all([sdkOn({}, tamper), doctorOn({}, tamper)]);
        expectAgreement(sdk, report, `${method} ${path.source} ${corruption.kind} ${applied}`);
        seen[sdk.works ? 'works' : 'refused'] += 1;
      }),
      { seed: 41, numRuns: 100 },
    );
    // Both sides of the rule were tried: services the SDK reads despite the change, and services it refuses.
    expect(seen.works).toBeGreaterThan(10);
    expect(seen.refused).toBeGreaterThan(10);
  }, 300_000);
});
