/**
 * The identity inbox in PostgreSQL (#40) against a real server (a throw-away cluster on a free
 * port, scripts/postgres-server.ts): the rules every store keeps, the reconciler's races, and the
 * inbox end to end with a worker that dies mid-settle, on the same tables from two pools (two
 * instances of the relying party).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { createIdentityInbox, type InboxClient } from '../../src/inbox/index.js';
import { PostgresInboxStore, postgresInboxMigration } from '../../src/postgres/index.js';
import { startPostgres, type PostgresServer } from '../../scripts/postgres-server.js';
import { reconcilerRaces } from '../inbox/reconcile-races.js';
import { storeRules } from '../inbox/store-rules.js';

let server: PostgresServer;
const pools: pg.Pool[] = [];
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  for (const pool of pools) await pool.end().catch(() => undefined);
  await server?.stop();
});

let schemas = 0;
/** A store on tables of its own (a schema per store), migrated. */
async function store(schema = `inbox_test_${++schemas}`): Promise<PostgresInboxStore> {
  const pool = new pg.Pool({ connectionString: server.url, max: 8 });
  // As every application must: an idle client's error (the server going away at the end) is the pool's to handle.
  pool.on('error', () => undefined);
  pools.push(pool);
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  const made = new PostgresInboxStore(pool, { prefix: `${schema}.` });
  await made.migrate();
  return made;
}

describe('the inbox store rules: PostgreSQL', () => {
  storeRules(() => store());
});

describe('the reconciler on PostgreSQL', () => {
  reconcilerRaces(() => store());
});

describe('the PostgreSQL store', () => {
  test('its migration is idempotent and names only the tables under its prefix', async () => {
    const made = await store('inbox_migrations');
    await made.migrate();
    const sql = postgresInboxMigration('inbox_migrations.');
    expect(sql.match(/CREATE TABLE IF NOT EXISTS (\S+)/g)).toEqual([
      'CREATE TABLE IF NOT EXISTS inbox_migrations.inbox_entries',
      'CREATE TABLE IF NOT EXISTS inbox_migrations.inbox_done',
      'CREATE TABLE IF NOT EXISTS inbox_migrations.inbox_expected',
      'CREATE TABLE IF NOT EXISTS inbox_migrations.inbox_leases',
    ]);
  });

  test('a prefix that is not a plain name, and a pool that is not one, are ConfigurationErrors naming them', () => {
    const pool = new pg.Pool({ connectionString: server.url });
    pool.on('error', () => undefined);
    pools.push(pool);
    for (const prefix of ['x; DROP TABLE y', 'A.', '"quoted"', 'a.b.c']) {
      expect(() => new PostgresInboxStore(pool, { prefix })).toThrow(ConfigurationError);
    }
    expect(() => new PostgresInboxStore({} as never)).toThrow(/pool/);
  });

  test('eight concurrent deliveries of one request: one entry; two instances working it: handed over once', async () => {
    const schema = `inbox_test_${++schemas}`;
    const [a, b] = [await store(schema), await store(schema)];
    const handed: string[] = [];
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const token = `${b64({ alg: 'RS256' })}.${b64({ exp: Math.floor(Date.now() / 1000) + 3_600 })}.c2ln`;
    const client: InboxClient = {
      identityResponses: { getVerified: async () => ({ claims: {} }) as never },
      identityRequests: { get: async () => ({ data: {} }) },
    };
    const instance = (made: PostgresInboxStore) =>
      createIdentityInbox({
        client,
        store: made,
        encryptionKey: new Uint8Array(32).fill(3),
        logLevel: 'off',
        reconcileIntervalMs: false,
        onIdentity: (delivery) => {
          handed.push(delivery.accessRequestCode);
        },
      });
    const [one, two] = [instance(a), instance(b)];
    await one.expect({ accessRequestCode: 'arc_pg', identitySessionCode: 'isc_pg' });
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? one : two).receive({ kind: 'approved', accessRequestCode: 'arc_pg', accessToken: token }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'added')).toHaveLength(1);
    await Promise.all([one.runOnce(), two.runOnce()]);
    expect(handed).toEqual(['arc_pg']);
    expect(await one.stats()).toMatchObject({ pending: 0, inFlight: 0, dead: 0 });
  });
});
