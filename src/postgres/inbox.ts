/**
 * The identity inbox's entries in PostgreSQL, the database most relying parties already back up:
 * a delivery is persisted by a committed row before the receiver answers 200. One table of entries
 * (pending, held by a worker's lease, or set aside), one of handed-over requests (for redeliveries),
 * one of expected requests (for the session code and the reconciler), one of leases. Workers take
 * entries with `FOR UPDATE SKIP LOCKED`, the entry whose token expires first first; every change to
 * an entry is one statement fenced by its holder's lease token, or one transaction holding the
 * entry's advisory lock, so two workers never both settle an entry and a report never races a
 * delivery. The `pg` driver is an optional peer: pass a `pg.Pool` (anything with its `query` and
 * `connect`).
 */
import { ConfigurationError } from '../errors/index.js';
import type {
  DeadLetter,
  ExpectedRequest,
  InboxClaim,
  InboxOutcome,
  InboxRecord,
  InboxStats,
  InboxStore,
  RequestState,
} from '../inbox/store.js';

/** What the store needs of a `pg.Pool`: queries, and a client of its own for a transaction. */
export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
  connect(): Promise<PgPoolClientLike>;
}

/**
 * A client checked out of the pool, given back with `release` (`release(true)` destroys a broken
 * one). The inbox hands it to your `onIdentity` as `delivery.transaction`: the transaction that
 * settles the entry, for your writes to commit with it.
 */
export interface PgPoolClientLike {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
  release(destroy?: boolean): void;
  /**
   * node-postgres's events: `error`, listened to while the client is out of the pool (a server gone
   * away must not end the process), and `notification` (LISTEN), needed only to wake workers.
   */
  on?(event: string, listener: (message: { channel?: string }) => void): unknown;
  off?(event: string, listener: (message: { channel?: string }) => void): unknown;
}

export interface PostgresInboxStoreOptions {
  /** Prepended to the tables' names (a schema, `myschema.`, or a prefix, `acme_`). @default 'acme_identity_' */
  prefix?: string;
}

/**
 * The tables the store uses, as SQL: `store.migrate()` applies it (every statement `IF NOT EXISTS`,
 * so it may run at each start), or give it to your own migration tool.
 * @example
 * ```ts
 * await writeFile('migrations/0007_identity_inbox.sql', postgresInboxMigration('identity.'));
 * ```
 */
export function postgresInboxMigration(prefix = 'acme_identity_'): string {
  const t = tables(checkPrefix(prefix));
  return `CREATE TABLE IF NOT EXISTS ${t.entries} (
  id text PRIMARY KEY,
  record jsonb NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'dead')),
  next_attempt_at bigint NOT NULL,
  received_at bigint NOT NULL,
  token_expires_at bigint NOT NULL,
  lease_worker text,
  lease_token text,
  lease_until bigint,
  letter jsonb,
  dead_at bigint
);
CREATE INDEX IF NOT EXISTS ${t.index('entries_due')} ON ${t.entries} (state, next_attempt_at);
CREATE INDEX IF NOT EXISTS ${t.index('entries_claim')} ON ${t.entries} (token_expires_at) WHERE state = 'pending';
CREATE TABLE IF NOT EXISTS ${t.done} (id text PRIMARY KEY, until bigint NOT NULL);
ALTER TABLE ${t.done} ADD COLUMN IF NOT EXISTS outcome text, ADD COLUMN IF NOT EXISTS settled_at bigint;
CREATE TABLE IF NOT EXISTS ${t.references} (reference text PRIMARY KEY, code text NOT NULL, until bigint NOT NULL);
CREATE TABLE IF NOT EXISTS ${t.expected} (
  code text PRIMARY KEY,
  session_code text NOT NULL,
  created_at bigint NOT NULL,
  until bigint NOT NULL,
  reported_at bigint
);
CREATE TABLE IF NOT EXISTS ${t.leases} (name text PRIMARY KEY, holder text NOT NULL, until bigint NOT NULL);
`;
}

function checkPrefix(prefix: unknown): string {
  // An optional schema and its dot, then an optional start of the tables' names: plain names, nothing to quote.
  if (typeof prefix !== 'string' || !/^(?:[a-z_][a-z0-9_]*\.)?(?:[a-z_][a-z0-9_]*)?$/.test(prefix)) {
    throw new ConfigurationError('prefix', 'must be lower-case letters, digits and _ (a schema ends in a dot: "myschema.")');
  }
  return prefix;
}

