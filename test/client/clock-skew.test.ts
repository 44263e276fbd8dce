/**
 * One time base: token expiries are moved onto the local clock with the offset learnt from the
 * service's `Date` headers, whichever form the token response gives its lifetime in.
 */
import { describe, expect, test } from 'vitest';
import type { FakeServiceOptions } from '../../src/testing/index.js';
import { RateLimitError } from '../../src/index.js';
import { harness, person, received } from '../helpers.js';

const T0 = Date.UTC(2026, 10, 24, 12);
const TTL_SECONDS = 900;
const MARGIN_SECONDS = 60;

/** The units a service may write its JWTs' `iat` and `exp` in (the `tokenTimes` reading). */
const TOKEN_TIMES = ['seconds', 'milliseconds', 'microseconds'] as const;
type TokenTimes = (typeof TOKEN_TIMES)[number];

/** A fake whose clock runs `skewMs` ahead of the client's (behind when negative). */
async function skewed(skewMs: number, tokenLifetime: FakeServiceOptions['tokenLifetime'], tokenTimes: TokenTimes = 'seconds') {
  const clock = { now: T0 };
  const h = await harness({
    fake: {
      now: () => clock.now + skewMs,
      accessTokenTtlSeconds: TTL_SECONDS,
      readings: { tokenTimes },
      ...(tokenLifetime ? { tokenLifetime } : {}),
    },
    client: { now: () => clock.now, refreshMarginSeconds: MARGIN_SECONDS },
  });
  return { ...h, clock };
}

const FORMS = [
  ['expires_in', 'expires_in', 'seconds'],
  ['expires (absolute, service time)', 'expires', 'seconds'],
  ["the JWT's exp alone", 'none', 'seconds'],
  ["the JWT's exp alone, in milliseconds", 'none', 'milliseconds'],
] as const;
const SKEWS = [
  ['10 minutes behind', -600_000],
  ['10 minutes ahead', 600_000],
] as const;

