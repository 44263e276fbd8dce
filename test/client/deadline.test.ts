/** The deadline is the SDK's promise, not the fetch's: it holds with a fetch that ignores the abort signal. */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { getEventListeners } from 'node:events';
import { AbortError, AcmeIdentityClient, ConfigurationError, TimeoutError } from '../../src/index.js';
import { createFakeService, DEFAULT_CLIENT, type FakeService } from '../../src/testing/index.js';

let service: FakeService;
beforeEach(async () => {
  service = await createFakeService();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A fetch that answers after `delayMs` whatever happens to the request's signal, and reports what became of the late body. */
function deafFetch(delayMs: number) {
  const late = { cancelled: false, answered: false };
  const fetch = async (request: Request) => {
    const real = await service.fetch(new Request(request.url, { method: request.method, headers: request.headers }));
    const bytes = new Uint8Array(await real.arrayBuffer());
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    late.answered = true;
    // Pulled, not pushed: a body nobody reads stays unread until cancelled.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
      cancel() {
        late.cancelled = true;
      },
    });
    return new Response(body, { status: real.status, headers: real.headers });
  };
  return { fetch, late };
}

function client(fetch: (request: Request) => Promise<Response>, timeoutMs = 500) {
  return new AcmeIdentityClient({ baseUrl: service.baseUrl, ...DEFAULT_CLIENT, fetch, timeoutMs });
}

describe('a fetch that ignores the abort signal', () => {
  test('timeoutMs 500 against a 3 s answer: TimeoutError at 500 ms, and the late body is cancelled', async () => {
    const { fetch, late } = deafFetch(3_000);
    const outcome = client(fetch)
      .status.current()
      .then(
        () => 'resolved',
        (error: unknown) => error,
      );
    await vi.advanceTimersByTimeAsync(499);
    expect(await Promise.race([outcome, Promise.resolve('pending')])).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ timeoutMs: 500 });
    await vi.advanceTimersByTimeAsync(3_000);
    expect(late.answered).toBe(true);
    expect(late.cancelled).toBe(true);
  });

  test('unless timeoutMs is set, a call is given 60 s', async () => {
    const { fetch } = deafFetch(120_000);
    const api = new AcmeIdentityClient({ baseUrl: service.baseUrl, ...DEFAULT_CLIENT, fetch });
    const outcome = api.status.current().then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(59_999);
    expect(await Promise.race([outcome, Promise.resolve('pending')])).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toMatchObject({ code: 'ERR_TIMEOUT', timeoutMs: 60_000 });
  });

  test("the caller's signal ends the call at once, whatever the fetch does", async () => {
    const { fetch } = deafFetch(3_000);
    const controller = new AbortController();
    const outcome = client(fetch, 60_000)
      .status.current({ signal: controller.signal })
      .catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(new Error('user navigated away'));
    expect(await outcome).toBeInstanceOf(AbortError);
  });

  test('a deadline is also enforced while the call waits for a token', async () => {
    const { fetch } = deafFetch(3_000);
    const outcome = client(fetch)
      .identityRequests.get({ accessRequestCode: 'a', identitySessionCode: 'b' })
      .catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(500);
    expect(await outcome).toBeInstanceOf(TimeoutError);
  });

  test('a call that ended while it waited for a token sends nothing once the token comes, even through a fetch deaf to the signal', async () => {
    const sent: string[] = [];
    // The token answer takes 2 s; every other request is recorded as sent, whatever its signal says.
    const slowToken = async (request: Request) => {
      const path = new URL(request.url).pathname;
      if (path.endsWith('/auth/api-token')) await new Promise((resolve) => setTimeout(resolve, 2_000));
      else sent.push(`${request.method} ${path}`);
      return service.fetch(request);
    };
    const controller = new AbortController();
    const outcome = client(slowToken, 60_000)
      .identityRequests.get({ accessRequestCode: 'a', identitySessionCode: 'b' }, { signal: controller.signal })
      .catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(new Error('user navigated away'));
    expect(await outcome).toBeInstanceOf(AbortError);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sent).toEqual([]);
  });

  test('a token request unanswered is given up after tokenTimeoutMs, 10 s unless set, within a longer call deadline', async () => {
    const hung = (request: Request) =>
      new URL(request.url).pathname.endsWith('/auth/api-token') ? new Promise<Response>(() => undefined) : service.fetch(request);
    const api = new AcmeIdentityClient({ baseUrl: service.baseUrl, ...DEFAULT_CLIENT, fetch: hung, timeoutMs: 60_000, maxRetries: 0 });
    const outcome = api.identityRequests.get({ accessRequestCode: 'a', identitySessionCode: 'b' }).then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(9_999);
    expect(await Promise.race([outcome, Promise.resolve('pending')])).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ timeoutMs: 10_000 });
  });
});

