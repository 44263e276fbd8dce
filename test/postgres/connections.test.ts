/**
 * How the PostgreSQL store treats the connections it checks out of the pool, on a pool that fails
 * at the step each test chooses (a server can fail at any of them, and the real one in
 * `inbox.test.ts` fails only where a restart happens to hit): a transaction's client given back
 * sound or destroyed, and LISTEN's connection made again, given back once and never left listening.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { InboxRecord } from '../../src/inbox/index.js';
import { PostgresInboxStore, type PgPoolClientLike, type PgPoolLike } from '../../src/postgres/index.js';

type Answer = Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;

/** A checked-out client that records what it was asked and how it was given back. */
class Connection extends EventEmitter implements PgPoolClientLike {
  readonly queries: string[] = [];
  /** Each `release(destroy)`, in order: `false`/`undefined` gives it back sound, `true` destroys it. */
  readonly released: Array<boolean | undefined> = [];
  constructor(private readonly answer: (text: string) => Answer) {
    super();
  }
  query(text: string): Answer {
    this.queries.push(text);
    return this.answer(text);
  }
  release(destroy?: boolean): void {
    this.released.push(destroy);
  }
}

/** A server's answer to any statement: no rows, but the one row of the statement that writes a new delivery's entry. */
const answered = async (text = ''): Answer =>
  text.includes('INSERT INTO acme_identity_inbox_entries') ? { rows: [{}], rowCount: 1 } : { rows: [], rowCount: 0 };

/** A pool whose `connect` does what the test has queued next (by default, a client that answers every query). */
class Pool implements PgPoolLike {
  readonly made: Connection[] = [];
  readonly next: Array<() => Promise<PgPoolClientLike>> = [];
  connects = 0;
  query = answered;
  async connect(): Promise<PgPoolClientLike> {
    this.connects += 1;
    const made = await (this.next.shift() ?? (async () => new Connection(answered)))();
    if (made instanceof Connection) this.made.push(made);
    return made;
  }
}

const record = (id: string): InboxRecord => ({
  id,
  kind: 'approved',
  deliveryId: 'd',
  token: 't',
  tokenExpiresAt: Date.now() + 3_600_000,
  receivedAt: Date.now(),
  attempts: 0,
  nextAttemptAt: Date.now(),
});

