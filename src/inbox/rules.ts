/**
 * The inbox's rules, each a function of its inputs: how a failed fetch is taken (a retry can mend
 * it, or not), when a token expires, when a request whose webhook never came is missing, and how
 * an outage of the store is logged (once each way). `inbox.ts` applies them.
 */
import { decodeJwt } from 'jose/jwt/decode';
import { AcmeIdentityError, ApiError, IdentityFlowError } from '../errors/index.js';
import type { Observer } from '../internal/observe.js';
import { printable } from '../internal/text.js';
import { toHex } from '../internal/encoding.js';
import { numericDate } from '../internal/times.js';

/** Two seconds short of expiry, a token is not sent: it would expire on the way. */
export const EXPIRY_MARGIN_MS = 2_000;

/** A request completed (or expired) whose webhook never arrived: ask the service to send it again. */
export interface MissingDelivery {
  readonly accessRequestCode: string;
  /** `completed`: the person finished, no delivery came within the grace period; `expired`: the request expired unopened. */
  readonly reason: 'completed' | 'expired';
  /** When the person completed it (`completed`) or when it expired (`expired`), in ms. */
  readonly at: number;
}

/**
 * The store's outages, one line each way: the first failure with its cause, at `error`; nothing
 * for the failures after it (a poll a second, each delivery); and, once the store answers again,
 * how long it was away, at `info`.
 */
export function outageLog(observer: Observer, now: () => number) {
  let since: number | undefined;
  return {
    failed(error: unknown, during: string): void {
      if (since !== undefined) return;
      since = now();
      const cause = error instanceof Error ? (printable(error.message, 200) ?? '') : typeof error;
      observer.log('error', `inbox store unreachable ${during}: ${cause}; logged once until it answers again`, {
        error: error instanceof Error ? error.name : typeof error,
      });
    },
    answered(): void {
      if (since === undefined) return;
      observer.log('info', `inbox store answers again, after ${Math.round((now() - since) / 1000)} s`);
      since = undefined;
    },
  };
}

/**
 * Whether a request whose delivery has not come is missing, by what the service says of it:
 * completed more than `graceMs` ago, or expired without being opened. Anything else (not
 * finished, no times given) is not missing yet: absence decides nothing.
 */
export function missingReport(
  accessRequestCode: string,
  details: { completed_at?: number | undefined; opened_at?: number | undefined; time_expires?: number | undefined },
  serviceNowMs: number,
  graceMs: number,
): MissingDelivery | undefined {
  const completed = requestTimeMs(details.completed_at);
  if (completed !== undefined && completed + graceMs <= serviceNowMs) {
    return { accessRequestCode, reason: 'completed', at: completed };
  }
  const expiry = requestTimeMs(details.time_expires);
  if (requestTimeMs(details.opened_at) === undefined && expiry !== undefined && expiry <= serviceNowMs) {
    return { accessRequestCode, reason: 'expired', at: expiry };
  }
  return undefined;
}

/**
 * A time of a request (`opened_at`, `completed_at`, `time_expires`, UNIX seconds) in ms on the
 * service's clock, or `undefined` when it is not set: absent, or 0 or less. Nothing of this service
 * happened at or before 1970, so such a time is a default that says "not yet" (a column's 0), or
 * "never" (`expiry_hours: 0` disables expiry, and how the service then writes `time_expires` is not
 * shown), not "long ago": a request is never taken as completed, opened or expired by it.
 */
export function requestTimeMs(seconds: number | undefined): number | undefined {
  return seconds !== undefined && seconds > 0 ? seconds * 1000 : undefined;
}

export interface Failure {
  code: string;
  message: string;
  /** No retry can change it. */
  permanent: boolean;
  /** The handler failed, not the fetch. */
  handler?: boolean;
}

/** Statuses no retry changes: the request or the token is refused for good. */
const FINAL_STATUSES = new Set([400, 401, 403, 404, 410, 412, 422]);

/**
 * Verification failures a later try can mend: the issuer's keys could not be fetched, or the
 * answer held no claim yet (a service still writing it). Any other refusal is refused again.
 */
const VERIFY_RETRYABLE = new Set(['ERR_JWKS', 'ERR_SD_JWT_NO_CLAIMS']);

/** How a failed `getVerified` is taken: the code of its cause, and whether a retry could help. */
export function failureOf(error: unknown): Failure {
  if (!(error instanceof IdentityFlowError)) {
    const code = error instanceof AcmeIdentityError ? error.code : 'ERR_UNKNOWN';
    return { code, message: 'the identity could not be fetched', permanent: false };
  }
  const cause = error.cause;
  const code = cause instanceof AcmeIdentityError ? cause.code : error.code;
  const message = `${error.step} failed (${code})`;
  if (error.step === 'token') return { code: error.code, message: error.message, permanent: true };
  if (error.step === 'verify') return { code, message, permanent: !VERIFY_RETRYABLE.has(code) };
  return { code, message, permanent: cause instanceof ApiError && FINAL_STATUSES.has(cause.status) };
}

/**
 * The token's `exp` in ms, read by the rule for a JWT's times (`numericDate`: one written in
 * milliseconds is not an instant thousands of years away); without one (or unreadable, or not
 * after 1970), `lifetime` from now.
 */
export function tokenExpiry(token: string, now: number, lifetimeMs: number): number {
  try {
    const exp = numericDate(decodeJwt(token).exp);
    if (exp !== undefined && exp > 0) return exp * 1000;
  } catch {
    // Not a JWT: getVerified refuses it on the first attempt, and says why.
  }
  return now + lifetimeMs;
}

/** A short, non-reversible handle of a request code for logs. */
export async function digest(code: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(code)));
  return toHex(bytes.subarray(0, 6));
}
