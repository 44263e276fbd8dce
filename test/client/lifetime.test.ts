/** The token's lifetime, read from what the token response says: time is never guessed. */
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { MAX_PLAUSIBLE_LIFETIME_MS, tokenLifetime } from '../../src/client/lifetime.js';
import { zonedDate } from '../../src/internal/times.js';
import { MemoryTokenStore, TokenManager } from '../../src/client/tokens.js';

const NOW = Date.UTC(2026, 10, 27, 1, 0, 0);
const FALLBACK = 5 * 60_000;
/** Instants within a century of now, whole seconds. */
const instant = fc.integer({ min: -3e9, max: 3e9 }).map((s) => NOW + s * 1000);
/** Zone offsets that exist, in minutes. */
const offsetMinutes = fc.integer({ min: -12 * 60, max: 14 * 60 });

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** `ms` as an ISO 8601 local time at `offset` minutes east of UTC, with or without the zone written. */
function iso(ms: number, offset: number, zone: boolean): string {
  const d = new Date(ms + offset * 60_000);
  const local = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  if (!zone) return local;
  return `${local}${offset < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}

/** `ms` in RFC 2822 at `offset` minutes east of UTC, with or without the zone. */
function rfc2822(ms: number, offset: number, zone: boolean): string {
  const d = new Date(ms + offset * 60_000);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()];
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  const text = `${day}, ${pad(d.getUTCDate())} ${month} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  if (!zone) return text;
  return `${text} ${offset < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(offset) / 60))}${pad(Math.abs(offset) % 60)}`;
}

describe('zonedDate', () => {
  test('a date with its zone names its instant, in either form, whatever the zone', () => {
    fc.assert(
      fc.property(instant, offsetMinutes, (ms, offset) => {
        expect(zonedDate(iso(ms, offset, true))).toEqual({ ms });
        expect(zonedDate(rfc2822(ms, offset, true))).toEqual({ ms });
      }),
    );
  });

  test('a date without a zone is never read (Python utcnow().isoformat(), an RFC 2822 date cut short)', () => {
    fc.assert(
      fc.property(instant, fc.boolean(), (ms, micro) => {
        const naive = iso(ms, 0, false) + (micro ? '.123456' : '');
        expect(zonedDate(naive)).toHaveProperty('reason');
        expect(zonedDate(rfc2822(ms, 0, false))).toHaveProperty('reason');
        // Whitespace after the time is no zone either.
        expect(zonedDate(`${naive} `)).toHaveProperty('reason');
        expect(zonedDate(`${rfc2822(ms, 0, false)} `)).toHaveProperty('reason');
      }),
    );
  });

  test('whitespace around a date is read past, and inside RFC 2822 as that form allows; anything else around it is no date', () => {
    const at = Date.UTC(2030, 0, 1);
    for (const text of [
      ' 2030-01-01T00:00:00Z',
      '2030-01-01T00:00:00Z ',
      '\t2030-01-01T00:00:00.5Z\n',
      ' Tue, 01 Jan 2030 00:00:00 GMT ',
    ]) {
      expect(zonedDate(text), JSON.stringify(text)).toEqual({ ms: at + (text.includes('.5Z') ? 500 : 0) });
    }
    // RFC 2822's folding white space: none after the day's comma, several between the fields.
    for (const text of ['Tue,01 Jan 2030 00:00:00 GMT', '01  Jan  2030 00:00:00 GMT']) expect(zonedDate(text), text).toEqual({ ms: at });
    // Text before or after is not a date of either form (Date.parse would read past a word before an RFC 2822 date).
    const notADate = { reason: 'is not an RFC 2822 or ISO 8601 date with a zone (a date without one names no instant)' };
    for (const text of ['x 01 Jan 2030 00:00:00 GMT', '2030-01-01T00:00:00Z x', '2030-01-01T00:00:00Zx', 'x2030-01-01T00:00:00Z']) {
      expect(zonedDate(text), text).toEqual(notADate);
    }
  });

  test('numbers and free text are not dates, nor is a date of the right form that no calendar has', () => {
    for (const text of ['1764230400', '1764230400000', 'tomorrow', '', '2026-11-27', 'Z']) expect(zonedDate(text)).toHaveProperty('reason');
    // Date.parse would read 30 February as 2 March, in either form: a day the month lacks is refused.
    for (const text of ['2026-13-45T00:00:00Z', '2026-02-30T00:00:00Z', '2026-04-31T10:00:00+10:00', 'Mon, 30 Feb 2026 10:00:00 GMT']) {
      expect(zonedDate(text), text).toEqual({ reason: 'is not a calendar date' });
    }
    expect(zonedDate('2028-02-29T00:00:00Z')).toEqual({ ms: Date.UTC(2028, 1, 29) });
    expect(zonedDate('Tue, 29 Feb 2028 00:00:00 GMT')).toEqual({ ms: Date.UTC(2028, 1, 29) });
    // And such an expires is set aside by name, never an expiry of NaN.
    const result = tokenLifetime({ expires_in: 900, expires: '2026-13-45T00:00:00Z' }, undefined, NOW, 0, FALLBACK);
    expect(result).toEqual({ expiresAt: NOW + 900_000, source: 'expires_in', ignored: ['expires is not a calendar date'] });
  });
});

