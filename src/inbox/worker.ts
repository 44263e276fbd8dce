/**
 * The inbox's workers: an entry taken from the store is fetched and verified with its sealed
 * token, handed to your handler once (in the store's transaction when it has one), retried with
 * backoff within the token's life, or set aside with its reason. A worker keeps its entry by a
 * heartbeat while it works; a dead worker's entry is taken over after its lease. `inbox.ts` makes
 * one per inbox.
 */
import { AcmeIdentityError, IdentityFlowError, type InboxErrorCode } from '../errors/index.js';
import type { InboxEvent } from '../internal/observe.js';
import { open } from '../internal/sealing.js';
import type { VerifiedIdentityOptions, WebhookEventLike } from '../client/identity-flow.js';
import type { IdentityRequestCodes } from '../client/results.js';
import type { VerifiedIdentityResponse } from '../sd-jwt/index.js';
import { EXPIRY_MARGIN_MS, failureOf, type Failure } from './rules.js';
import type { InboxClaim, InboxOutcome, InboxRecord, InboxStore } from './store.js';

/** What the inbox needs of the client: `AcmeIdentityClient` fits. */
export interface InboxClient {
  identityResponses: {
    getVerified(event: WebhookEventLike, options: VerifiedIdentityOptions): Promise<VerifiedIdentityResponse>;
  };
  identityRequests: {
    get(
      codes: IdentityRequestCodes,
    ): Promise<{ data: { completed_at?: number | undefined; opened_at?: number | undefined; time_expires?: number | undefined } }>;
  };
  /** The service's time as the client knows it, in ms (token expiry is judged on it). */
  serviceTime?(): number;
}

/**
 * What your handler receives: once per request, with the request's `access_request_code` as `id`
 * (your idempotency key). `Transaction` is the store's (see `transaction`).
 */
export type InboxDelivery<Transaction = unknown> =
  | (DeliveryBase<Transaction> & { readonly kind: 'approved'; readonly identity: VerifiedIdentityResponse })
  | (DeliveryBase<Transaction> & { readonly kind: 'cancelled' })
  /**
   * Approved, but the service does not vouch for the identity: it disclosed `acmeidentity.valid`
   * as false. Its claims verified, and are kept under another name than an approval's `identity`,
   * so that a handler written for `approved` and `cancelled` alone does not compile rather than
   * take it for a verified identity.
   */
  | (DeliveryBase<Transaction> & { readonly kind: 'invalid'; readonly invalidIdentity: VerifiedIdentityResponse });

interface DeliveryBase<Transaction> {
  /** The request's `access_request_code`: the same for every redelivery and retry. Make your handler idempotent on it. */
  readonly id: string;
  readonly accessRequestCode: string;
  /** Attempts made before this one. */
  readonly attempts: number;
  /** When the first delivery was received, in ms. */
  readonly receivedAt: number;
  /**
   * The transaction that settles the entry, with a store that has one (`PostgresInboxStore`: the
   * `pg` client of that transaction). Write your user record through it and both commit together,
   * or neither does; absent with the memory and Redis stores.
   */
  readonly transaction?: Transaction;
}

/** Tries of a delivery whose request was never recorded before it is set aside as unknown: one more, for an `expect` that comes late. */
const UNKNOWN_REQUEST_ATTEMPTS = 2;

/** The name a token is sealed under in its entry: a token moved to another entry does not open. */
export const tokenName = (id: string) => `inbox:${id}`;

/** One line and one hook event per thing that happens to an entry. */
export type EntryLog = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  record: InboxRecord,
  outcome: InboxEvent['outcome'],
  fields?: Partial<Pick<InboxEvent, 'reason' | 'errorCode' | 'waitMs' | 'kind'>>,
) => void;

