/**
 * What an identity inbox keeps, and the store it keeps it in. The in-memory store is here; the
 * Redis Streams store is `RedisInboxStore` in `@acme/identity/redis`. A store keeps records as
 * the inbox hands them over: the token in them is already sealed.
 */

/** One delivery waiting for its identity to be fetched and handed over. */
export interface InboxRecord {
  /** The request's `access_request_code`: one entry per request, and the handler's idempotency key. */
  readonly id: string;
  /** The event's kind when it was received (`approved`, `cancelled`, `unknown`). */
  readonly kind: string;
  /**
   * The request's `identity_session_code` as the webhook carried it, when it did: the workers
   * use it for a request not recorded with `expect()` (and not found by `sessionCode`).
   */
  readonly identitySessionCode?: string | undefined;
  /** The delivery's id (SHA-256 of its body): a redelivery has the same one. */
  readonly deliveryId: string;
  /** The webhook's X-Access-Token, sealed (AES-GCM) unless the inbox was told to keep it in clear. */
  readonly token: string;
  /** When the X-Access-Token expires, in ms on the service's clock. */
  readonly tokenExpiresAt: number;
  /** When the first delivery of this entry was received, in ms. */
  readonly receivedAt: number;
  /** Attempts made so far. */
  readonly attempts: number;
  /** Not tried again before this time, in ms. */
  readonly nextAttemptAt: number;
  /** The last failure: its error code and message (never a token or a claim). */
  readonly lastError?: { readonly code: string; readonly message: string } | undefined;
}

/** An entry set aside: why, and when. */
export interface DeadLetter {
  readonly record: InboxRecord;
  /** `ERR_INBOX_TOKEN_EXPIRED`, `ERR_INBOX_RETRIES_EXHAUSTED`, `ERR_INBOX_REFUSED`, `ERR_INBOX_HANDLER` or `ERR_INBOX_UNKNOWN_REQUEST`. */
  readonly reason: string;
  /** The error code of the failure behind it (`ERR_SERVICE_UNAVAILABLE`, `ERR_IDENTITY_FLOW`, your handler's...). */
  readonly errorCode: string;
  readonly message: string;
  readonly deadAt: number;
}

/** An entry held by one worker until it completes, reschedules or buries it, or its lease runs out. */
export interface InboxClaim {
  readonly record: InboxRecord;
  /** Names this hold (a stream message id, or a random token): only its holder can settle the entry. */
  readonly lease: string;
  /**
   * The request's record (`expected()`), read with the claim by a store across a network (#44: one
   * round trip less per delivery); `null` when none is kept. Absent when the store did not read it:
   * the worker then asks `expected()`.
   */
  readonly expected?: ExpectedRequest | null;
}

/** How many entries are where, for metrics and health checks. */
export interface InboxStats {
  /** Waiting to be tried (now or after a backoff). */
  readonly pending: number;
  /** Held by a worker now. */
  readonly inFlight: number;
  /** Set aside: see `deadLetters()`. */
  readonly dead: number;
  /** Age of the oldest pending or in-flight entry, in ms; 0 when there is none. */
  readonly oldestAgeMs: number;
}

/**
 * How a request was settled: verified, verified with documents missing (`partial`), verified but
 * marked not valid by the service (`invalid`: `acmeidentity.valid` false), or cancelled.
 */
export type InboxOutcome = 'verified' | 'partial' | 'invalid' | 'cancelled';

/**
 * Where a request stands, as a return page shows it: `awaiting` its webhook, `processing` it
 * (stored, the identity being fetched), settled (`verified`, `partial`, `invalid`, `cancelled`),
 * `failed` (set aside: see the dead letters), or `missing` (the reconciler reported its webhook
 * missing).
 */
export interface RequestState {
  readonly state: 'awaiting' | 'processing' | InboxOutcome | 'failed' | 'missing';
  /** When it reached this state, in ms (the expect, the delivery's arrival, the settlement). */
  readonly at: number;
}

/** A request the relying party created and expects a delivery for (the reconciler watches it). */
export interface ExpectedRequest {
  readonly accessRequestCode: string;
  readonly identitySessionCode: string;
  /** When it was recorded, in ms. */
  readonly createdAt: number;
}

/**
 * Where an inbox keeps its entries. Every method is atomic on its own. `Transaction` is what a
 * store that settles entries in a transaction hands your handler (`PostgresInboxStore`: the
 * `pg` client of that transaction); stores without one have none.
 */
