/**
 * `awaitIdentity`'s long polling against a scripted status endpoint, on a controlled clock: what it
 * asks for, when it gives up (six failures in a row, a 404 at once), that an answer starts the count
 * again, the pauses between failed tries, and each change told once. The endpoint's side is in
 * test/inbox/return-page.test.ts; the browser's, with EventSource, in return-page-chromium.test.ts.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { awaitIdentity, ReturnPageError, type ReturnPageState } from '../../src/return-page/index.js';

const STATUS = 'https://rp.example/identity/status';

/** A state as the endpoint answers it. */
function state(name: ReturnPageState['state'], final = false): ReturnPageState {
  return { state: name, final, offRamp: false };
}

/** One scripted answer: a state (200), an error status, or a network failure. */
type Step = ReturnPageState | number | 'network';

/** A fetch that answers `steps` in turn, and what it was asked (the URLs), with the controlled clock's time of each ask. */
function scripted(steps: readonly Step[]) {
  const asked: { url: URL; at: number }[] = [];
  let next = 0;
  const fetch = vi.fn(async (input: RequestInfo | URL) => {
    asked.push({ url: new URL(String(input)), at: Date.now() });
    const step = steps[next++];
    if (step === undefined) throw new Error(`the script has no answer for ask ${next}`);
    if (step === 'network') throw new TypeError('fetch failed');
    if (typeof step === 'number') return new Response('{}', { status: step });
    return Response.json(step);
  });
  return { fetch, asked };
}

