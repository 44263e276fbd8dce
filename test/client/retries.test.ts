import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import {
  AbortError,
  ConnectionError,
  InternalServerError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
} from '../../src/index.js';
import { backoffMs, retryAfterMs } from '../../src/client/retry.js';
import { ERROR_TABLE } from '../../src/contract/errors.js';
import { PDF, credentialInput, harness, person, received, rejection, type Harness } from '../helpers.js';

async function withRequest(
  errorStatus: 'status' | 'ok' = 'status',
): Promise<Harness & { codes: { accessRequestCode: string; identitySessionCode: string } }> {
  const h = await harness({ fake: { readings: { errorStatus } } });
  const { data } = await h.client.identityRequests.create(person());
  return { ...h, codes: { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code } };
}

const GET_REQUEST = /^\/identity\/request\/[^/]+\/[^/]+$/;

const realSetTimeout = globalThis.setTimeout;
/** A short real pause, so work that is not timer-driven (Web Crypto, msw) can progress. */
const realPause = () => new Promise((resolve) => realSetTimeout(resolve, 10));

/**
 * Settles `promise` while the fake clock runs, one timer at a time, for at most `budgetMs` of fake
 * time; returns its outcome without throwing.
 */
async function run<T>(promise: Promise<T>, budgetMs = 120_000): Promise<{ value?: T; error?: unknown }> {
  let settled = false;
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  void outcome.then(() => (settled = true));
  const start = Date.now();
  for (let step = 0; step < 1_000 && !settled; step++) {
    // Real work (msw, Web Crypto) after a timer fired sets and clears timers as it goes. The fake
    // clock moves on only once the timers have stood still for three real pauses (at most 25), so
    // that on a loaded machine it does not jump to the call's deadline while work is still under way.
    for (let waited = 0, still = 0; waited < 25 && still < 3 && !settled; waited++) {
      const timers = vi.getTimerCount();
      await realPause();
      still = vi.getTimerCount() === timers ? still + 1 : 0;
    }
    if (settled || Date.now() - start >= budgetMs) break;
    await vi.advanceTimersToNextTimerAsync();
  }
  return outcome;
}