describe("a transaction's client (a fake pool)", () => {
  const failing = (rollback: () => Answer) =>
    new Connection((text) => {
      if (text.startsWith('SELECT record')) return Promise.reject(new Error('connection terminated'));
      if (text === 'ROLLBACK') return rollback();
      return answered(text);
    });

  test('committed: given back sound', async () => {
    const pool = new Pool();
    expect(await new PostgresInboxStore(pool).add(record('arc_1'), Date.now())).toBe('added');
    expect(pool.made[0]?.queries.at(-1)).toBe('COMMIT');
    expect(pool.made[0]?.released).toEqual([false]);
    expect(pool.made[0]?.listenerCount('error')).toBe(0);
  });

  test("a statement that fails: rolled back, given back sound, and add() rejects with the statement's error", async () => {
    const pool = new Pool();
    pool.next.push(async () => failing(answered));
    await expect(new PostgresInboxStore(pool).add(record('arc_1'), Date.now())).rejects.toThrow('connection terminated');
    expect(pool.made[0]?.queries.at(-1)).toBe('ROLLBACK');
    expect(pool.made[0]?.released).toEqual([false]);
  });

  test('a client that cannot even roll back has lost its connection: destroyed, and the first error is the one thrown', async () => {
    const pool = new Pool();
    pool.next.push(async () => failing(() => Promise.reject(new Error('not connected'))));
    await expect(new PostgresInboxStore(pool).add(record('arc_1'), Date.now())).rejects.toThrow('connection terminated');
    expect(pool.made[0]?.released).toEqual([true]);
  });

  /**
   * A client whose server goes away: node-postgres emits `error` on the client (which, unheard, ends
   * the process) and fails the query under way and every one after it.
   */
  const losing = (at: (text: string) => boolean) => {
    const connection: Connection = new Connection((text) => {
      if (lost) return Promise.reject(new Error('Client has encountered a connection error and is not queryable'));
      if (!at(text)) return answered(text);
      lose();
      return Promise.reject(new Error('Connection terminated unexpectedly'));
    });
    let lost = false;
    const lose = () => {
      lost = true;
      expect(connection.emit('error', new Error('read ECONNRESET'))).toBe(true);
    };
    return { connection, lose };
  };

  test('the server gone under a running statement: its error event is heard, the statement fails with its own error, and the client is destroyed', async () => {
    const pool = new Pool();
    pool.next.push(async () => losing((text) => text.startsWith('SELECT record')).connection);
    await expect(new PostgresInboxStore(pool).add(record('arc_1'), Date.now())).rejects.toThrow('Connection terminated unexpectedly');
    expect(pool.made[0]?.released).toEqual([true]);
    expect(pool.made[0]?.listenerCount('error')).toBe(0);
  });

  test('the server gone between statements, while your handler holds the transaction: heard, nothing settled, the client destroyed', async () => {
    const pool = new Pool();
    const { connection, lose } = losing(() => false);
    pool.next.push(async () => connection);
    const claim = { record: record('arc_1'), lease: 'lease_1' };
    const settling = new PostgresInboxStore(pool).completeWith(claim, 60_000, Date.now(), async () => lose());
    await expect(settling).rejects.toThrow('not queryable');
    expect(connection.queries).toEqual(['BEGIN', expect.stringMatching(/^WITH gone AS/), 'ROLLBACK']);
    expect(connection.released).toEqual([true]);
    expect(connection.listenerCount('error')).toBe(0);
  });

  test('a client without on() and without rowCount (a pool-like of your own) still runs its transactions', async () => {
    const bare = { queries: [] as string[], released: [] as Array<boolean | undefined> };
    const pool: PgPoolLike = {
      query: answered,
      connect: async () => ({
        // Its answers leave rowCount null, as a pool of your own may: a new delivery is still added.
        query: async (text: string) => {
          bare.queries.push(text);
          return { ...(await answered(text)), rowCount: null };
        },
        release: (destroy?: boolean) => void bare.released.push(destroy),
      }),
    };
    expect(await new PostgresInboxStore(pool).add(record('arc_1'), Date.now())).toBe('added');
    expect(bare.queries.at(-1)).toBe('COMMIT');
    expect(bare.released).toEqual([false]);
  });
});