/** What a worker needs of its inbox. */
export interface WorkerContext<Transaction> {
  /** This worker's name in the store's leases. */
  name: string;
  store: InboxStore<Transaction>;
  client: InboxClient;
  onIdentity(delivery: InboxDelivery<Transaction>): void | Promise<void>;
  verification: Omit<VerifiedIdentityOptions, 'identitySessionCode'> | undefined;
  sessionCode: ((accessRequestCode: string) => string | undefined | Promise<string | undefined>) | undefined;
  /** The key tokens are sealed with; none when they are kept in clear. */
  key: Promise<CryptoKey> | undefined;
  settings: { maxAttempts: number; backoffMs: number; maxBackoffMs: number; leaseMs: number; concurrency: number; doneTtlMs: number };
  now(): number;
  serviceNow(): number;
  log: EntryLog;
  /** The store's outages, logged once each way. */
  outage: { failed(error: unknown, during: string): void; answered(): void };
  /** An entry settled here (handed over or set aside): its waiters read the store again. */
  settled(id: string): void;
}

/**
 * A worker: `runOnce` settles every entry due now, `concurrency` at a time, and resolves how many.
 * Its passes run one after another: a call made while one is under way (a cron job beside
 * `start()`) waits for it. Two passes at once would hold twice `concurrency` entries, and could
 * take back an entry this worker still works on once its lease ran out: a store that names a lease
 * by its worker (Redis) would then let both hand it over.
 */
export function createWorker<Transaction>(context: WorkerContext<Transaction>): { runOnce(): Promise<number> } {
  let previous: Promise<unknown> = Promise.resolve();
  return {
    runOnce() {
      const pass = previous.then(() => settleDue(context));
      previous = pass.catch(() => undefined);
      return pass;
    },
  };
}

/** One pass: claims and settles due entries, `concurrency` at a time, until none is due; resolves how many. */
async function settleDue<T>(context: WorkerContext<T>): Promise<number> {
  const { name, store, settings, now, outage } = context;
  let settled = 0;
  for (;;) {
    const claims = await store.claim(name, settings.concurrency, settings.leaseMs, now());
    outage.answered();
    if (claims.length === 0) return settled;
    await Promise.all(
      claims.map((claim) =>
        heartbeat(context, claim, () => settle(context, claim)).catch((error: unknown) => {
          // The store failed mid-way: the entry stays where it was, and its lease runs out.
          outage.failed(error, 'while settling an entry (it is tried again after its lease)');
        }),
      ),
    );
    settled += claims.length;
  }
}

/**
 * `work` on `claim`, its lease renewed every third of `leaseMs` until it is done: a live worker
 * keeps its entry however long the fetch and the handler take; a dead one stops renewing, and
 * another worker takes the entry over within `leaseMs`. A renewal that finds the entry taken over
 * stops; the work then hands nothing over (settle checks its lease before handing over).
 */
async function heartbeat<T>({ name, store, settings, now }: WorkerContext<T>, claim: InboxClaim, work: () => Promise<void>): Promise<void> {
  const beat = setInterval(() => {
    store.renew(name, claim, settings.leaseMs, now()).then(
      (held) => {
        if (!held) clearInterval(beat);
      },
      () => undefined,
    );
  }, settings.leaseMs / 3);
  // A heartbeat never keeps a process alive on its own.
  (beat as { unref?: () => void }).unref?.();
  try {
    await work();
  } finally {
    clearInterval(beat);
  }
}

/**
 * One attempt at an entry, to its end: handed over, tried again later, or set aside. Each step
 * that can end it returns what ended it; the last hands the identity over.
 */
