/**
 * The identity inbox: between the webhook's 200 and the verified identity, nothing is lost. A
 * delivery is persisted before the receiver answers; workers fetch and verify the identity with
 * the webhook's token, retry within the token's lifetime, hand the result to your handler once,
 * and set aside (dead-letter) what they cannot finish, with its reason, for a replay.
 */
import { AcmeIdentityError, ConfigurationError, InboxError } from '../errors/index.js';
import { countOption, positiveOption } from '../errors/options.js';
import { Observer, type InboxEvent, type ObservabilityOptions } from '../internal/observe.js';
import { printable } from '../internal/text.js';
import { importAesKey, seal, type AesKeyInput } from '../internal/sealing.js';
import { testDeliverySource } from '../internal/test-delivery.js';
import type { VerifiedIdentityOptions, WebhookEventLike } from '../client/identity-flow.js';
import type { IdentityRequestCodes } from '../client/results.js';
import { digest, EXPIRY_MARGIN_MS, missingReport, outageLog, tokenExpiry, type MissingDelivery } from './rules.js';
import { createWorker, tokenName, type EntryLog, type InboxClient, type InboxDelivery } from './worker.js';
import {
  requestOutcomes,
  type OpenedReference,
  type RequestOutcome,
  type ReturnUrls,
  type ServiceView,
  type WaitOptions,
} from './outcomes.js';
import { createSchedule } from './schedule.js';
import { MemoryInboxStore, type DeadLetter, type InboxRecord, type InboxStats, type InboxStore } from './store.js';

export interface IdentityInboxOptions<Transaction = unknown> extends ObservabilityOptions {
  /** The client that fetches identities (`AcmeIdentityClient`). */
  client: InboxClient;
  /**
   * Called once per request with the verified identity, or with `kind: 'cancelled'`. A throw
   * retries it (the identity is fetched again). With a store that settles in a transaction
   * (`PostgresInboxStore`), it runs inside that transaction: `delivery.transaction`.
   */
  onIdentity(delivery: InboxDelivery<Transaction>): void | Promise<void>;
  /** Where entries are kept. @default a `MemoryInboxStore` (one process; a crash loses entries) */
  store?: InboxStore<Transaction>;
  /**
   * The AES-GCM key the X-Access-Token is sealed with in a durable store: 32 random bytes (or their
   * base64), or a `CryptoKey`. Every instance needs the same one. Required with a durable store
   * unless `allowPlaintext`. @default a random key (memory store only)
   */
  encryptionKey?: AesKeyInput;
  /** Keep tokens in clear in a durable store. Only where the store is as trusted as your secrets. @default false */
  allowPlaintext?: boolean;
  /** Looks up the `identity_session_code` of a request, when you did not record it with `expect`. */
  sessionCode?(accessRequestCode: string): string | undefined | Promise<string | undefined>;
  /** Options for `getVerified` (signature requirement, claims, tolerance...). */
  verification?: Omit<VerifiedIdentityOptions, 'identitySessionCode'>;
  /** Attempts before an entry is set aside. @default 8 */
  maxAttempts?: number;
  /** The first wait after a failure, in ms; doubled each time, with jitter. @default 1000 */
  backoffMs?: number;
  /** The longest wait between attempts, in ms. @default 300000 */
  maxBackoffMs?: number;
  /**
   * How long a worker holds an entry before another may take it over, in ms. A worker renews it
   * every third of it while it works (a heartbeat), so a slow fetch or handler keeps its entry and a
   * dead worker's entry is taken over within `leaseMs`, well inside the X-Access-Token's life.
   * @default 15000
   */
  leaseMs?: number;
  /** Entries a worker processes at once. @default 4 */
  concurrency?: number;
  /**
   * How often a started inbox looks for due entries, in ms. A store that announces deliveries
   * (`PostgresInboxStore`, by LISTEN/NOTIFY) wakes the workers at once as well. @default 1000
   */
  pollIntervalMs?: number;
  /** How long a handed-over request's redeliveries are recognised, in seconds. @default 604800 (7 days) */
  doneTtlSeconds?: number;
  /** The X-Access-Token's lifetime assumed when it carries no `exp` (the spec does not state one), in seconds. @default 3600 */
  assumedTokenLifetimeSeconds?: number;
  /** Reconciler: how long after `completed_at` a missing delivery is reported, in seconds. @default 600 */
  graceSeconds?: number;
  /** How long a return page's reference (`returnUrls`) opens, in seconds. @default 604800 (7 days) */
  returnReferenceTtlSeconds?: number;
  /** Reconciler: called for each request reported missing (also logged at `warn`). A throw is logged and ignored. */
  onMissingDelivery?(missing: MissingDelivery): void;
  /**
   * Reconciler: how often a started inbox runs `reconcile()` by itself, in ms, once across every
   * instance sharing the store (the instance that takes the store's `reconciler` lease runs it);
   * `false` leaves it to you. @default 300000 (5 minutes)
   */
  reconcileIntervalMs?: number | false;
  /** The local clock, in ms. @default Date.now */
  now?: () => number;
}