let h: Awaited<ReturnType<typeof withRequest>>;
beforeEach(async () => {
  h = await withRequest();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The statuses the spec's error table has a code for: the ones the `errorStatus: 'ok'` reading answers 200. */
const TABLED = new Set<number>(Object.values(ERROR_TABLE).map(({ status }) => status));

// Every rule twice: errors answered with their status, and (the `errorStatus: 'ok'` reading) a 200
// whose body carries the error's code, which the transport weighs as the status the code stands for.
describe.each(['status', 'ok'] as const)('retries (the errorStatus reading %s)', (errorStatus) => {
  /** The status a fault of `status` is answered with under this reading. */
  const answered = (status: number) => (errorStatus === 'ok' && TABLED.has(status) ? 200 : status);
  beforeEach(async () => {
    vi.useRealTimers();
    h = await withRequest(errorStatus);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });

  test('a 503 on a read is retried, with the same correlation id and a fresh timestamp', async () => {
    // Retry-After 2 s, so a re-stamped X-Request-Timestamp must be at least 2 s later.
    h.service.injectFault({ kind: 'status', status: 503, retryAfter: '2', path: GET_REQUEST });
    const retries: unknown[] = [];
    const client = h.makeClient({ hooks: { onRetry: (event) => retries.push(event) } });
    const { value } = await run(client.identityRequests.get(h.codes));
    expect(value?.data.first_name).toBe('Jane');
    // (Under the `ok` reading too: the status the 200's code stands for.)
    expect(retries).toEqual([expect.objectContaining({ reason: 'status', status: 503, waitMs: 2_000, retryAfter: true })]);
    const [first, second] = received(h.service, GET_REQUEST);
    expect(first!.headers['x-correlation-id']).toBe(second!.headers['x-correlation-id']);
    expect(Number(second!.headers['x-request-timestamp']) - Number(first!.headers['x-request-timestamp'])).toBeGreaterThanOrEqual(2);
  });

  test('a retry adds no X-Request-Timestamp to a request that had none (status and credential endpoints take none)', async () => {
    h.service.injectFault({ kind: 'status', status: 503, path: '/status/health' });
    const { value } = await run(h.client.status.health());
    expect(value).toBeDefined();
    const sent = received(h.service, /\/status\/health$/);
    expect(sent).toHaveLength(2);
    for (const request of sent) expect(request.headers['x-request-timestamp']).toBeUndefined();
  });

  test('a first attempt that waited for a token is stamped after the wait, not before', async () => {
    const fresh = h.makeClient(); // no token yet: its first call fetches one
    h.service.injectFault({ kind: 'delay', ms: 5_000, path: '/auth/api-token' });
    const before = Math.floor(Date.now() / 1000);
    const { value, error } = await run(fresh.identityRequests.get(h.codes));
    expect(error).toBeUndefined();
    expect(value?.data.first_name).toBe('Jane');
    const sent = received(h.service, GET_REQUEST).at(-1)!;
    expect(Number(sent.headers['x-request-timestamp']) - before).toBeGreaterThanOrEqual(5);
  });

  test('an error after retries says how many attempts the call made, as many as the service received', async () => {
    h.service.injectFault({ kind: 'status', status: 503, path: GET_REQUEST, times: 3 });
    const { error } = await run(h.client.identityRequests.get(h.codes, { maxRetries: 2 }));
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: answered(503), attempts: 3 });
    expect(received(h.service, GET_REQUEST)).toHaveLength(3);
  });

  test('a network error on a read is retried', async () => {
    h.service.injectFault({ kind: 'network', path: GET_REQUEST });
    const { value } = await run(h.client.identityRequests.get(h.codes));
    expect(value?.data).toBeDefined();
    expect(received(h.service, GET_REQUEST)).toHaveLength(2);
  });

  test.each(['truncate', 'reset-after-headers'] as const)(
    'a body cut short (%s) is a connection failure of its attempt: a read is retried, and the retry answers',
    async (kind) => {
      h.service.injectFault({ kind, path: GET_REQUEST });
      const { value, error } = await run(h.client.identityRequests.get(h.codes));
      expect(error).toBeUndefined();
      expect(value?.data.first_name).toBe('Jane');
      expect(received(h.service, GET_REQUEST)).toHaveLength(2);
    },
  );

  test('a body cut short on every attempt: a ConnectionError of the body phase, caused by the failed read, after maxRetries; a network error, of the send phase', async () => {
    h.service.injectFault({ kind: 'truncate', path: GET_REQUEST, times: 3 });
    const { error } = await run(h.client.identityRequests.get(h.codes, { maxRetries: 2 }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'ERR_CONNECTION', phase: 'body' });
    // Its cause is what the body's read failed with.
    expect((error as Error).cause).toMatchObject({ name: 'TypeError', message: expect.stringContaining('terminated') });
    expect(received(h.service, GET_REQUEST)).toHaveLength(3);

    h.service.injectFault({ kind: 'network', path: GET_REQUEST, times: 10 });
    const refused = await run(h.client.identityRequests.get(h.codes, { maxRetries: 0 }));
    expect(refused.error).toMatchObject({ code: 'ERR_CONNECTION', phase: 'send' });
  });

  test("retries stop after maxRetries and the last error is thrown; a call's own maxRetries, 0 or 4, wins over the client's 2", async () => {
    h.service.injectFault({ kind: 'status', status: 503, path: GET_REQUEST, times: 20 });
    for (const [options, sent] of [
      [undefined, 3],
      [{ maxRetries: 0 }, 1],
      [{ maxRetries: 4 }, 5],
    ] as const) {
      const before = received(h.service, GET_REQUEST).length;
      const { error } = await run(h.client.identityRequests.get(h.codes, options));
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect(received(h.service, GET_REQUEST).length - before, JSON.stringify(options)).toBe(sent);
    }
  });

  test('Retry-After is waited out, not shortened', async () => {
    h.service.injectFault({ kind: 'status', status: 429, retryAfter: '3', path: GET_REQUEST });
    const pending = h.client.identityRequests.get(h.codes);
    await vi.advanceTimersByTimeAsync(2_900);
    expect(received(h.service, GET_REQUEST)).toHaveLength(1);
    const { value } = await run(pending, 200);
    expect(value?.data).toBeDefined();
    expect(received(h.service, GET_REQUEST)).toHaveLength(2);
  });

  test('a Retry-After longer than allowed is surfaced on the RateLimitError at once', async () => {
    h.service.injectFault({ kind: 'status', status: 429, retryAfter: '120', path: GET_REQUEST });
    const { error } = await run(h.client.identityRequests.get(h.codes), 10);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ code: 'ERR_RATE_LIMITED', status: answered(429), retryAfterMs: 120_000, serviceCode: 'E1007' });
    expect(received(h.service, GET_REQUEST)).toHaveLength(1);
  });

  test.each([
    [3_000, 2],
    [2_999, 1],
  ])(
    'a Retry-After of 3 s under maxRetryAfterMs %i makes %i request(s): the cap is the longest wait taken',
    async (maxRetryAfterMs, requests) => {
      const client = h.makeClient({ maxRetryAfterMs });
      h.service.injectFault({ kind: 'status', status: 429, retryAfter: '3', path: GET_REQUEST });
      const { value, error } = await run(client.identityRequests.get(h.codes));
      expect(received(h.service, GET_REQUEST)).toHaveLength(requests);
      if (requests === 2) expect(value?.data).toBeDefined();
      else expect(error).toMatchObject({ code: 'ERR_RATE_LIMITED', retryAfterMs: 3_000 });
    },
  );

  test.each([408, 429, 500, 502, 503, 504, 599])('a read answered %i is retried (a passing failure)', async (status) => {
    h.service.injectFault({ kind: 'status', status, path: GET_REQUEST });
    const { value } = await run(h.client.identityRequests.get(h.codes));
    expect(value?.data.first_name).toBe('Jane');
    expect(received(h.service, GET_REQUEST)).toHaveLength(2);
  });

  test.each([400, 403, 404, 409, 422, 499, 501, 505])(
    'a read answered %i is not retried (the same request would fail the same way)',
    async (status) => {
      h.service.injectFault({ kind: 'status', status, path: GET_REQUEST });
      const { error } = await run(h.client.identityRequests.get(h.codes));
      expect(error).toMatchObject({ status: answered(status) });
      expect(received(h.service, GET_REQUEST)).toHaveLength(1);
    },
  );

  test('create is not repeated after a 500: the outcome is unknown', async () => {
    h.service.injectFault({ kind: 'status', status: 500, path: '/identity/request' });
    const { error } = await run(h.client.identityRequests.create(person({ email: 'x@example.com', phone: '411111111' })));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(received(h.service, /^\/identity\/request$/)).toHaveLength(2); // the harness's create, and this one
  });

  test('create is not repeated after a network error', async () => {
    h.service.injectFault({ kind: 'network', path: '/identity/request' });
    const { error } = await run(h.client.identityRequests.create(person({ email: 'x@example.com', phone: '411111111' })));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'ERR_CONNECTION' });
    expect(received(h.service, /^\/identity\/request$/)).toHaveLength(2); // the harness's create, and this one
  });

  test('create is repeated after a 429, which the service answers before doing anything', async () => {
    h.service.injectFault({ kind: 'status', status: 429, retryAfter: '1', path: '/identity/request' });
    const { value } = await run(h.client.identityRequests.create(person({ email: 'x@example.com', phone: '411111111' })));
    expect(value?.data.access_request_code).toBeDefined();
    expect(received(h.service, /^\/identity\/request$/)).toHaveLength(3); // the harness's create, the 429, the retry
  });

  test('credential submit is not repeated after a 503', async () => {
    h.service.injectFault({ kind: 'status', status: 503, path: '/credentials/submit' });
    const submit = h.client.credentials.submit({
      type: 'acicncchc',
      person_ref: 'u1/u2',
      file: PDF,
      file_name: 'check.pdf',
      issuer_name: 'RP',
      issuer_url: 'https://rp.example',
      issuer_ref: 'rp-1',
    });
    const { error } = await run(submit);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(received(h.service, /^\/credentials\/submit$/)).toHaveLength(1);
  });

  test('the credential endpoints that change nothing, or nothing more when repeated, are retried after a 503: verify, file data and revoke (revoking twice leaves it revoked)', async () => {
    const { value: submitted } = await run(h.client.credentials.submit(credentialInput()));
    const ref = submitted!.data.credential_ref;
    for (const [name, path, call] of [
      ['verify', /^\/credentials\/verify\//, () => h.client.credentials.verify(ref)],
      ['fileData', /^\/credentials\/file-data\//, () => h.client.credentials.fileData(ref)],
      ['revoke', /^\/credentials\/revoke\//, () => h.client.credentials.revoke(ref)],
    ] as const) {
      h.service.injectFault({ kind: 'status', status: 503, path });
      const { value, error } = await run<unknown>(call());
      expect(error, name).toBeUndefined();
      expect(value, name).toMatchObject({ data: expect.any(Object) });
      expect(received(h.service, path), name).toHaveLength(2);
    }
  });
});

describe('deadlines and abort', () => {
  test('a slow answer past the deadline is a TimeoutError carrying the correlation id', async () => {
    h.service.injectFault({ kind: 'delay', ms: 10_000, path: GET_REQUEST });
    const { error } = await run(h.client.identityRequests.get(h.codes, { timeoutMs: 1_000, correlationId: 'corr-42' }), 2_000);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'ERR_TIMEOUT', timeoutMs: 1_000, correlationId: 'corr-42' });
  });

  test('one deadline covers all attempts: a wait that would pass it ends the call with the last error', async () => {
    h.service.injectFault({ kind: 'status', status: 503, path: GET_REQUEST, times: 100 });
    const started = Date.now();
    const { error } = await run(h.client.identityRequests.get(h.codes, { timeoutMs: 2_000, maxRetries: 50 }));
    // The last answer's error, not a TimeoutError, and before the deadline on the fake clock (Date is faked here).
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(Date.now() - started).toBeLessThan(2_000);
    const attempts = received(h.service, GET_REQUEST).length;
    expect(attempts).toBeGreaterThan(1);
    expect(attempts).toBeLessThan(6);
  });

  test.each([
    [2_000, 1],
    [2_001, 2],
  ])('a Retry-After of 2 s under timeoutMs %i makes %i request(s): a retry must start before the deadline', async (timeoutMs, requests) => {
    h.service.injectFault({ kind: 'status', status: 503, retryAfter: '2', path: GET_REQUEST });
    const { value, error } = await run(h.client.identityRequests.get(h.codes, { timeoutMs }));
    expect(received(h.service, GET_REQUEST)).toHaveLength(requests);
    if (requests === 2) expect(value?.data).toBeDefined();
    else expect(error).toBeInstanceOf(ServiceUnavailableError);
  });

  test('aborting the signal ends the call with an AbortError', async () => {
    h.service.injectFault({ kind: 'delay', ms: 10_000, path: GET_REQUEST });
    const controller = new AbortController();
    const pending = run(h.client.identityRequests.get(h.codes, { signal: controller.signal }), 100);
    controller.abort();
    const { error } = await pending;
    expect(error).toBeInstanceOf(AbortError);
  });

  test('a call aborted while its request is in flight is not retried, and its attempt is reported aborted, without a system code', async () => {
    const onRetry = vi.fn();
    const onResponse = vi.fn();
    const client = h.makeClient({ hooks: { onRetry, onResponse } });
    await client.auth.accessToken();
    onResponse.mockClear();
    h.service.injectFault({ kind: 'delay', ms: 10_000, path: GET_REQUEST });
    const controller = new AbortController();
    const call = client.identityRequests.get(h.codes, { signal: controller.signal });
    // The fake clock stands still until the request has arrived (and its answer is 10 s away).
    while (received(h.service, GET_REQUEST).length === 0) await realPause();
    // A reason that looks like a system error is still the caller's, not the network's.
    controller.abort(Object.assign(new Error('shutting down'), { code: 'ESHUTDOWN' }));
    const { error } = await run(call, 100);
    expect(error).toBeInstanceOf(AbortError);
    await vi.waitFor(() => expect(onResponse).toHaveBeenCalledTimes(1));
    expect(onResponse.mock.calls[0]![0]).toMatchObject({ errorCode: 'ERR_ABORTED' });
    expect(onResponse.mock.calls[0]![0]).not.toHaveProperty('systemCode');
    expect(onRetry).not.toHaveBeenCalled();
    expect(received(h.service, GET_REQUEST)).toHaveLength(1);
  });

  test('an already aborted signal sends nothing', async () => {
    const error = await rejection(h.client.identityRequests.get(h.codes, { signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ code: 'ERR_ABORTED' });
    expect(received(h.service, GET_REQUEST)).toHaveLength(0);
  });

  test('the caller correlation id is sent and carried on errors', async () => {
    h.service.injectFault({ kind: 'status', status: 404, path: GET_REQUEST });
    const { error } = await run(h.client.identityRequests.get(h.codes, { correlationId: 'trace-7' }));
    expect(received(h.service, GET_REQUEST)[0]!.headers['x-correlation-id']).toBe('trace-7');
    expect(error).toMatchObject({ correlationId: 'trace-7', code: 'ERR_NOT_FOUND' });
  });
});

