/**
 * The identity inbox in PostgreSQL (#40) against a real server (a throw-away cluster on a free
 * port, scripts/postgres-server.ts): the rules every store keeps, the reconciler's races, the
 * handler's writes committed with the entry's settlement or not at all, workers woken by
 * LISTEN/NOTIFY, PostgreSQL killed and started again, and the inbox across processes (eight
 * receiving one delivery, a worker killed mid-fetch, one killed inside its handler's transaction).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { createIdentityInbox, type InboxClient, type InboxRecord } from '../../src/inbox/index.js';
import { PostgresInboxStore, postgresInboxMigration, type PgPoolClientLike } from '../../src/postgres/index.js';
import { startSandbox, type Sandbox } from '../../src/testing/index.js';
import { startPostgres, type PostgresServer } from '../../scripts/postgres-server.js';
import { acrossProcesses, approvedDelivery, worker } from '../inbox/across-processes.js';
import { endToEnd, inboxOn } from '../inbox/end-to-end.js';
import { reconcilerRaces } from '../inbox/reconcile-races.js';
import { storeRules } from '../inbox/store-rules.js';

let server: PostgresServer;
let sandbox: Sandbox;
const pools: pg.Pool[] = [];
beforeAll(async () => {
  server = await startPostgres();
  sandbox = await startSandbox();
}, 60_000);
afterAll(async () => {
  for (const pool of pools) await pool.end().catch(() => undefined);
  await sandbox?.close();
  await server?.stop();
});

/** A pool as every application must make one: an idle client's error (the server going away) is the pool's to handle. */
function pool(url = server.url): pg.Pool {
  const made = new pg.Pool({ connectionString: url, max: 8 });
  made.on('error', () => undefined);
  pools.push(made);
  return made;
}

let schemas = 0;
/** A schema of its own with the inbox's tables and a `people` table the handlers write to. */
async function schema(url = server.url): Promise<string> {
  const name = `inbox_test_${++schemas}`;
  const admin = pool(url);
  await admin.query(`CREATE SCHEMA IF NOT EXISTS ${name}`);
  await admin.query(`CREATE TABLE ${name}.people (code text NOT NULL)`);
  await new PostgresInboxStore(admin, { prefix: `${name}.` }).migrate();
  return name;
}

/** A store on tables of its own (a schema per store), migrated; or on `name`'s, from a pool of its own. */
async function store(name?: string, url = server.url): Promise<PostgresInboxStore> {
  return new PostgresInboxStore(pool(url), { prefix: `${name ?? (await schema(url))}.` });
}

/** The people a schema's handlers recorded, committed. */
async function people(name: string): Promise<string[]> {
  const { rows } = await pool().query(`SELECT code FROM ${name}.people ORDER BY code`);
  return rows.map((row: { code: string }) => row.code);
}

/** An entry due at `now`, its token an hour from expiry, as the store keeps it. */
const entry = (id: string, now: number): InboxRecord => ({
  id,
  kind: 'approved',
  deliveryId: 'd',
  token: 't',
  tokenExpiresAt: now + 3_600_000,
  receivedAt: now,
  attempts: 0,
  nextAttemptAt: now,
});

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** An X-Access-Token for an hour (the stub client below does not read it). */
const token = () => `${b64({ alg: 'RS256' })}.${b64({ exp: Math.floor(Date.now() / 1000) + 3_600 })}.c2ln`;
/** A client whose every fetch verifies: these tests are about the store, not the service. */
const verifying: InboxClient = {
  identityResponses: { getVerified: async () => ({ claims: {} }) as never },
  identityRequests: { get: async () => ({ data: {} }) },
};

describe('the inbox store rules: PostgreSQL', () => {
  storeRules(() => store(), {
    windowOnCallersClock: true,
    leasesOnCallersClock: true,
    claimsByTokenExpiry: true,
    expectedWithClaim: true,
    leasePerClaim: true,
  });
});

describe('the reconciler on PostgreSQL', () => {
  reconcilerRaces(() => store());
});