export interface IdentityInbox {
  /**
   * Persists a verified webhook event: pass it as `createWebhookReceiver`'s handler, so the
   * receiver answers 200 only once the delivery is stored. Resolves `added`, `revived` (a
   * dead entry, given a fresh token) or `duplicate`; `test` for a delivery `acme-identity
   * check-receiver` sent (its signed body says so), which is answered and not stored.
   * @throws {ConfigurationError} for an event without `accessRequestCode` or `accessToken`.
   */
  receive(
    event: WebhookEventLike & { deliveryId?: string; identitySessionCode?: string; payload?: Readonly<Record<string, unknown>> },
  ): Promise<'added' | 'revived' | 'duplicate' | 'test'>;
  /**
   * Records a request you created (its two codes), so workers know its session code and the
   * reconciler watches it. With the `reference` of `returnUrls`, the return page knows it too.
   */
  expect(codes: IdentityRequestCodes & { reference?: string }): Promise<void>;
  /**
   * The `return_url` and `off_ramp_url` to create a request with, each carrying a sealed,
   * expiring reference (`acme_ref`) that only this relying party's return page opens; pass
   * `reference` to `expect` with the codes the create returns.
   * @throws {ConfigurationError} for a URL that is not one, or an inbox without an encryption key to seal with (`allowPlaintext`).
   */
  returnUrls(urls: { returnUrl: string | URL; offRampUrl: string | URL }): Promise<ReturnUrls>;
  /**
   * Where a request stands now (see `RequestOutcome`), from the store every instance shares.
   * @throws {ConfigurationError} with a store that keeps no states (a store of your own without `state`).
   */
  outcome(accessRequestCode: string): Promise<RequestOutcome>;
  /**
   * Resolves once the request's state is final (or differs from `since`), or `timeoutMs` passed,
   * with its outcome then; on any instance, whichever handles the webhook.
   */
  waitFor(accessRequestCode: string, options?: WaitOptions): Promise<RequestOutcome>;
  /**
   * What the service says of a request whose webhook has not come (for a page that has waited a
   * while): `completed` (the person finished: the result is on its way), `in-progress` (opened,
   * not finished), `not-started`, or `expired`; undefined when it cannot be read.
   */
  askService(accessRequestCode: string): Promise<ServiceView | undefined>;
  /**
   * The request a return page's `acme_ref` names, and whether it came by the off-ramp; undefined
   * for a reference forged, altered, expired or unknown. The value is read as a browser brings it
   * back from the service: a `+` left unescaped (a space) and parameters the service concatenated
   * after it (`?status=…`) are undone.
   */
  openReference(sealed: string): Promise<OpenedReference | undefined>;
  /**
   * Processes every entry due now, and resolves how many were settled. For tests, cron jobs and
   * serverless. A call made while a pass is under way (a started inbox's, or another call's) waits
   * for it: an inbox never holds more than `concurrency` entries.
   */
  runOnce(): Promise<number>;
  /** Polls for due entries every `pollIntervalMs`, and reconciles every `reconcileIntervalMs` (once across instances), until `stop`. */
  start(): void;
  /** Stops polling and reconciling, and waits for the entries in hand and a reconciliation under way. */
  stop(): Promise<void>;
  /** Entries set aside, oldest first. */
  deadLetters(limit?: number): Promise<DeadLetter[]>;
  /**
   * A dead entry tried again from its first attempt.
   * @throws {InboxError} `ERR_INBOX_NOT_FOUND` when no dead entry has that id; `ERR_INBOX_TOKEN_EXPIRED` when its token expired (only a fresh delivery can fetch it: ask the service to resend).
   */
  replay(id: string): Promise<void>;
  /** @throws {InboxError} `ERR_INBOX_NOT_FOUND` when no dead entry has that id. */
  discard(id: string): Promise<void>;
  stats(): Promise<InboxStats>;
  /** Checks the expected requests against the service; reports (log and `onMissingDelivery`) each completed one with no delivery after the grace period, or expired unopened. */
  reconcile(): Promise<MissingDelivery[]>;
}

