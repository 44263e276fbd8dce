/**
 * The inbox's page side (`requestOutcomes`) on a controlled clock, its store and the service's
 * answers scripted: the sealed references byte by byte and to the millisecond, `waitFor`'s
 * deadline, poll and wake-ups, and the service's view of a request whose webhook is late.
 * test/inbox/return-page.test.ts holds the same rules end to end against a sandbox.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { AcmeIdentityError, ConfigurationError } from '../../src/errors/index.js';
import { MemoryInboxStore, RETURN_PARAMETER, type InboxStore, type RequestState } from '../../src/inbox/index.js';
import { type OutcomesContext, requestOutcomes } from '../../src/inbox/outcomes.js';
import { Observer } from '../../src/internal/observe.js';
import { importAesKey, seal } from '../../src/internal/sealing.js';

afterEach(() => {
  vi.useRealTimers();
});

const T0 = 1_800_000_000_000;
const TTL = 60_000;
const REFERENCE_NAME = 'acme-identity:return-reference';

function aesKey(fill = 4): Promise<CryptoKey> {
  const key = importAesKey(new Uint8Array(32).fill(fill));
  if (typeof key === 'string') throw new Error(key);
  return key;
}

type Service = Awaited<ReturnType<OutcomesContext['readRequest']>>['data'];

/** The page side on `store`, its clock at `clock.now` (ms) and the service's answer `service.answer`. */
function outcomesOn(store: InboxStore<unknown> = new MemoryInboxStore(), extra: Partial<OutcomesContext> = {}) {
  const clock = { now: T0 };
  const service: { answer: Service | Error; serviceNow: number } = { answer: {}, serviceNow: T0 };
  const log = { lines: [] as [string, string, unknown][] };
  const at = (level: string) => (message: string, fields: unknown) =>
    log.lines.push([level, message.replace('[acme-identity] ', ''), fields]);
  const page = requestOutcomes({
    store,
    key: aesKey(),
    readRequest: async () => {
      if (service.answer instanceof Error) throw service.answer;
      return { data: service.answer };
    },
    observer: new Observer(
      { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, logLevel: 'warn' },
      (option, message) => new ConfigurationError(option, message),
    ),
    now: () => clock.now,
    serviceNow: () => service.serviceNow,
    referenceTtlMs: TTL,
    ...extra,
  });
  return { page, clock, service, log, store };
}

/** A reference sealed as the inbox seals one, with whatever fields (and key) the test gives. */
async function sealedReference(fields: object, key = aesKey()): Promise<string> {
  return seal(await key, JSON.stringify(fields), REFERENCE_NAME);
}

/** A store that keeps no references, or no states: the return page cannot work on it. */
function without(...methods: ('refer' | 'referred' | 'state')[]): InboxStore<unknown> {
  const store = new MemoryInboxStore();
  for (const method of methods) Object.defineProperty(store, method, { value: undefined });
  return store;
}

const URLS = { returnUrl: 'https://rp.example/r', offRampUrl: 'https://rp.example/o' };

describe('what the page side needs of the inbox and its store', () => {
  test('a store without refer() or without referred() is a ConfigurationError naming the store, for returnUrls and for bind', async () => {
    for (const missing of ['refer', 'referred'] as const) {
      const { page } = outcomesOn(without(missing));
      await expect(page.returnUrls(URLS)).rejects.toMatchObject({ name: 'ConfigurationError', option: 'store' });
      await expect(page.bind('a-reference', 'arc_1')).rejects.toMatchObject({ name: 'ConfigurationError', option: 'store' });
    }
  });

  test('a store without state() is a ConfigurationError naming the store', async () => {
    const { page } = outcomesOn(without('state'));
    await expect(page.outcome('arc_1')).rejects.toMatchObject({ name: 'ConfigurationError', option: 'store' });
  });

  test('bind: a reference that is not a non-empty string is a ConfigurationError naming it', async () => {
    const { page } = outcomesOn();
    for (const reference of ['', undefined, 7, null]) {
      await expect(page.bind(reference, 'arc_1')).rejects.toMatchObject({ name: 'ConfigurationError', option: 'reference' });
    }
  });

  test('returnUrls without its argument names returnUrl: a ConfigurationError, not a TypeError', async () => {
    const { page } = outcomesOn();
    await expect(page.returnUrls(undefined as never)).rejects.toMatchObject({ name: 'ConfigurationError', option: 'returnUrl' });
    await expect(page.returnUrls({ returnUrl: URLS.returnUrl } as never)).rejects.toMatchObject({ option: 'offRampUrl' });
  });
});