describe('tokenLifetime', () => {
  const sources = fc.record(
    {
      expires_in: fc.oneof(fc.integer({ min: -1000, max: 10_000_000 }), fc.constant(Number.NaN)),
      expires: fc.oneof(
        fc
          .tuple(instant, offsetMinutes, fc.boolean(), fc.boolean())
          .map(([ms, offset, zone, form]) => (form ? iso(ms, offset, zone) : rfc2822(ms, offset, zone))),
        fc.string(),
      ),
      exp: instant,
      offset: fc.integer({ min: -3_600_000, max: 3_600_000 }),
    },
    { requiredKeys: ['offset'] },
  );

  test('the expiry used is in the future, plausible, and no later than any usable source; every other source is named', () => {
    fc.assert(
      fc.property(sources, ({ expires_in, expires, exp, offset }) => {
        const fields = { ...(expires_in === undefined ? {} : { expires_in }), ...(expires === undefined ? {} : { expires }) };
        const result = tokenLifetime(fields, exp, NOW, offset, FALLBACK);
        expect(result.expiresAt).toBeGreaterThan(NOW);
        expect(result.expiresAt - NOW).toBeLessThanOrEqual(MAX_PLAUSIBLE_LIFETIME_MS);
        const usable: number[] = [];
        if (expires_in !== undefined && expires_in > 0 && expires_in * 1000 <= MAX_PLAUSIBLE_LIFETIME_MS)
          usable.push(NOW + expires_in * 1000);
        if (exp !== undefined && exp - offset > NOW && exp - offset - NOW <= MAX_PLAUSIBLE_LIFETIME_MS) usable.push(exp - offset);
        for (const at of usable) expect(result.expiresAt).toBeLessThanOrEqual(at);
        if (result.source === 'fallback') expect(result.expiresAt).toBe(NOW + FALLBACK);
        const present = [expires_in, expires, exp].filter((v) => v !== undefined).length;
        if (present > 0 && result.source === 'fallback') expect(result.ignored.length).toBe(present);
      }),
    );
  });

  test('a zone-less expires is set aside and said so; expires_in decides', () => {
    const result = tokenLifetime({ expires_in: 900, expires: '2026-11-27T01:15:00' }, undefined, NOW, 0, FALLBACK);
    expect(result).toMatchObject({ expiresAt: NOW + 900_000, source: 'expires_in' });
    expect(result.ignored.join()).toMatch(/expires .*zone/);
  });

  test('expires_in written in milliseconds is implausible and not used', () => {
    const result = tokenLifetime({ expires_in: 900_000 }, NOW + 900_000, NOW, 0, FALLBACK);
    expect(result).toMatchObject({ expiresAt: NOW + 900_000, source: 'exp' });
    // An hour written in milliseconds, alone: 41 days is no API token's life, and the fallback is used.
    expect(tokenLifetime({ expires_in: 3_600_000 }, undefined, NOW, 0, FALLBACK)).toMatchObject({ source: 'fallback' });
    expect(tokenLifetime({ expires_in: 8 * 86_400 }, undefined, NOW, 0, FALLBACK)).toMatchObject({ source: 'fallback' });
  });

  test('seven days is the longest lifetime taken at its word: exactly seven days is used, a second more is not', () => {
    const week = MAX_PLAUSIBLE_LIFETIME_MS / 1000;
    expect(tokenLifetime({ expires_in: week }, undefined, NOW, 0, FALLBACK)).toMatchObject({ source: 'expires_in', ignored: [] });
    expect(tokenLifetime({ expires_in: week + 1 }, undefined, NOW, 0, FALLBACK)).toMatchObject({ source: 'fallback' });
  });

  test('sources that disagree: the earliest wins and the later is named', () => {
    const result = tokenLifetime({ expires_in: 3600 }, NOW + 600_000, NOW, 0, FALLBACK);
    expect(result).toMatchObject({ expiresAt: NOW + 600_000, source: 'exp' });
    // Each lifetime in seconds from now.
    expect(result.ignored).toEqual(["expires_in says 3600 s, later than exp's 600 s"]);
  });

  test('sources within a minute of each other agree (clocks, rounding): the earliest is used and nothing is named', () => {
    // exp is whole seconds and written a moment after expires_in was counted: a second or two apart is one lifetime.
    // Equal instants are the first source's (expires_in); a minute apart exactly still agrees.
    for (const apartMs of [0, 1, 1_500, 59_999, 60_000]) {
      const result = tokenLifetime({ expires_in: 900 }, NOW + 900_000 + apartMs, NOW, 0, FALLBACK);
      expect(result).toEqual({ expiresAt: NOW + 900_000, source: 'expires_in', ignored: [] });
    }
    expect(tokenLifetime({ expires_in: 900 }, NOW + 900_000 + 60_001, NOW, 0, FALLBACK).ignored).toHaveLength(1);
  });
});

describe('the token manager on a machine in another zone', () => {
  const zone = process.env['TZ'];
  afterEach(() => {
    if (zone === undefined) delete process.env['TZ'];
    else process.env['TZ'] = zone;
  });

  test('a zone-less expires is not read in the machine zone (regression: in Sydney the token was expired on arrival)', async () => {
    process.env['TZ'] = 'Australia/Sydney';
    let now = Date.now();
    let requests = 0;
    // utcnow().isoformat(): UTC wall time, no zone, 15 minutes ahead.
    const naive = new Date(now + 15 * 60_000).toISOString().slice(0, 19);
    const grant = () => {
      requests += 1;
      return Promise.resolve({ access_token: `token-${requests}`, expires: naive });
    };
    const manager = new TokenManager({
      endpoints: { authenticate: grant, refresh: grant },
      store: new MemoryTokenStore(),
      key: 'k',
      refreshMarginSeconds: 30,
      now: () => now,
    });
    expect(await manager.accessToken()).toBe('token-1');
    now += 60_000;
    expect(await manager.accessToken()).toBe('token-1');
    expect(requests).toBe(1);
  });
});