/**
 * Creates an inbox. Nothing runs until `start()` (or `runOnce()`).
 * @throws {ConfigurationError} for a missing client or handler, a durable store without `encryptionKey`, or an option out of range.
 * @example
 * ```ts
 * const inbox = createIdentityInbox({ client: acme, store: new RedisInboxStore(redis), encryptionKey, onIdentity: save });
 * const receiver = createWebhookReceiver(createWebhookVerifier({ secret, replayStore: false }), inbox.receive);
 * inbox.start();
 * ```
 */
export function createIdentityInbox<Transaction = unknown>(options: IdentityInboxOptions<Transaction>): IdentityInbox {
  const { client, onIdentity, store } = requiredParts(options);
  const key = sealingKey(options, store.durable);
  const observer = new Observer(options, (option, message) => new ConfigurationError(option, message));
  const settings = inboxSettings(options);
  const now = options.now ?? (() => Date.now());
  const serviceNow = () => client.serviceTime?.() ?? now();
  const log = entryLog(observer);
  const outage = outageLog(observer, now);
  const page = requestOutcomes({
    store: store as InboxStore<unknown>,
    key,
    readRequest: (request) => client.identityRequests.get(request),
    observer,
    now,
    serviceNow,
    referenceTtlMs: settings.referenceTtlMs,
  });
  const worker = `${hostLabel()}-${crypto.randomUUID().slice(0, 8)}`;
  const { runOnce } = createWorker({
    name: worker,
    store,
    client,
    onIdentity,
    verification: options.verification,
    sessionCode: options.sessionCode,
    key,
    settings,
    now,
    serviceNow,
    log,
    outage,
    settled: page.settled,
  });
  const reconcile = () =>
    reconcileRequests({ store, client, observer, now, serviceNow, graceMs: settings.graceMs, onMissing: options.onMissingDelivery });
  const schedule = createSchedule({
    store,
    observer,
    outage,
    worker,
    now,
    runOnce,
    reconcile,
    pollIntervalMs: settings.pollIntervalMs,
    reconcileIntervalMs: settings.reconcileIntervalMs,
  });
  const parts: InboxParts = { store: store as InboxStore<unknown>, key, observer, outage, log, now, serviceNow };

  return {
    receive: (event) => receiveDelivery(parts, event, settings.tokenLifetimeMs),
    async expect(codes) {
      if (typeof codes?.accessRequestCode !== 'string' || typeof codes.identitySessionCode !== 'string')
        throw new ConfigurationError('codes', 'must be the accessRequestCode and identitySessionCode that create returned');
      const { reference, ...request } = codes;
      if (reference !== undefined) await page.bind(reference, request.accessRequestCode);
      await store.expect(
        { accessRequestCode: request.accessRequestCode, identitySessionCode: request.identitySessionCode, createdAt: now() },
        settings.doneTtlMs,
      );
    },
    runOnce,
    start: schedule.start,
    stop: schedule.stop,
    deadLetters: (limit = 100) => store.deadLetters(limit),
    replay: (id) => replayDeadEntry(parts, id),
    discard: (id) => discardDeadEntry(parts, id),
    stats: () => store.stats(now()),
    reconcile,
    returnUrls: page.returnUrls,
    openReference: page.openReference,
    outcome: page.outcome,
    waitFor: page.waitFor,
    askService: page.askService,
  };
}

/** The client, the handler and the store, each checked: a ConfigurationError naming what is missing. */
function requiredParts<Transaction>(options: IdentityInboxOptions<Transaction>) {
  const { client, onIdentity } = options ?? ({} as Partial<IdentityInboxOptions<Transaction>>);
  if (typeof client?.identityResponses?.getVerified !== 'function') throw new ConfigurationError('client', 'must be an AcmeIdentityClient');
  if (typeof onIdentity !== 'function') throw new ConfigurationError('onIdentity', 'must be a function that takes the delivery');
  const store: InboxStore<Transaction> = options.store ?? (new MemoryInboxStore() as InboxStore<Transaction>);
  if (typeof store.add !== 'function') throw new ConfigurationError('store', 'must be an InboxStore (MemoryInboxStore, RedisInboxStore)');
  return { client, onIdentity, store };
}