async function settle<T>(context: WorkerContext<T>, claim: InboxClaim): Promise<void> {
  const record = claim.record;
  if (record.tokenExpiresAt - EXPIRY_MARGIN_MS <= context.serviceNow()) {
    const code = record.lastError?.code ?? 'ERR_INBOX_TOKEN_EXPIRED';
    return bury(context, claim, record, 'ERR_INBOX_TOKEN_EXPIRED', code, 'the X-Access-Token expired before the identity was fetched');
  }
  const accessToken = await openToken(context.key, record);
  if (accessToken === undefined) {
    return bury(
      context,
      claim,
      record,
      'ERR_INBOX_REFUSED',
      'ERR_INVALID_CONFIG',
      "the stored token does not open with this inbox's encryptionKey",
    );
  }
  // A store across a network read the request's record with the claim; another is asked now.
  const expected = claim.expected === undefined ? await context.store.expected(record.id) : claim.expected;
  // The code the application recorded; else the one it looks up; else the one the webhook carried.
  const identitySessionCode = expected?.identitySessionCode ?? (await context.sessionCode?.(record.id)) ?? record.identitySessionCode;
  if (!identitySessionCode) {
    return failed(context, claim, {
      code: 'ERR_INBOX_UNKNOWN_REQUEST',
      message: 'no identity session code for this request (nor in its webhook): call expect() at create, or give sessionCode',
      permanent: false,
    });
  }
  const fetched = await fetchIdentity(context, record, accessToken, identitySessionCode);
  if ('failure' in fetched) return failed(context, claim, fetched.failure);
  return handOver(context, claim, fetched.delivery, fetched.outcome);
}

/** The entry's X-Access-Token, opened with the inbox's key (kept in clear without one); undefined when it does not open. */
async function openToken(key: Promise<CryptoKey> | undefined, record: InboxRecord): Promise<string | undefined> {
  if (!key) return record.token;
  try {
    return await open(await key, record.token, tokenName(record.id));
  } catch {
    return undefined;
  }
}

/** The verified identity, or the request's cancellation, as the delivery to hand over; or why not, this time. */
async function fetchIdentity<T>(
  { client, verification }: WorkerContext<T>,
  record: InboxRecord,
  accessToken: string,
  identitySessionCode: string,
): Promise<{ delivery: InboxDelivery<T>; outcome: InboxOutcome } | { failure: Failure }> {
  const base = { id: record.id, accessRequestCode: record.id, attempts: record.attempts, receivedAt: record.receivedAt };
  try {
    const event = { kind: record.kind, accessRequestCode: record.id, accessToken };
    const identity = await client.identityResponses.getVerified(event, { ...verification, identitySessionCode });
    if (identity.valid === false) return { delivery: { ...base, kind: 'invalid', invalidIdentity: identity }, outcome: 'invalid' };
    return { delivery: { ...base, kind: 'approved', identity }, outcome: identity.partiallyComplete ? 'partial' : 'verified' };
  } catch (error) {
    if (error instanceof IdentityFlowError && error.step === 'cancelled')
      return { delivery: { ...base, kind: 'cancelled' }, outcome: 'cancelled' };
    return { failure: failureOf(error) };
  }
}

/**
 * The delivery given to `onIdentity`, if the entry is still this worker's: a worker whose lease ran
 * out hands nothing over (the one that took the entry does). With a store that settles in a
 * transaction, the handler's writes and the entry's settlement commit together, or neither does.
 * A handler that throws is an attempt that failed: tried again, its writes rolled back.
 */
async function handOver<T>(context: WorkerContext<T>, claim: InboxClaim, delivery: InboxDelivery<T>, outcome: InboxOutcome): Promise<void> {
  const { name, store, onIdentity, settings, now, log } = context;
  const record = claim.record;
  if (!(await store.renew(name, claim, settings.leaseMs, now()))) {
    log('warn', 'entry taken over by another worker: not handed over here', record, 'taken-over');
    return;
  }
  let handlerError: { error: unknown } | undefined;
  const call = async (transaction?: T) => {
    try {
      await onIdentity(transaction === undefined ? delivery : { ...delivery, transaction });
    } catch (error) {
      handlerError = { error };
      throw error;
    }
  };
  let settledHere = true;
  try {
    if (store.completeWith) settledHere = await store.completeWith(claim, settings.doneTtlMs, now(), call, outcome);
    else {
      await call();
      await store.complete(claim, settings.doneTtlMs, now(), outcome);
    }
  } catch (error) {
    if (!handlerError) throw error;
    const thrown = handlerError.error;
    const code = thrown instanceof AcmeIdentityError ? thrown.code : 'ERR_HANDLER';
    const message = `onIdentity threw ${thrown instanceof Error ? thrown.name : typeof thrown}`;
    return failed(context, claim, { code, message, permanent: false, handler: true });
  }
  if (!settledHere) {
    log('warn', 'entry taken over by another worker while the handler ran: its writes rolled back here', record, 'taken-over');
    return;
  }
  log('info', `identity handed over (${delivery.kind})`, record, 'handed-over', { kind: delivery.kind });
  context.settled(record.id);
}