describe('the PostgreSQL store', () => {
  test('its migration is idempotent and names only the tables under its prefix', async () => {
    const made = await store();
    await made.migrate();
    const sql = postgresInboxMigration('inbox_migrations.');
    expect(sql.match(/CREATE TABLE IF NOT EXISTS (\S+)/g)).toEqual([
      'CREATE TABLE IF NOT EXISTS inbox_migrations.inbox_entries',
      'CREATE TABLE IF NOT EXISTS inbox_migrations.inbox_done',
      'CREATE TABLE IF NOT EXISTS inbox_migrations.inbox_references',
      'CREATE TABLE IF NOT EXISTS inbox_migrations.inbox_expected',
      'CREATE TABLE IF NOT EXISTS inbox_migrations.inbox_leases',
    ]);
  });

  test('a prefix that is not a plain name, and a pool that is not one, are ConfigurationErrors naming them', () => {
    const pool = new pg.Pool({ connectionString: server.url });
    pool.on('error', () => undefined);
    pools.push(pool);
    for (const prefix of ['x; DROP TABLE y', 'A.', '"quoted"', 'a.b.c', '1st_', 'myschema.9x']) {
      expect(() => new PostgresInboxStore(pool, { prefix })).toThrow(ConfigurationError);
    }
    // Plain names of any length, with or without a schema, are taken.
    for (const prefix of ['', 'acme_identity_', 'myschema.', 'myschema.acme_', '_x9']) {
      expect(() => new PostgresInboxStore(pool, { prefix })).not.toThrow();
    }
    // A pool needs both query and connect; none at all is the same ConfigurationError, not a TypeError.
    for (const notAPool of [{}, { query: () => undefined }, { connect: () => undefined }, undefined]) {
      expect(() => new PostgresInboxStore(notAPool as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'pool' }),
      );
    }
  });

  test('the store is durable: an inbox on it needs the key the tokens are sealed with', () => {
    const durable = new PostgresInboxStore(pool());
    expect(durable.durable).toBe(true);
    expect(() => createIdentityInbox({ client: verifying, store: durable, onIdentity: () => undefined })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'encryptionKey' }),
    );
  });

  test('a request settled before outcomes were kept (a done row of an older schema, its outcome null): its state is not known, not a null state', async () => {
    const name = await schema();
    const made = await store(name);
    const now = Date.now();
    await pool().query(`INSERT INTO ${name}.inbox_done (id, until) VALUES ($1, $2)`, ['arc_settled_long_ago', now + 3_600_000]);
    expect(await made.state('arc_settled_long_ago', now)).toBeUndefined();
    // A request never seen says the same; one settled with its outcome says it.
    expect(await made.state('arc_never_seen', now)).toBeUndefined();
    await pool().query(`INSERT INTO ${name}.inbox_done (id, until, outcome, settled_at) VALUES ($1, $2, $3, $4)`, [
      'arc_verified',
      now + 3_600_000,
      'verified',
      now,
    ]);
    expect(await made.state('arc_verified', now)).toEqual({ state: 'verified', at: now });
  });

  test("the reconciler's sweep deletes the rows past their time, to the millisecond: expected requests and return-page references; the rest stay (#45)", async () => {
    const name = await schema();
    const made = await store(name);
    const now = Date.now();
    const codes = async (table: string, column: string) =>
      (await pool().query(`SELECT ${column} AS code FROM ${name}.${table} ORDER BY ${column}`)).rows.map(
        (row: { code: string }) => row.code,
      );
    await made.refer('ref_ends', 'arc_ends', now + 1_000);
    await made.refer('ref_stays', 'arc_stays', now + 1_001);
    await made.expect({ accessRequestCode: 'arc_ends', identitySessionCode: 'isc_ends', createdAt: now }, 1_000);
    await made.expect({ accessRequestCode: 'arc_stays', identitySessionCode: 'isc_stays', createdAt: now }, 1_001);
    await made.awaiting(10, now + 999);
    expect(await codes('inbox_references', 'reference')).toEqual(['ref_ends', 'ref_stays']);
    expect(await codes('inbox_expected', 'code')).toEqual(['arc_ends', 'arc_stays']);
    await made.awaiting(10, now + 1_000);
    expect(await codes('inbox_references', 'reference')).toEqual(['ref_stays']);
    expect(await codes('inbox_expected', 'code')).toEqual(['arc_stays']);
  });

  test('the connection of a transaction your handler holds is ended by the server: completeWith rejects, nothing is settled, and the process lives on', async () => {
    const name = await schema();
    const made = await store(name);
    const now = Date.now();
    await made.add(entry('arc_cut', now), now);
    const [claim] = await made.claim('worker', 1, 60_000, now);
    const settling = made.completeWith(claim!, 60_000, now, async (transaction) => {
      const { rows } = await transaction.query('SELECT pg_backend_pid() AS pid');
      // The server ends this backend (as a restart or a failover does): node-postgres reports it as
      // an `error` event on the checked-out client, which the store must hear.
      const ended = new Promise<void>((resolve) => transaction.on?.('end', () => resolve()));
      await pool().query('SELECT pg_terminate_backend($1)', [rows[0]?.['pid']]);
      await ended;
    });
    await expect(settling).rejects.toThrow();
    // Still pending, under its lease: taken again once the lease runs out.
    expect(await made.stats(now)).toMatchObject({ pending: 0, inFlight: 1, dead: 0 });
  });

  test('eight concurrent deliveries of one request: one entry; two instances working it: handed over once', async () => {
    const name = await schema();
    const [a, b] = [await store(name), await store(name)];
    const handed: string[] = [];
    const instance = (made: PostgresInboxStore) =>
      createIdentityInbox({
        client: verifying,
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
        (i % 2 ? one : two).receive({ kind: 'approved', accessRequestCode: 'arc_pg', accessToken: token() }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'added')).toHaveLength(1);
    await Promise.all([one.runOnce(), two.runOnce()]);
    expect(handed).toEqual(['arc_pg']);
    expect(await one.stats()).toMatchObject({ pending: 0, inFlight: 0, dead: 0 });
  });
});