/** What an entry's step logs: a line, and the `onInbox` hook with the same event (the delivery id cut to 16 characters). */
function entryLog(observer: Observer): EntryLog {
  return (level, message, record, outcome, fields = {}) => {
    const event: InboxEvent = { outcome, delivery: record.deliveryId.slice(0, 16), attempts: record.attempts, ...fields };
    observer.log(level, message, event);
    observer.emit('onInbox', event);
  };
}

/** What receiving a delivery and acting on dead entries share. */
interface InboxParts {
  store: InboxStore<unknown>;
  key: Promise<CryptoKey> | undefined;
  observer: Observer;
  outage: ReturnType<typeof outageLog>;
  log: EntryLog;
  now(): number;
  serviceNow(): number;
}

/**
 * Stores a verified delivery before the receiver answers, its token sealed to its entry; a test
 * delivery (a receiver check) is answered and not stored. A store that fails is rethrown: the
 * receiver answers 500 and the service sends it again.
 */
async function receiveDelivery(
  parts: InboxParts,
  event: Parameters<IdentityInbox['receive']>[0],
  tokenLifetimeMs: number,
): ReturnType<IdentityInbox['receive']> {
  const { store, key, observer, outage, log, now, serviceNow } = parts;
  if (typeof event?.accessRequestCode !== 'string' || event.accessRequestCode === '' || typeof event.accessToken !== 'string') {
    throw new ConfigurationError('event', 'must be a verified webhook event (accessRequestCode and accessToken)');
  }
  const test = testDeliverySource(event.payload);
  if (test) {
    // A receiver check: nothing to fetch, nothing to set aside.
    observer.log('info', `a test delivery from ${printable(test, 32)}: answered, not stored`);
    observer.emit('onInbox', { outcome: 'test', delivery: (event.deliveryId ?? '').slice(0, 16), attempts: 0 });
    return 'test';
  }
  const id = event.accessRequestCode;
  const received = now();
  const record: InboxRecord = {
    id,
    kind: event.kind ?? 'unknown',
    // The code the webhook carried, if any (an empty one names nothing: the worker reads it as none).
    ...(typeof event.identitySessionCode === 'string' ? { identitySessionCode: event.identitySessionCode } : {}),
    deliveryId: event.deliveryId ?? id,
    token: key ? await seal(await key, event.accessToken, tokenName(id)) : event.accessToken,
    tokenExpiresAt: tokenExpiry(event.accessToken, serviceNow(), tokenLifetimeMs),
    receivedAt: received,
    attempts: 0,
    nextAttemptAt: received,
  };
  let outcome: Awaited<ReturnType<InboxStore['add']>>;
  try {
    outcome = await store.add(record, received);
  } catch (error) {
    // Not stored: the receiver answers 500 and the service sends it again.
    outage.failed(error, 'while storing a delivery (answered 500: the service sends it again)');
    throw error;
  }
  outage.answered();
  log(outcome === 'duplicate' ? 'debug' : 'info', `delivery ${outcome}`, record, outcome);
  return outcome;
}

/** A dead entry tried again from its first attempt, while its token is still good. */
async function replayDeadEntry({ store, log, now, serviceNow }: InboxParts, id: string): Promise<void> {
  const letter = (await store.deadLetters(Number.MAX_SAFE_INTEGER)).find((dead) => dead.record.id === id);
  if (!letter) throw new InboxError('ERR_INBOX_NOT_FOUND', id, 'no dead entry has this id');
  if (letter.record.tokenExpiresAt - EXPIRY_MARGIN_MS <= serviceNow()) {
    throw new InboxError(
      'ERR_INBOX_TOKEN_EXPIRED',
      id,
      'its X-Access-Token has expired: ask the service to send the webhook again (the fresh delivery revives it)',
    );
  }
  const { lastError: _last, ...rest } = letter.record;
  if (!(await store.revive(id, { ...rest, attempts: 0, nextAttemptAt: now() })))
    throw new InboxError('ERR_INBOX_NOT_FOUND', id, 'no dead entry has this id');
  log('info', 'dead entry replayed', letter.record, 'replayed');
}

/** A dead entry dropped for good. */
async function discardDeadEntry({ store, log }: InboxParts, id: string): Promise<void> {
  const letter = (await store.deadLetters(Number.MAX_SAFE_INTEGER)).find((dead) => dead.record.id === id);
  if (!(await store.discard(id))) throw new InboxError('ERR_INBOX_NOT_FOUND', id, 'no dead entry has this id');
  if (letter) log('info', 'dead entry discarded', letter.record, 'discarded');
}