describe('outcome', () => {
  test('the state the store gives, with when it got there; unknown (final, no time) for a request the store keeps nothing of', async () => {
    const { page, store } = outcomesOn();
    await store.expect({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_1', createdAt: T0 - 5 }, TTL);
    expect(await page.outcome('arc_1')).toEqual({ state: 'awaiting', at: T0 - 5, final: false });
    expect(await page.outcome('arc_2')).toEqual({ state: 'unknown', final: true });
  });

  test('final exactly where nothing changes any more: handed over (verified, partial, invalid, cancelled), failed, missing; not awaiting or processing', async () => {
    const finals: Record<RequestState['state'], boolean> = {
      awaiting: false,
      processing: false,
      verified: true,
      partial: true,
      invalid: true,
      cancelled: true,
      failed: true,
      missing: true,
    };
    for (const [state, final] of Object.entries(finals) as [RequestState['state'], boolean][]) {
      class At extends MemoryInboxStore {
        override async state(): Promise<RequestState> {
          return { state, at: T0 - 1 };
        }
      }
      const { page } = outcomesOn(new At());
      expect(await page.outcome('arc_1'), state).toEqual({ state, at: T0 - 1, final });
    }
  });
});

describe('sealed references', () => {
  test('bind names the request for the reference TTL to the millisecond: through its last one, not at its end', async () => {
    const { page, clock } = outcomesOn();
    const { reference, return_url } = await page.returnUrls(URLS);
    await page.bind(reference, 'arc_1');
    const sealed = new URL(return_url).searchParams.get(RETURN_PARAMETER) ?? '';
    clock.now = T0 + TTL - 1;
    expect(await page.openReference(sealed)).toEqual({ accessRequestCode: 'arc_1', offRamp: false });
    clock.now = T0 + TTL;
    expect(await page.openReference(sealed)).toBeUndefined();
  });

  test("a reference bound on a clock behind the one that sealed it (another instance's) ends when the store's record does, before its seal", async () => {
    const { page, clock } = outcomesOn();
    const { reference, return_url } = await page.returnUrls(URLS);
    clock.now = T0 - 5_000;
    await page.bind(reference, 'arc_1');
    const sealed = new URL(return_url).searchParams.get(RETURN_PARAMETER) ?? '';
    clock.now = T0 + TTL - 5_001;
    expect(await page.openReference(sealed)).toEqual({ accessRequestCode: 'arc_1', offRamp: false });
    clock.now = T0 + TTL - 5_000;
    expect(await page.openReference(sealed)).toBeUndefined();
  });

  test('returnUrls replaces an acme_ref the given URL already carries (one copied from an earlier request), keeping its other parameters', async () => {
    const { page } = outcomesOn();
    const { reference, return_url, off_ramp_url } = await page.returnUrls({
      returnUrl: `https://rp.example/r?${RETURN_PARAMETER}=earlier&step=2`,
      offRampUrl: `https://rp.example/o?${RETURN_PARAMETER}=earlier`,
    });
    await page.bind(reference, 'arc_1');
    for (const [url, offRamp] of [
      [return_url, false],
      [off_ramp_url, true],
    ] as const) {
      const params = new URL(url).searchParams;
      expect(params.getAll(RETURN_PARAMETER)).toHaveLength(1);
      expect(await page.openReference(params.get(RETURN_PARAMETER) ?? '')).toEqual({ accessRequestCode: 'arc_1', offRamp });
    }
    expect(new URL(return_url).searchParams.get('step')).toBe('2');
  });

  test('the time sealed in a new reference is the reference TTL to the millisecond, however long the store would keep it', async () => {
    const store = new MemoryInboxStore();
    const { page, clock } = outcomesOn(store);
    const { reference, off_ramp_url } = await page.returnUrls(URLS);
    await store.refer(reference, 'arc_1', Number.MAX_SAFE_INTEGER);
    const sealed = new URL(off_ramp_url).searchParams.get(RETURN_PARAMETER) ?? '';
    clock.now = T0 + TTL - 1;
    expect(await page.openReference(sealed)).toEqual({ accessRequestCode: 'arc_1', offRamp: true });
    clock.now = T0 + TTL;
    expect(await page.openReference(sealed)).toBeUndefined();
  });

  test('the store keeps a bound reference exactly as long as its seal holds (a shared store lets it expire then)', async () => {
    const kept: [string, string, number][] = [];
    class Spy extends MemoryInboxStore {
      override async refer(reference: string, accessRequestCode: string, until: number) {
        kept.push([reference, accessRequestCode, until]);
        return super.refer(reference, accessRequestCode, until);
      }
    }
    const { page } = outcomesOn(new Spy());
    const { reference } = await page.returnUrls(URLS);
    await page.bind(reference, 'arc_1');
    expect(kept).toEqual([[reference, 'arc_1', T0 + TTL]]);
  });

  test('a reference opens until the time sealed in it, not at it, whatever the store still names', async () => {
    const store = new MemoryInboxStore();
    const { page, clock } = outcomesOn(store);
    await store.refer('r1', 'arc_1', Number.MAX_SAFE_INTEGER);
    const sealed = await sealedReference({ r: 'r1', o: 1, e: T0 + 10 });
    clock.now = T0 + 9;
    expect(await page.openReference(sealed)).toEqual({ accessRequestCode: 'arc_1', offRamp: true });
    clock.now = T0 + 10;
    expect(await page.openReference(sealed)).toBeUndefined();
  });

  test('sealed contents of the wrong shape open to nothing; only o: 1 marks the off-ramp (property over contents)', async () => {
    /** A store that keys references by their text, as Redis does (`['r1']` is `r1` there). */
    class KeysByText extends MemoryInboxStore {
      override referred(reference: string, now: number) {
        return super.referred(String(reference), now);
      }
    }
    const store = new KeysByText();
    const { page } = outcomesOn(store);
    await store.refer('r1', 'arc_1', Number.MAX_SAFE_INTEGER);
    const later = T0 + 1_000;
    const anything = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constantFrom(null, undefined, ['r1'], 'r1', later, String(later), [later], 1),
    );
    await fc.assert(
      fc.asyncProperty(anything, anything, anything, async (r, o, e) => {
        const opened = await page.openReference(await sealedReference({ r, o, e }));
        const opens = r === 'r1' && typeof e === 'number' && e > T0;
        expect(opened).toEqual(opens ? { accessRequestCode: 'arc_1', offRamp: o === 1 } : undefined);
      }),
      { seed: 45, numRuns: 300 },
    );
    for (const [o, offRamp] of [
      [1, true],
      [true, false],
      ['1', false],
      [0, false],
    ] as const) {
      expect(await page.openReference(await sealedReference({ r: 'r1', o, e: T0 + 1 }))).toEqual({ accessRequestCode: 'arc_1', offRamp });
    }
  });

  test('what is not a string, another key, or a store without referred() opens to nothing, never to a throw', async () => {
    const store = new MemoryInboxStore();
    await store.refer('r1', 'arc_1', Number.MAX_SAFE_INTEGER);
    const sealed = await sealedReference({ r: 'r1', o: 0, e: T0 + 1_000 });
    for (const value of [123, null, undefined, {}, ['v1.']])
      expect(await outcomesOn(store).page.openReference(value as never)).toBeUndefined();
    expect(await outcomesOn(store).page.openReference(await sealedReference({ r: 'r1', o: 0, e: T0 + 1_000 }, aesKey(5)))).toBeUndefined();
    expect(await outcomesOn(without('referred')).page.openReference(sealed)).toBeUndefined();
    expect(await outcomesOn(store, { key: undefined }).page.openReference(sealed)).toBeUndefined();
    expect(await outcomesOn(store).page.openReference(sealed)).toEqual({ accessRequestCode: 'arc_1', offRamp: false });
  });

  test('a reference of up to 1,000 characters is opened; a longer one is refused before any decryption', async () => {
    const store = new MemoryInboxStore();
    const { page } = outcomesOn(store);
    await store.refer('r1', 'arc_1', Number.MAX_SAFE_INTEGER);
    // A sealed reference is "v1." and padded base64: 3 + 4k characters. 999 is the longest that opens.
    const of = async (length: number) => {
      for (let pad = 0; pad < 1_000; pad += 1) {
        const sealed = await sealedReference({ r: 'r1', o: 0, e: T0 + 1, p: 'x'.repeat(pad) });
        if (sealed.length >= length) return sealed;
      }
      throw new Error(`no sealed reference of ${length} characters`);
    };
    const longest = await of(999);
    expect(longest.length).toBe(999);
    expect(await page.openReference(longest)).toEqual({ accessRequestCode: 'arc_1', offRamp: false });
    // The bound is on what the browser brings back, a sender's own parameters included: 1,000 characters still open.
    expect(await page.openReference(`${longest}?`)).toEqual({ accessRequestCode: 'arc_1', offRamp: false });
    expect(await page.openReference(`${longest}?s`)).toBeUndefined();
    const longer = await of(1_001);
    expect(longer.length).toBe(1_003);
    const decrypt = vi.spyOn(crypto.subtle, 'decrypt');
    try {
      expect(await page.openReference(longer)).toBeUndefined();
      expect(decrypt).not.toHaveBeenCalled();
    } finally {
      decrypt.mockRestore();
    }
  });
});

/** A store whose state for every request is `state.now` (reads counted): what another instance settles. */
class ScriptedStates extends MemoryInboxStore {
  current: RequestState | undefined = { state: 'awaiting', at: T0 };
  reads = 0;
  override async state(): Promise<RequestState | undefined> {
    this.reads += 1;
    return this.current;
  }
}

/** The page side on scripted states, on vitest's fake clock (set to T0). */
function onFakeClock() {
  vi.useFakeTimers({ now: T0 });
  const store = new ScriptedStates();
  return { store, page: outcomesOn(store, { now: () => Date.now() }).page };
}

/** What `promise` settled with, read as the fake clock moves: `outcome` stays undefined until then. */
function watched<T>(promise: Promise<T>): { outcome?: T } {
  const seen: { outcome?: T } = {};
  void promise.then((outcome) => {
    seen.outcome = outcome;
  });
  return seen;
}

describe('waitFor, on a controlled clock', () => {
  test('a timeout of 0 answers the state now, without a wait, even on a clock that never moves', async () => {
    const store = new ScriptedStates();
    const { page } = outcomesOn(store);
    expect(await page.waitFor('arc_1', { timeoutMs: 0, pollMs: 10 })).toEqual({ state: 'awaiting', at: T0, final: false });
    expect(store.reads).toBe(1);
  });

  test('the store is read every pollMs until the timeout, and the last wait is cut to the time left', async () => {
    const { store, page } = onFakeClock();
    const answered = watched(page.waitFor('arc_1', { timeoutMs: 1_000, pollMs: 300 }));
    await vi.advanceTimersByTimeAsync(999);
    // Read at 0, 300, 600 and 900 ms; the fifth read comes at the timeout, not at 1,200 ms.
    expect([store.reads, answered.outcome]).toEqual([4, undefined]);
    await vi.advanceTimersByTimeAsync(1);
    expect([store.reads, answered.outcome]).toEqual([5, { state: 'awaiting', at: T0, final: false }]);
  });

  test('a state other than since answers at once, before any wait; the same state waits', async () => {
    const { store, page } = onFakeClock();
    const changed = watched(page.waitFor('arc_1', { since: 'unknown', timeoutMs: 60_000, pollMs: 60_000 }));
    await vi.advanceTimersByTimeAsync(0);
    expect([store.reads, changed.outcome]).toEqual([1, { state: 'awaiting', at: T0, final: false }]);
    const same = watched(page.waitFor('arc_1', { since: 'awaiting', timeoutMs: 60_000, pollMs: 60_000 }));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(same.outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(same.outcome).toEqual({ state: 'awaiting', at: T0, final: false });
  });

  test('without timeoutMs a wait ends after 25 s', async () => {
    const { page } = onFakeClock();
    const answered = watched(page.waitFor('arc_1', { pollMs: 5_000 }));
    await vi.advanceTimersByTimeAsync(24_999);
    expect(answered.outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(answered.outcome).toEqual({ state: 'awaiting', at: T0, final: false });
  });

  test('a poll longer than the timeout waits only the timeout', async () => {
    const { store, page } = onFakeClock();
    const waiting = page.waitFor('arc_1', { timeoutMs: 100, pollMs: 60_000 });
    await vi.advanceTimersByTimeAsync(100);
    await expect(waiting).resolves.toMatchObject({ state: 'awaiting' });
    expect(store.reads).toBe(2);
  });

  test('a timeout or poll out of range is a ConfigurationError naming it, before the store is read', async () => {
    const store = new ScriptedStates();
    const { page } = outcomesOn(store);
    // Each would loop or never end: a poll of NaN or 0 reads the store without pause, a timeout of NaN never passes.
    const notANumber = fc.oneof(fc.constant(Number.NaN), fc.string(), fc.boolean());
    const cases = fc.oneof(
      fc.record({
        option: fc.constant('timeoutMs'),
        value: fc.oneof(notANumber, fc.double({ max: -Number.MIN_VALUE }), fc.constant(Number.POSITIVE_INFINITY)),
      }),
      fc.record({
        option: fc.constant('pollMs'),
        value: fc.oneof(notANumber, fc.double({ max: 0 }), fc.constant(Number.POSITIVE_INFINITY)),
      }),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ option, value }) => {
        const error = await page.waitFor('arc_1', { [option]: value } as never).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ConfigurationError);
        expect(error).toMatchObject({ code: 'ERR_INVALID_CONFIG', option });
        expect(store.reads).toBe(0);
      }),
    );
  });

  test('a poll past the 32-bit timer limit waits that limit, not 1 ms', async () => {
    const { store, page } = onFakeClock();
    const waiting = page.waitFor('arc_1', { timeoutMs: 4_000_000_000, pollMs: 3_000_000_000 });
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(store.reads).toBe(1);
    // The capped wait (2^31 - 1 ms) ends, the store is read again, and the final state ends the wait.
    store.current = { state: 'verified', at: T0 + 1 };
    await vi.advanceTimersByTimeAsync(2_147_483_647 - 3_600_000);
    await expect(waiting).resolves.toEqual({ state: 'verified', at: T0 + 1, final: true });
    expect(store.reads).toBe(2);
  });

  test('a settlement here wakes every waiter of that request at once, also after one of them left (aborted)', async () => {
    const { store, page } = onFakeClock();
    const leaving = new AbortController();
    const gone = page.waitFor('arc_1', { timeoutMs: 60_000, pollMs: 60_000, signal: leaving.signal });
    const staying = page.waitFor('arc_1', { timeoutMs: 60_000, pollMs: 60_000 });
    const alsoStaying = page.waitFor('arc_1', { timeoutMs: 60_000, pollMs: 60_000 });
    const other = page.waitFor('arc_2', { timeoutMs: 60_000, pollMs: 60_000 });
    let settled = 0;
    for (const waiter of [staying, alsoStaying])
      void waiter.then(() => {
        settled += 1;
      });
    await vi.advanceTimersByTimeAsync(10);
    leaving.abort();
    await expect(gone).resolves.toMatchObject({ state: 'awaiting' });
    store.current = { state: 'verified', at: T0 + 10 };
    page.settled('arc_1');
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(2);
    await expect(staying).resolves.toEqual({ state: 'verified', at: T0 + 10, final: true });
    // arc_2 was not woken: it reads again at its poll, and sees the state then.
    const readsBefore = store.reads;
    await vi.advanceTimersByTimeAsync(59_989);
    expect(store.reads).toBe(readsBefore);
    await vi.advanceTimersByTimeAsync(1);
    await expect(other).resolves.toMatchObject({ state: 'verified' });
  });
});

