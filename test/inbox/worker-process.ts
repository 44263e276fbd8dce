/**
 * One instance of a relying party with an identity inbox, as a separate process, for the
 * multi-process tests of the inbox on Redis and on PostgreSQL. Prints one JSON line: the
 * receiver's status and how many identities this process handed over.
 *
 *   receive <store> <storeUrl> <baseUrl> <isc> <body> <signature> [work]   receives the delivery (then, with `work`, works until nothing is due)
 *   work    <store> <storeUrl> <baseUrl> <isc> <leaseMs> <untilMs>         works (taking over dead workers' entries) until it handed one over or untilMs passed
 *
 * `store` is `node-redis`, `ioredis` or `postgres`. Its keys (Redis) or tables (PostgreSQL, a
 * schema) go under INBOX_PREFIX, so that each test has its own. On PostgreSQL the handler records
 * the person in the test's `people` table through the entry's transaction; with HANG_IN_HANDLER
 * set it then prints `in-handler` and waits to be killed, before its transaction commits.
 */
import pg from 'pg';
import { AcmeIdentityClient } from '../../src/index.js';
import { createIdentityInbox, type InboxDelivery, type InboxStore } from '../../src/inbox/index.js';
import { PostgresInboxStore, type PgPoolClientLike } from '../../src/postgres/index.js';
import { RedisInboxStore } from '../../src/redis/index.js';
import { DEFAULT_CLIENT } from '../../src/testing/index.js';
import { createWebhookReceiver, createWebhookVerifier } from '../../src/webhooks/index.js';
import { connectRedis } from '../redis/connect.js';

const [mode, kind, storeUrl, baseUrl, isc, ...rest] = process.argv.slice(2);
const KEY = new Uint8Array(32).fill(9);
const prefix = process.env['INBOX_PREFIX'];

/** The store, and what closes its connection at the end. */
async function open(): Promise<{ store: InboxStore<PgPoolClientLike | undefined>; close(): Promise<unknown> }> {
  if (kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: storeUrl, max: 4 });
    pool.on('error', () => undefined);
    return { store: new PostgresInboxStore(pool, { prefix: prefix ?? 'acme_identity_' }), close: () => pool.end() };
  }
  const redis = await connectRedis(kind, storeUrl!);
  return { store: new RedisInboxStore(redis.client, { prefix: prefix ?? 'acme-identity:' }), close: () => redis.close() };
}

const { store, close } = await open();
const acme = new AcmeIdentityClient({
  baseUrl: baseUrl!,
  clientId: DEFAULT_CLIENT.clientId,
  clientSecret: DEFAULT_CLIENT.clientSecret,
  tenantId: DEFAULT_CLIENT.tenantId,
  maxRetries: 0,
});
let handed = 0;

async function record(delivery: InboxDelivery<PgPoolClientLike | undefined>): Promise<void> {
  if (delivery.kind !== 'approved') return;
  if (delivery.transaction) {
    await delivery.transaction.query(`INSERT INTO ${prefix}people (code) VALUES ($1)`, [delivery.id]);
    if (process.env['HANG_IN_HANDLER']) {
      process.stdout.write('in-handler\n');
      await new Promise(() => undefined);
    }
  }
  handed += 1;
}

const leaseMs = mode === 'work' ? Number(rest[0]) : 60_000;
const inbox = createIdentityInbox({
  client: acme,
  store,
  encryptionKey: KEY,
  sessionCode: () => isc,
  leaseMs,
  logLevel: 'off',
  reconcileIntervalMs: false,
  onIdentity: record,
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
await close();
process.exit(0);
