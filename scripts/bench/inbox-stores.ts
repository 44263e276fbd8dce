/**
 * Deliveries per second through the identity inbox on each store (#40), beside a bare loop making
 * the same round trips on the same server, at 1, 10 and 100 deliveries at once. A delivery is
 * stored (`receive`), taken by a worker and settled (`runOnce`, the handler doing nothing and the
 * client answering at once: this measures the store, not the service). The bare loops:
 *   Redis:      XADD, then XREADGROUP + XACK;
 *   PostgreSQL: INSERT, then SELECT … FOR UPDATE SKIP LOCKED + UPDATE in a transaction.
 * A benchmark, not a test: it prints figures and never fails the build. Needs redis-server and
 * PostgreSQL (scripts/ensure-redis.sh, scripts/ensure-postgres.sh); a store whose server is
 * missing is skipped.
 *
 *   tsx scripts/bench/inbox-stores.ts        (DELIVERIES=2000 for more)
 */
import pg from 'pg';
import { createClient } from 'redis';
import { createIdentityInbox, type InboxClient, type InboxStore } from '../../src/inbox/index.js';
import { PostgresInboxStore } from '../../src/postgres/index.js';
import { RedisInboxStore } from '../../src/redis/index.js';
import { startPostgres } from '../postgres-server.js';
import { startRedis } from '../redis-server.js';

const DELIVERIES = Number(process.env['DELIVERIES'] ?? 1_000);
const CONCURRENCY = [1, 10, 100];

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const token = `${b64url({ alg: 'RS256' })}.${b64url({ exp: Math.floor(Date.now() / 1000) + 3_600 })}.c2ln`;
const client: InboxClient = {
  identityResponses: { getVerified: async () => ({ claims: {} }) as never },
  identityRequests: { get: async () => ({ data: {} }) },
};

/** `count` tasks run `concurrency` at a time. */
async function pooled(count: number, concurrency: number, task: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** Deliveries per second: `DELIVERIES` stored `concurrency` at a time, then worked off by `concurrency` workers. */
async function throughput(run: (concurrency: number) => Promise<void>, concurrency: number): Promise<number> {
  const start = performance.now();
  await run(concurrency);
  return DELIVERIES / ((performance.now() - start) / 1000);
}

let runs = 0;
/** Through the inbox on a store `make` returns fresh for each run. */
function throughInbox(make: () => Promise<InboxStore>) {
  return async (concurrency: number) => {
    const inbox = createIdentityInbox({
      client,
      store: await make(),
      encryptionKey: new Uint8Array(32).fill(7),
      logLevel: 'off',
      concurrency,
      reconcileIntervalMs: false,
      sessionCode: () => 'isc',
      onIdentity: () => undefined,
    });
    runs += 1;
    await pooled(DELIVERIES, concurrency, (i) =>
      inbox.receive({ kind: 'approved', accessRequestCode: `arc_${runs}_${i}`, accessToken: token }),
    );
    const settled = await inbox.runOnce();
    if (settled !== DELIVERIES) throw new Error(`settled ${settled} of ${DELIVERIES}`);
  };
}

function report(name: string, inbox: number[], bare: number[]): void {
  console.log(`  ${name}`);
  CONCURRENCY.forEach((concurrency, i) => {
    const share = inbox[i]! / bare[i]!;
    console.log(
      `    ${String(concurrency).padStart(3)} at once: inbox ${inbox[i]!.toFixed(0).padStart(6)}/s, bare loop ${bare[i]!.toFixed(0).padStart(6)}/s (inbox at ${(share * 100).toFixed(0)}% of it)`,
    );
  });
}

async function measure(inboxRun: (c: number) => Promise<void>, bareRun: (c: number) => Promise<void>): Promise<[number[], number[]]> {
  // A warm-up of each, then each concurrency once.
  await inboxRun(10);
  await bareRun(10);
  const inbox: number[] = [];
  const bare: number[] = [];
  for (const concurrency of CONCURRENCY) {
    inbox.push(await throughput(inboxRun, concurrency));
    bare.push(await throughput(bareRun, concurrency));
  }
  return [inbox, bare];
}

console.log(`inbox stores: ${DELIVERIES} deliveries stored, taken and settled, per second`);

const redisServer = await startRedis().catch(() => undefined);
if (redisServer) {
  const redis = await createClient({ url: redisServer.url }).connect();
  let streams = 0;
  const bare = async (concurrency: number) => {
    const stream = `bare:${++streams}`;
    await redis.sendCommand(['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    await pooled(DELIVERIES, concurrency, (i) => redis.sendCommand(['XADD', stream, '*', 'id', String(i)]));
    let done = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, worker) => {
        while (done < DELIVERIES) {
          const read = (await redis.sendCommand(['XREADGROUP', 'GROUP', 'g', `w${worker}`, 'COUNT', '1', 'STREAMS', stream, '>'])) as
            | [string, [string, string[]][]][]
            | null;
          const message = read?.[0]?.[1][0];
          if (!message) return;
          await redis.sendCommand(['XACK', stream, 'g', message[0]]);
          done += 1;
        }
      }),
    );
  };
  let prefixes = 0;
  const [inbox, loop] = await measure(
    throughInbox(async () => new RedisInboxStore(redis, { prefix: `bench-${++prefixes}:` })),
    bare,
  );
  report('Redis (node-redis, one connection)', inbox, loop);
  await redis.quit();
  await redisServer.stop();
} else {
  console.log('  Redis: skipped (no redis-server: bash scripts/ensure-redis.sh installs it)');
}

const postgresServer = await startPostgres().catch(() => undefined);
if (postgresServer) {
  const pool = new pg.Pool({ connectionString: postgresServer.url, max: 20 });
  pool.on('error', () => undefined);
  let schemas = 0;
  const bare = async (concurrency: number) => {
    const table = `bare_${++schemas}`;
    await pool.query(`CREATE TABLE ${table} (id text PRIMARY KEY, state text NOT NULL)`);
    await pooled(DELIVERIES, concurrency, (i) => pool.query(`INSERT INTO ${table} (id, state) VALUES ($1, 'pending')`, [String(i)]));
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (;;) {
          const connection = await pool.connect();
          try {
            await connection.query('BEGIN');
            const { rows } = await connection.query(`SELECT id FROM ${table} WHERE state = 'pending' LIMIT 1 FOR UPDATE SKIP LOCKED`);
            if (rows.length === 0) {
              await connection.query('COMMIT');
              return;
            }
            await connection.query(`UPDATE ${table} SET state = 'done' WHERE id = $1`, [rows[0].id]);
            await connection.query('COMMIT');
          } finally {
            connection.release();
          }
        }
      }),
    );
  };
  const [inbox, loop] = await measure(
    throughInbox(async () => {
      const schema = `bench_${++schemas}`;
      await pool.query(`CREATE SCHEMA ${schema}`);
      const store = new PostgresInboxStore(pool, { prefix: `${schema}.` });
      await store.migrate();
      return store;
    }),
    bare,
  );
  report('PostgreSQL (a pool of 20)', inbox, loop);
  await pool.end();
  await postgresServer.stop();
} else {
  console.log('  PostgreSQL: skipped (no PostgreSQL: bash scripts/ensure-postgres.sh installs it)');
}
