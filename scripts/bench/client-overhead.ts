/**
 * The REST client's cost per call (#44) against what a user would write without it, on the same
 * call (GET /identity/request/{codes}) to the same fake service on localhost:
 * - raw `fetch` with the identity headers, its JSON read;
 * - bare openapi-fetch on the generated types (the library the client is built on), the same
 *   headers, its `data` read: what the client adds beyond the library it wraps;
 * - the client, as built (dist/), with its token in memory, and with its token shared on Redis
 *   (when `redis-server` is here: `bash scripts/ensure-redis.sh`), which on a warm token must make
 *   no Redis command at all.
 *
 * Goals (#44): the client within 1.05× bare openapi-fetch; with the Redis token store within
 * 1.15×; 0 Redis commands a call on a warm token. Run in fresh processes (processes.ts), each
 * interleaving the contenders in shuffled order: medians and their range.
 *
 *   npm run bench             ITERATIONS=3000 for more samples, BENCH_PROCESSES=5 for more processes
 */
import createFetchClient from 'openapi-fetch';
import { createClient } from 'redis';
import type { paths } from '../../generated/schema.js';
import { startRedis, type RedisServer } from '../redis-server.js';
import { benchmark, built, COUNT, ratio, type Medians } from './processes.js';
import { compare } from './stats.js';

const ITERATIONS = Number(process.env['ITERATIONS'] ?? 1500);

async function measure(): Promise<Medians> {
  const { AcmeIdentityClient } = await built<typeof import('../../src/index.js')>('index.js');
  const { RedisTokenStore } = await built<typeof import('../../src/redis/index.js')>('redis/index.js');
  const { createFakeService, DEFAULT_CLIENT, freePort, serveFakeService } =
    await built<typeof import('../../src/testing/index.js')>('testing/index.js');

  const origin = `http://127.0.0.1:${await freePort()}`;
  const service = await createFakeService({ baseUrl: `${origin}/api/v1`, authUrl: origin });
  const running = await serveFakeService(service);
  const options = {
    baseUrl: service.baseUrl,
    clientId: DEFAULT_CLIENT.clientId,
    clientSecret: DEFAULT_CLIENT.clientSecret,
    tenantId: DEFAULT_CLIENT.tenantId,
  };
  const client = new AcmeIdentityClient(options);
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
  const path = { access_request_code: codes.accessRequestCode, identity_session_code: codes.identitySessionCode };
  const token = await client.auth.accessToken();
  const headers = () => ({
    authorization: `Bearer ${token}`,
    'x-tenant-id': DEFAULT_CLIENT.tenantId,
    'x-request-timestamp': String(Math.floor(Date.now() / 1000)),
    'x-correlation-id': crypto.randomUUID(),
  });

  const url = `${service.baseUrl}/identity/request/${codes.accessRequestCode}/${codes.identitySessionCode}`;
  const raw = async () => {
    const response = await fetch(url, { headers: headers() });
    if (!response.ok) throw new Error(`raw fetch answered ${response.status}`);
    return ((await response.json()) as { data: unknown }).data;
  };
  const bare = createFetchClient<paths>({ baseUrl: service.baseUrl });
  const openapiFetch = async () => {
    const { data, error } = await bare.GET('/identity/request/{access_request_code}/{identity_session_code}', {
      params: { path, header: headers() as never },
    });
    if (error) throw new Error('bare openapi-fetch answered an error');
    return data.data;
  };

  let redisServer: RedisServer | undefined;
  try {
    redisServer = await startRedis();
  } catch {
    console.error('(no redis-server here: the Redis token store is not measured; bash scripts/ensure-redis.sh installs it)');
  }
  const redis = redisServer ? await createClient({ url: redisServer.url }).connect() : undefined;
  const shared = redis
    ? new AcmeIdentityClient({ ...options, tokenStore: new RedisTokenStore(redis, { encryptionKey: new Uint8Array(32).fill(9) }) })
    : undefined;
  const commands = async () => Number(/total_commands_processed:(\d+)/.exec(String(await redis?.sendCommand(['INFO', 'stats'])))?.[1]);

  const contenders: Record<string, () => Promise<unknown>> = {
    'raw fetch': raw,
    'bare openapi-fetch': openapiFetch,
    'SDK client': () => client.identityRequests.get(codes),
  };
  let sharedCalls = 0;
  if (shared) {
    await shared.identityRequests.get(codes); // the token fetched and shared: every call after it is warm
    contenders['SDK client, token on Redis'] = () => {
      sharedCalls += 1;
      return shared.identityRequests.get(codes);
    };
  }
  const before = redis ? await commands() : 0;
  const medians: Medians = await compare(contenders, ITERATIONS);
  // Less the INFO that took the first count.
  if (redis) medians[`${COUNT}Redis commands a call, warm token`] = ((await commands()) - before - 1) / sharedCalls;
  await running.close();
  await redis?.quit();
  await redisServer?.stop();
  return medians;
}

await benchmark(`REST client overhead: GET /identity/request/{codes} on localhost, ${ITERATIONS} calls of each, shuffled`, measure, [
  ratio('SDK client', 'bare openapi-fetch', 'SDK / bare openapi-fetch', 1.05),
  ratio('SDK client', 'raw fetch', 'SDK / raw fetch'),
  ratio('bare openapi-fetch', 'raw fetch', 'bare openapi-fetch / raw fetch'),
  ratio('SDK client, token on Redis', 'bare openapi-fetch', 'SDK, token on Redis / bare openapi-fetch', 1.15),
]);