/** The inbox's settings: each option checked (a ConfigurationError naming it), defaults filled in. */
function inboxSettings<Transaction>(options: IdentityInboxOptions<Transaction>) {
  return {
    maxAttempts: countOption('maxAttempts', options.maxAttempts, 8),
    backoffMs: positiveOption('backoffMs', options.backoffMs, 1_000),
    maxBackoffMs: positiveOption('maxBackoffMs', options.maxBackoffMs, 300_000),
    leaseMs: positiveOption('leaseMs', options.leaseMs, 15_000),
    concurrency: countOption('concurrency', options.concurrency, 4),
    pollIntervalMs: positiveOption('pollIntervalMs', options.pollIntervalMs, 1_000),
    doneTtlMs: positiveOption('doneTtlSeconds', options.doneTtlSeconds, 604_800) * 1000,
    tokenLifetimeMs: positiveOption('assumedTokenLifetimeSeconds', options.assumedTokenLifetimeSeconds, 3_600) * 1000,
    graceMs: positiveOption('graceSeconds', options.graceSeconds, 600) * 1000,
    referenceTtlMs: positiveOption('returnReferenceTtlSeconds', options.returnReferenceTtlSeconds, 604_800) * 1000,
    reconcileIntervalMs:
      options.reconcileIntervalMs === false
        ? (false as const)
        : positiveOption('reconcileIntervalMs', options.reconcileIntervalMs, 300_000),
  };
}

/** What the reconciler works with. */
interface ReconcileContext {
  store: Pick<InboxStore, 'awaiting' | 'reportMissing'>;
  client: InboxClient;
  observer: Observer;
  now: () => number;
  serviceNow: () => number;
  graceMs: number;
  onMissing: ((report: MissingDelivery) => void) | undefined;
}

/**
 * The reconciler's pass: each request still awaited is read from the service, and one completed
 * (or expired unopened) with no delivery after the grace period is reported, to the application
 * first (`onMissingDelivery`), then in the log.
 */
async function reconcileRequests({
  store,
  client,
  observer,
  now,
  serviceNow,
  graceMs,
  onMissing,
}: ReconcileContext): Promise<MissingDelivery[]> {
  const missing: MissingDelivery[] = [];
  for (const request of await store.awaiting(1_000, now())) {
    let details: Awaited<ReturnType<InboxClient['identityRequests']['get']>>['data'];
    try {
      details = (await client.identityRequests.get(request)).data;
    } catch (error) {
      observer.log('warn', 'reconciler could not read a request', {
        errorCode: error instanceof AcmeIdentityError ? error.code : 'ERR_UNKNOWN',
      });
      continue;
    }
    const report = missingReport(request.accessRequestCode, details, serviceNow(), graceMs);
    // Reported once across every instance, and not at all if a delivery arrived while the
    // request was being read: the store decides both in one step. The session code stays, for a resend.
    if (report && (await store.reportMissing(request.accessRequestCode, now()))) missing.push(report);
  }
  for (const report of missing) {
    // The application hears of it first: nothing it needs waits on the log line's hashing.
    try {
      onMissing?.(report);
    } catch (error) {
      observer.log('warn', 'onMissingDelivery threw; ignored', { error: error instanceof Error ? error.name : typeof error });
    }
    // The code is the operator's handle to ask for a resend; it is logged only as a short digest.
    observer.log('warn', `no webhook for a request that ${report.reason === 'completed' ? 'was completed' : 'expired unopened'}`, {
      reason: report.reason,
      request: await digest(report.accessRequestCode),
    });
  }
  return missing;
}

function sealingKey(options: IdentityInboxOptions, durable: boolean): Promise<CryptoKey> | undefined {
  if (options.encryptionKey === undefined) {
    if (options.allowPlaintext === true) return undefined;
    if (durable)
      throw new ConfigurationError(
        'encryptionKey',
        'is required with a durable store: the X-Access-Token is a secret (32 random bytes; or set allowPlaintext: true)',
      );
    return crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']) as Promise<CryptoKey>;
  }
  const key = importAesKey(options.encryptionKey);
  if (typeof key === 'string') throw new ConfigurationError('encryptionKey', key);
  return key;
}

function hostLabel(): string {
  const pid = (globalThis as { process?: { pid?: number } }).process?.pid;
  return pid === undefined ? 'worker' : `pid${pid}`;
}