describe('a redelivery racing the settlement (PostgreSQL)', () => {
  /**
   * A pool whose transactions pause before their statement number `at` (counting from 1, BEGIN
   * included) until `resume` is called: the deterministic interleaving of two instances.
   */
  function pausing(real: pg.Pool, at: number) {
    let resume!: () => void;
    const gate = new Promise<void>((resolve) => (resume = resolve));
    let paused!: () => void;
    const reached = new Promise<void>((resolve) => (paused = resolve));
    const wrapped = {
      query: real.query.bind(real),
      connect: async () => {
        const client = await real.connect();
        let statements = 0;
        return {
          release: client.release.bind(client),
          query: async (text: string, values?: unknown[]) => {
            statements += 1;
            if (statements === at) {
              paused();
              await gate;
            }
            return client.query(text, values);
          },
        };
      },
    };
    return { pool: wrapped, reached, resume };
  }

  test("a settlement committed before any statement of a redelivery's storing: the redelivery is a duplicate, never a second entry", async () => {
    const record = (now: number) => entry('arc_race', now);
    // Before BEGIN, the advisory lock, each statement add() makes, and COMMIT: until add() ends before the pause.
    let pausedAt = 0;
    for (let at = 1; at <= 10; at++) {
      const name = await schema();
      const settling = await store(name);
      const now = Date.now();
      expect(await settling.add(record(now), now)).toBe('added');
      const [claim] = await settling.claim('worker', 1, 60_000, now);
      const paused = pausing(pool(), at);
      const storing = new PostgresInboxStore(paused.pool, { prefix: `${name}.` }).add(record(now), now + 1);
      if ((await Promise.race([paused.reached.then(() => 'paused'), storing])) !== 'paused') break;
      pausedAt = at;
      // The settlement either commits now or waits for the redelivery's lock: both are right, neither is a second entry.
      const settled = settling.complete(claim!, 60_000, now + 1);
      const waiting = async () =>
        Number((await pool().query("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'")).rows[0].n);
      let done = false;
      void settled.then(() => (done = true));
      await expect.poll(async () => done || (await waiting()) > 0, { timeout: 10_000, interval: 10 }).toBe(true);
      paused.resume();
      expect([at, await storing]).toEqual([at, 'duplicate']);
      await settled;
      expect(await settling.claim('another', 10, 60_000, now + 2)).toEqual([]);
      expect(await settling.stats(now + 2)).toMatchObject({ pending: 0, inFlight: 0, dead: 0 });
    }
    // BEGIN, the lock, the read of the entry, COMMIT at least: every gap between them was tried.
    expect(pausedAt).toBeGreaterThanOrEqual(4);
  });
});

