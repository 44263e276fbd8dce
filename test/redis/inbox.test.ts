/**
 * The identity inbox on Redis Streams (#28) against a real redis-server, with node-redis and
 * ioredis: the store's rules side by side with the memory store's, then the losses the inbox is
 * for: across processes (test/inbox/across-processes.ts), end to end (test/inbox/end-to-end.ts),
 * and Redis restarted.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient } from 'redis';
import { Redis } from 'ioredis';
import { AcmeIdentityClient, ConfigurationError } from '../../src/index.js';
import { createIdentityInbox, MemoryInboxStore, type InboxStore } from '../../src/inbox/index.js';
import { RedisInboxStore, type RedisClientLike } from '../../src/redis/index.js';
import { startSandbox, type Sandbox } from '../../src/testing/index.js';
import { startRedis, type RedisServer } from '../../scripts/redis-server.js';
import { acrossProcesses } from '../inbox/across-processes.js';
import { endToEnd, inboxOn } from '../inbox/end-to-end.js';
import { reconcilerRaces } from '../inbox/reconcile-races.js';
import { record, storeRules, type StoreTraits } from '../inbox/store-rules.js';

const KEY = new Uint8Array(32).fill(9);
const kinds = ['node-redis', 'ioredis'] as const;

let server: RedisServer;
let sandbox: Sandbox;
/** Closes each client at the end, without waiting for a server that is gone. */
const clients: { disconnect(): unknown }[] = [];
beforeAll(async () => {
  server = await startRedis();
  sandbox = await startSandbox();
});
afterAll(async () => {
  for (const client of clients) await Promise.resolve(client.disconnect()).catch(() => undefined);
  await sandbox?.close();
  await server?.stop();
});

async function connect(kind: (typeof kinds)[number], url = server.url): Promise<RedisClientLike> {
  if (kind === 'ioredis') {
    const io = new Redis(url, { retryStrategy: () => 100, maxRetriesPerRequest: null });
    io.on('error', () => undefined);
    await new Promise((resolve) => io.once('ready', resolve));
    clients.push(io);
    return io;
  }
  const node = createClient({ url, socket: { reconnectStrategy: () => 100 } });
  node.on('error', () => undefined);
  await node.connect();
  clients.push(node);
  return node;
}

/** One command on either client, as the store sends it. */
function command(client: RedisClientLike, name: string, ...args: string[]): Promise<unknown> {
  return 'isOpen' in client ? client.sendCommand([name, ...args]) : (client as Redis).call(name, ...args);
}

let prefixes = 0;
const prefix = () => `inbox-test-${++prefixes}:`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const stores: [string, () => Promise<InboxStore>, StoreTraits][] = [
  ['memory', async () => new MemoryInboxStore(), {}],
  ...kinds.map((kind): [string, () => Promise<InboxStore>, StoreTraits] => [
    `Redis (${kind})`,
    async () => new RedisInboxStore(await connect(kind), { prefix: prefix() }),
    { expectedWithClaim: true },
  ]),
];

describe.each(stores)('the inbox store rules: %s', (_name, make, traits) => {
  storeRules(make, traits);
});

describe.each(kinds)('the Redis store at start, with %s', (kind) => {
  test('a Redis without AOF persistence is said once, at warn, when the inbox starts; one with it says nothing (#40)', async () => {
    const lines: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => void lines.push(message) };
    const inbox = createIdentityInbox({
      client: { identityResponses: { getVerified: async () => ({}) as never }, identityRequests: { get: async () => ({ data: {} }) } },
      store: new RedisInboxStore(await connect(kind), { prefix: prefix() }),
      encryptionKey: KEY,
      onIdentity: () => undefined,
      logger,
      logLevel: 'warn',
      reconcileIntervalMs: false,
      pollIntervalMs: 60_000,
    });
    inbox.start();
    await expect.poll(() => lines.filter((line) => line.includes('appendonly no'))).toHaveLength(1);
    await inbox.stop();
    const durable = await startRedis({ persistent: true });
    try {
      expect(await new RedisInboxStore(await connect(kind, durable.url), { prefix: prefix() }).warnings()).toEqual([]);
    } finally {
      await durable.stop();
    }
  });
});

