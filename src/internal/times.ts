/**
 * Times the service writes, read by one rule wherever they are read (the REST client's schemas,
 * the identity response's verifier, the token's lifetime): the spec types them as UNIX seconds, and
 * a service may write the same instant in milliseconds (or a finer unit), with a fraction, as a
 * string of digits, or as a date with its zone. A form that names no instant unambiguously (a date
 * without its zone) is refused, never guessed at.
 */

/** An RFC 2822 / RFC 7231 date with its zone (`Fri, 27 Nov 2026 10:00:00 GMT`, `… +1100`). */
const RFC2822_ZONED =
  /^\s*(?:[A-Za-z]{3},\s*)?(?<day>\d{1,2})\s+(?<month>[A-Za-z]{3})\s+(?<year>\d{4})\s+\d{2}:\d{2}(?::\d{2})?\s+(?:[+-]\d{4}|GMT|UTC?|Z|[ECMP][SD]T)\s*$/;
/** An ISO 8601 / RFC 3339 date-time with its zone (`2026-11-27T10:00:00Z`, `…+11:00`); also a signed webhook timestamp's form. */
export const ISO_ZONED =
  /^\s*(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:?\d{2})\s*$/;

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

/** How many of a UNIX time's units make a second: 1 (seconds), 1e3 (ms), 1e6 (µs) or 1e9 (ns). */
export type UnitsPerSecond = 1 | 1e3 | 1e6 | 1e9;

/**
 * The unit a UNIX time is written in, by its size: the one rule for a time's unit, wherever a time
 * is read. No date in seconds reaches 10^11 before the year 5138, and each finer unit is a
 * thousand times larger: 13 digits are milliseconds (from the year 1973), 16 microseconds, 19
 * nanoseconds, as `Date.now()`, Python's `time.time_ns() // 1000` and `time.time_ns()` write them.
 */
export function unitsPerSecond(value: number): UnitsPerSecond {
  const size = Math.abs(value);
  if (size >= 1e17) return 1e9;
  if (size >= 1e14) return 1e6;
  return size >= 1e11 ? 1e3 : 1;
}

/**
 * A UNIX time in seconds from a number written in seconds, milliseconds, microseconds or
 * nanoseconds ({@link unitsPerSecond}). Read this way, an `exp` in a finer unit never makes
 * something that does not expire.
 */
export function unixSeconds(value: number): number {
  return value / unitsPerSecond(value);
}

/**
 * A number written as a string: whole (`"1700000000"`, up to nanoseconds' 19 digits) or with a
 * fraction (`"1700000000.25"`).
 */
const NUMBER_TEXT = /^\s*-?[0-9]{1,19}(?:\.[0-9]{1,9})?\s*$/;

/**
 * The whole UNIX second a number names, or `undefined`: a finite number (seconds, a fraction
 * floored, or a finer unit by {@link unixSeconds}), or the same written as a string of digits. A
 * JWT's `iat`, `exp` and `nbf` (RFC 7519's NumericDate) are read by it wherever a token is only
 * read, not verified: the client's clock and renewals, the webhook's X-Access-Token.
 */
export function numericDate(value: unknown): number | undefined {
  let number = Number.NaN;
  if (typeof value === 'number') number = value;
  else if (typeof value === 'string' && NUMBER_TEXT.test(value)) number = Number(value);
  return Number.isFinite(number) ? Math.floor(unixSeconds(number)) : undefined;
}

/**
 * The whole UNIX second `value` names, or `undefined` when it names none: a number as
 * {@link numericDate} reads it, or a date with its zone ({@link zonedDate}). The times of REST
 * answers are read by it.
 */
export function unixTimeOf(value: unknown): number | undefined {
  const seconds = numericDate(value);
  if (seconds !== undefined || typeof value !== 'string') return seconds;
  const date = zonedDate(value);
  return 'ms' in date ? Math.floor(date.ms / 1000) : undefined;
}

/**
 * The first UNIX second of 2001-09-09, the first with ten digits: no time of this service (a
 * request's expiry, its opening, its completion) comes before it. A positive number below it names
 * no time of this service but a duration: the seconds or hours an "expiry time" may be written as.
 */
const EARLIEST_SERVICE_TIME = 1_000_000_000;

/**
 * The UNIX second a time of an identity request names (`time_expires`, `opened_at`,
 * `completed_at`), read as {@link unixTimeOf} reads it, or 0 or less (which says "not set");
 * `undefined` for what names none, and for a positive time before {@link EARLIEST_SERVICE_TIME}:
 * "expiry time" written as the seconds left or the hours asked for is not guessed at.
 */
export function requestTimeOf(value: unknown): number | undefined {
  const seconds = unixTimeOf(value);
  return seconds !== undefined && seconds > 0 && seconds < EARLIEST_SERVICE_TIME ? undefined : seconds;
}

/** Clock offsets smaller than this are within a `Date` header's one-second resolution: none. */
export const MIN_SKEW_MS = 2_000;
/** From a token's `iat` a second more (3 s): it is truncated to seconds and was stamped before the answer travelled. */
export const MIN_TOKEN_SKEW_MS = 3_000;

/**
 * A time claim (`exp`, `iat`) of a JWT, in ms, read without verifying it: only used to schedule a
 * refresh, or to learn the service's clock when it sends no `Date` (the REST client's, and a
 * sign-in's). Read by the rule for a JWT's times ({@link numericDate}): an `iat` written in
 * milliseconds is not a clock thousands of years ahead, which would stamp every identity call
 * outside the service's window.
 */
export function jwtTime(token: string, claim: 'exp' | 'iat'): number | undefined {
  const seconds = numericDate(jwtPayload(token)?.[claim]);
  return seconds === undefined ? undefined : seconds * 1000;
}

/** A JWT's payload, decoded and not verified (to read, never to trust), or `undefined` when it is no JWT's. */
export function jwtPayload(token: string): Record<string, unknown> | undefined {
  try {
    const part = token.split('.')[1];
    if (!part) return undefined;
    const payload: unknown = JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/')));
    return typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
