/**
 * The identity inbox's entries on Redis Streams: one stream of due entries read by a consumer
 * group (`XREADGROUP`), entries of a dead worker taken over after their lease (`XAUTOCLAIM`), a
 * sorted set of entries waiting out a backoff, a dead-letter stream (bounded, `MAXLEN ~`), and a
 * hash per entry with its record (the token in it sealed by the inbox). Every change is one Lua
 * script, so two workers never both settle an entry, and a worker whose lease was taken over
 * settles nothing. Every key shares one hash tag (`{inbox}`), so it runs on Redis Cluster too.
 */
import { countOption, positiveOption } from '../errors/options.js';
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
import { checkPrefix, evaluate, sender, type RedisClientLike, type Send } from './commands.js';

export interface RedisInboxStoreOptions {
  /** Prepended to every key. @default 'acme-identity:' */
  prefix?: string;
  /** How long a command may take before Redis is treated as unreachable, in ms. @default 2000 */
  commandTimeoutMs?: number;
  /** The most dead letters kept (older ones are trimmed). @default 10000 */
  maxDeadLetters?: number;
  /** How long a dead entry is kept before Redis drops it, in seconds. @default 2592000 (30 days) */
  deadLetterTtlSeconds?: number;
}

const GROUP = 'workers';

/** Whether `worker` holds stream message ARGV[1] (XPENDING names its consumer). Expects KEYS[1] = stream, ARGV[2] = worker. */
const OWNED = `
local held = redis.call('XPENDING', KEYS[1], '${GROUP}', ARGV[1], ARGV[1], 1)
if #held == 0 or held[1][2] ~= ARGV[2] then return 0 end
`;

/** KEYS: entry, done, stream, live, dead. ARGV: id, record JSON, received at. */
const ADD = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 'duplicate' end
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
  redis.call('HSET', KEYS[1], 'rec', ARGV[2], 'state', 'pending')
  redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
  redis.call('XADD', KEYS[3], '*', 'id', ARGV[1])
  return 'added'
end
-- Decoded only here: a new request (the common case) is stored as it came.
local given = cjson.decode(ARGV[2])
local kept = cjson.decode(redis.call('HGET', KEYS[1], 'rec'))
if state == 'dead' then
  local letter = redis.call('HGET', KEYS[1], 'dead')
  if letter then redis.call('XDEL', KEYS[5], letter) end
  given.receivedAt = kept.receivedAt
  redis.call('HSET', KEYS[1], 'rec', cjson.encode(given), 'state', 'pending')
  redis.call('HDEL', KEYS[1], 'dead', 'deadAt')
  redis.call('PERSIST', KEYS[1])
  redis.call('ZADD', KEYS[4], kept.receivedAt, ARGV[1])
  redis.call('XADD', KEYS[3], '*', 'id', ARGV[1])
  return 'revived'
end
if given.tokenExpiresAt > kept.tokenExpiresAt then
  kept.token = given.token
  kept.tokenExpiresAt = given.tokenExpiresAt
  kept.kind = given.kind
  redis.call('HSET', KEYS[1], 'rec', cjson.encode(kept))
