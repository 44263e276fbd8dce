/**
 * When a call is tried again: one pure decision per attempt, from what the attempt came to and
 * what the call has left. The transport does the I/O; this says what comes next.
 */

/**
 * How a request may be repeated.
 * - `safe`: repeating it changes nothing (reads, deletes, revoke, token requests): retried after
 *   network errors, 408, 429 and 5xx.
 * - `rate-limit-only`: it creates something, so it is repeated only after a 429, which the service
 *   answers before doing anything. After a network error or a 5xx the outcome is unknown and the
 *   error goes to the caller (see docs/client.md, "Retries").
 */
export type RetryMode = 'safe' | 'rate-limit-only';

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** Backoff before retry number `attempt + 1`: capped exponential, with jitter over its upper half. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const cap = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return cap / 2 + random() * (cap / 2);
}

/**
 * The wait a response asks for (`Retry-After` in seconds or as an HTTP date, or `Retry-After-Ms`).
 * `Headers` strip the whitespace HTTP allows around a value (space, tab); a value with anything
 * else around it (a no-break space, a vertical tab, which String#trim would take) is not read.
 */
export function retryAfterMs(headers: Headers, nowMs: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const value = headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Every HTTP-date form (RFC 9110 §5.6.7) carries hh:mm:ss; Date.parse alone takes "in 7" for 2001.
  const date = /\d\d:\d\d:\d\d/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * A passing failure, which a safe request may be repeated after: a timeout (408) or a 5xx other
 * than 501 and 505, which no repetition mends. A 429 is a rule of its own: every request is
 * repeated after it.
 */
function isPassingFailure(status: number): boolean {
  return status === 408 || (status >= 500 && status !== 501 && status !== 505);
}

/** What an attempt came to: an answer (its headers arrived) or none (refused, reset, cut short). */
export type Outcome =
  | {
      readonly kind: 'answer';
      readonly status: number;
      /** The wait the answer asks for ({@link retryAfterMs}); read only when a retry is weighed. */
      readonly retryAfter: () => number | undefined;
      /** The bearer token the attempt carried; undefined for a call that sends none (a 401 to one is its answer). */
      readonly token: string | undefined;
    }
  | { readonly kind: 'no-answer' };

/** What the call has left, and the rules it runs under. */
export interface Budget {
  /** Retries made so far (a replay after a 401 is not one). */
  readonly attempt: number;
  /** Whether the one replay after a 401 was made. */
  readonly replayed: boolean;
  readonly maxRetries: number;
  readonly retry: RetryMode;
  /** Time left before the call's deadline, in ms. */
  readonly msLeft: number;
  readonly maxRetryAfterMs: number;
  /** The backoff this retry would wait when the service asks for none ({@link backoffMs}); called only when it is needed. */
  readonly backoff: () => number;
}

/**
 * What comes after an attempt:
 * - `replay`: a 401 on a token believed valid: drop that `token` and send again, once;
 * - `retry`: wait `waitMs`, then try again (`reason` and whether the service `asked` for the wait
 *   are for the operator);
 * - `accept`: the answer is the call's answer (an error status included); `notRetried` says why a
 *   retryable answer was not retried (its wait is longer than allowed, or past the deadline);
 * - `fail`: no answer, and no retry left or allowed: a connection error.
 */
export type Decision =
  | { readonly action: 'replay'; readonly token: string }
  | { readonly action: 'retry'; readonly waitMs: number; readonly reason: 'status' | 'rate-limit' | 'connection'; readonly asked: boolean }
  | { readonly action: 'accept'; readonly notRetried?: { readonly waitMs: number; readonly why: 'too-long' | 'past-deadline' } }
  | { readonly action: 'fail' };

/**
 * The decision after one attempt. Pure: the same outcome and budget always decide the same. A
 * wait is never shortened: one longer than `maxRetryAfterMs`, or that would end past the deadline,
 * is not waited at all (the caller gets the answer, or the connection error, at once).
 */
export function decide(outcome: Outcome, budget: Budget): Decision {
  const retriesLeft = budget.attempt < budget.maxRetries;
  if (outcome.kind === 'no-answer') {
    if (budget.retry !== 'safe' || !retriesLeft) return { action: 'fail' };
    const waitMs = budget.backoff();
    return waitMs < budget.msLeft ? { action: 'retry', waitMs, reason: 'connection', asked: false } : { action: 'fail' };
  }
  const { status } = outcome;
  if (status === 401 && outcome.token !== undefined && !budget.replayed) return { action: 'replay', token: outcome.token };
  const retryable = status === 429 || (budget.retry === 'safe' && isPassingFailure(status));
  if (!retryable || !retriesLeft) return { action: 'accept' };
  const asked = outcome.retryAfter();
  const waitMs = asked ?? budget.backoff();
  if (waitMs > budget.maxRetryAfterMs) return { action: 'accept', notRetried: { waitMs, why: 'too-long' } };
  if (waitMs >= budget.msLeft) return { action: 'accept', notRetried: { waitMs, why: 'past-deadline' } };
  return { action: 'retry', waitMs, reason: status === 429 ? 'rate-limit' : 'status', asked: asked !== undefined };
}
