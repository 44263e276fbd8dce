/**
 * The reconciler's races (#40), each made deterministic: a client whose reads the test holds and
 * releases, and inboxes sharing one store as instances of the relying party share theirs. A
 * request is reported missing once across every instance, never after its delivery arrived, and a
 * resend after a report is handed over once. Run on the memory store (reconcile.test.ts) and on
 * Redis (test/redis/inbox.test.ts).
 */
import { expect, test } from 'vitest';
import { createIdentityInbox, type InboxClient, type InboxStore, type MissingDelivery } from '../../src/inbox/index.js';

const T0 = Date.UTC(2026, 10, 27, 12);
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const token = () => `${b64({ alg: 'RS256' })}.${b64({ exp: T0 / 1000 + 3_600 })}.c2ln`;
/** Completed ten minutes before T0: past any grace period. */
const COMPLETED = { completed_at: T0 / 1000 - 600 };

/** A promise the test resolves when it chooses. */
export function held<T>() {
  let release!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

/**
 * One instance of the relying party: an inbox on `store`, a client whose `identityRequests.get`
 * answers `COMPLETED` (or waits on `hold` first), and what it handed over and reported.
 */
function instance(store: InboxStore, hold?: Promise<void>) {
  const handed: string[] = [];
  const reported: MissingDelivery[] = [];
  const reads: string[] = [];
  const client: InboxClient = {
    identityResponses: { getVerified: async () => ({ claims: { 'acmeidentity.valid': true } }) as never },
    identityRequests: {
      get: async (codes) => {
        reads.push(codes.accessRequestCode);
        await hold;
        return { data: COMPLETED };
      },
    },
    serviceTime: () => T0,
  };
  const inbox = createIdentityInbox({
    client,
    store,
    now: () => T0,
    // Every instance seals with the same key, as instances sharing a durable store must.
    encryptionKey: new Uint8Array(32).fill(7),
    logLevel: 'off',
    reconcileIntervalMs: false,
    onIdentity: (delivery) => {
      handed.push(delivery.accessRequestCode);
    },
    onMissingDelivery: (report) => {
      reported.push(report);
    },
  });
  return { inbox, handed, reported, reads };
}

const delivery = (accessRequestCode = 'arc_1') => ({ kind: 'approved' as const, accessRequestCode, accessToken: token() });
const codes = (accessRequestCode = 'arc_1') => ({ accessRequestCode, identitySessionCode: `isc_${accessRequestCode}` });

/** The races, as tests, on the stores `makeStore` makes (each test gets a store of its own). */
export function reconcilerRaces(makeStore: () => Promise<InboxStore>): void {
  test('a delivery stored while the reconciler reads its request is not reported, and is handed over', async () => {
    const store = await makeStore();
    const gate = held<void>();
    const a = instance(store, gate.promise);
    await a.inbox.expect(codes());
    const reconciling = a.inbox.reconcile();
    // The reconciler is reading the request: the delivery arrives now.
    await expect.poll(() => a.reads).toEqual(['arc_1']);
    expect(await a.inbox.receive(delivery())).toBe('added');
    gate.release();
    expect(await reconciling).toEqual([]);
    expect(a.reported).toEqual([]);
    await a.inbox.runOnce();
    expect(a.handed).toEqual(['arc_1']);
  });

  test('a resend after a report is handed over, once', async () => {
    const store = await makeStore();
    const a = instance(store);
    await a.inbox.expect(codes());
    expect((await a.inbox.reconcile()).map((report) => report.accessRequestCode)).toEqual(['arc_1']);
    // The operator asks for a resend: the session code is still known, so it is fetched and handed over.
    expect(await a.inbox.receive(delivery())).toBe('added');
    await a.inbox.runOnce();
    expect(a.handed).toEqual(['arc_1']);
    expect(await a.inbox.receive(delivery())).toBe('duplicate');
    await a.inbox.runOnce();
    expect(a.handed).toEqual(['arc_1']);
    expect(await a.inbox.deadLetters()).toEqual([]);
  });

  test('two instances reconciling at once report each request once between them', async () => {
    const store = await makeStore();
    const gate = held<void>();
    const a = instance(store, gate.promise);
    const b = instance(store, gate.promise);
    for (const code of ['arc_1', 'arc_2', 'arc_3']) await a.inbox.expect(codes(code));
    const both = Promise.all([a.inbox.reconcile(), b.inbox.reconcile()]);
    // Both are reading a request when they are let go: each then decides every request.
    await expect.poll(() => [a.reads.length, b.reads.length]).toEqual([1, 1]);
    gate.release();
    await both;
    expect([a.reads.length, b.reads.length]).toEqual([3, 3]);
    const reported = [...a.reported, ...b.reported].map((report) => report.accessRequestCode).sort();
    expect(reported).toEqual(['arc_1', 'arc_2', 'arc_3']);
  });

  test('a request reported once is not reported again by a later run', async () => {
    const store = await makeStore();
    const a = instance(store);
    await a.inbox.expect(codes());
    expect(await a.inbox.reconcile()).toHaveLength(1);
    expect(await a.inbox.reconcile()).toEqual([]);
    expect(a.reported).toHaveLength(1);
  });
}