describe("the service's view of a request awaiting its webhook", () => {
  const expected = { accessRequestCode: 'arc_1', identitySessionCode: 'isc_1', createdAt: T0 };

  test('completed, expired at its expiry time on the service clock (not before), in progress once opened, not started', async () => {
    const { page, service, store } = outcomesOn();
    await store.expect(expected, TTL);
    const expires = Math.floor(T0 / 1000) + 600;
    const cases: [Service, number, string][] = [
      [{ completed_at: 1, time_expires: expires }, expires * 1000 + 5, 'completed'],
      [{ time_expires: expires }, expires * 1000, 'expired'],
      [{ time_expires: expires, opened_at: 1 }, expires * 1000 + 1, 'expired'],
      [{ time_expires: expires }, expires * 1000 - 1, 'not-started'],
      [{ time_expires: expires, opened_at: 1 }, expires * 1000 - 1, 'in-progress'],
      [{ opened_at: 1 }, Number.MAX_SAFE_INTEGER, 'in-progress'],
      [{}, Number.MAX_SAFE_INTEGER, 'not-started'],
      // A time of 0 (or less) is not set: expiry_hours: 0 disables expiry ("never"), and a column's
      // default 0 says "not yet", never 1970.
      [{ time_expires: 0 }, T0, 'not-started'],
      [{ time_expires: -1, opened_at: 1 }, T0, 'in-progress'],
      [{ time_expires: 1 }, T0, 'expired'],
      [{ completed_at: 0, opened_at: 0, time_expires: expires }, T0, 'not-started'],
      [{ completed_at: 0, opened_at: 1 }, T0, 'in-progress'],
      [{ completed_at: 1, opened_at: 0 }, T0, 'completed'],
    ];
    for (const [answer, serviceNow, view] of cases) {
      Object.assign(service, { answer, serviceNow });
      expect(await page.askService('arc_1'), JSON.stringify({ answer, serviceNow })).toBe(view);
    }
  });

  test('a request the store does not expect is not asked about; a failed read is a warning with its code only, and no view', async () => {
    const { page, service, store, log } = outcomesOn();
    service.answer = new Error('must not be read');
    expect(await page.askService('arc_1')).toBeUndefined();
    expect(log.lines).toEqual([]);
    await store.expect(expected, TTL);
    service.answer = new AcmeIdentityError('ERR_CONNECTION', 'the secret path /x?token=abc');
    expect(await page.askService('arc_1')).toBeUndefined();
    service.answer = new TypeError('raw failure with token=abc');
    expect(await page.askService('arc_1')).toBeUndefined();
    expect(log.lines).toEqual([
      ['warn', 'could not read a request for its return page', { errorCode: 'ERR_CONNECTION' }],
      ['warn', 'could not read a request for its return page', { errorCode: 'ERR_UNKNOWN' }],
    ]);
  });
});