describe('backoff and Retry-After parsing', () => {
  test('backoff grows exponentially, is capped at 8 s, and keeps jitter within its upper half', () => {
    expect(backoffMs(0, () => 0)).toBe(250);
    expect(backoffMs(0, () => 1)).toBe(500);
    expect(backoffMs(3, () => 1)).toBe(4_000);
    expect(backoffMs(30, () => 1)).toBe(8_000);
    expect(backoffMs(30, () => 0)).toBe(4_000);
  });

  test('Retry-After is read as seconds, as an HTTP date, or from Retry-After-Ms', () => {
    const now = Date.UTC(2026, 10, 22, 12);
    expect(retryAfterMs(new Headers({ 'retry-after': '7' }), now)).toBe(7_000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(now + 5_000).toUTCString() }), now)).toBe(5_000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500' }), now)).toBe(1_500);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  test('Retry-After-Ms takes fractions and wins over Retry-After; a value with anything around its number is not one', () => {
    const now = Date.UTC(2026, 10, 22, 12);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': ' 2.5 ', 'retry-after': '9' }), now)).toBe(2.5);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '2.125', 'retry-after': '9' }), now)).toBe(2.125);
    // An unreadable Retry-After-Ms leaves Retry-After to decide.
    for (const ms of ['x1500', '1500x', '1.5.5', '-20', '']) {
      expect(retryAfterMs(new Headers({ 'retry-after-ms': ms, 'retry-after': '9' }), now), ms).toBe(9_000);
    }
    // Digits with text around them are not seconds: read as a date, which they are not.
    for (const seconds of ['7s', 'in 7']) expect(retryAfterMs(new Headers({ 'retry-after': seconds }), now), seconds).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': ' 7 ' }), now)).toBe(7_000);
    // A date already past asks for no wait at all.
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(now - 60_000).toUTCString() }), now)).toBe(0);
  });

  test('property: around a number, the whitespace HTTP allows (space, tab) is passed over; any other space makes it no number (#45)', () => {
    const now = Date.UTC(2026, 10, 22, 12);
    const http = fc.string({ unit: fc.constantFrom(' ', '\t') });
    // What String#trim takes and HTTP does not, among the bytes a header value can hold: no-break space, vertical tab, form feed.
    const other = fc.constantFrom('\u00a0', '\v', '\f');
    fc.assert(
      fc.property(fc.nat({ max: 3_600 }), http, http, (n, before, after) => {
        expect(retryAfterMs(new Headers({ 'retry-after': `${before}${n}${after}` }), now)).toBe(n * 1_000);
        expect(retryAfterMs(new Headers({ 'retry-after-ms': `${before}${n}${after}` }), now)).toBe(n);
      }),
    );
    fc.assert(
      fc.property(fc.nat({ max: 3_600 }), other, fc.boolean(), (n, space, first) => {
        const value = first ? `${space}${n}` : `${n}${space}`;
        expect(retryAfterMs(new Headers({ 'retry-after': value }), now)).toBeUndefined();
        expect(retryAfterMs(new Headers({ 'retry-after-ms': value, 'retry-after': '9' }), now)).toBe(9_000);
      }),
    );
  });
});