describe("LISTEN's connection (a fake pool, a controlled clock)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A store subscribed on `pool`, the wakes it made, and its channel (read from its LISTEN). */
  async function subscribed(pool: Pool) {
    const store = new PostgresInboxStore(pool, { prefix: 'app.' });
    const wakes = { count: 0 };
    const stop = await store.subscribe(() => {
      wakes.count += 1;
    });
    const channel = /^LISTEN "(.+)"$/.exec(pool.made[0]?.queries[0] ?? '')?.[1];
    expect(channel).toBeTruthy();
    return { stop, wakes, channel: channel as string };
  }

  test('wakes once listening, then for each notification on its channel and no other; stopped, it UNLISTENs and gives the connection back sound', async () => {
    const pool = new Pool();
    const { stop, wakes, channel } = await subscribed(pool);
    expect(wakes.count).toBe(1);
    const connection = pool.made[0] as Connection;
    connection.emit('notification', { channel });
    connection.emit('notification', { channel: `${channel}_other` });
    connection.emit('notification', {});
    expect(wakes.count).toBe(2);
    await stop();
    expect(connection.queries).toEqual([`LISTEN "${channel}"`, `UNLISTEN "${channel}"`]);
    expect(connection.released).toEqual([false]);
    // Let go: its notifications wake nothing.
    connection.emit('notification', { channel });
    expect(wakes.count).toBe(2);
  });

  test('an UNLISTEN that fails: the connection is destroyed, once (also when it reports its error meanwhile), and nothing is made again', async () => {
    for (const reportsError of [false, true]) {
      const pool = new Pool();
      const connection: Connection = new Connection((text) => {
        if (!text.startsWith('UNLISTEN')) return answered();
        if (reportsError) connection.emit('error', new Error('terminated'));
        return Promise.reject(new Error('gone'));
      });
      pool.next.push(async () => connection);
      const { stop } = await subscribed(pool);
      await stop();
      expect(connection.released).toEqual([true]);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(pool.connects).toBe(1);
    }
  });

  test('a connection that reports an error is destroyed; a second later a new one listens and wakes; the old one is asked nothing more, and its later errors change nothing', async () => {
    const pool = new Pool();
    const { stop, wakes } = await subscribed(pool);
    const old = pool.made[0] as Connection;
    old.emit('error', new Error('terminated'));
    expect(old.released).toEqual([true]);
    await vi.advanceTimersByTimeAsync(999);
    expect(pool.connects).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(pool.connects).toBe(2);
    expect(wakes.count).toBe(2);
    old.emit('error', new Error('terminated again'));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(pool.connects).toBe(2);
    expect(old.released).toEqual([true]);
    await stop();
    expect(old.queries).toHaveLength(1);
    expect(pool.made[1]?.queries).toHaveLength(2);
    expect(pool.made[1]?.released).toEqual([false]);
  });

  test('stopped after its connection broke and before a new one is made: nothing is sent on the broken one, and none is made', async () => {
    const pool = new Pool();
    const { stop } = await subscribed(pool);
    const old = pool.made[0] as Connection;
    old.emit('error', new Error('terminated'));
    await stop();
    expect(old.queries).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(pool.connects).toBe(1);
  });

  test('a server that refuses new connections is asked again each second until it answers', async () => {
    const pool = new Pool();
    const { stop, wakes } = await subscribed(pool);
    pool.next.push(
      () => Promise.reject(new Error('ECONNREFUSED')),
      () => Promise.reject(new Error('ECONNREFUSED')),
    );
    pool.made[0]?.emit('error', new Error('terminated'));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(pool.connects).toBe(4);
    expect(wakes.count).toBe(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(pool.connects).toBe(4);
    await stop();
    expect(pool.made.at(-1)?.released).toEqual([false]);
  });

  test('stopped while a new connection is being made: it is given back sound without a LISTEN, even if the server then refuses; nothing is tried again', async () => {
    for (const outcome of ['made', 'refused'] as const) {
      const pool = new Pool();
      const { stop } = await subscribed(pool);
      let finish: (made: boolean) => void = () => undefined;
      const late = new Connection(answered);
      pool.next.push(
        () =>
          new Promise<Connection>((resolve, reject) => {
            finish = (made) => (made ? resolve(late) : reject(new Error('ECONNREFUSED')));
          }),
      );
      pool.made[0]?.emit('error', new Error('terminated'));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(pool.connects).toBe(2);
      const stopping = stop();
      finish(outcome === 'made');
      await stopping;
      if (outcome === 'made') {
        expect(late.queries).toEqual([]);
        expect(late.released).toEqual([false]);
      }
      await vi.advanceTimersByTimeAsync(10_000);
      expect(pool.connects).toBe(2);
    }
  });

  test('stopped while a new connection is sending its LISTEN: stop waits for it and gives it back unlistened', async () => {
    const pool = new Pool();
    const { stop, channel } = await subscribed(pool);
    let heard: () => void = () => undefined;
    const late = new Connection((text) =>
      text.startsWith('LISTEN') ? new Promise((resolve) => (heard = () => resolve({ rows: [], rowCount: 0 }))) : answered(),
    );
    pool.next.push(async () => late);
    pool.made[0]?.emit('error', new Error('terminated'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(late.queries).toEqual([`LISTEN "${channel}"`]);
    let stopped = false;
    const stopping = stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    heard();
    await stopping;
    expect(late.queries).toEqual([`LISTEN "${channel}"`, `UNLISTEN "${channel}"`]);
    expect(late.released).toEqual([false]);
  });

  test("a LISTEN refused at the start: subscribe rejects with the server's error, the connection is destroyed, and nothing is tried again", async () => {
    const pool = new Pool();
    pool.next.push(async () => new Connection(() => Promise.reject(new Error('permission denied'))));
    await expect(new PostgresInboxStore(pool).subscribe(() => undefined)).rejects.toThrow('permission denied');
    expect(pool.made[0]?.released).toEqual([true]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(pool.connects).toBe(1);
    expect(pool.made[0]?.queries).toEqual([expect.stringMatching(/^LISTEN /)]);
  });

  test('clients without on(): given back at once, and subscribe says workers poll', async () => {
    const pool = new Pool();
    const deaf = { query: answered, release: vi.fn() };
    pool.next.push(async () => deaf);
    await expect(new PostgresInboxStore(pool).subscribe(() => undefined)).rejects.toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'pool' }),
    );
    expect(deaf.release).toHaveBeenCalledTimes(1);
  });
});