describe('a finished call leaves nothing behind', () => {
  test('no deadline timer and no listener on the caller’s signal: a script exits after its last call, a shared signal does not pile up listeners', async () => {
    const shutdown = new AbortController();
    const c = new AcmeIdentityClient({ baseUrl: service.baseUrl, ...DEFAULT_CLIENT, fetch: service.fetch, timeoutMs: 60_000 });
    for (let i = 0; i < 3; i++) {
      await c.status.current({ signal: shutdown.signal });
      // And one that fails: a request the service does not know.
      await expect(
        c.identityRequests.get({ accessRequestCode: 'none', identitySessionCode: 'none' }, { signal: shutdown.signal }),
      ).rejects.toMatchObject({ status: 404 });
    }
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('a call ended while it waits to retry', () => {
  test.each([
    ['a 503 asking for five seconds', () => Promise.resolve(new Response('{}', { status: 503, headers: { 'retry-after': '5' } }))],
    ['a connection refused', () => Promise.reject(new TypeError('fetch failed'))],
  ])(
    'after %s, ends the wait with it: no timer left behind, and no attempt sent once the wait would have passed',
    async (_name, answer) => {
      let attempts = 0;
      const acme = client(async (request) => {
        if (!request.url.endsWith('/status/current')) return service.fetch(request);
        attempts += 1;
        return answer();
      }, 60_000);
      const controller = new AbortController();
      const call = acme.status.current({ signal: controller.signal }).catch((e: unknown) => e);
      // The first attempt failed: the call's deadline timer and the wait before the next attempt are set.
      await vi.waitFor(() => expect([attempts, vi.getTimerCount()]).toEqual([1, 2]));
      controller.abort(new Error('the person left'));
      expect(await call).toBeInstanceOf(AbortError);
      expect(vi.getTimerCount()).toBe(0);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(attempts).toBe(1);
    },
  );
});

describe('per-call options are checked before anything is sent', () => {
  test.each([
    [{ timeoutMs: -1 }, 'timeoutMs'],
    [{ timeoutMs: Number.NaN }, 'timeoutMs'],
    [{ timeoutMs: 2 ** 31 }, 'timeoutMs'],
    [{ maxRetries: 1.5 }, 'maxRetries'],
    [{ signal: {} as AbortSignal }, 'signal'],
    [{ correlationId: 'has space' }, 'correlationId'],
    // A number would pass the header rule as its digits: not a string, refused as such.
    [{ correlationId: 12345 as unknown as string }, 'correlationId'],
    [{ signal: null as unknown as AbortSignal }, 'signal'],
    // Something with an aborted flag, but no way to hear of an abort: no AbortSignal.
    [{ signal: { aborted: false } as AbortSignal }, 'signal'],
    [null as unknown as { timeoutMs: number }, 'options'],
    ['fast' as unknown as { timeoutMs: number }, 'options'],
  ])('%o is refused, naming %s', async (options, option) => {
    let sent = 0;
    const acme = client(async (request) => {
      sent += 1;
      return service.fetch(request);
    });
    const error = await acme.status.current(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ option });
    expect(sent).toBe(0);
  });

  test('a client timeoutMs beyond what a timer can hold is refused (it would fire at once)', () => {
    expect(() => client(globalThis.fetch, 2 ** 31)).toThrow(ConfigurationError);
  });
});
