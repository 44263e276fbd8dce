/**
 * What the identity inbox adds before the webhook's 200 (issue #28): the Redis round trips and the
 * time of a delivery through the receiver, with the Redis replay store, without and with the inbox
 * on Redis Streams. Goal: at most one round trip more. A benchmark, not a test: it prints figures
 * and never fails the build. Needs redis-server (`bash scripts/ensure-redis.sh`).
 *
 *   npm run bench            (ITERATIONS=2000 for more samples)
 */
import { createHmac } from 'node:crypto';
import { createClient } from 'redis';
import { createIdentityInbox } from '../../src/inbox/index.js';
import { RedisInboxStore, RedisReplayStore, type RedisClientLike } from '../../src/redis/index.js';
import { createWebhookReceiver, createWebhookVerifier } from '../../src/webhooks/index.js';
import { startRedis } from '../redis-server.js';
import { median, time } from './stats.js';

const ITERATIONS = Number(process.env['ITERATIONS'] ?? 500);
const secret = 'whsec_bench_0123456789abcdef0123456789abcdef';
const server = await startRedis().catch(() => undefined);
if (!server) {
  console.log('inbox: skipped (no redis-server: bash scripts/ensure-redis.sh installs it)');
  process.exit(0);
}
const redis = await createClient({ url: server.url }).connect();
let commands = 0;
const counting: RedisClientLike = {
  isOpen: true,
  sendCommand: (args: string[]) => {
    commands += 1;
    return redis.sendCommand(args);
  },
};

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
let n = 0;
/** A fresh delivery (its own request code and token), signed as the service signs it. */
function delivery(): { body: string; headers: Record<string, string> } {
  n += 1;
  const token = `${b64url({ alg: 'RS256' })}.${b64url({ access_request_code: `arc_bench_${n}`, exp: Math.floor(Date.now() / 1000) + 3600 })}.c2ln`;
  const body = JSON.stringify({ event: 'approved', access_request_code: `arc_bench_${n}`, access_token: token });
  return { body, headers: { 'x-webhook-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` } };
}

const verifier = createWebhookVerifier({ secret, replayStore: new RedisReplayStore(counting, { prefix: 'bench:' }), logLevel: 'off' });
const plain = createWebhookReceiver(verifier, () => undefined);
const inbox = createIdentityInbox({
  client: {
    identityResponses: { getVerified: () => Promise.reject(new Error('not in this benchmark')) },
    identityRequests: { get: () => Promise.reject(new Error('no')) },
  },
  store: new RedisInboxStore(counting, { prefix: 'bench:' }),
  encryptionKey: new Uint8Array(32).fill(3),
  logLevel: 'off',
  onIdentity: () => undefined,
});
const withInbox = createWebhookReceiver(verifier, inbox.receive);

async function measure(receiver: typeof plain): Promise<{ trips: number; ms: number }> {
  const samples: number[] = [];
  let trips = 0;
  for (let i = 0; i < ITERATIONS; i++) {
    const { body, headers } = delivery();
    const before = commands;
    samples.push(
      await time(async () => {
        const outcome = await receiver.handle(body, headers);
        if (outcome.status !== 200) throw new Error(`answered ${outcome.status}`);
      }),
    );
    trips = Math.max(trips, commands - before);
  }
  return { trips, ms: median(samples) };
}

await measure(plain);
const without = await measure(plain);
const inboxed = await measure(withInbox);
console.log(`inbox: a delivery through the receiver with the Redis replay store, ${ITERATIONS} deliveries each`);
console.log(`  without the inbox: ${without.trips} Redis round trips, median ${(without.ms * 1000).toFixed(0)} µs`);
console.log(`  with the inbox:    ${inboxed.trips} Redis round trips, median ${(inboxed.ms * 1000).toFixed(0)} µs`);
const added = inboxed.trips - without.trips;
console.log(`  round trips added before the 200: ${added}  goal <= 1: ${added <= 1 ? 'met' : 'NOT met'}`);
await redis.quit();
await server.stop();