describe.each(SKEWS)('the service clock %s', (_label, skewMs) => {
  test.each(FORMS)('lifetime from %s: one token request for the whole lifetime, one refresh after it', async (_form, lifetime, times) => {
    const h = await skewed(skewMs, lifetime, times);
    const { data } = await h.client.identityRequests.create(person());
    const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
    let calls = 1;
    // Calls every 30 s until just before the refresh margin: the first token serves them all.
    for (let elapsed = 30; elapsed < TTL_SECONDS - MARGIN_SECONDS - 5; elapsed += 30) {
      h.clock.now = T0 + elapsed * 1000;
      await h.client.identityRequests.get(codes);
      calls += 1;
    }
    expect(received(h.service, /^\/auth\/api-token$/)).toHaveLength(1);
    expect(received(h.service, /^\/auth\/api-token\/refresh$/)).toHaveLength(0);
    // Inside the margin the token is refreshed once, and never used after it expired (no 401).
    for (let elapsed = TTL_SECONDS - MARGIN_SECONDS + 5; elapsed < TTL_SECONDS + 120; elapsed += 30) {
      h.clock.now = T0 + elapsed * 1000;
      await h.client.identityRequests.get(codes);
      calls += 1;
    }
    expect(received(h.service, /^\/auth\/api-token\/refresh$/)).toHaveLength(1);
    expect(received(h.service, /^\/auth\/api-token$/)).toHaveLength(1);
    // No call was sent twice: none met a 401 for a token the client wrongly thought valid.
    expect(received(h.service, /^\/identity\//)).toHaveLength(calls);
  });
});

/**
 * A client and a fake whose clock runs `skewMs` ahead of the client's, the fake's answers carrying
 * the `Date` header `dateOf(path)` gives (none when it gives `undefined`).
 */
async function dated(
  skewMs: number,
  dateOf: (path: string) => string | undefined,
  correctClockSkew = true,
  tokenTimes: TokenTimes = 'seconds',
) {
  const clock = { now: T0 };
  const { makeClient, service } = await harness({ fake: { now: () => clock.now + skewMs, readings: { tokenTimes } } });
  const client = makeClient({
    now: () => clock.now,
    correctClockSkew,
    fetch: async (request) => {
      const answer = await service.fetch(request);
      const headers = new Headers(answer.headers);
      const date = dateOf(new URL(request.url).pathname);
      if (date === undefined) headers.delete('date');
      else headers.set('date', date);
      return new Response(await answer.arrayBuffer(), { status: answer.status, headers });
    },
  });
  /** What the client believes the service's clock is ahead of its own, in ms. */
  const offset = () => client.serviceTime() - clock.now;
  return { client, offset };
}

describe('the clock learnt from a token, for a service that sends no Date header', () => {
  test.each(
    TOKEN_TIMES.flatMap((times) =>
      (
        [
          [2_500, 0],
          [3_000, 3_000],
          [-3_000, -3_000],
          [600_000, 600_000],
        ] as const
      ).map(([skew, expected]) => [skew, expected, times] as const),
    ),
  )(
    'the service %i ms ahead: the offset learnt from the iat is %i, its iat in %s (3 s or more is applied; less is within iat’s truncation to seconds, and ignored)',
    async (skewMs, expected, times) => {
      const { client, offset } = await dated(skewMs, () => undefined, true, times);
      await client.auth.accessToken();
      expect(offset()).toBe(expected);
    },
  );

  test('a token whose iat is in milliseconds, from a service 10 minutes ahead and sending no Date: identity calls are stamped on its clock', async () => {
    const { client } = await dated(600_000, () => undefined, true, 'milliseconds');
    // The fake refuses an X-Request-Timestamp outside its window (300 s): a clock read as thousands of years ahead fails here.
    await expect(client.identityRequests.create(person())).resolves.toMatchObject({ data: { access_request_code: expect.any(String) } });
  });

  test('not learnt with correctClockSkew: false', async () => {
    const { client, offset } = await dated(600_000, () => undefined, false);
    await client.auth.accessToken();
    expect(offset()).toBe(0);
  });

  test('never over an offset learnt from a Date header: a token answered without one leaves it', async () => {
    // Every answer but the token endpoint's carries a Date on the client's own clock: offset 0.
    const { client, offset } = await dated(600_000, (path) => (path.includes('/auth/api-token') ? undefined : new Date(T0).toUTCString()));
    await client.status.current();
    await client.auth.accessToken();
    expect(offset()).toBe(0);
  });

  test("a token answer with a Date header is read by its Date, whatever its token's iat says", async () => {
    // The token's iat is 10 minutes ahead; the Date header of the same answer, 1 minute behind.
    const { client, offset } = await dated(600_000, () => new Date(T0 - 60_000).toUTCString());
    await client.auth.accessToken();
    expect(offset()).toBe(-60_000);
  });

  test('an unreadable Date header teaches nothing: the offset learnt before it stands', async () => {
    let date = new Date(T0 + 600_000).toUTCString();
    const { client, offset } = await dated(0, () => date);
    await client.status.current();
    expect(offset()).toBe(600_000);
    date = 'not a date';
    await client.status.current();
    expect(offset()).toBe(600_000);
  });
});

describe("a Retry-After given as an HTTP date is read on the service's clock", () => {
  const GET_REQUEST = /^\/identity\/request\/[^/]+\/[^/]+$/;
  /** A request of a skewed fake, its offset learnt, whose reads answer 429 with `Retry-After` 30 s ahead on the service's clock. */
  async function rateLimited(skewMs: number) {
    const h = await skewed(skewMs, undefined);
    const { data } = await h.client.identityRequests.create(person());
    h.service.injectFault({ kind: 'status', status: 429, retryAfter: new Date(T0 + skewMs + 30_000).toUTCString(), path: GET_REQUEST });
    return { ...h, codes: { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code } };
  }

  test.each(SKEWS)('the service %s: the RateLimitError says the 30 s the service asked for', async (_label, skewMs) => {
    const h = await rateLimited(skewMs);
    const error = await h.client.identityRequests.get(h.codes, { maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfterMs: 30_000 });
  });

  test.each(SKEWS)('the service %s: a wait of 30 s is longer than maxRetryAfterMs (10 s), so it is not retried', async (_label, skewMs) => {
    const h = await rateLimited(skewMs);
    const client = h.makeClient({ now: () => h.clock.now, maxRetryAfterMs: 10_000 });
    await client.status.current();
    const error = await client.identityRequests.get(h.codes).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_RATE_LIMITED', retryAfterMs: 30_000 });
    expect(received(h.service, GET_REQUEST)).toHaveLength(1);
  });
});
