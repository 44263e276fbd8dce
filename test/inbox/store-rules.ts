/**
 * The rules every inbox store keeps (#28, #40), as tests over a store `make` returns: one entry per
 * request, leases, dead letters, expected requests, reports and the reconciler's lease. Run on
 * the memory store (memory-store.test.ts), Redis (test/redis/inbox.test.ts) and PostgreSQL
 * (test/postgres/inbox.test.ts).
 */
import { expect, test } from 'vitest';
import type { InboxRecord, InboxStore } from '../../src/inbox/index.js';

/** A record due since a second ago: a test's `now`, read just before, finds it due. */
export function record(id: string, overrides: Partial<InboxRecord> = {}): InboxRecord {
  const now = Date.now() - 1_000;
  return {
    id,
    kind: 'approved',
    deliveryId: `d-${id}`,
    token: `sealed-${id}`,
    tokenExpiresAt: now + 3_600_000,
    receivedAt: now,
    attempts: 0,
    nextAttemptAt: now,
    ...overrides,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a store does beyond the rules every store keeps. */
export interface StoreTraits {
  /**
   * A handed-over request's window is judged on the caller's clock (`now`), to the millisecond.
   * Redis ends it on its own clock (the key's expiry), so a test cannot move it.
   */
  windowOnCallersClock?: boolean;
  /** A claim takes the entries whose tokens expire first (Redis takes them in the order they came). */
  claimsByTokenExpiry?: boolean;
  /** A lease runs out at `now + leaseMs` on the caller's clock (Redis measures a message's idle time on its own). */
  leasesOnCallersClock?: boolean;
  /** A claim carries its request's expected record (Redis and PostgreSQL: a round trip saved; memory has none to save). */
  expectedWithClaim?: boolean;
  /**
   * Each claim holds a lease of its own, even when the same worker takes its own entry back after
   * the lease ran out. Redis names a lease by its message and worker, so both claims hold it:
   * there, the inbox's worker never runs two passes at once (worker.ts), and never holds both.
   */
  leasePerClaim?: boolean;
}

/** The rules, as tests, on the stores `make` makes (each test gets a store of its own). */
export function storeRules(make: () => Promise<InboxStore>, traits: StoreTraits = {}): void {
  test("a request's state through its life: awaiting, processing, then its outcome; failed when set aside; missing once reported; nothing for a request never seen (#42)", async () => {
    const store = await make();
    const now = Date.now();
    const state = (id: string, at = now) => store.state!(id, at);
    expect(await state('arc_never')).toBeUndefined();
    for (const [id, outcome] of [
      ['arc_v', 'verified'],
      ['arc_p', 'partial'],
      ['arc_c', 'cancelled'],
    ] as const) {
      await store.expect({ accessRequestCode: id, identitySessionCode: `isc_${id}`, createdAt: now - 5_000 }, 60_000);
      expect(await state(id)).toEqual({ state: 'awaiting', at: now - 5_000 });
      const added = record(id);
      await store.add(added, now);
      expect(await state(id)).toEqual({ state: 'processing', at: added.receivedAt });
      const [claim] = await store.claim('w', 1, 60_000, now);
      expect(await state(id)).toEqual({ state: 'processing', at: added.receivedAt });
      await store.complete(claim!, 60_000, now + 10, outcome);
      expect(await state(id, now + 20)).toEqual({ state: outcome, at: now + 10 });
      // Remembered as long as its redeliveries are duplicates, then forgotten.
      expect(await state(id, now + 60_011)).toBeUndefined();
    }
    await store.add(record('arc_dead'), now);
    const [dying] = await store.claim('w', 1, 60_000, now);
    await store.bury(dying!, { record: dying!.record, reason: 'ERR_INBOX_REFUSED', errorCode: 'ERR_X', message: 'm', deadAt: now + 30 });
    // Failed since the dead letter's time, on every store (not the store's own clock).
    expect(await state('arc_dead', now + 40)).toEqual({ state: 'failed', at: now + 30 });
    await store.expect({ accessRequestCode: 'arc_lost', identitySessionCode: 'isc_lost', createdAt: now }, 60_000);
    expect(await store.reportMissing('arc_lost', now + 50)).toBe(true);
    expect(await state('arc_lost', now + 60)).toEqual({ state: 'missing', at: now + 50 });
  });

  test('an expectation past its time names no state, to the millisecond, before any sweep forgets it (#42)', async () => {
    const store = await make();
    const now = Date.now();
    const state = (id: string, at: number) => store.state!(id, at);
    await store.expect({ accessRequestCode: 'arc_old', identitySessionCode: 'isc_old', createdAt: now }, 1_000);
    expect(await state('arc_old', now + 999)).toEqual({ state: 'awaiting', at: now });
    expect(await state('arc_old', now + 1_000)).toBeUndefined();
    await store.expect({ accessRequestCode: 'arc_old_lost', identitySessionCode: 'isc_old_lost', createdAt: now }, 1_000);
    expect(await store.reportMissing('arc_old_lost', now + 10)).toBe(true);
    expect(await state('arc_old_lost', now + 999)).toEqual({ state: 'missing', at: now + 10 });
    expect(await state('arc_old_lost', now + 1_000)).toBeUndefined();
  });

  test('a reference names its request until its time is over, and nothing else; one never made names nothing (#42)', async () => {
    const store = await make();
    const now = Date.now();
    await store.refer!('ref-a', 'arc_a', now + 10_000);
    await store.refer!('ref-b', 'arc_b', now + 10_000);
    expect(await store.referred!('ref-a', now)).toBe('arc_a');
    expect(await store.referred!('ref-b', now + 9_000)).toBe('arc_b');
    expect(await store.referred!('ref-a', now + 10_001)).toBeUndefined();
    expect(await store.referred!('ref-never', now)).toBeUndefined();
  });

  test('one entry per request: added, then duplicate while pending, in flight and once handed over', async () => {
    const store = await make();
    const now = Date.now();
    expect(await store.add(record('arc_1'), now)).toBe('added');
    expect(await store.add(record('arc_1'), now)).toBe('duplicate');
    const [claim, ...more] = await store.claim('w1', 10, 60_000, now);
    expect(more).toEqual([]);
    expect(claim?.record).toMatchObject({ id: 'arc_1', token: 'sealed-arc_1' });
    expect(await store.claim('w2', 10, 60_000, now)).toEqual([]);
    expect(await store.add(record('arc_1'), now)).toBe('duplicate');
    expect(await store.stats(now)).toMatchObject({ pending: 0, inFlight: 1, dead: 0 });
    await store.complete(claim!, 60_000, now);
    // Each redelivery of a handed-over request: answering one leaves the request remembered for the next.
    expect(await store.add(record('arc_1'), now)).toBe('duplicate');
    expect(await store.add(record('arc_1'), now + 1)).toBe('duplicate');
    expect(await store.claim('w1', 10, 60_000, now)).toEqual([]);
    expect(await store.stats(now)).toEqual({ pending: 0, inFlight: 0, dead: 0, oldestAgeMs: 0 });
  });

  test('a request handed over is no longer expected: not looked up, not awaited, and no state once its window ends, though its expectation had longer to run (#45)', async () => {
    const store = await make();
    const now = Date.now();
    await store.expect({ accessRequestCode: 'arc_h', identitySessionCode: 'isc_h', createdAt: now }, 600_000);
    await store.add(record('arc_h'), now);
    const [claim] = await store.claim('w', 1, 60_000, now);
    await store.complete(claim!, 1_000, now, 'verified');
    expect(await store.expected('arc_h')).toBeUndefined();
    expect(await store.awaiting(10, now + 2_000)).toEqual([]);
    expect(await store.reportMissing('arc_h', now + 2_000)).toBe(false);
    expect(await store.state!('arc_h', now + 2_000)).toBeUndefined();
  });

  test('an expectation recorded after its request was handed over (the webhook came first): not awaited, never reported missing', async () => {
    const store = await make();
    const now = Date.now();
    await store.add(record('arc_late'), now);
    const [claim] = await store.claim('w', 1, 60_000, now);
    await store.complete(claim!, 60_000, now, 'verified');
    await store.expect({ accessRequestCode: 'arc_late', identitySessionCode: 'isc_late', createdAt: now }, 600_000);
    expect(await store.awaiting(10, now + 1_000)).toEqual([]);
    expect(await store.reportMissing('arc_late', now + 1_000)).toBe(false);
    expect(await store.state!('arc_late', now + 1_000)).toEqual({ state: 'verified', at: now });
  });

  if (traits.windowOnCallersClock) {
    test("a redelivery is a duplicate until the handed-over request's window ends, to the millisecond, and a new entry from then (#45)", async () => {
      const store = await make();
      const now = Date.now();
      await store.add(record('arc_w'), now);
      const [claim] = await store.claim('w', 1, 60_000, now);
      await store.complete(claim!, 60_000, now);
      expect(await store.add(record('arc_w'), now + 59_999)).toBe('duplicate');
      expect(await store.add(record('arc_w'), now + 60_000)).toBe('added');
    });
  }

  if (traits.claimsByTokenExpiry) {
    test('more due than a claim takes: the entries whose tokens expire first are taken first, whatever the order they came in (#45)', async () => {
      const store = await make();
      const now = Date.now();
      // Received in the opposite order of their tokens' expiry.
      const expiries = [50, 10, 40, 20, 30];
      for (const [i, minutes] of expiries.entries()) {
        await store.add(record(`arc_e${minutes}`, { receivedAt: now - 10_000 + i, tokenExpiresAt: now + minutes * 60_000 }), now);
      }
      const first = await store.claim('w', 2, 60_000, now);
      expect(first.map((c) => c.record.id).sort()).toEqual(['arc_e10', 'arc_e20']);
      const next = await store.claim('w', 2, 60_000, now);
      expect(next.map((c) => c.record.id).sort()).toEqual(['arc_e30', 'arc_e40']);
    });

    test('a claim lists its entries in the order they are to be started: the token that expires first, first (#45)', async () => {
      const store = await make();
      const now = Date.now();
      const expiries = [50, 10, 40, 20, 30, 60];
      for (const [i, minutes] of expiries.entries()) {
        await store.add(record(`arc_o${minutes}`, { receivedAt: now - 10_000 + i, tokenExpiresAt: now + minutes * 60_000 }), now);
      }
      // Some with their expected records, some without: the join keeps the order.
      for (const minutes of [50, 20]) {
        await store.expect({ accessRequestCode: `arc_o${minutes}`, identitySessionCode: `isc_o${minutes}`, createdAt: now }, 60_000);
      }
      const claims = await store.claim('w', 10, 60_000, now);
      expect(claims.map((c) => c.record.id)).toEqual(['arc_o10', 'arc_o20', 'arc_o30', 'arc_o40', 'arc_o50', 'arc_o60']);
    });
  }

  if (traits.leasesOnCallersClock) {
    test("a lease ends at its time on the caller's clock, to the millisecond: held until then, taken over and counted pending from then (#45)", async () => {
      const store = await make();
      const now = Date.now();
      await store.add(record('arc_edge'), now);
      expect(await store.claim('first', 1, 60_000, now)).toHaveLength(1);
      expect(await store.claim('second', 1, 60_000, now + 59_999)).toEqual([]);
      expect(await store.stats(now + 59_999)).toMatchObject({ pending: 0, inFlight: 1 });
      expect(await store.stats(now + 60_000)).toMatchObject({ pending: 1, inFlight: 0 });
      const [taken] = await store.claim('second', 1, 60_000, now + 60_000);
      expect(taken?.record.id).toBe('arc_edge');
    });
  }

  test('past a thousand hand-overs (where the memory store sweeps what it remembers), a redelivery inside its window is still a duplicate (#45)', async () => {
    const store = await make();
    const now = Date.now();
    const ids = Array.from({ length: 1_001 }, (_, i) => `arc_many_${i}`);
    // All due at `now`, however long adding a thousand takes.
    const due = { receivedAt: now - 1_000, nextAttemptAt: now - 1_000, tokenExpiresAt: now + 3_600_000 };
    for (const id of ids) expect(await store.add(record(id, due), now)).toBe('added');
    // A store may hand out fewer than asked for at once.
    const claims = [];
    for (
      let batch = await store.claim('w', ids.length, 60_000, now);
      batch.length > 0;
      batch = await store.claim('w', ids.length, 60_000, now)
    ) {
      claims.push(...batch);
    }
    expect(claims.map((claim) => claim.record.id).sort()).toEqual([...ids].sort());
    // The first 500 handed over a second before the rest: their windows end first.
    const early = new Set(ids.slice(0, 500));
    for (const claim of claims) await store.complete(claim, 60_000, now + (early.has(claim.record.id) ? 0 : 1_000));
    for (const id of [ids[0]!, ids[499]!, ids[999]!, ids[1_000]!]) expect(await store.add(record(id, due), now + 30_000)).toBe('duplicate');
  });

  test('a pending entry takes the token that expires later, and the kind that came with it', async () => {
    const store = await make();
    const now = Date.now();
    await store.add(record('arc_t', { token: 'old', tokenExpiresAt: now + 1_000, kind: 'unknown' }), now);
    expect(await store.add(record('arc_t', { token: 'new', tokenExpiresAt: now + 9_000 }), now)).toBe('duplicate');
    expect(await store.add(record('arc_t', { token: 'older', tokenExpiresAt: now + 500 }), now)).toBe('duplicate');
    // One expiring at the same time brings nothing later: the entry keeps what it has, its kind too.
    const same = record('arc_t', { token: 'same', tokenExpiresAt: now + 9_000, kind: 'cancelled' });
    expect(await store.add(same, now)).toBe('duplicate');
    const [claim] = await store.claim('w', 1, 60_000, now);
    expect(claim?.record).toMatchObject({ token: 'new', tokenExpiresAt: now + 9_000, kind: 'approved' });
  });

  test('rescheduled: not due before its time; buried: a dead letter, revived by a fresh delivery (received time kept), replayed or discarded', async () => {
    const store = await make();
    const now = Date.now();
    await store.add(record('arc_r', { receivedAt: now - 5_000 }), now);
    const [first] = await store.claim('w', 1, 60_000, now);
    await store.reschedule(first!, {
      ...first!.record,
      attempts: 1,
      nextAttemptAt: now + 200,
      lastError: { code: 'ERR_TIMEOUT', message: 'x' },
    });
    expect(await store.claim('w', 1, 60_000, now)).toEqual([]);
    expect(await store.stats(now)).toMatchObject({ pending: 1, inFlight: 0, dead: 0 });
    await sleep(250);
    const [second] = await store.claim('w', 1, 60_000, Date.now());
    expect(second?.record).toMatchObject({ attempts: 1, lastError: { code: 'ERR_TIMEOUT' } });
    await store.bury(second!, {
      record: second!.record,
      reason: 'ERR_INBOX_TOKEN_EXPIRED',
      errorCode: 'ERR_TIMEOUT',
      message: 'm',
      deadAt: now,
    });
    expect(await store.deadLetters(10)).toMatchObject([{ reason: 'ERR_INBOX_TOKEN_EXPIRED', record: { id: 'arc_r', attempts: 1 } }]);
    expect(await store.stats(Date.now())).toMatchObject({ pending: 0, inFlight: 0, dead: 1, oldestAgeMs: 0 });
    expect(await store.claim('w', 1, 60_000, Date.now())).toEqual([]);

    expect(await store.add(record('arc_r', { token: 'fresh', receivedAt: now }), now)).toBe('revived');
    expect(await store.deadLetters(10)).toEqual([]);
    // Its age counts from the first delivery, in the stats too.
    expect(await store.stats(now)).toMatchObject({ pending: 1, dead: 0, oldestAgeMs: 5_000 });
    const [revived] = await store.claim('w', 1, 60_000, Date.now());
    expect(revived?.record).toMatchObject({ token: 'fresh', attempts: 0, receivedAt: now - 5_000 });

    await store.bury(revived!, {
      record: revived!.record,
      reason: 'ERR_INBOX_HANDLER',
      errorCode: 'ERR_HANDLER',
      message: 'm',
      deadAt: now,
    });
    expect(await store.revive('arc_r', { ...revived!.record, attempts: 0 })).toBe(true);
    expect(await store.revive('arc_r', revived!.record)).toBe(false);
    const [replayed] = await store.claim('w', 1, 60_000, Date.now());
    expect(replayed?.record.id).toBe('arc_r');
    await store.bury(replayed!, {
      record: replayed!.record,
      reason: 'ERR_INBOX_HANDLER',
      errorCode: 'ERR_HANDLER',
      message: 'm',
      deadAt: now,
    });
    expect(await store.discard('arc_r')).toBe(true);
    expect(await store.discard('arc_r')).toBe(false);
    expect(await store.stats(Date.now())).toEqual({ pending: 0, inFlight: 0, dead: 0, oldestAgeMs: 0 });
  });

  test('a lease that ran out is taken over; the first holder then settles nothing', async () => {
    const store = await make();
    await store.add(record('arc_l'), Date.now());
    const [mine] = await store.claim('slow', 1, 150, Date.now());
    // Renewed by its holder only: another worker handed the same claim renews nothing.
    expect(await store.renew('other', mine!, 150, Date.now())).toBe(false);
    expect(await store.renew('slow', mine!, 150, Date.now())).toBe(true);
    expect(await store.claim('fast', 1, 150, Date.now())).toEqual([]);
    await sleep(250);
    const [theirs] = await store.claim('fast', 1, 150, Date.now());
    expect(theirs?.record.id).toBe('arc_l');
    expect(await store.renew('slow', mine!, 150, Date.now())).toBe(false);
    await store.complete(mine!, 60_000, Date.now());
    await store.reschedule(mine!, { ...mine!.record, nextAttemptAt: Date.now() + 60_000 });
    await store.bury(mine!, { record: mine!.record, reason: 'ERR_INBOX_REFUSED', errorCode: 'x', message: 'm', deadAt: Date.now() });
    expect(await store.stats(Date.now())).toMatchObject({ inFlight: 1, dead: 0 });
    expect(await store.deadLetters(10)).toEqual([]);
    await store.complete(theirs!, 60_000, Date.now());
    expect(await store.stats(Date.now())).toMatchObject({ pending: 0, inFlight: 0 });
  });

  if (traits.leasePerClaim) {
    test('a worker that takes its own entry back after the lease ran out holds it by the new claim only: the first then settles nothing (#45)', async () => {
      const store = await make();
      const now = Date.now();
      await store.add(record('arc_s'), now);
      const [first] = await store.claim('same', 1, 1_000, now);
      const [second] = await store.claim('same', 1, 1_000, now + 1_000);
      expect(second?.record.id).toBe('arc_s');
      expect(second?.lease).not.toBe(first?.lease);
      expect(await store.renew('same', first!, 1_000, now + 1_001)).toBe(false);
      await store.complete(first!, 60_000, now + 1_001);
      await store.reschedule(first!, { ...first!.record, nextAttemptAt: now + 60_000 });
      await store.bury(first!, { record: first!.record, reason: 'ERR_INBOX_REFUSED', errorCode: 'x', message: 'm', deadAt: now });
      expect(await store.stats(now + 1_001)).toMatchObject({ inFlight: 1, dead: 0 });
      expect(await store.renew('same', second!, 1_000, now + 1_001)).toBe(true);
      await store.complete(second!, 60_000, now + 1_002);
      expect(await store.stats(now + 1_002)).toMatchObject({ pending: 0, inFlight: 0, dead: 0 });
    });
  }

  test('a claim takes at most max entries; the rest are left for the next', async () => {
    const store = await make();
    const now = Date.now();
    for (const id of ['arc_m1', 'arc_m2', 'arc_m3']) await store.add(record(id), now);
    const first = await store.claim('w1', 2, 60_000, now);
    expect(first).toHaveLength(2);
    const rest = await store.claim('w2', 5, 60_000, now);
    expect(rest).toHaveLength(1);
    expect(new Set([...first, ...rest].map((c) => c.record.id))).toEqual(new Set(['arc_m1', 'arc_m2', 'arc_m3']));
  });

  test('entries taken over after their lease count toward max: a claim never holds more, whatever mix of taken-over and new entries is due', async () => {
    const store = await make();
    for (const id of ['arc_o1', 'arc_o2']) await store.add(record(id), Date.now());
    expect(await store.claim('gone', 2, 1_000, Date.now())).toHaveLength(2);
    for (const id of ['arc_n1', 'arc_n2', 'arc_n3']) await store.add(record(id), Date.now());
    // A lease, as every worker takes it: Redis takes over what has been idle that long.
    await sleep(1_200);
    const ids: string[] = [];
    for (const max of [1, 3, 5]) {
      const claims = await store.claim('w', max, 1_000, Date.now());
      expect(claims.length).toBeLessThanOrEqual(max);
      ids.push(...claims.map((c) => c.record.id));
    }
    expect(ids.sort()).toEqual(['arc_n1', 'arc_n2', 'arc_n3', 'arc_o1', 'arc_o2']);
  });

  test('dead letters: oldest first, at most limit; revive and discard touch dead entries only', async () => {
    const store = await make();
    const now = Date.now();
    // Named so that their names sort the other way round from their times.
    for (const id of ['arc_a_late', 'arc_z_early', 'arc_live']) await store.add(record(id), now);
    const claims = await store.claim('w', 5, 60_000, now);
    // Set aside in time: the early one first.
    for (const [id, deadAt] of [
      ['arc_z_early', now - 2_000],
      ['arc_a_late', now - 1_000],
    ] as const) {
      const claim = claims.find((c) => c.record.id === id)!;
      await store.bury(claim, { record: claim.record, reason: 'ERR_INBOX_REFUSED', errorCode: 'x', message: 'm', deadAt });
    }
    expect((await store.deadLetters(10)).map((l) => l.record.id)).toEqual(['arc_z_early', 'arc_a_late']);
    expect((await store.deadLetters(1)).map((l) => l.record.id)).toEqual(['arc_z_early']);
    expect(await store.revive('arc_live', record('arc_live'))).toBe(false);
    expect(await store.discard('arc_live')).toBe(false);
    expect(await store.revive('arc_none', record('arc_none'))).toBe(false);
    expect(await store.stats(now)).toMatchObject({ inFlight: 1, dead: 2 });
  });

  test('expected requests: recorded, looked up, awaiting until an entry comes or they expire, forgotten', async () => {
    const store = await make();
    const now = Date.now();
    // Recorded newest first, and named so that their names sort the other way round from their
    // times: awaiting lists them oldest first whatever the order they came in.
    await store.expect({ accessRequestCode: 'arc_a', identitySessionCode: 'isc_a', createdAt: now }, 60_000);
    await store.expect({ accessRequestCode: 'arc_z', identitySessionCode: 'isc_z', createdAt: now - 10 }, 60_000);
    await store.expect({ accessRequestCode: 'arc_old', identitySessionCode: 'isc_old', createdAt: now - 120_000 }, 60_000);
    expect(await store.expected('arc_z')).toEqual({ accessRequestCode: 'arc_z', identitySessionCode: 'isc_z', createdAt: now - 10 });
    expect(await store.expected('arc_none')).toBeUndefined();
    // Past its time, it is still looked up until a sweep (awaiting's) forgets it.
    expect(await store.expected('arc_old')).toMatchObject({ identitySessionCode: 'isc_old' });
    expect((await store.awaiting(10, now)).map((r) => r.accessRequestCode)).toEqual(['arc_z', 'arc_a']);
    expect(await store.expected('arc_old')).toBeUndefined();
    expect((await store.awaiting(1, now)).map((r) => r.accessRequestCode)).toEqual(['arc_z']);
    await store.add(record('arc_z'), now);
    expect((await store.awaiting(10, now)).map((r) => r.accessRequestCode)).toEqual(['arc_a']);
    await store.unexpect('arc_a');
    expect(await store.awaiting(10, now)).toEqual([]);
    expect(await store.expected('arc_a')).toBeUndefined();
    // The sweep forgets only what is past its time.
    expect(await store.expected('arc_z')).toMatchObject({ identitySessionCode: 'isc_z' });
  });

  test("a claim that carries its request's expected record carries what expected() answers: the record kept, or null for none (#44)", async () => {
    const store = await make();
    const now = Date.now();
    await store.expect({ accessRequestCode: 'arc_x', identitySessionCode: 'isc_x', createdAt: now - 10 }, 60_000);
    // Kept past its time too: expected() does not judge the time, and neither does the claim.
    await store.expect({ accessRequestCode: 'arc_old', identitySessionCode: 'isc_old', createdAt: now - 120_000 }, 60_000);
    for (const id of ['arc_x', 'arc_old', 'arc_none']) await store.add(record(id), now);
    const claims = await store.claim('w', 5, 60_000, now);
    expect(claims.map((claim) => claim.record.id).sort()).toEqual(['arc_none', 'arc_old', 'arc_x']);
    for (const claim of claims) {
      if (claim.expected === undefined) continue;
      expect(claim.expected).toEqual((await store.expected(claim.record.id)) ?? null);
    }
    if (traits.expectedWithClaim) {
      expect(claims.every((claim) => claim.expected !== undefined)).toBe(true);
      expect(claims.find((claim) => claim.record.id === 'arc_x')?.expected?.identitySessionCode).toBe('isc_x');
    }
  });

  test('reported missing: once, only while awaited with no entry and not handed over; still looked up after (#40)', async () => {
    const store = await make();
    const now = Date.now();
    for (const code of ['arc_r', 'arc_e', 'arc_d']) {
      await store.expect({ accessRequestCode: code, identitySessionCode: `isc_${code.slice(4)}`, createdAt: now }, 60_000);
    }
    expect(await store.reportMissing('arc_r', now)).toBe(true);
    expect(await store.reportMissing('arc_r', now)).toBe(false);
    // Reported: no longer awaited, but its session code is still there for a resend.
    expect((await store.awaiting(10, now)).map((r) => r.accessRequestCode).sort()).toEqual(['arc_d', 'arc_e']);
    expect(await store.expected('arc_r')).toMatchObject({ identitySessionCode: 'isc_r' });
    // Expected again (the request made anew under its code): awaited afresh, and reported again once.
    await store.expect({ accessRequestCode: 'arc_r', identitySessionCode: 'isc_r2', createdAt: now + 1 }, 60_000);
    expect(await store.state!('arc_r', now + 1)).toEqual({ state: 'awaiting', at: now + 1 });
    expect((await store.awaiting(10, now + 1)).map((r) => r.accessRequestCode).sort()).toEqual(['arc_d', 'arc_e', 'arc_r']);
    expect(await store.reportMissing('arc_r', now + 1)).toBe(true);
    // An entry arrived: not missing. Handed over: not missing.
    await store.add(record('arc_e'), now);
    expect(await store.reportMissing('arc_e', now)).toBe(false);
    await store.add(record('arc_d'), now);
    const claims = await store.claim('w1', 10, 60_000, now);
    for (const claim of claims.filter((c) => c.record.id === 'arc_d')) await store.complete(claim, 60_000, now);
    expect(await store.reportMissing('arc_d', now)).toBe(false);
    // Never expected, or expired: not reported.
    expect(await store.reportMissing('arc_none', now)).toBe(false);
    await store.expect({ accessRequestCode: 'arc_x', identitySessionCode: 'isc_x', createdAt: now - 120_000 }, 60_000);
    expect(await store.reportMissing('arc_x', now)).toBe(false);
  });

  test('what a store keeps ends at its time, to the millisecond: a reference, an outcome, an expected request (#45)', async () => {
    const store = await make();
    const now = Date.now();
    await store.refer!('ref-t', 'arc_t', now + 10_000);
    expect(await store.referred!('ref-t', now + 9_999)).toBe('arc_t');
    expect(await store.referred!('ref-t', now + 10_000)).toBeUndefined();
    await store.add(record('arc_t'), now);
    const [claim] = await store.claim('w', 1, 60_000, now);
    await store.complete(claim!, 60_000, now, 'verified');
    expect(await store.state!('arc_t', now + 59_999)).toEqual({ state: 'verified', at: now });
    expect(await store.state!('arc_t', now + 60_000)).toBeUndefined();
    // Handed over with no outcome recorded (a store written before outcomes were kept): settled, how is not known.
    await store.add(record('arc_n'), now);
    const [unnamed] = await store.claim('w', 1, 60_000, now);
    await store.complete(unnamed!, 60_000, now);
    expect(await store.state!('arc_n', now + 1)).toBeUndefined();
    expect(await store.add(record('arc_n'), now + 1)).toBe('duplicate');
    await store.expect({ accessRequestCode: 'arc_w', identitySessionCode: 'isc_w', createdAt: now }, 60_000);
    expect(await store.state!('arc_w', now + 59_999)).toEqual({ state: 'awaiting', at: now });
    expect(await store.reportMissing('arc_w', now + 60_000)).toBe(false);
    expect((await store.awaiting(10, now + 59_999)).map((request) => request.accessRequestCode)).toEqual(['arc_w']);
    expect(await store.awaiting(10, now + 60_000)).toEqual([]);
    expect(await store.state!('arc_w', now + 60_000)).toBeUndefined();
  });

  test('stats: the age of the oldest entry not yet handed over, in flight or pending; 0 with none (#45)', async () => {
    const store = await make();
    const now = Date.now();
    expect(await store.stats(now)).toEqual({ pending: 0, inFlight: 0, dead: 0, oldestAgeMs: 0 });
    await store.add(record('arc_new', { receivedAt: now - 1_000 }), now);
    await store.add(record('arc_old', { receivedAt: now - 5_000 }), now);
    expect(await store.stats(now)).toMatchObject({ pending: 2, oldestAgeMs: 5_000 });
    // Read on a clock behind the one that stamped them (another instance's): an age of 0, never negative.
    expect(await store.stats(now - 10_000)).toMatchObject({ oldestAgeMs: 0 });
    const claims = await store.claim('w', 5, 60_000, now);
    expect(await store.stats(now + 1_000)).toMatchObject({ pending: 0, inFlight: 2, oldestAgeMs: 6_000 });
    await store.complete(claims.find((c) => c.record.id === 'arc_old')!, 60_000, now + 1_000);
    expect(await store.stats(now + 2_000)).toMatchObject({ inFlight: 1, oldestAgeMs: 3_000 });
  });

  test('a lease: one holder at a time, renewed by its holder, free once it ran out', async () => {
    const store = await make();
    const now = Date.now();
    expect(await store.lease('reconciler', 'a', 300, now)).toBe(true);
    expect(await store.lease('reconciler', 'b', 300, now)).toBe(false);
    expect(await store.lease('reconciler', 'a', 300, now)).toBe(true);
    expect(await store.lease('other', 'b', 300, now)).toBe(true);
    // Redis runs its leases out on its own clock: wait it out rather than move a clock.
    await sleep(400);
    expect(await store.lease('reconciler', 'b', 300, now + 400)).toBe(true);
  });
}