/** Runs `awaitIdentity` to its end on the fake clock: resolved with its state, or the error it rejected with. */
async function run(steps: readonly Step[]) {
  const { fetch, asked } = scripted(steps);
  vi.stubGlobal('fetch', fetch);
  const updates: string[] = [];
  type Settled = { value?: ReturnPageState; error?: unknown };
  const settled = awaitIdentity(STATUS, { reference: 'ref-1', onUpdate: (update) => updates.push(update.state) }).then(
    (value): Settled => ({ value }),
    (error: unknown): Settled => ({ error }),
  );
  await vi.runAllTimersAsync();
  return { ...(await settled), asked, updates };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
  // Node has no EventSource (or only behind a flag): the page polls, as a browser does where its stream fails.
  vi.stubGlobal('EventSource', undefined);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('awaitIdentity by long polling', () => {
  test('the state now first, then long polls for a change from the last state seen, with the reference and the time waited', async () => {
    const { value, asked, updates } = await run([state('awaiting'), state('awaiting'), state('processing'), state('verified', true)]);
    expect(value).toEqual(state('verified', true));
    // Each change told once: the second `awaiting` is not an update.
    expect(updates).toEqual(['awaiting', 'processing', 'verified']);
    const params = asked.map(({ url }) => Object.fromEntries(url.searchParams));
    expect(params[0]).toEqual({ acme_ref: 'ref-1', waited: '0' });
    expect(params.slice(1)).toEqual([
      { acme_ref: 'ref-1', waited: '0', wait: '25', since: 'awaiting' },
      { acme_ref: 'ref-1', waited: '0', wait: '25', since: 'awaiting' },
      { acme_ref: 'ref-1', waited: '0', wait: '25', since: 'processing' },
    ]);
  });

  test('on a page, the reference is its own acme_ref and a relative status URL is its own origin; the reference option wins over both', async () => {
    vi.stubGlobal('location', { href: 'https://rp.example/return?acme_ref=page-ref&x=1' });
    for (const [options, expected] of [
      [{}, 'page-ref'],
      [{ reference: 'given-ref' }, 'given-ref'],
    ] as const) {
      const { fetch, asked } = scripted([state('verified', true)]);
      vi.stubGlobal('fetch', fetch);
      await expect(awaitIdentity('/identity/status', options)).resolves.toEqual(state('verified', true));
      expect(asked[0]!.url.origin + asked[0]!.url.pathname).toBe('https://rp.example/identity/status');
      expect(asked[0]!.url.searchParams.get('acme_ref')).toBe(expected);
    }
  });

  test('a 404 rejects at once with ReturnPageError; six failed answers in a row reject, five do not (pauses of 1, 2, 4, 8, 16 s)', async () => {
    const notFound = await run([404]);
    expect(notFound.error).toBeInstanceOf(ReturnPageError);
    expect(notFound.error).toMatchObject({ status: 404, message: 'the status endpoint knows no request for this reference' });
    expect(notFound.asked).toHaveLength(1);

    const six = await run([503, 503, 503, 503, 503, 503, state('verified', true)]);
    expect(six.error).toBeInstanceOf(ReturnPageError);
    expect(six.error).toMatchObject({ status: 503, message: 'the status endpoint answered 503' });
    expect(six.asked).toHaveLength(6);

    const five = await run([500, 502, 503, 504, 429, state('verified', true)]);
    expect(five.value).toEqual(state('verified', true));
    const times = five.asked.map(({ at }) => at);
    expect(times.slice(1).map((at, i) => at - (times[i] ?? 0))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
    // The time waited is the page's, in whole seconds since it began.
    expect(five.asked.at(-1)?.url.searchParams.get('waited')).toBe('31');
  });

  test('network failures count as failed answers: the sixth in a row rejects with its own error', async () => {
    const six = await run(['network', 'network', 'network', 'network', 'network', 'network']);
    expect(six.error).toBeInstanceOf(TypeError);
    const five = await run(['network', 'network', 'network', 'network', 'network', state('cancelled', true)]);
    expect(five.value).toEqual(state('cancelled', true));
  });

  test('property: an answer starts the count of failures again: runs of fewer than six never reject, and each pause follows from its own run alone', async () => {
    // Runs of one to five failures, each followed by a state that is not final, then the final one.
    const script = fc.array(fc.array(fc.constantFrom<Step>(500, 503, 'network'), { minLength: 1, maxLength: 5 }), {
      minLength: 1,
      maxLength: 6,
    });
    await fc.assert(
      fc.asyncProperty(script, async (runs) => {
        const steps: Step[] = runs.flatMap((failures, i) => [...failures, state(i % 2 === 0 ? 'awaiting' : 'processing')]);
        const { value, asked } = await run([...steps, state('verified', true)]);
        expect(value).toEqual(state('verified', true));
        // After each failure, a pause of 1 s doubled for each failure before it in the same run; after an answer, none.
        const expected: number[] = [];
        for (const failures of runs) {
          expected.push(...failures.map((_, i) => 1_000 * 2 ** i), 0);
        }
        const times = asked.map(({ at }) => at);
        expect(times.slice(1).map((at, i) => at - (times[i] ?? 0))).toEqual(expected);
      }),
      { numRuns: 40 },
    );
  });

  test('an abort while a long poll is in flight cancels it, and rejects with the signal’s reason at once, with no pause first', async () => {
    const controller = new AbortController();
    const reason = new Error('the page was left');
    const signals: (AbortSignal | null | undefined)[] = [];
    const fetch = vi.fn((_input: RequestInfo | URL, init?: RequestInit) => {
      signals.push(init?.signal);
      if (signals.length === 1) return Promise.resolve(Response.json(state('awaiting')));
      // The long poll: held until its signal ends it, as fetch is.
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
      });
    });
    vi.stubGlobal('fetch', fetch);
    const settled = awaitIdentity(STATUS, { reference: 'ref-1', signal: controller.signal }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(0);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(signals[1]).toBe(controller.signal);
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(0);
    // No pause is waited after a poll the page itself ended.
    expect(vi.getTimerCount()).toBe(0);
    expect(await settled).toBe(reason);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  test('an abort between tries rejects with the signal’s reason, and nothing more is asked', async () => {
    const controller = new AbortController();
    const reason = new Error('the page was left');
    const { fetch } = scripted([state('awaiting'), 503]);
    vi.stubGlobal('fetch', fetch);
    const settled = awaitIdentity(STATUS, { reference: 'ref-1', signal: controller.signal }).catch((error: unknown) => error);
    // The second answer fails: the page pauses a second before the next try, and is left meanwhile.
    await vi.advanceTimersByTimeAsync(500);
    controller.abort(reason);
    await vi.runAllTimersAsync();
    expect(await settled).toBe(reason);
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});

/**
 * An EventSource as a browser's behaves, scripted: `CONNECTING` while it reconnects after an error
 * (the endpoint closed the stream), `CLOSED` when it cannot connect at all.
 */
class ScriptedEventSource extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static last: ScriptedEventSource | undefined;
  readyState = ScriptedEventSource.CONNECTING;
  onerror: ((event: Event) => void) | null = null;
  closed = false;
  constructor(readonly url: string | URL) {
    super();
    ScriptedEventSource.last = this;
  }
  close() {
    this.closed = true;
    this.readyState = ScriptedEventSource.CLOSED;
  }
  send(update: ReturnPageState) {
    this.readyState = ScriptedEventSource.OPEN;
    this.dispatchEvent(new MessageEvent('state', { data: JSON.stringify(update) }));
  }
  fail(readyState: number) {
    this.readyState = readyState;
    this.onerror?.(new Event('error'));
  }
}

describe('awaitIdentity by Server-Sent Events', () => {
  test('a stream the endpoint closed is reconnected by the browser: the page keeps listening and never polls', async () => {
    vi.stubGlobal('EventSource', ScriptedEventSource);
    const { fetch } = scripted([]);
    vi.stubGlobal('fetch', fetch);
    const updates: string[] = [];
    const settled = awaitIdentity(STATUS, { reference: 'ref-1', onUpdate: (update) => updates.push(update.state) });
    const source = ScriptedEventSource.last!;
    expect(new URL(String(source.url)).searchParams.get('acme_ref')).toBe('ref-1');
    source.send(state('awaiting'));
    source.fail(ScriptedEventSource.CONNECTING);
    source.send(state('awaiting'));
    source.send(state('verified', true));
    expect(await settled).toEqual(state('verified', true));
    expect(updates).toEqual(['awaiting', 'verified']);
    expect(source.closed).toBe(true);
    expect(fetch).not.toHaveBeenCalled();
  });

  test('an abort while the stream is open closes it and rejects with the signal’s reason, and nothing is polled', async () => {
    vi.stubGlobal('EventSource', ScriptedEventSource);
    const { fetch } = scripted([]);
    vi.stubGlobal('fetch', fetch);
    const controller = new AbortController();
    const reason = new Error('the page was left');
    const settled = awaitIdentity(STATUS, { reference: 'ref-1', signal: controller.signal }).catch((error: unknown) => error);
    const source = ScriptedEventSource.last!;
    source.send(state('awaiting'));
    controller.abort(reason);
    expect(await settled).toBe(reason);
    expect(source.closed).toBe(true);
    expect(fetch).not.toHaveBeenCalled();
  });

  test('a signal aborted before the call rejects with its reason at once: no stream is opened, nothing is polled', async () => {
    vi.stubGlobal('EventSource', ScriptedEventSource);
    ScriptedEventSource.last = undefined;
    const { fetch } = scripted([]);
    vi.stubGlobal('fetch', fetch);
    const reason = new Error('the page was left');
    await expect(awaitIdentity(STATUS, { reference: 'ref-1', signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(ScriptedEventSource.last).toBeUndefined();
    expect(fetch).not.toHaveBeenCalled();
  });

  test('a stream that cannot be opened (closed on its error) is given up for long polling, which goes on from the state it saw', async () => {
    vi.stubGlobal('EventSource', ScriptedEventSource);
    const { fetch, asked } = scripted([state('verified', true)]);
    vi.stubGlobal('fetch', fetch);
    const settled = awaitIdentity(STATUS, { reference: 'ref-1' });
    const source = ScriptedEventSource.last!;
    source.send(state('processing'));
    source.fail(ScriptedEventSource.CLOSED);
    await vi.runAllTimersAsync();
    expect(await settled).toEqual(state('verified', true));
    expect(asked[0]?.url.searchParams.get('since')).toBe('processing');
  });
});