test("a client that answers CONFIG GET in bytes (ioredis's callBuffer, a wrapper) is read as text by the sender: appendonly no is said; a hidden parameter is not judged", async () => {
  const bytes: RedisClientLike = { call: async () => [Buffer.from('appendonly'), Buffer.from('no')] };
  expect(await new RedisInboxStore(bytes, { prefix: prefix() }).warnings()).toEqual([expect.stringContaining('appendonly no')]);
  const durable: RedisClientLike = { call: async () => [Buffer.from('appendonly'), Buffer.from('yes')] };
  expect(await new RedisInboxStore(durable, { prefix: prefix() }).warnings()).toEqual([]);
  // A server that hides the parameter (an empty list, or an empty map through a proxy) says nothing of it: not judged.
  for (const hidden of [[], {}, null]) {
    const silent: RedisClientLike = { call: async () => hidden };
    expect(await new RedisInboxStore(silent, { prefix: prefix() }).warnings()).toEqual([]);
  }
});

describe.each(kinds)('the reconciler on Redis, with %s', (kind) => {
  reconcilerRaces(async () => new RedisInboxStore(await connect(kind), { prefix: prefix() }));
});

describe.each(kinds)('the inbox across processes, with %s', (kind) => {
  acrossProcesses({ kind, url: () => server.url, sandbox: () => sandbox, prefix: async () => `processes-${++prefixes}:` });
});

describe.each(kinds)('the inbox end to end on Redis, with %s', (kind) => {
  endToEnd({ sandbox: () => sandbox, store: async () => new RedisInboxStore(await connect(kind), { prefix: prefix() }) });
});