end
return 'duplicate'`;

/**
 * KEYS: delayed, stream, expected. ARGV: now, how many to promote, worker, lease ms, max, the entry
 * key prefix. One round trip for a worker's turn (#44: it was four): a dead worker's messages whose
 * lease ran out (XAUTOCLAIM, first: it fails with NOGROUP before anything is written), entries
 * whose backoff is over back on the stream, then new messages (XREADGROUP), each with its record
 * and its request's expected record. A message whose entry is gone or no longer pending (discarded,
 * or a stale copy) is acknowledged and deleted here, and not handed out. Returns {message, record
 * JSON, expected JSON or nil} for each claimed.
 */
const CLAIM = `
local max = tonumber(ARGV[5])
local messages = {}
for _, m in ipairs(redis.call('XAUTOCLAIM', KEYS[2], '${GROUP}', ARGV[3], ARGV[4], '0-0', 'COUNT', max)[2]) do
  if m[2] then table.insert(messages, m) end
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(due) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('XADD', KEYS[2], '*', 'id', id)
end
if #messages < max then
  local fresh = redis.call('XREADGROUP', 'GROUP', '${GROUP}', ARGV[3], 'COUNT', max - #messages, 'STREAMS', KEYS[2], '>')
  if fresh then
    for _, m in ipairs(fresh[1][2]) do table.insert(messages, m) end
  end
end
local claimed = {}
for _, m in ipairs(messages) do
  local id
  for i = 1, #m[2], 2 do
    if m[2][i] == 'id' then id = m[2][i + 1] end
  end
  if id then
    local found = redis.call('HMGET', ARGV[6] .. id, 'rec', 'state')
    if found[1] and found[2] == 'pending' then
      table.insert(claimed, {m[1], found[1], redis.call('HGET', KEYS[3], id)})
    else
      redis.call('XACK', KEYS[2], '${GROUP}', m[1])
      redis.call('XDEL', KEYS[2], m[1])
    end
  end
end
return claimed`;

/** KEYS: stream. ARGV: message, worker. Renews the lease of a holder. */
const RENEW = `${OWNED}
redis.call('XCLAIM', KEYS[1], '${GROUP}', ARGV[2], 0, ARGV[1], 'JUSTID')
return 1`;

/** KEYS: stream, entry, done, live, expected. ARGV: message, worker, id, done TTL ms, what the done key holds (the outcome). */
const COMPLETE = `${OWNED}
redis.call('XACK', KEYS[1], '${GROUP}', ARGV[1])
redis.call('XDEL', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[4], ARGV[3])
redis.call('HDEL', KEYS[5], ARGV[3])
redis.call('SET', KEYS[3], ARGV[5], 'PX', ARGV[4])
return 1`;

/** KEYS: stream, entry, delayed. ARGV: message, worker, id, record JSON, next attempt at. */
const RESCHEDULE = `${OWNED}
redis.call('XACK', KEYS[1], '${GROUP}', ARGV[1])
redis.call('XDEL', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], 'rec', ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[3])
return 1`;

/** KEYS: stream, entry, dead, live. ARGV: message, worker, id, record JSON, letter JSON, max dead letters, dead TTL ms, dead at (ms). */
const BURY = `${OWNED}
redis.call('XACK', KEYS[1], '${GROUP}', ARGV[1])
redis.call('XDEL', KEYS[1], ARGV[1])
local letter = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[6], '*', 'id', ARGV[3], 'letter', ARGV[5])
redis.call('HSET', KEYS[2], 'rec', ARGV[4], 'state', 'dead', 'dead', letter, 'deadAt', ARGV[8])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
redis.call('ZREM', KEYS[4], ARGV[3])
return 1`;

/** KEYS: entry, dead, stream, live. ARGV: id, record JSON, received at. */
const REVIVE = `
if redis.call('HGET', KEYS[1], 'state') ~= 'dead' then return 0 end
local letter = redis.call('HGET', KEYS[1], 'dead')
if letter then redis.call('XDEL', KEYS[2], letter) end
redis.call('HSET', KEYS[1], 'rec', ARGV[2], 'state', 'pending')
redis.call('HDEL', KEYS[1], 'dead', 'deadAt')
redis.call('PERSIST', KEYS[1])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
redis.call('XADD', KEYS[3], '*', 'id', ARGV[1])
return 1`;

/** KEYS: entry, dead. */
const DISCARD = `
if redis.call('HGET', KEYS[1], 'state') ~= 'dead' then return 0 end
local letter = redis.call('HGET', KEYS[1], 'dead')
if letter then redis.call('XDEL', KEYS[2], letter) end
redis.call('DEL', KEYS[1])
return 1`;

/** KEYS: live, stream, dead. The counts, and the oldest live entry's receipt time. */
const STATS = `
local inflight = redis.call('XPENDING', KEYS[2], '${GROUP}')[1]
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { redis.call('ZCARD', KEYS[1]), inflight, redis.call('XLEN', KEYS[3]), oldest[2] or '' }`;

/** KEYS: expected. ARGV: now, limit, entry key prefix, done key prefix. Expected requests with no entry, expired ones dropped. */
const AWAITING = `
local all = redis.call('HGETALL', KEYS[1])
local found = {}
for i = 1, #all, 2 do
  local code, value = all[i], all[i + 1]
  local kept = cjson.decode(value)
  if kept['until'] <= tonumber(ARGV[1]) then
    redis.call('HDEL', KEYS[1], code)
  elseif not kept['reportedAt'] and redis.call('EXISTS', ARGV[3] .. code) == 0 and redis.call('EXISTS', ARGV[4] .. code) == 0 then
    found[#found + 1] = { tonumber(kept['createdAt']) or 0, value }
  end
end
-- The oldest first, then the limit: a hash's order is no order, and the oldest are the likeliest lost.
table.sort(found, function(a, b) return a[1] < b[1] end)
local out = {}
for i = 1, math.min(#found, tonumber(ARGV[2])) do out[i] = found[i][2] end
return out`;

/**
 * KEYS: expected, entry, done. ARGV: code, now. Marks an expected request reported missing, once,
 * and only while it has no entry and was not handed over: 1 for the caller that marked it.
 */
const REPORT_MISSING = `
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value then return 0 end
local kept = cjson.decode(value)
if kept['reportedAt'] or kept['until'] <= tonumber(ARGV[2]) then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
kept['reportedAt'] = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(kept))
return 1`;

/**
 * KEYS: done, entry, expected. ARGV: id, now. What the store keeps of a request, most settled
 * first: its done key, its entry (state, record, dead letter id), or its expected record.
 */
const STATE = `
local done = redis.call('GET', KEYS[1])
if done then return { 'done', done } end
local entry = redis.call('HMGET', KEYS[2], 'state', 'rec', 'dead', 'deadAt')
if entry[1] then return { 'entry', entry[1], entry[2] or '', entry[3] or '', entry[4] or '' } end
local watched = redis.call('HGET', KEYS[3], ARGV[1])
if watched then return { 'expected', watched } end
return {}`;

/** KEYS: lease. ARGV: holder, ttl ms. Takes a lease that is free or already the holder's: 1 when it is. */
const LEASE = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/**
 * The identity inbox's store on Redis Streams, with node-redis v5 or ioredis (connected): every
 * instance of the relying party shares it, a dead instance's entries are taken over after their
 * lease, and nothing is lost when Redis restarts with persistence on (AOF or RDB).
 * @throws {ConfigurationError} for a client that is neither, or an option out of range.
 * @example
 * ```ts
 * const inbox = createIdentityInbox({ client: acme, store: new RedisInboxStore(redis), encryptionKey, onIdentity });
 * ```
 */
export class RedisInboxStore implements InboxStore {
  readonly durable = true;
  readonly #send: Send;
  readonly #p: string;
  readonly #maxDead: number;
  readonly #deadTtlMs: number;
  #group: Promise<void> | undefined;

  constructor(client: RedisClientLike, options: RedisInboxStoreOptions = {}) {
    this.#send = sender(client, options.commandTimeoutMs);
    // One hash tag for every key: the scripts touch several, which Redis Cluster allows in one slot only.
    this.#p = `${checkPrefix(options.prefix ?? 'acme-identity:')}{inbox}:`;
    const max = countOption('maxDeadLetters', options.maxDeadLetters, 10_000);
    this.#maxDead = max;
    this.#deadTtlMs = Math.ceil(positiveOption('deadLetterTtlSeconds', options.deadLetterTtlSeconds, 2_592_000) * 1000);
  }

  get #stream() {
    return `${this.#p}stream`;
  }
  #entry(id: string) {
    return `${this.#p}e:${id}`;
  }
  #done(id: string) {
    return `${this.#p}done:${id}`;
  }

  async add(record: InboxRecord, _now: number): Promise<'added' | 'revived' | 'duplicate'> {
    const p = this.#p;
    const outcome = await evaluate(
      this.#send,
      ADD,
      [this.#entry(record.id), this.#done(record.id), this.#stream, `${p}live`, `${p}dead`],
      [record.id, JSON.stringify(record), String(record.receivedAt)],
    );
    return outcome as 'added' | 'revived' | 'duplicate';
  }

  /** The consumer group, created once (with the stream) and again after Redis lost it. */
  #ensureGroup(): Promise<void> {
    this.#group ??= this.#send('XGROUP', 'CREATE', this.#stream, GROUP, '0', 'MKSTREAM').then(
      () => undefined,
      (error: unknown) => {
        if (!String((error as Error)?.message ?? error).includes('BUSYGROUP')) {
          this.#group = undefined;
          throw error;
        }
      },
    );
    return this.#group;
  }

  async claim(worker: string, max: number, leaseMs: number, now: number): Promise<InboxClaim[]> {
    await this.#ensureGroup();
    const claim = () =>
      evaluate(
        this.#send,
        CLAIM,
        [`${this.#p}delayed`, this.#stream, `${this.#p}expected`],
        [String(now), String(Math.max(max, 100)), worker, String(Math.ceil(leaseMs)), String(max), this.#entry('')],
      ) as Promise<Claimed[] | null>;
    let claimed: Claimed[] | null;
    try {
      claimed = await claim();
    } catch (error) {
      // Redis restarted without the group (no persistence of it yet): made again, read again.
      if (!String((error as Error)?.message ?? error).includes('NOGROUP')) throw error;
      this.#group = undefined;
      await this.#ensureGroup();
      claimed = await claim();
    }
    return (claimed ?? []).map(([message, record, expected]) => ({
      record: JSON.parse(record) as InboxRecord,
      lease: `${message} ${worker}`,
      expected: typeof expected === 'string' ? requestOf(expected) : null,
    }));
  }

  async renew(worker: string, claim: InboxClaim): Promise<boolean> {
    const [message, holder] = leaseOf(claim);
    if (holder !== worker) return false;
    return (await evaluate(this.#send, RENEW, [this.#stream], [message, holder])) === 1;
  }

  async complete(claim: InboxClaim, doneTtlMs: number, now: number, outcome?: InboxOutcome): Promise<void> {
    const [message, worker] = leaseOf(claim);
    const id = claim.record.id;
    await evaluate(
      this.#send,
      COMPLETE,
      [this.#stream, this.#entry(id), this.#done(id), `${this.#p}live`, `${this.#p}expected`],
      [message, worker, id, String(Math.ceil(doneTtlMs)), JSON.stringify({ outcome, at: now, until: now + doneTtlMs })],
    );
  }

  async state(id: string, now: number): Promise<RequestState | undefined> {
    const found = (await evaluate(
      this.#send,
      STATE,
      [this.#done(id), this.#entry(id), `${this.#p}expected`],
      [id, String(now)],
    )) as string[];
    return stateOf(found, now);
  }

  async refer(reference: string, accessRequestCode: string, until: number): Promise<void> {
    // Redis drops it at `until` on its own clock; `referred` judges it on the caller's.
    await this.#send(
      'SET',
      `${this.#p}ref:${reference}`,
      JSON.stringify({ code: accessRequestCode, until }),
      'PXAT',
      String(Math.ceil(until)),
    );
  }

  async referred(reference: string, now: number): Promise<string | undefined> {
    const value = await this.#send('GET', `${this.#p}ref:${reference}`);
    if (typeof value !== 'string') return undefined;
    const kept = JSON.parse(value) as { code: string; until: number };
    return kept.until > now ? kept.code : undefined;
  }

  async reschedule(claim: InboxClaim, record: InboxRecord): Promise<void> {
    const [message, worker] = leaseOf(claim);
    await evaluate(
      this.#send,
      RESCHEDULE,
      [this.#stream, this.#entry(record.id), `${this.#p}delayed`],
      [message, worker, record.id, JSON.stringify(record), String(Math.ceil(record.nextAttemptAt))],
    );
  }

  async bury(claim: InboxClaim, letter: DeadLetter): Promise<void> {
    const [message, worker] = leaseOf(claim);
    const id = letter.record.id;
    await evaluate(
      this.#send,
      BURY,
      [this.#stream, this.#entry(id), `${this.#p}dead`, `${this.#p}live`],
      [
        message,
        worker,
        id,
        JSON.stringify(letter.record),
        JSON.stringify(letter),
        String(this.#maxDead),
        String(this.#deadTtlMs),
        String(letter.deadAt),
      ],
    );
  }

  async deadLetters(limit: number): Promise<DeadLetter[]> {
    const count = Number.isFinite(limit) ? String(Math.max(1, Math.floor(limit))) : String(this.#maxDead);
    const entries = (await this.#send('XRANGE', `${this.#p}dead`, '-', '+', 'COUNT', count)) as [string, string[]][];
    return entries.map(([, fields]) => JSON.parse(fieldOf(fields, 'letter') ?? 'null') as DeadLetter).filter((letter) => letter !== null);
  }

  async revive(id: string, record: InboxRecord): Promise<boolean> {
    await this.#ensureGroup();
    const p = this.#p;
    const done = await evaluate(
      this.#send,
      REVIVE,
      [this.#entry(id), `${p}dead`, this.#stream, `${p}live`],
      [id, JSON.stringify(record), String(record.receivedAt)],
    );
    return done === 1;
  }

  async discard(id: string): Promise<boolean> {
    return (await evaluate(this.#send, DISCARD, [this.#entry(id), `${this.#p}dead`], [])) === 1;
  }

  async stats(now: number): Promise<InboxStats> {
    await this.#ensureGroup();
    const [live, inFlight, dead, oldest] = (await evaluate(this.#send, STATS, [`${this.#p}live`, this.#stream, `${this.#p}dead`], [])) as [
      number,
      number,
      number,
      string,
    ];
    const first = Number(oldest);
    return {
      pending: Math.max(0, Number(live) - Number(inFlight)),
      inFlight: Number(inFlight),
      dead: Number(dead),
      oldestAgeMs: oldest === '' || !Number.isFinite(first) ? 0 : Math.max(0, now - first),
    };
  }

  async expect(request: ExpectedRequest, ttlMs: number): Promise<void> {
    await this.#send(
      'HSET',
      `${this.#p}expected`,
      request.accessRequestCode,
      JSON.stringify({ ...request, until: request.createdAt + ttlMs }),
    );
  }

  async expected(accessRequestCode: string): Promise<ExpectedRequest | undefined> {
    const value = await this.#send('HGET', `${this.#p}expected`, accessRequestCode);
    return typeof value === 'string' ? requestOf(value) : undefined;
  }

  async awaiting(limit: number, now: number): Promise<ExpectedRequest[]> {
    const values = (await evaluate(
      this.#send,
      AWAITING,
      [`${this.#p}expected`],
      [String(now), String(limit), `${this.#p}e:`, `${this.#p}done:`],
    )) as string[];
    // Oldest first: the script sorted them before it applied the limit.
    return values.map(requestOf);
  }

  async reportMissing(accessRequestCode: string, now: number): Promise<boolean> {
    const marked = await evaluate(
      this.#send,
      REPORT_MISSING,
      [`${this.#p}expected`, this.#entry(accessRequestCode), this.#done(accessRequestCode)],
      [accessRequestCode, String(now)],
    );
    return Number(marked) === 1;
  }

  /**
   * Whether Redis keeps what it is given across a restart: without AOF (`appendonly no`) a restart
   * loses every delivery stored since the last snapshot. A server that does not answer `CONFIG`
   * (a managed one, say) is not judged.
   */
  async warnings(): Promise<string[]> {
    let reply: unknown;
    try {
      reply = await this.#send('CONFIG', 'GET', 'appendonly');
    } catch {
      return [];
    }
    // node-redis answers CONFIG GET with a list, ioredis's call too; an object is read the same way.
    // (Bytes arrive as text already: the sender decodes every reply, commands.ts's textReply.)
    const values = Array.isArray(reply) ? reply : Object.values(reply ?? {});
    if (!values.includes('no')) return [];
    return [
      'Redis runs without AOF persistence (appendonly no): a restart loses the deliveries stored since its last snapshot; set appendonly yes',
    ];
  }

  async lease(name: string, holder: string, ttlMs: number, _now: number): Promise<boolean> {
    // Redis's own clock runs the lease out (PX): the instances' clocks need not agree.
    return Number(await evaluate(this.#send, LEASE, [`${this.#p}lease:${name}`], [holder, String(Math.ceil(ttlMs))])) === 1;
  }

  async unexpect(accessRequestCode: string): Promise<void> {
    await this.#send('HDEL', `${this.#p}expected`, accessRequestCode);
  }
}

/** What CLAIM returns for each entry: its message, its record, and its request's expected record when one is kept. */
type Claimed = [message: string, record: string, expected?: string | null];

function requestOf(value: string): ExpectedRequest {
  const { accessRequestCode, identitySessionCode, createdAt } = JSON.parse(value) as ExpectedRequest;
  return { accessRequestCode, identitySessionCode, createdAt };
}

function leaseOf(claim: InboxClaim): [string, string] {
  const space = claim.lease.indexOf(' ');
  return [claim.lease.slice(0, space), claim.lease.slice(space + 1)];
}

function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

/** What the STATE script found, as a request's state. */
function stateOf(found: string[], now: number): RequestState | undefined {
  const [source, first, second, third, fourth] = found;
  if (source === 'done') {
    // '1' for a request settled before outcomes were kept: settled, how is not known.
    const done = first?.startsWith('{') ? (JSON.parse(first) as { outcome?: InboxOutcome; at?: number; until?: number }) : {};
    if (done.until !== undefined && done.until <= now) return undefined;
    return done.outcome ? { state: done.outcome, at: done.at ?? now } : undefined;
  }
  if (source === 'entry') {
    // Failed since the dead letter's time; for an entry set aside before that was kept, the time
    // its letter was written (a stream id starts with it, in ms).
    if (first === 'dead') return { state: 'failed', at: Number(fourth) || Number(third?.split('-')[0]) || now };
    const record = second ? (JSON.parse(second) as InboxRecord) : undefined;
    return { state: 'processing', at: record?.receivedAt ?? now };
  }
  if (source === 'expected' && first) {
    const kept = JSON.parse(first) as { createdAt: number; until: number; reportedAt?: number };
    if (kept.until <= now) return undefined;
    return kept.reportedAt === undefined ? { state: 'awaiting', at: kept.createdAt } : { state: 'missing', at: kept.reportedAt };
  }
  return undefined;
}
