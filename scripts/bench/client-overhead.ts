/**
 * Per-call overhead of the REST client against raw `fetch` to the same localhost fake service.
 * Goal (issue #2): the client's median at most 1.10x the raw median; with the Redis token store
 * (issue #14, when `redis-server` is installed: `bash scripts/ensure-redis.sh`), at most 1.15x. A
 * benchmark, not a test: it prints figures and never fails the build.
 *
 * The machine's speed drifts from minute to minute by more than the margin being measured, so the
 * figure is the median of several rounds, each interleaving the contenders call by call; the
 * spread of the rounds is printed with it. A third contender, raw `fetch` with the deadline the
 * client gives every call (an AbortSignal and a timer), shows what that cancellation alone costs.
 *
 *   npm run bench            (ITERATIONS=3000 ROUNDS=11 npm run bench for more samples)
 */
import { createClient } from 'redis';
import { AcmeIdentityClient } from '../../src/index.js';
import { RedisTokenStore } from '../../src/redis/index.js';
import { startRedis, type RedisServer } from '../redis-server.js';
import { createFakeService, DEFAULT_CLIENT, freePort, serveFakeService } from '../../src/testing/index.js';
import { compare, median, micros } from './stats.js';

const ITERATIONS = Number(process.env['ITERATIONS'] ?? 1000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 7);
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

const headers = () => ({
  authorization: `Bearer ${token}`,
  'x-tenant-id': DEFAULT_CLIENT.tenantId,
  'x-request-timestamp': String(Math.floor(Date.now() / 1000)),
  'x-correlation-id': crypto.randomUUID(),
});

async function read(response: Response): Promise<unknown> {
  if (!response.ok) throw new Error(`raw fetch answered ${response.status}`);
  return ((await response.json()) as { data: unknown }).data;
}

/** The same request by hand: what a user would write without the SDK. */
const raw = async () => read(await fetch(detailsUrl, { headers: headers() }));

/** The same, cancelled after the client's default deadline, as the client does. */
async function rawWithDeadline(): Promise<unknown> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 60_000);
  try {
    return await read(await fetch(detailsUrl, { headers: headers(), signal: controller.signal }));
  } finally {
    clearTimeout(timer);
  }
}

const sdk = () => client.identityRequests.get(codes);

// The same client sharing its tokens on Redis, when a redis-server can be started here.
let redisServer: RedisServer | undefined;
try {
  redisServer = await startRedis();
} catch {
  console.log('(no redis-server here: the Redis token store is not measured; bash scripts/ensure-redis.sh installs it)');
}
const redis = redisServer ? await createClient({ url: redisServer.url }).connect() : undefined;
const withRedis = redis
  ? new AcmeIdentityClient({
      baseUrl: service.baseUrl,
      clientId: DEFAULT_CLIENT.clientId,
      clientSecret: DEFAULT_CLIENT.clientSecret,
      tenantId: DEFAULT_CLIENT.tenantId,
      tokenStore: new RedisTokenStore(redis, { encryptionKey: new Uint8Array(32).fill(9) }),
    })
  : undefined;
const sdkRedis = withRedis ? () => withRedis.identityRequests.get(codes) : sdk;

/** Commands the Redis server has processed so far (this INFO included). */
const commandsProcessed = async () =>
  Number(/total_commands_processed:(\d+)/.exec(String(await redis!.sendCommand(['INFO', 'stats'])))![1]);
// The token is fetched (and shared on Redis) by a first call; every call after it is warm.
await sdkRedis();
const commandsBefore = redis ? await commandsProcessed() : 0;
let redisCalls = 0;
const countedRedis = () => {
  redisCalls += 1;
  return sdkRedis();
};

const rounds: { raw: number; rawWithDeadline: number; sdk: number; sdkRedis: number }[] = [];
for (let round = 0; round < ROUNDS; round++)
  rounds.push(await compare({ raw, rawWithDeadline, sdk, sdkRedis: countedRedis }, ITERATIONS, WARMUP));
// Less the INFO that took the first count.
const warmCommands = redis ? (await commandsProcessed()) - commandsBefore - 1 : 0;
await running.close();
await redis?.quit();
await redisServer?.stop();

const ratios = rounds.map((r) => r.sdk / r.raw);
const ratio = median(ratios);
const shown = rounds[ratios.indexOf(ratio)]!;
console.log(`client overhead: GET /identity/request/{codes} on localhost, ${ROUNDS} rounds of ${ITERATIONS} calls each`);
console.log(
  `  median round: raw fetch ${micros(shown.raw)}, raw fetch with a deadline ${micros(shown.rawWithDeadline)}, SDK client ${micros(shown.sdk)} (+${micros(shown.sdk - shown.raw)} a call)`,
);
console.log(`  raw fetch with a deadline / raw fetch: median ${median(rounds.map((r) => r.rawWithDeadline / r.raw)).toFixed(3)}x`);
console.log(`  SDK / raw fetch with a deadline: median ${median(rounds.map((r) => r.sdk / r.rawWithDeadline)).toFixed(3)}x`);
console.log(
  `  SDK / raw fetch, each round: ${[...ratios]
    .sort((a, b) => a - b)
    .map((r) => r.toFixed(3))
    .join(' ')}`,
);
console.log(`  ratio ${ratio.toFixed(3)}x (median of rounds)  goal <= 1.10x: ${ratio <= 1.1 ? 'met' : 'NOT met'}`);
if (withRedis) {
  const redisRatio = median(rounds.map((r) => r.sdkRedis / r.raw));
  console.log(
    `  with the Redis token store: ${redisRatio.toFixed(3)}x (median of rounds)  goal <= 1.15x: ${redisRatio <= 1.15 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `  Redis commands on a warm token: ${warmCommands} in ${redisCalls} calls (${(warmCommands / redisCalls).toFixed(3)} a call)  goal 0: ${warmCommands === 0 ? 'met' : 'NOT met'}`,
  );
}