describe("the handler inside the entry's transaction (PostgreSQL)", () => {
  /** An inbox on `name`'s tables whose handler records the person through the entry's transaction. */
  async function recording(name: string, handler?: (transaction: PgPoolClientLike, id: string) => Promise<void>) {
    return createIdentityInbox({
      client: verifying,
      store: await store(name),
      encryptionKey: new Uint8Array(32).fill(3),
      logLevel: 'off',
      backoffMs: 1,
      maxBackoffMs: 1,
      reconcileIntervalMs: false,
      onIdentity: async (delivery) => {
        if (!delivery.transaction) throw new Error('no transaction handed over');
        await delivery.transaction.query(`INSERT INTO ${name}.people (code) VALUES ($1)`, [delivery.id]);
        await handler?.(delivery.transaction, delivery.id);
      },
    });
  }

  test('a handler that throws after writing: its write is rolled back with the entry, which is tried again and recorded once', async () => {
    const name = await schema();
    let calls = 0;
    const inbox = await recording(name, async () => {
      calls += 1;
      if (calls === 1) throw new Error('the user service was down');
    });
    await inbox.expect({ accessRequestCode: 'arc_throw', identitySessionCode: 'isc_throw' });
    await inbox.receive({ kind: 'approved', accessRequestCode: 'arc_throw', accessToken: token() });
    // The first call throws; the entry is due again a millisecond later, and the second call returns.
    for (let pass = 0; pass < 100 && calls < 2; pass++) await inbox.runOnce();
    expect(calls).toBe(2);
    // Two calls wrote a row each; the first one's was rolled back with its transaction.
    expect(await people(name)).toEqual(['arc_throw']);
    expect(await inbox.stats()).toMatchObject({ pending: 0, inFlight: 0, dead: 0 });
  });

  test("an entry taken over while its handler ran: nothing the first holder wrote commits; the new holder's write does", async () => {
    const name = await schema();
    const [first, second] = [await store(name), await store(name)];
    const now = Date.now();
    await first.add(entry('arc_taken', now), now);
    const [slow] = await first.claim('slow', 1, 10, now);
    const [quick] = await second.claim('quick', 1, 60_000, now + 20);
    expect(slow && quick).toBeTruthy();
    const write = (id: string) => async (transaction: PgPoolClientLike) => {
      await transaction.query(`INSERT INTO ${name}.people (code) VALUES ($1)`, [id]);
    };
    expect(await first.completeWith(slow!, 60_000, now + 30, write('by-slow'))).toBe(false);
    expect(await people(name)).toEqual([]);
    expect(await second.completeWith(quick!, 60_000, now + 30, write('by-quick'))).toBe(true);
    expect(await people(name)).toEqual(['by-quick']);
    expect(await second.add({ ...quick!.record }, now + 40)).toBe('duplicate');
  });

  test('the memory store hands over no transaction', async () => {
    const seen: unknown[] = [];
    const inbox = createIdentityInbox({
      client: verifying,
      logLevel: 'off',
      reconcileIntervalMs: false,
      sessionCode: () => 'isc',
      onIdentity: (delivery) => void seen.push(delivery.transaction),
    });
    await inbox.receive({ kind: 'approved', accessRequestCode: 'arc_memory', accessToken: token() });
    await inbox.runOnce();
    expect(seen).toEqual([undefined]);
  });
});

