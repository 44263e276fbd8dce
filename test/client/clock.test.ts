/**
 * The service clock on its own, on a controlled local clock: what a `Date` header and a token's
 * `iat` teach it, what they do not (a skew within their resolution, the same `Date` again, a token
 * once a `Date` came), and `correctClockSkew: false`. How the client uses it is in clock-skew.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ServiceClock } from '../../src/client/clock.js';
import { formatTimestamp } from '../../src/client/options.js';
import { jwtTime } from '../../src/internal/times.js';
import { tokenExpiry } from '../../src/inbox/rules.js';
import { numericDate } from '../../src/internal/times.js';

/** A whole second, so that a `Date` header (seconds) states the service's time exactly. */
const T0 = 1_790_000_000_000;
const dateAt = (ms: number) => new Date(ms).toUTCString();
const tokenIssuedAt = (ms: number) => `${btoa('{"alg":"none"}')}.${btoa(JSON.stringify({ iat: ms / 1000 })).replace(/=+$/, '')}.`;

function clock(learns = true) {
  let local = T0;
  const service = new ServiceClock(() => local, learns);
  return { service, at: (ms: number) => (local = ms) };
}

describe('ServiceClock', () => {
  /** Each source the clock learns from, and the least offset it teaches (within it, none: the source's resolution). */
  const sources: [string, number, (service: ServiceClock, serviceMs: number) => void][] = [
    ['a Date header', 2, (service, serviceMs) => service.learnFromDate(dateAt(serviceMs))],
    ["a token's iat", 3, (service, serviceMs) => service.learnFromToken(tokenIssuedAt(serviceMs))],
  ];
  test.each(sources)(
    'property: %s teaches the offset when it is %i s or more either way, and nothing within that',
    (_source, least, learn) => {
      fc.assert(
        fc.property(fc.integer({ min: -600, max: 600 }), (seconds) => {
          const { service } = clock();
          learn(service, T0 + seconds * 1000);
          const expected = Math.abs(seconds) >= least ? seconds * 1000 : 0;
          expect(service.offsetMs()).toBe(expected);
          expect(service.now()).toBe(T0 + expected);
        }),
        { examples: [[least], [-least], [least - 1], [1 - least]] },
      );
    },
  );

  test('the same Date again teaches nothing (the header changes once a second); a new one, or one unreadable, as it says', () => {
    const { service, at } = clock();
    service.learnFromDate(dateAt(T0 + 10_000));
    // 9.5 s later the same header (a cached answer, or the same second): the offset learnt stands.
    at(T0 + 9_500);
    service.learnFromDate(dateAt(T0 + 10_000));
    expect(service.offsetMs()).toBe(10_000);
    service.learnFromDate('not a date');
    expect(service.offsetMs()).toBe(10_000);
    service.learnFromDate(dateAt(T0 + 9_000));
    expect(service.offsetMs()).toBe(0);
    service.learnFromDate(null);
    expect(service.offsetMs()).toBe(0);
  });

  test("a token's iat teaches the offset from 3 s (a second more than a Date, for its truncation), and nothing once a Date came", () => {
    const ahead = clock();
    ahead.service.learnFromToken(tokenIssuedAt(T0 + 5_000));
    expect(ahead.service.offsetMs()).toBe(5_000);
    const near = clock();
    near.service.learnFromToken(tokenIssuedAt(T0 + 2_000));
    expect(near.service.offsetMs()).toBe(0);
    const dated = clock();
    dated.service.learnFromDate(dateAt(T0));
    dated.service.learnFromToken(tokenIssuedAt(T0 + 60_000));
    expect(dated.service.offsetMs()).toBe(0);
    const none = clock();
    none.service.learnFromToken(undefined);
    none.service.learnFromToken('not.a-token.');
    expect(none.service.offsetMs()).toBe(0);
  });

  test('with correctClockSkew off nothing is learnt: the service clock is the local one', () => {
    const { service } = clock(false);
    service.learnFromDate(dateAt(T0 + 600_000));
    service.learnFromToken(tokenIssuedAt(T0 + 600_000));
    expect(service.now()).toBe(T0);
  });

  test('jwtTime reads a time claim in ms, and nothing from what is not a JWT with one', () => {
    expect(jwtTime(tokenIssuedAt(T0), 'iat')).toBe(T0);
    expect(jwtTime(tokenIssuedAt(T0), 'exp')).toBeUndefined();
    for (const token of ['', 'one-part', 'a..c', 'a.%%%.c', `x.${btoa('null')}.`, `x.${btoa('{"exp":true}')}.`]) {
      expect(jwtTime(token, 'exp'), token).toBeUndefined();
    }
  });
});

/** A JWT (unsigned: only read, never verified here) whose payload is `claims`. */
const jwtOf = (claims: Record<string, unknown>) =>
  `${btoa('{"alg":"none"}')}.${btoa(JSON.stringify(claims)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')}.`;

describe("a JWT's times, one rule wherever they are read", () => {
  test("property: the client's clock and lifetime (jwtTime) and the inbox's token expiry read an iat or exp as numericDate does, in seconds, milliseconds or digits", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1e8, max: 95_617_584_000 }),
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom<(t: number, ms: number) => unknown>(
          (t) => t,
          (t, ms) => t * 1000 + ms,
          (t, ms) => t + ms / 1000,
          (t) => String(t),
          (t, ms) => String(t * 1000 + ms),
        ),
        (t, ms, form) => {
          const written = form(t, ms);
          expect(numericDate(written)).toBe(t);
          expect(jwtTime(jwtOf({ iat: written }), 'iat')).toBe(t * 1000);
          expect(jwtTime(jwtOf({ exp: written }), 'exp')).toBe(t * 1000);
          expect(tokenExpiry(jwtOf({ exp: written }), T0, 60_000)).toBe(t * 1000);
        },
      ),
    );
  });

  test("the inbox's token expiry falls back to the lifetime for an exp that names no instant after 1970", () => {
    // A date is not a JWT's time (RFC 7519's NumericDate is a number): not read, as jwtTime does not read it.
    const date = new Date(T0 + 600_000).toISOString();
    expect(jwtTime(jwtOf({ exp: date }), 'exp')).toBeUndefined();
    for (const exp of [undefined, null, true, '', 'soon', 0, -5, '0', date]) {
      expect(tokenExpiry(jwtOf({ exp }), T0, 60_000), String(exp)).toBe(T0 + 60_000);
    }
    expect(tokenExpiry('not a JWT', T0, 60_000)).toBe(T0 + 60_000);
  });
});

describe('X-Request-Timestamp in each format (formatTimestamp)', () => {
  test('property: whole seconds and whole milliseconds are floored, never rounded up past the instant; ISO 8601 is the instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.double({ min: 0, max: 0.999, noNaN: true }), (ms, fraction) => {
        // A clock of the caller's may have a fraction of a millisecond (performance.timeOrigin + performance.now()).
        const at = ms + fraction;
        expect(formatTimestamp('unix-seconds', at)).toBe(String(Math.floor(ms / 1000)));
        expect(formatTimestamp('unix-ms', at)).toBe(String(ms));
        expect(formatTimestamp('iso8601', at)).toBe(new Date(ms).toISOString());
        expect(formatTimestamp((date) => `at ${date.getTime()}`, ms)).toBe(`at ${ms}`);
      }),
      { examples: [[1_790_000_000_999, 0.5]] },
    );
  });
});
