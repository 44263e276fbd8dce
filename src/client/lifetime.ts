/**
 * How long an API token lives, read from the token response: the one place that turns
 * `expires_in`, `expires` and the JWT's `exp` into an expiry. Time is never guessed: a date without
 * a zone, a number where a date belongs, a lifetime that is negative or implausible is not used;
 * when the sources that remain disagree, the earliest wins (a token renewed early costs one
 * request; one used past its expiry costs a refused call), and every source set aside is named.
 */

/** The longest lifetime taken at its word: past it, `expires_in` was likely written in milliseconds. */
export const MAX_PLAUSIBLE_LIFETIME_MS = 7 * 24 * 3_600_000;

/** Sources that differ by less than this agree (clocks and rounding). */
const AGREEMENT_MS = 60_000;

/** An RFC 2822 / RFC 7231 date with its zone (`Fri, 27 Nov 2026 10:00:00 GMT`, `… +1100`). */
const RFC2822_ZONED =
  /^\s*(?:[A-Za-z]{3},\s*)?(?<day>\d{1,2})\s+(?<month>[A-Za-z]{3})\s+(?<year>\d{4})\s+\d{2}:\d{2}(?::\d{2})?\s+(?:[+-]\d{4}|GMT|UTC?|Z|[ECMP][SD]T)\s*$/;
/** An ISO 8601 / RFC 3339 date-time with its zone (`2026-11-27T10:00:00Z`, `…+11:00`). */
const ISO_ZONED = /^\s*(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:?\d{2})\s*$/;

/**
 * A date the service wrote, in ms, when it names an instant unambiguously: RFC 2822 (the spec's
 * form for `expires`) or ISO 8601, each with a zone. A date without a zone (what Python's
 * `datetime.utcnow().isoformat()` writes) is read by `Date.parse` in this machine's zone, so it is
 * refused: `undefined` with the reason.
 */
export function zonedDate(text: string): { ms: number } | { reason: string } {
  const written = (ISO_ZONED.exec(text) ?? RFC2822_ZONED.exec(text))?.groups;
  if (!written) {
    return { reason: 'is not an RFC 2822 or ISO 8601 date with a zone (a date without one names no instant)' };
  }
  const ms = Date.parse(text.trim());
  return Number.isFinite(ms) && isCalendarDay(written) ? { ms } : { reason: 'is not a calendar date' };
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * Whether the day a date writes is in its month (the `year`, `month` and `day` the patterns above
 * capture, the month by number or by name): `Date.parse` moves 30 February to 2 March (in either
 * form) rather than refusing it, and a day that does not exist names no instant.
 */
function isCalendarDay({ year, month = '', day }: Record<string, string | undefined>): boolean {
  const monthIndex = /^\d+$/.test(month) ? Number(month) - 1 : MONTHS.indexOf(month.toLowerCase());
  return new Date(Date.UTC(Number(year), monthIndex, Number(day))).getUTCDate() === Number(day);
}

/** What the token response says of its lifetime, as the schema read it. */
export interface LifetimeFields {
  expires_in?: number;
  expires?: string;
}

/** The expiry the SDK will use, on the local clock, and where it came from. */
export interface TokenLifetime {
  expiresAt: number;
  /** The field it came from: `expires_in`, `expires`, the JWT's `exp`, or none of them (`fallback`). */
  source: 'expires_in' | 'expires' | 'exp' | 'fallback';
  /** Each source present but not used, with why: for a warning, never silent. */
  ignored: string[];
}

/**
 * The expiry of a token, on the local clock.
 * @param now the local clock, ms
 * @param offsetMs the service's clock minus the local one (absolute dates are the service's time)
 * @param jwtExp the access token's `exp` in ms, when it has one
 * @param fallbackMs the lifetime assumed when no source can be used
 */
export function tokenLifetime(
  fields: LifetimeFields,
  jwtExp: number | undefined,
  now: number,
  offsetMs: number,
  fallbackMs: number,
): TokenLifetime {
  const ignored: string[] = [];
  const candidates: { source: TokenLifetime['source']; expiresAt: number }[] = [];
  const plausible = (source: TokenLifetime['source'], expiresAt: number, shown: string) => {
    const lifetime = expiresAt - now;
    if (lifetime <= 0) ignored.push(`${source} (${shown}) is already past`);
    else if (lifetime > MAX_PLAUSIBLE_LIFETIME_MS) ignored.push(`${source} (${shown}) is more than 7 days away, which no API token lives`);
    else candidates.push({ source, expiresAt });
  };
  const { expires_in: seconds, expires } = fields;
  if (seconds !== undefined) {
    if (Number.isFinite(seconds)) plausible('expires_in', now + seconds * 1000, `${seconds} s`);
    else ignored.push('expires_in is not a number');
  }
  if (expires !== undefined) {
    const date = zonedDate(expires);
    if ('ms' in date) plausible('expires', date.ms - offsetMs, 'a date');
    else ignored.push(`expires ${date.reason}`);
  }
  if (jwtExp !== undefined) plausible('exp', jwtExp - offsetMs, "the token's exp");
  if (candidates.length === 0) return { expiresAt: now + fallbackMs, source: 'fallback', ignored };
  const earliest = candidates.reduce((a, b) => (b.expiresAt < a.expiresAt ? b : a));
  for (const other of candidates) {
    if (other !== earliest && other.expiresAt - earliest.expiresAt > AGREEMENT_MS) {
      ignored.push(
        `${other.source} says ${Math.round((other.expiresAt - now) / 1000)} s, later than ${earliest.source}'s ${Math.round((earliest.expiresAt - now) / 1000)} s`,
      );
    }
  }
  return { expiresAt: earliest.expiresAt, source: earliest.source, ignored };
}