/**
 * Two instances on `name`'s tables: one that listens for deliveries, polling only once a minute
 * (what it hands over goes into `handed`), and one that receives them.
 */
async function listeningPair(name: string, url: string, handed: string[]) {
  const instance = async (extra: Partial<Parameters<typeof createIdentityInbox>[0]>) =>
    createIdentityInbox({
      client: verifying,
      store: await store(name, url),
      encryptionKey: new Uint8Array(32).fill(3),
      logLevel: 'off',
      onIdentity: () => undefined,
      ...extra,
    });
  return {
    listening: await instance({
      pollIntervalMs: 60_000,
      reconcileIntervalMs: false,
      sessionCode: () => 'isc',
      onIdentity: (delivery) => void handed.push(delivery.id),
    }),
    receiving: await instance({}),
  };
}

describe('workers woken by LISTEN/NOTIFY (PostgreSQL)', () => {
  test('a started inbox polling once a minute hands over a delivery another instance stored within seconds, and each one after it', async () => {
    const name = await schema();
    const handed: string[] = [];
    const { listening, receiving } = await listeningPair(name, server.url, handed);
    listening.start();
    try {
      // The first may be found by the pass the start makes; the later ones only by a wake-up, the next poll being a minute away.
      for (const id of ['arc_wake_1', 'arc_wake_2', 'arc_wake_3']) {
        expect(await receiving.receive({ kind: 'approved', accessRequestCode: id, accessToken: token() })).toBe('added');
        await expect.poll(() => handed, { timeout: 10_000, interval: 20 }).toContain(id);
      }
      expect(handed).toEqual(['arc_wake_1', 'arc_wake_2', 'arc_wake_3']);
    } finally {
      await listening.stop();
    }
  }, 120_000);

  test('an entry revived from the dead wakes the listening workers, as a new one does', async () => {
    const name = await schema();
    const listening = await store(name);
    const storing = await store(name);
    let wakes = 0;
    const unsubscribe = await listening.subscribe(() => {
      wakes += 1;
    });
    try {
      const now = Date.now();
      // Once listening, then for the new entry.
      expect(await storing.add(entry('arc_revived', now), now)).toBe('added');
      await expect.poll(() => wakes, { timeout: 10_000, interval: 20 }).toBe(2);
      const [claim] = await storing.claim('worker', 1, 60_000, now);
      if (!claim) throw new Error('the entry was not claimed');
      await storing.bury(claim, {
        record: claim.record,
        reason: 'ERR_INBOX_TOKEN_EXPIRED',
        errorCode: 'ERR_TIMEOUT',
        message: 'm',
        deadAt: now,
      });
      expect(await storing.add(entry('arc_revived', now), now)).toBe('revived');
      await expect.poll(() => wakes, { timeout: 10_000, interval: 20 }).toBe(3);
    } finally {
      await unsubscribe();
    }
  });

  test('a pool whose clients cannot listen: said once at warn, and the inbox polls', async () => {
    const name = await schema();
    const real = pool();
    const lines: string[] = [];
    const deaf = {
      query: real.query.bind(real),
      connect: async () => {
        const client = await real.connect();
        return { query: client.query.bind(client), release: client.release.bind(client) };
      },
    };
    const inbox = createIdentityInbox({
      client: verifying,
      store: new PostgresInboxStore(deaf, { prefix: `${name}.` }),
      encryptionKey: new Uint8Array(32).fill(3),
      logger: { debug() {}, info() {}, error() {}, warn: (line: string) => void lines.push(line) },
      logLevel: 'warn',
      pollIntervalMs: 50,
      reconcileIntervalMs: false,
      onIdentity: () => undefined,
    });
    inbox.start();
    await expect.poll(() => lines).toEqual([expect.stringContaining('they poll')]);
    await inbox.stop();
  });
});

