/**
 * Per-call overhead of the REST client against raw `fetch` to the same localhost fake service.
 * Goal (issue #2): the client's median at most 1.10x the raw median. A benchmark, not a test:
 * it prints figures and never fails the build.
 *
 *   npm run bench            (ITERATIONS=3000 npm run bench for more samples)
 */
import { AcmeIdentityClient } from '../../src/index.js';
import { createFakeService, DEFAULT_CLIENT, freePort, serveFakeService } from '../../src/testing/index.js';
import { compare, micros } from './stats.js';

const ITERATIONS = Number(process.env['ITERATIONS'] ?? 1500);
const WARMUP = 200;

const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const service = await createFakeService({ baseUrl: `${origin}/api/v1`, authUrl: origin });
const running = await serveFakeService(service);
const client = new AcmeIdentityClient({
  baseUrl: service.baseUrl,
  clientId: DEFAULT_CLIENT.clientId,
  clientSecret: DEFAULT_CLIENT.clientSecret,
  tenantId: DEFAULT_CLIENT.tenantId,
});

const created = await client.identityRequests.create({
  first_name: 'Bench',
  last_name: 'Mark',
  email: 'bench@example.com',
  phone: '412345678',
  phone_country_code: 61,
  purpose: 'bench',
  return_url: 'https://rp.example/r',
  off_ramp_url: 'https://rp.example/o',
  claims: ['acmeidentity.given_name'],
});
const codes = { accessRequestCode: created.data.access_request_code, identitySessionCode: created.data.identity_session_code };
const token = await client.auth.accessToken();
const detailsUrl = `${service.baseUrl}/identity/request/${codes.accessRequestCode}/${codes.identitySessionCode}`;

/** The same request by hand: what a user would write without the SDK. */
async function raw(): Promise<unknown> {
  const response = await fetch(detailsUrl, {
    headers: {
      authorization: `Bearer ${token}`,
      'x-tenant-id': DEFAULT_CLIENT.tenantId,
      'x-request-timestamp': String(Math.floor(Date.now() / 1000)),
      'x-correlation-id': crypto.randomUUID(),
    },
  });
  if (!response.ok) throw new Error(`raw fetch answered ${response.status}`);
  return ((await response.json()) as { data: unknown }).data;
}

const sdk = () => client.identityRequests.get(codes);

const { raw: rawMedian, sdk: sdkMedian } = await compare({ raw, sdk }, ITERATIONS, WARMUP);
await running.close();

const ratio = sdkMedian / rawMedian;
console.log(`client overhead: GET /identity/request/{codes} on localhost, ${ITERATIONS} calls each`);
console.log(`  raw fetch   median ${micros(rawMedian)}`);
console.log(`  SDK client  median ${micros(sdkMedian)}  (+${micros(sdkMedian - rawMedian)} a call)`);
console.log(`  ratio ${ratio.toFixed(3)}x  goal <= 1.10x: ${ratio <= 1.1 ? 'met' : 'NOT met'}`);