function tables(prefix: string) {
  const name = (table: string) => `${prefix}inbox_${table}`;
  // An index lives in its table's schema, and its name is written without one.
  const index = (suffix: string) => `${prefix.slice(prefix.indexOf('.') + 1)}inbox_${suffix}`;
  // The channel deliveries are announced on: a plain identifier, the schema's dot made an underscore.
  const channel = `${prefix.replace('.', '_')}inbox`;
  return {
    index,
    channel,
    entries: name('entries'),
    done: name('done'),
    expected: name('expected'),
    leases: name('leases'),
    references: name('references'),
  };
}

/** A number PostgreSQL returned (`bigint` arrives as a string). */
const num = (value: unknown) => Number(value);

/**
 * The identity inbox's store on PostgreSQL (node-postgres `pg.Pool`): every instance of the relying
 * party shares it, a dead instance's entries are taken over after their lease, and what the
 * receiver answered 200 for is a committed row, kept as your database keeps everything.
 * @throws {ConfigurationError} for a pool that is not one, or a prefix that is not a plain name.
 * @example
 * ```ts
 * const store = new PostgresInboxStore(new pg.Pool({ connectionString }));
 * await store.migrate();
 * const inbox = createIdentityInbox({ client: acme, store, encryptionKey, onIdentity });
 * ```
 */
export class PostgresInboxStore implements InboxStore<PgPoolClientLike> {
  readonly durable: boolean = true;
  readonly #pool: PgPoolLike;
  readonly #prefix: string;
  readonly #t: ReturnType<typeof tables>;

  constructor(pool: PgPoolLike, options: PostgresInboxStoreOptions = {}) {
    if (typeof pool?.query !== 'function' || typeof pool.connect !== 'function') {
      throw new ConfigurationError('pool', 'must be a pg.Pool (node-postgres)');
    }
    this.#pool = pool;
    this.#prefix = checkPrefix(options.prefix ?? 'acme_identity_');
    this.#t = tables(this.#prefix);
  }

  /** Creates the tables if they are not there (`postgresInboxMigration` is the same SQL, to apply yourself). */
  async migrate(): Promise<void> {
    await this.#pool.query(postgresInboxMigration(this.#prefix));
  }