export interface InboxStore<Transaction = unknown> {
  /** Whether entries survive the process (a store that does not needs no encryption key). */
  readonly durable: boolean;
  /**
   * Persists a delivery: `added` for a new request; `revived` for one that was set aside (its fresh
   * token replaces the old one, its attempts start again); `duplicate` for one pending, in flight or
   * handed over (a pending entry takes the token that expires later). One round trip to a remote store.
   */
  add(record: InboxRecord, now: number): Promise<'added' | 'revived' | 'duplicate'>;
  /**
   * Takes up to `max` entries due at `now` for `leaseMs`, those whose holder's lease ran out
   * included, listed in the order they are to be started: the token that expires first, first
   * (the memory and PostgreSQL stores; Redis takes them in the order they came).
   */
  claim(worker: string, max: number, leaseMs: number, now: number): Promise<InboxClaim[]>;
  /** Whether `claim` still holds its entry (its lease is then renewed); false once another worker took it over. */
  renew(worker: string, claim: InboxClaim, leaseMs: number, now: number): Promise<boolean>;
  /**
   * Handed over: removed, and further deliveries of the request are duplicates for `doneTtlMs`,
   * during which `state` answers `outcome` (when given).
   */
  complete(claim: InboxClaim, doneTtlMs: number, now: number, outcome?: InboxOutcome): Promise<void>;
  /**
   * Hands an entry over and completes it in one transaction: `handOver(transaction)` runs inside
   * it, and the same commit settles the entry (as `complete`). Resolves false, keeping nothing
   * `handOver` wrote, when another worker took the entry over meanwhile; a throw of `handOver`
   * rolls everything back and is rethrown. Optional: without it the inbox calls your handler, then
   * `complete`, and a crash between the two hands the entry over again.
   */
  completeWith?(
    claim: InboxClaim,
    doneTtlMs: number,
    now: number,
    handOver: (transaction: Transaction) => Promise<void>,
    outcome?: InboxOutcome,
  ): Promise<boolean>;
  /**
   * Calls `wake` soon after any instance stores a delivery (PostgreSQL's LISTEN/NOTIFY), so that
   * workers start on it at once instead of at their next poll; resolves what stops it. Optional:
   * without it workers find deliveries by polling. Polling goes on either way, for a wake-up lost.
   */
  subscribe?(wake: () => void): Promise<() => Promise<void>>;
  /** Back to pending with the record's new attempts, next attempt time and last error. */
  reschedule(claim: InboxClaim, record: InboxRecord): Promise<void>;
  /** Set aside. */
  bury(claim: InboxClaim, letter: DeadLetter): Promise<void>;
  /** The entries set aside, oldest first, at most `limit`. */
  deadLetters(limit: number): Promise<DeadLetter[]>;
  /** A dead entry back to pending as `record` (due now); false when no dead entry has that id. */
  revive(id: string, record: InboxRecord): Promise<boolean>;
  /** A dead entry removed; false when no dead entry has that id. */
  discard(id: string): Promise<boolean>;
  stats(now: number): Promise<InboxStats>;
  /** Records a request created (for the session code and the reconciler). */
  expect(request: ExpectedRequest, ttlMs: number): Promise<void>;
  /** The recorded request, if any. */
  expected(accessRequestCode: string): Promise<ExpectedRequest | undefined>;
  /** Every recorded request that has no entry yet, was not handed over and was not reported missing, oldest first. */
  awaiting(limit: number, now: number): Promise<ExpectedRequest[]>;
  /**
   * Marks a request reported missing, in one atomic step: true only for the first caller, and only
   * while the request is expected, not reported, has no entry and was not handed over. A delivery
   * stored meanwhile makes it false, so a request is reported once across every instance and never
   * after its delivery arrived. The request stays recorded (its session code is what a resend
   * needs); it is no longer awaited.
   */
  reportMissing(accessRequestCode: string, now: number): Promise<boolean>;
  /** Stops watching a request and forgets its session code (you did not want it watched). */
  unexpect(accessRequestCode: string): Promise<void>;
  /**
   * Takes or renews the lease called `name` for `holder` until `now + ttlMs`: true when `holder`
   * has it (it was free, ran out, or was already `holder`'s). The reconciler runs where it is held.
   */
  lease(name: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  /**
   * Where request `id` stands (see `RequestState`), from what the store keeps of it; undefined
   * when it keeps nothing (never expected, or forgotten). Optional: a return page needs it.
   */
  state?(id: string, now: number): Promise<RequestState | undefined>;
  /**
   * Remembers that return-page reference `reference` names request `accessRequestCode` until
   * `until` (ms), and `referred` reads it back. Optional: a return page needs them.
   */
  refer?(reference: string, accessRequestCode: string, until: number): Promise<void>;
  referred?(reference: string, now: number): Promise<string | undefined>;
  /**
   * What an operator should know of the store before relying on it (a Redis without persistence,
   * say), each a sentence; the inbox logs them at `warn` when it starts. Optional.
   */
  warnings?(): Promise<string[]>;
}

/** An entry waiting for (or held by) a worker; a worker's lease on it, while one holds it. */
interface Pending {
  state: 'pending';
  record: InboxRecord;
  lease?: { worker: string; token: string; until: number };
}

/** An entry the inbox gave up on, with why. */
interface Dead {
  state: 'dead';
  record: InboxRecord;
  letter: DeadLetter;
}

type Held = Pending | Dead;

/** A pending entry under a worker's lease. */
type Leased = Pending & { lease: NonNullable<Pending['lease']> };

function leasedBy(held: Held | undefined, lease: string): held is Leased {
  return held?.state === 'pending' && held.lease?.token === lease;
}

/**
 * Entries in this process's memory: for one process, and for tests. A crash loses them, so the
 * tokens in them need no encryption (the inbox still seals them with a key of its own).
 * @example
 * ```ts
 * const inbox = createIdentityInbox({ client: acme, store: new MemoryInboxStore(), onIdentity: save });
 * ```
 */
export class MemoryInboxStore implements InboxStore {
  readonly durable: boolean = false;
  readonly #entries = new Map<string, Held>();
  readonly #done = new Map<string, { until: number; outcome?: InboxOutcome; at: number }>();
  readonly #expected = new Map<string, { request: ExpectedRequest; until: number; reportedAt?: number }>();
  readonly #references = new Map<string, { code: string; until: number }>();
  readonly #leases = new Map<string, { holder: string; until: number }>();