/**
 * An attempt that failed: set aside when it cannot succeed (refused, attempts used up, the token
 * about to expire, a request never recorded), else tried again after a backoff with jitter, and
 * within the token's lifetime: the last try goes just before it expires, never after.
 */
async function failed<T>(context: WorkerContext<T>, claim: InboxClaim, failure: Failure): Promise<void> {
  const { settings, now, serviceNow, store, log } = context;
  const record: InboxRecord = {
    ...claim.record,
    attempts: claim.record.attempts + 1,
    lastError: { code: failure.code, message: failure.message },
  };
  if (failure.permanent) return bury(context, claim, record, 'ERR_INBOX_REFUSED', failure.code, failure.message);
  if (failure.code === 'ERR_INBOX_UNKNOWN_REQUEST' && record.attempts >= Math.min(UNKNOWN_REQUEST_ATTEMPTS, settings.maxAttempts)) {
    return setAsideUnknown(context, claim, record, failure);
  }
  if (record.attempts >= settings.maxAttempts) {
    const reason = failure.handler ? 'ERR_INBOX_HANDLER' : 'ERR_INBOX_RETRIES_EXHAUSTED';
    return bury(context, claim, record, reason, failure.code, failure.message);
  }
  const wait = Math.min(settings.maxBackoffMs, settings.backoffMs * 2 ** (record.attempts - 1)) * (0.75 + Math.random() * 0.5);
  const lastChance = record.tokenExpiresAt - 2 * EXPIRY_MARGIN_MS - serviceNow() + now();
  if (lastChance <= now()) {
    return bury(
      context,
      claim,
      record,
      'ERR_INBOX_TOKEN_EXPIRED',
      failure.code,
      'the X-Access-Token expired before the identity was fetched',
    );
  }
  // Rounded up: a wait under a millisecond is still a wait, not an expiry.
  const next = Math.ceil(Math.min(now() + wait, lastChance));
  await store.reschedule(claim, { ...record, nextAttemptAt: next });
  log('warn', 'identity not fetched yet: trying again', record, 'retry', { errorCode: failure.code, waitMs: Math.round(next - now()) });
}

/** An entry set aside with its reason, for `deadLetters()` and a replay. */
async function bury<T>(
  context: WorkerContext<T>,
  claim: InboxClaim,
  record: InboxRecord,
  reason: InboxErrorCode,
  errorCode: string,
  message: string,
): Promise<void> {
  await context.store.bury(claim, { record, reason, errorCode, message, deadAt: context.now() });
  context.log('error', `identity set aside (${reason}): see deadLetters()`, record, 'dead', { reason, errorCode });
  context.settled(record.id);
}

/**
 * A delivery for a request this relying party never recorded (a sandbox `trigger`, a
 * `check-receiver` delivery, another application on the same webhook URL, or an `expect` that
 * was lost): said at once, at `warn`, with its own hook outcome, after one more try for an
 * `expect` that comes late. It is kept with the dead letters (reason `ERR_INBOX_UNKNOWN_REQUEST`)
 * so a request whose record was lost can still be replayed once recorded.
 */
async function setAsideUnknown<T>(context: WorkerContext<T>, claim: InboxClaim, record: InboxRecord, failure: Failure): Promise<void> {
  const reason = 'ERR_INBOX_UNKNOWN_REQUEST';
  await context.store.bury(claim, { record, reason, errorCode: failure.code, message: failure.message, deadAt: context.now() });
  context.log(
    'warn',
    'a delivery for a request never recorded with expect() (a test delivery, or another application?): set aside as ERR_INBOX_UNKNOWN_REQUEST',
    record,
    'unknown-request',
    { reason, errorCode: failure.code },
  );
}