  /**
   * `work` in one transaction on a client of its own: committed when it resolves, rolled back when
   * it throws. While the client is out of the pool its `error` event is ours to listen to: node-postgres
   * emits one when the server goes away (even under a running query), and unheard it would end the
   * process. Heard, it needs nothing more: the statement under way fails with it, and so does the
   * ROLLBACK after it, which destroys the client rather than give it back.
   */
  async #transaction<T>(work: (client: PgPoolClientLike) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    const connectionLost = () => undefined;
    client.on?.('error', connectionLost);
    const giveBack = (destroy: boolean) => {
      client.off?.('error', connectionLost);
      client.release(destroy);
    };
    let result: T;
    try {
      await client.query('BEGIN');
      result = await work(client);
      await client.query('COMMIT');
    } catch (error) {
      // A client that cannot even roll back has lost its connection: destroyed, not given back to the pool.
      const rolledBack = await client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
      giveBack(!rolledBack);
      throw error;
    }
    giveBack(false);
    return result;
  }

  /** `work` in one transaction holding the advisory lock of entry `id`: what it reads stays true until it commits. */
  async #locked<T>(id: string, work: (query: PgPoolClientLike['query']) => Promise<T>): Promise<T> {
    return this.#transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.#prefix}inbox:${id}`]);
      return work((text, values) => client.query(text, values));
    });
  }

  async add(record: InboxRecord, now: number): Promise<'added' | 'revived' | 'duplicate'> {
    const t = this.#t;
    return this.#locked(record.id, async (query) => {
      // The entry's row first, locked: a worker settling it now either settled it before this read
      // (the row is gone, and the done row the same statement wrote is read below) or waits for
      // this transaction. Read the other way round, a settlement committed between the two reads
      // looked like a request never seen, and the identity was handed over twice.
      const held = await query(`SELECT record, state FROM ${t.entries} WHERE id = $1 FOR UPDATE`, [record.id]);
      const row = held.rows[0];
      if (!row) return (await this.#addNew(query, record, now)) ? 'added' : 'duplicate';
      const kept = row['record'] as InboxRecord;
      if (row['state'] === 'dead') {
        const revived = { ...record, receivedAt: kept.receivedAt };
        await query(
          `UPDATE ${t.entries} SET record = $2, state = 'pending', next_attempt_at = $3, token_expires_at = $4, letter = NULL, dead_at = NULL,
             lease_worker = NULL, lease_token = NULL, lease_until = NULL WHERE id = $1`,
          [record.id, JSON.stringify(revived), revived.nextAttemptAt, revived.tokenExpiresAt],
        );
        await query('SELECT pg_notify($1, $2)', [t.channel, '']);
        return 'revived';
      }
      if (record.tokenExpiresAt > kept.tokenExpiresAt) {
        const updated = { ...kept, token: record.token, tokenExpiresAt: record.tokenExpiresAt, kind: record.kind };
        await query(`UPDATE ${t.entries} SET record = $2, token_expires_at = $3 WHERE id = $1`, [
          record.id,
          JSON.stringify(updated),
          updated.tokenExpiresAt,
        ]);
      }
      return 'duplicate';
    });
  }

  /**
   * A delivery with no entry, in one statement (#44: it was four): refused while its request is
   * remembered as handed over; otherwise the expired memory of it forgotten, its entry written and
   * the workers woken (`pg_notify`, sent when the transaction commits). One statement reads the
   * done row on one snapshot, taken after the entry's row was read and locked (see `add`).
   * Whether the entry was written.
   */
  async #addNew(query: PgPoolClientLike['query'], record: InboxRecord, now: number): Promise<boolean> {
    const t = this.#t;
    const { rows } = await query(
      `WITH remembered AS (SELECT 1 FROM ${t.done} WHERE id = $1 AND until > $6),
            forgotten AS (DELETE FROM ${t.done} WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM remembered)),
            written AS (
              INSERT INTO ${t.entries} (id, record, state, next_attempt_at, received_at, token_expires_at)
              SELECT $1, $2::jsonb, 'pending', $3::bigint, $4::bigint, $5::bigint WHERE NOT EXISTS (SELECT 1 FROM remembered)
              RETURNING id)
       SELECT pg_notify($7, '') FROM written`,
      [record.id, JSON.stringify(record), record.nextAttemptAt, record.receivedAt, record.tokenExpiresAt, now, t.channel],
    );
    // A row for the entry written (its notification's), none for a duplicate: read by the rows, which every pool-like gives.
    return rows.length === 1;
  }

  async claim(worker: string, max: number, leaseMs: number, now: number): Promise<InboxClaim[]> {
    const t = this.#t;
    // The entries due, the one whose token expires first first; those another worker holds are
    // skipped, not waited for. Each with its request's expected record, if one is kept (#44).
    const { rows } = await this.#pool.query(
      `WITH claimed AS (
         UPDATE ${t.entries} SET lease_worker = $1, lease_token = md5(random()::text || clock_timestamp()::text), lease_until = $2
         WHERE id IN (
           SELECT id FROM ${t.entries}
           WHERE state = 'pending' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until <= $3)
           ORDER BY token_expires_at LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING id, record, lease_token, token_expires_at)
       SELECT c.record, c.lease_token, x.code, x.session_code, x.created_at
       FROM claimed c LEFT JOIN ${t.expected} x ON x.code = c.id
       ORDER BY c.token_expires_at`,
      [worker, now + leaseMs, now, max],
    );
    return rows.map((row) => ({
      record: row['record'] as InboxRecord,
      lease: String(row['lease_token']),
      expected: row['code'] === null ? null : requestOf(row),
    }));
  }

  async renew(worker: string, claim: InboxClaim, leaseMs: number, now: number): Promise<boolean> {
    const { rowCount } = await this.#pool.query(
      `UPDATE ${this.#t.entries} SET lease_until = $4 WHERE id = $1 AND lease_token = $2 AND lease_worker = $3 AND state = 'pending'`,
      [claim.record.id, claim.lease, worker, now + leaseMs],
    );
    return rowCount === 1;
  }

  async complete(claim: InboxClaim, doneTtlMs: number, now: number, outcome?: InboxOutcome): Promise<void> {
    await this.#settle(this.#pool.query.bind(this.#pool), claim, { doneTtlMs, now, outcome });
  }

  /**
   * Your handler and the entry's settlement in one transaction: `handOver` gets its client, and
   * what it writes commits with the entry's completion, or not at all. The entry's row is locked
   * only by the final statement, so a slow handler blocks no other worker; if the entry was taken
   * over meanwhile, that statement finds it gone and everything is rolled back.
   */
  async completeWith(
    claim: InboxClaim,
    doneTtlMs: number,
    now: number,
    handOver: (transaction: PgPoolClientLike) => Promise<void>,
    outcome?: InboxOutcome,
  ): Promise<boolean> {
    const taken = new Error('taken over');
    try {
      return await this.#transaction(async (client) => {
        await handOver(client);
        if (!(await this.#settle(client.query.bind(client), claim, { doneTtlMs, now, outcome }))) throw taken;
        return true;
      });
    } catch (error) {
      if (error === taken) return false;
      throw error;
    }
  }

  /**
   * One statement: the entry gone, the request remembered as handed over and no longer expected;
   * or nothing, for a lease lost. Whether the entry was this claim's to settle.
   */
  async #settle(
    query: PgPoolLike['query'],
    claim: InboxClaim,
    { doneTtlMs, now, outcome }: { doneTtlMs: number; now: number; outcome: InboxOutcome | undefined },
  ): Promise<boolean> {
    const t = this.#t;
    const { rows } = await query(
      `WITH gone AS (DELETE FROM ${t.entries} WHERE id = $1 AND lease_token = $2 AND state = 'pending' RETURNING id),
            remembered AS (
              INSERT INTO ${t.done} (id, until, outcome, settled_at) SELECT id, $3, $4, $5 FROM gone
              ON CONFLICT (id) DO UPDATE SET until = excluded.until, outcome = excluded.outcome, settled_at = excluded.settled_at),
            forgotten AS (DELETE FROM ${t.expected} WHERE code IN (SELECT id FROM gone))
       SELECT count(*) AS settled FROM gone`,
      [claim.record.id, claim.lease, now + doneTtlMs, outcome ?? null, now],
    );
    return num(rows[0]?.['settled']) === 1;
  }

  /**
   * Listens (LISTEN) on a connection of its own for the deliveries any instance stores, and calls
   * `wake` for each; a connection lost is made again after a second, while polling carries on.
   */
  async subscribe(wake: () => void): Promise<() => Promise<void>> {
    const channel = this.#t.channel;
    /** The connection listening now, and how to let it go (`release` for a sound one, `destroy` for a broken one). */
    let active: { connection: PgPoolClientLike; letGo(destroy: boolean): void } | undefined;
    let stopped = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    /** A reconnection under way: stopping waits for it, so that no connection is left listening. */
    let attempt: Promise<void> | undefined;
    const notified = (message: { channel?: string }) => {
      if (message.channel === channel) wake();
    };
    const listen = async (): Promise<void> => {
      const connection = await this.#pool.connect();
      if (typeof connection.on !== 'function') {
        connection.release();
        throw new ConfigurationError('pool', 'its clients have no on(): workers are woken by polling only');
      }
      let gone = false;
      // Given back once, whatever reports it first. The error listener stays for the client's
      // life (a no-op once gone): an error the client reports later, in the pool, is never unhandled.
      const letGo = (destroy: boolean) => {
        if (gone) return;
        gone = true;
        connection.off?.('notification', notified);
        // One connection at a time: a new one is made only once the last was let go.
        active = undefined;
        connection.release(destroy);
      };
      const broken = () => {
        if (gone) return;
        letGo(true);
        if (!stopped) again();
      };
      connection.on('notification', notified);
      connection.on('error', broken);
      if (stopped) return letGo(false);
      try {
        await connection.query(`LISTEN "${channel}"`);
      } catch (error) {
        broken();
        throw error;
      }
      active = { connection, letGo };
      // A delivery stored while the connection was being made: looked for at once.
      wake();
    };
    const again = () => {
      clearTimeout(retry);
      // Tried each second until the server answers again (a failed LISTEN schedules itself through `broken`).
      retry = setTimeout(() => {
        attempt = listen().catch(() => (stopped ? undefined : again()));
      }, 1_000);
      (retry as { unref?: () => void }).unref?.();
    };
    try {
      await listen();
    } catch (error) {
      // Not listening from the start: the inbox polls, and nothing is tried again here.
      clearTimeout(retry);
      throw error;
    }
    return async () => {
      stopped = true;
      clearTimeout(retry);
      await attempt;
      const listening = active;
      if (!listening) return;
      await listening.connection.query(`UNLISTEN "${channel}"`).then(
        () => listening.letGo(false),
        () => listening.letGo(true),
      );
    };
  }

  async reschedule(claim: InboxClaim, record: InboxRecord): Promise<void> {
    await this.#pool.query(
      `UPDATE ${this.#t.entries} SET record = $3, next_attempt_at = $4, lease_worker = NULL, lease_token = NULL, lease_until = NULL
       WHERE id = $1 AND lease_token = $2 AND state = 'pending'`,
      [claim.record.id, claim.lease, JSON.stringify(record), record.nextAttemptAt],
    );
  }

  async bury(claim: InboxClaim, letter: DeadLetter): Promise<void> {
    await this.#pool.query(
      `UPDATE ${this.#t.entries} SET state = 'dead', record = $3, letter = $4, dead_at = $5, lease_worker = NULL, lease_token = NULL, lease_until = NULL
       WHERE id = $1 AND lease_token = $2 AND state = 'pending'`,
      [claim.record.id, claim.lease, JSON.stringify(letter.record), JSON.stringify(letter), letter.deadAt],
    );
  }

  async deadLetters(limit: number): Promise<DeadLetter[]> {
    const { rows } = await this.#pool.query(`SELECT letter FROM ${this.#t.entries} WHERE state = 'dead' ORDER BY dead_at, id LIMIT $1`, [
      Math.min(limit, Number.MAX_SAFE_INTEGER),
    ]);
    return rows.map((row) => row['letter'] as DeadLetter);
  }

  async revive(id: string, record: InboxRecord): Promise<boolean> {
    const t = this.#t;
    const { rows } = await this.#pool.query(
      `WITH revived AS (
         UPDATE ${t.entries} SET state = 'pending', record = $2, next_attempt_at = $3, token_expires_at = $4, letter = NULL, dead_at = NULL
         WHERE id = $1 AND state = 'dead' RETURNING id)
       SELECT pg_notify($5, '') FROM revived`,
      [id, JSON.stringify(record), record.nextAttemptAt, record.tokenExpiresAt, t.channel],
    );
    return rows.length === 1;
  }

  async discard(id: string): Promise<boolean> {
    const { rowCount } = await this.#pool.query(`DELETE FROM ${this.#t.entries} WHERE id = $1 AND state = 'dead'`, [id]);
    return rowCount === 1;
  }

  async stats(now: number): Promise<InboxStats> {
    const { rows } = await this.#pool.query(
      `SELECT count(*) FILTER (WHERE state = 'pending' AND (lease_until IS NULL OR lease_until <= $1)) AS pending,
              count(*) FILTER (WHERE state = 'pending' AND lease_until > $1) AS in_flight,
              count(*) FILTER (WHERE state = 'dead') AS dead,
              min(received_at) FILTER (WHERE state = 'pending') AS oldest
       FROM ${this.#t.entries}`,
      [now],
    );
    // An aggregate answers one row, its minimum null when nothing is pending.
    const row = rows[0] ?? {};
    const oldest = num(row['oldest'] ?? now);
    return {
      pending: num(row['pending']),
      inFlight: num(row['in_flight']),
      dead: num(row['dead']),
      oldestAgeMs: Math.max(0, now - oldest),
    };
  }

  async expect(request: ExpectedRequest, ttlMs: number): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${this.#t.expected} (code, session_code, created_at, until) VALUES ($1, $2, $3, $4)
       ON CONFLICT (code) DO UPDATE SET session_code = excluded.session_code, created_at = excluded.created_at, until = excluded.until, reported_at = NULL`,
      [request.accessRequestCode, request.identitySessionCode, request.createdAt, request.createdAt + ttlMs],
    );
  }

  async expected(accessRequestCode: string): Promise<ExpectedRequest | undefined> {
    const { rows } = await this.#pool.query(`SELECT code, session_code, created_at FROM ${this.#t.expected} WHERE code = $1`, [
      accessRequestCode,
    ]);
    return rows[0] ? requestOf(rows[0]) : undefined;
  }

  async awaiting(limit: number, now: number): Promise<ExpectedRequest[]> {
    const t = this.#t;
    await this.#pool.query(`DELETE FROM ${t.expected} WHERE until <= $1`, [now]);
    await this.#pool.query(`DELETE FROM ${t.references} WHERE until <= $1`, [now]);
    const { rows } = await this.#pool.query(
      `SELECT code, session_code, created_at FROM ${t.expected} x
       WHERE reported_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM ${t.entries} e WHERE e.id = x.code)
         AND NOT EXISTS (SELECT 1 FROM ${t.done} d WHERE d.id = x.code AND d.until > $1)
       ORDER BY created_at, code LIMIT $2`,
      [now, limit],
    );
    return rows.map(requestOf);
  }

  async reportMissing(accessRequestCode: string, now: number): Promise<boolean> {
    const t = this.#t;
    // Under the entry's lock: a delivery being stored now either committed before (and is seen) or waits for this.
    return this.#locked(accessRequestCode, async (query) => {
      const { rowCount } = await query(
        `UPDATE ${t.expected} x SET reported_at = $2
         WHERE code = $1 AND reported_at IS NULL AND until > $2
           AND NOT EXISTS (SELECT 1 FROM ${t.entries} e WHERE e.id = x.code)
           AND NOT EXISTS (SELECT 1 FROM ${t.done} d WHERE d.id = x.code AND d.until > $2)`,
        [accessRequestCode, now],
      );
      return rowCount === 1;
    });
  }

  async unexpect(accessRequestCode: string): Promise<void> {
    await this.#pool.query(`DELETE FROM ${this.#t.expected} WHERE code = $1`, [accessRequestCode]);
  }

  async state(id: string, now: number): Promise<RequestState | undefined> {
    const t = this.#t;
    // What is kept of the request, most settled first.
    const { rows } = await this.#pool.query(
      `SELECT 1 AS rank, outcome AS state, settled_at AS at FROM ${t.done} WHERE id = $1 AND until > $2
       UNION ALL SELECT 2, CASE WHEN state = 'dead' THEN 'failed' ELSE 'processing' END, CASE WHEN state = 'dead' THEN dead_at ELSE received_at END
         FROM ${t.entries} WHERE id = $1
       UNION ALL SELECT 3, CASE WHEN reported_at IS NULL THEN 'awaiting' ELSE 'missing' END, coalesce(reported_at, created_at)
         FROM ${t.expected} WHERE code = $1 AND until > $2
       ORDER BY rank LIMIT 1`,
      [id, now],
    );
    const row = rows[0];
    // A request settled before outcomes were kept: settled, how is not known.
    if (!row || row['state'] === null) return undefined;
    // Every row that names a state has its time: settled_at, dead_at and received_at are written with it.
    return { state: row['state'] as RequestState['state'], at: num(row['at']) };
  }

  async refer(reference: string, accessRequestCode: string, until: number): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${this.#t.references} (reference, code, until) VALUES ($1, $2, $3)
       ON CONFLICT (reference) DO UPDATE SET code = excluded.code, until = excluded.until`,
      [reference, accessRequestCode, Math.ceil(until)],
    );
  }

  async referred(reference: string, now: number): Promise<string | undefined> {
    const { rows } = await this.#pool.query(`SELECT code FROM ${this.#t.references} WHERE reference = $1 AND until > $2`, [reference, now]);
    return rows[0] ? String(rows[0]['code']) : undefined;
  }

  async lease(name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    const { rowCount } = await this.#pool.query(
      `INSERT INTO ${this.#t.leases} (name, holder, until) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
       WHERE ${this.#t.leases}.holder = excluded.holder OR ${this.#t.leases}.until <= $4`,
      [name, holder, now + ttlMs, now],
    );
    return rowCount === 1;
  }
}

function requestOf(row: Record<string, unknown>): ExpectedRequest {
  return { accessRequestCode: String(row['code']), identitySessionCode: String(row['session_code']), createdAt: num(row['created_at']) };
}
