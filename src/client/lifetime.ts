/**
 * How long an API token lives, read from the token response: the one place that turns
 * `expires_in`, `expires` and the JWT's `exp` into an expiry. Time is never guessed: a date without
 * a zone, a number where a date belongs, a lifetime that is negative or implausible is not used;
 * when the sources that remain disagree, the earliest wins (a token renewed early costs one
 * request; one used past its expiry costs a refused call), and every source set aside is named.
 */
import { zonedDate } from '../internal/times.js';

/** The longest lifetime taken at its word: past it, `expires_in` was likely written in milliseconds. */
export const MAX_PLAUSIBLE_LIFETIME_MS = 7 * 24 * 3_600_000;

/** Sources that differ by less than this agree (clocks and rounding). */
const AGREEMENT_MS = 60_000;

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