describe.each(kinds)('the inbox on Redis, with %s', (kind) => {
  test('persisting a delivery is one Redis round trip', async () => {
    const real = await connect(kind);
    let commands = 0;
    const counted = <T>(send: () => T): T => {
      commands += 1;
      return send();
    };
    const counting: RedisClientLike =
      'isOpen' in real
        ? { isOpen: true, sendCommand: (args: string[]) => counted(() => real.sendCommand(args)) }
        : { call: (command: string, ...args: (string | number)[]) => counted(() => (real as Redis).call(command, ...args)) };
    const { deliver, create } = inboxOn(new RedisInboxStore(counting, { prefix: prefix() }), sandbox);
    const arc = await create();
    const payload = await sandbox.service.approve(arc);
    commands = 0;
    expect(await deliver(payload)).toBe('added');
    expect(commands).toBe(1);
  });

  test('a request handed over leaves only its done key: its record (and the sealed token in it) is deleted at once, not kept until the window ends', async () => {
    const real = await connect(kind);
    const keys = (pattern: string) => command(real, 'KEYS', pattern) as Promise<string[]>;
    const at = prefix();
    const store = new RedisInboxStore(real, { prefix: at });
    const now = Date.now();
    await store.add(record('arc_gone'), now);
    expect((await keys(`${at}*arc_gone*`)).sort()).toEqual([`${at}{inbox}:e:arc_gone`]);
    const [claim] = await store.claim('w', 1, 60_000, now);
    await store.complete(claim!, 60_000, now, 'verified');
    expect(await keys(`${at}*arc_gone*`)).toEqual([`${at}{inbox}:done:arc_gone`]);
  });

  test("what the store keeps ends on Redis's clock at its time: a return page's reference at its until, a dead entry after deadLetterTtlSeconds (#45)", async () => {
    const real = await connect(kind);
    const at = prefix();
    const store = new RedisInboxStore(real, { prefix: at, deadLetterTtlSeconds: 60 });
    const now = Date.now();
    await store.refer('ref_ttl', 'arc_ttl', now + 10_000);
    const referenceTtl = Number(await command(real, 'PTTL', `${at}{inbox}:ref:ref_ttl`));
    expect(referenceTtl).toBeGreaterThan(0);
    expect(referenceTtl).toBeLessThanOrEqual(10_000);
    await store.add(record('arc_buried'), now);
    const [claim] = await store.claim('w', 1, 60_000, now);
    await store.bury(claim!, { record: claim!.record, reason: 'ERR_INBOX_REFUSED', errorCode: 'E', message: 'm', deadAt: now });
    const deadTtl = Number(await command(real, 'PTTL', `${at}{inbox}:e:arc_buried`));
    expect(deadTtl).toBeGreaterThan(50_000);
    expect(deadTtl).toBeLessThanOrEqual(60_000);
  });

  test('a message whose entry is gone (evicted, or deleted by hand) is dropped by the claim that meets it: not handed out, not left in flight, not kept in the stream (#45)', async () => {
    const real = await connect(kind);
    const at = prefix();
    const store = new RedisInboxStore(real, { prefix: at });
    const now = Date.now();
    await store.add(record('arc_evicted'), now);
    await command(real, 'DEL', `${at}{inbox}:e:arc_evicted`);
    expect(await store.claim('w', 5, 60_000, now)).toEqual([]);
    expect(await store.stats(now)).toMatchObject({ inFlight: 0 });
    expect(Number(await command(real, 'XLEN', `${at}{inbox}:stream`))).toBe(0);
  });

  test('the dead letters are trimmed near maxDeadLetters (Redis trims whole stream nodes, of 100 entries at most: so at most 100 over)', async () => {
    const store = new RedisInboxStore(await connect(kind), { prefix: prefix(), maxDeadLetters: 10 });
    const now = Date.now();
    for (let i = 0; i < 250; i++) {
      await store.add(record(`arc_dead_${i}`), now);
      const [claim] = await store.claim('w', 1, 60_000, now);
      await store.bury(claim!, { record: claim!.record, reason: 'ERR_INBOX_REFUSED', errorCode: 'E', message: 'm', deadAt: now });
    }
    const kept = await store.deadLetters(1_000);
    expect(kept.length).toBeGreaterThanOrEqual(10);
    expect(kept.length).toBeLessThanOrEqual(110);
    // The newest are the ones kept.
    expect(kept.at(-1)?.record.id).toBe('arc_dead_249');
  });

  test('Redis stopped and started again: nothing stored is lost; a delivery while it is down is refused (the service retries)', async () => {
    const durable = await startRedis({ persistent: true });
    try {
      const redis = await connect(kind, durable.url);
      const { inbox, handed, deliver, create } = inboxOn(new RedisInboxStore(redis, { prefix: prefix() }), sandbox);
      const arcs = [await create(), await create(), await create()];
      for (const arc of arcs.slice(0, 2)) expect(await deliver(await sandbox.service.approve(arc))).toBe('added');
      await durable.kill();
      const late = await sandbox.service.approve(arcs[2]!);
      await expect(deliver(late)).rejects.toThrow();
      await durable.restart();
      for (
        let i = 0;
        i < 50 &&
        !(await inbox.stats().then(
          () => true,
          () => false,
        ));
        i++
      )
        await sleep(100);
      // Nothing was queued behind the refusal (the store fails fast while the client reconnects):
      // the service's retry, after Redis is back, is what stores it.
      expect(await deliver(late)).toBe('added');
      expect(await inbox.stats()).toMatchObject({ pending: 3, dead: 0 });
      await inbox.runOnce();
      expect(handed.map((d) => d.id).sort()).toEqual([...arcs].sort());
    } finally {
      await durable.stop();
    }
  }, 120_000);

  test('a durable store without an encryption key is refused; the token is sealed in Redis', async () => {
    const redis = await connect(kind);
    const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, clientId: 'c', clientSecret: 's', tenantId: 't' });
    expect(() => createIdentityInbox({ client: acme, store: new RedisInboxStore(redis), onIdentity: () => undefined })).toThrow(
      expect.objectContaining({ name: 'ConfigurationError', option: 'encryptionKey' }),
    );
    expect(() => new RedisInboxStore(redis, { maxDeadLetters: 0 })).toThrow(ConfigurationError);
    const { deliver, create, inbox } = inboxOn(new RedisInboxStore(redis, { prefix: `sealed-${kind}:` }), sandbox);
    const arc = await create();
    const payload = await sandbox.service.approve(arc);
    await deliver(payload);
    const kept = await command(redis, 'HGET', `sealed-${kind}:{inbox}:e:${arc}`, 'rec');
    expect(String(kept)).toContain('"token":"v1.');
    expect(String(kept)).not.toContain(payload.access_token);
    await inbox.runOnce();
  });
});