  async add(record: InboxRecord, now: number): Promise<'added' | 'revived' | 'duplicate'> {
    if ((this.#done.get(record.id)?.until ?? 0) > now) return 'duplicate';
    this.#done.delete(record.id);
    const held = this.#entries.get(record.id);
    if (!held) {
      this.#entries.set(record.id, { record, state: 'pending' });
      return 'added';
    }
    if (held.state === 'dead') {
      this.#entries.set(record.id, { record: { ...record, receivedAt: held.record.receivedAt }, state: 'pending' });
      return 'revived';
    }
    if (record.tokenExpiresAt > held.record.tokenExpiresAt) {
      held.record = { ...held.record, token: record.token, tokenExpiresAt: record.tokenExpiresAt, kind: record.kind };
    }
    return 'duplicate';
  }

  async claim(worker: string, max: number, leaseMs: number, now: number): Promise<InboxClaim[]> {
    const due = [...this.#entries.values()].filter(
      (held): held is Pending => held.state === 'pending' && held.record.nextAttemptAt <= now && !(held.lease && held.lease.until > now),
    );
    // The entry whose token expires first, first: it has the least time left to be fetched.
    due.sort((a, b) => a.record.tokenExpiresAt - b.record.tokenExpiresAt);
    return due.slice(0, max).map((held) => {
      held.lease = { worker, token: crypto.randomUUID(), until: now + leaseMs };
      return { record: held.record, lease: held.lease.token };
    });
  }

  async renew(worker: string, claim: InboxClaim, leaseMs: number, now: number): Promise<boolean> {
    const held = this.#holding(claim);
    if (held?.lease.worker !== worker) return false;
    held.lease.until = now + leaseMs;
    return true;
  }

  async complete(claim: InboxClaim, doneTtlMs: number, now: number, outcome?: InboxOutcome): Promise<void> {
    if (!this.#holding(claim)) return;
    this.#entries.delete(claim.record.id);
    this.#expected.delete(claim.record.id);
    this.#done.set(claim.record.id, { until: now + doneTtlMs, at: now, ...(outcome ? { outcome } : {}) });
    // Forgotten once their time is over, in sweeps as the map grows (a long-lived process).
    if (this.#done.size % 1_000 === 0) for (const [id, done] of this.#done) if (done.until <= now) this.#done.delete(id);
  }

  async reschedule(claim: InboxClaim, record: InboxRecord): Promise<void> {
    if (!this.#holding(claim)) return;
    this.#entries.set(claim.record.id, { state: 'pending', record });
  }

  async bury(claim: InboxClaim, letter: DeadLetter): Promise<void> {
    if (!this.#holding(claim)) return;
    this.#entries.set(claim.record.id, { state: 'dead', record: letter.record, letter });
  }

  async deadLetters(limit: number): Promise<DeadLetter[]> {
    return [...this.#entries.values()]
      .filter((held) => held.state === 'dead')
      .map((held) => held.letter)
      .sort((a, b) => a.deadAt - b.deadAt)
      .slice(0, limit);
  }

  async revive(id: string, record: InboxRecord): Promise<boolean> {
    const held = this.#entries.get(id);
    if (held?.state !== 'dead') return false;
    this.#entries.set(id, { record, state: 'pending' });
    return true;
  }

  async discard(id: string): Promise<boolean> {
    if (this.#entries.get(id)?.state !== 'dead') return false;
    this.#entries.delete(id);
    return true;
  }

  async stats(now: number): Promise<InboxStats> {
    let pending = 0;
    let inFlight = 0;
    let dead = 0;
    let oldest = now;
    for (const held of this.#entries.values()) {
      if (held.state === 'dead') {
        dead += 1;
        continue;
      }
      if (held.lease && held.lease.until > now) inFlight += 1;
      else pending += 1;
      oldest = Math.min(oldest, held.record.receivedAt);
    }
    return { pending, inFlight, dead, oldestAgeMs: now - oldest };
  }

  async expect(request: ExpectedRequest, ttlMs: number): Promise<void> {
    this.#expected.set(request.accessRequestCode, { request, until: request.createdAt + ttlMs });
  }

  async expected(accessRequestCode: string): Promise<ExpectedRequest | undefined> {
    return this.#expected.get(accessRequestCode)?.request;
  }

  async awaiting(limit: number, now: number): Promise<ExpectedRequest[]> {
    const out: ExpectedRequest[] = [];
    for (const [code, { request, until, reportedAt }] of this.#expected) {
      if (until <= now) {
        this.#expected.delete(code);
        continue;
      }
      if (reportedAt === undefined && !this.#entries.has(code) && !this.#handedOver(code, now)) out.push(request);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt).slice(0, limit);
  }

  async reportMissing(accessRequestCode: string, now: number): Promise<boolean> {
    const watched = this.#expected.get(accessRequestCode);
    if (!watched || watched.until <= now || watched.reportedAt !== undefined) return false;
    if (this.#entries.has(accessRequestCode) || this.#handedOver(accessRequestCode, now)) return false;
    watched.reportedAt = now;
    return true;
  }

  async unexpect(accessRequestCode: string): Promise<void> {
    this.#expected.delete(accessRequestCode);
  }

  /** Whether the request was handed over within its done window (an `expect()` may come after it). */
  #handedOver(accessRequestCode: string, now: number): boolean {
    return (this.#done.get(accessRequestCode)?.until ?? 0) > now;
  }

  async state(id: string, now: number): Promise<RequestState | undefined> {
    const done = this.#done.get(id);
    if (done && done.until > now) return done.outcome ? { state: done.outcome, at: done.at } : undefined;
    const held = this.#entries.get(id);
    if (held?.state === 'dead') return { state: 'failed', at: held.letter?.deadAt ?? now };
    if (held) return { state: 'processing', at: held.record.receivedAt };
    const watched = this.#expected.get(id);
    if (!watched || watched.until <= now) return undefined;
    return watched.reportedAt === undefined
      ? { state: 'awaiting', at: watched.request.createdAt }
      : { state: 'missing', at: watched.reportedAt };
  }

  async refer(reference: string, accessRequestCode: string, until: number): Promise<void> {
    this.#references.set(reference, { code: accessRequestCode, until });
  }

  async referred(reference: string, now: number): Promise<string | undefined> {
    const found = this.#references.get(reference);
    if (found && found.until <= now) this.#references.delete(reference);
    return found && found.until > now ? found.code : undefined;
  }

  async lease(name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    const held = this.#leases.get(name);
    if (held && held.holder !== holder && held.until > now) return false;
    this.#leases.set(name, { holder, until: now + ttlMs });
    return true;
  }

  #holding(claim: InboxClaim): Leased | undefined {
    const held = this.#entries.get(claim.record.id);
    return leasedBy(held, claim.lease) ? held : undefined;
  }
}