describe('PostgreSQL killed and started again', () => {
  test('nothing committed is lost; a delivery while it is down is refused (the service retries) and stored once it is back', async () => {
    const crashing = await startPostgres();
    try {
      const name = await schema(crashing.url);
      const { inbox, handed, deliver, create } = inboxOn(await store(name, crashing.url), sandbox);
      const arcs = [await create(), await create(), await create()];
      for (const arc of arcs.slice(0, 2)) expect(await deliver(await sandbox.service.approve(arc))).toBe('added');
      const late = await sandbox.service.approve(arcs[2]!);
      await crashing.kill();
      await expect(deliver(late)).rejects.toThrow();
      await crashing.restart();
      await expect
        .poll(
          () =>
            inbox.stats().then(
              () => true,
              () => false,
            ),
          { timeout: 10_000 },
        )
        .toBe(true);
      expect(await deliver(late)).toBe('added');
      expect(await inbox.stats()).toMatchObject({ pending: 3, dead: 0 });
      await inbox.runOnce();
      expect(handed.map((delivery) => delivery.id).sort()).toEqual([...arcs].sort());
    } finally {
      await crashing.stop();
    }
  }, 60_000);
});

describe('LISTEN through a PostgreSQL restart', () => {
  test('a started inbox listening for deliveries: the server killed and started again, it listens again, and a delivery after it wakes it (its poll a minute away)', async () => {
    const crashing = await startPostgres();
    const handed: string[] = [];
    let listening: ReturnType<typeof createIdentityInbox> | undefined;
    try {
      const name = await schema(crashing.url);
      const pair = await listeningPair(name, crashing.url, handed);
      listening = pair.listening;
      const receiving = pair.receiving;
      listening.start();
      expect(await receiving.receive({ kind: 'approved', accessRequestCode: 'arc_before', accessToken: token() })).toBe('added');
      await expect.poll(() => handed, { timeout: 10_000, interval: 20 }).toEqual(['arc_before']);
      await crashing.kill();
      await crashing.restart();
      // Stored until it is received: the listener comes back within seconds of the server.
      await expect
        .poll(
          async () => receiving.receive({ kind: 'approved', accessRequestCode: 'arc_after', accessToken: token() }).catch(() => 'refused'),
          {
            timeout: 15_000,
            interval: 200,
          },
        )
        .not.toBe('refused');
      await expect.poll(() => handed, { timeout: 15_000, interval: 50 }).toEqual(['arc_before', 'arc_after']);
    } finally {
      await listening?.stop();
      await crashing.stop();
    }
  }, 60_000);
});

describe('the inbox end to end on PostgreSQL', () => {
  endToEnd({ sandbox: () => sandbox, store: () => store() });
});

describe('the inbox across processes, on PostgreSQL', () => {
  const setup = { kind: 'postgres', url: () => server.url, sandbox: () => sandbox, prefix: async () => `${await schema()}.` };
  acrossProcesses(setup);

  test('a worker killed inside its handler, before its transaction committed: nothing it wrote is kept; another process records the person once', async () => {
    const prefix = await setup.prefix();
    const delivery = await approvedDelivery(sandbox);
    const received = await worker(setup, prefix, ['receive', sandbox.baseUrl, delivery.isc, delivery.body, delivery.signature]).result;
    expect(received).toEqual({ status: 200, handed: 0 });
    const dying = worker(setup, prefix, ['work', sandbox.baseUrl, delivery.isc, '1500', String(Date.now() + 20_000)], {
      HANG_IN_HANDLER: '1',
    });
    let output = '';
    dying.child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await expect.poll(() => output, { timeout: 20_000, interval: 50 }).toContain('in-handler');
    dying.child.kill('SIGKILL');
    await dying.result.catch(() => undefined);
    const name = prefix.slice(0, -1);
    expect(await people(name)).toEqual([]);
    const survivor = worker(setup, prefix, ['work', sandbox.baseUrl, delivery.isc, '1500', String(Date.now() + 20_000)]);
    expect(await survivor.result).toEqual({ status: 0, handed: 1 });
    expect(await people(name)).toEqual([delivery.arc]);
  }, 120_000);
});
