/**
 * One instance of a relying party with an identity inbox on Redis, as a separate process, for the
 * multi-process tests of the inbox. Prints one JSON line: the receiver's status and how many
 * identities this process handed over.
 *
 *   receive <client> <redisUrl> <baseUrl> <isc> <body> <signature> [work]   receives the delivery (then, with `work`, works until nothing is due)
 *   work    <client> <redisUrl> <baseUrl> <isc> <leaseMs> <untilMs>  works (taking over dead workers' entries) until it handed one over or untilMs passed
 *
 * Its keys go under INBOX_PREFIX, so that each test has a stream of its own.
 */
import { AcmeIdentityClient } from '../../src/index.js';
import { createIdentityInbox } from '../../src/inbox/index.js';
import { RedisInboxStore } from '../../src/redis/index.js';
import { DEFAULT_CLIENT } from '../../src/testing/index.js';
import { createWebhookReceiver, createWebhookVerifier } from '../../src/webhooks/index.js';
import { connectRedis } from './connect.js';

const [mode, kind, redisUrl, baseUrl, isc, ...rest] = process.argv.slice(2);
const KEY = new Uint8Array(32).fill(9);

const redis = await connectRedis(kind, redisUrl!);
const acme = new AcmeIdentityClient({
  baseUrl: baseUrl!,
  clientId: DEFAULT_CLIENT.clientId,
  clientSecret: DEFAULT_CLIENT.clientSecret,
  tenantId: DEFAULT_CLIENT.tenantId,
  maxRetries: 0,
});
let handed = 0;
const leaseMs = mode === 'work' ? Number(rest[0]) : 60_000;
const inbox = createIdentityInbox({
  client: acme,
  store: new RedisInboxStore(redis.client, { prefix: process.env['INBOX_PREFIX'] ?? 'acme-identity:' }),
  encryptionKey: KEY,
  sessionCode: () => isc,
  leaseMs,
  logLevel: 'off',
  onIdentity: (delivery) => {
    if (delivery.kind === 'approved') handed += 1;
  },
});

let status = 0;
if (mode === 'receive') {
  const [body, signature, work] = rest;
  const receiver = createWebhookReceiver(
    createWebhookVerifier({ secret: DEFAULT_CLIENT.webhookSecret, replayStore: false }),
    inbox.receive,
  );
  status = (await receiver.handle(body!, { 'x-webhook-signature': signature! })).status;
  if (work === 'work') await inbox.runOnce();
} else {
  const until = Number(rest[1]);
  while (handed === 0 && Date.now() < until) {
    await inbox.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
process.stdout.write(`${JSON.stringify({ status, handed })}\n`);
await redis.close();
process.exit(0);
