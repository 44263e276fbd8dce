/**
 * The service's clock as the client knows it: the local clock, corrected by what the service said
 * of its own time. A `Date` header teaches it (the transport hands each answer's over); a service
 * that sends none is read from the `iat` of an access token it has just issued. Built first and
 * handed down: the transport stamps `X-Request-Timestamp` with it and teaches it, the token
 * manager times tokens with its offset, the client judges expiries the service set on it.
 */
import { MIN_SKEW_MS, MIN_TOKEN_SKEW_MS, jwtTime } from '../internal/times.js';

export class ServiceClock {
  readonly #local: () => number;
  /** Whether anything is learnt at all (`correctClockSkew`); when not, the service's clock is taken to be the local one. */
  readonly #learns: boolean;
  /** Service clock minus local clock, in ms. */
  #offsetMs = 0;
  /** The last `Date` header learnt from: once one came, a token's `iat` teaches nothing more. */
  #lastDate: string | null = null;

  constructor(local: () => number, learns: boolean) {
    this.#local = local;
    this.#learns = learns;
  }

  /** The service's time as this client best knows it, in ms. */
  now(): number {
    return this.#local() + this.#offsetMs;
  }

  /** The service's clock minus the local one, in ms (0 until learnt, or while within 2 s). */
  offsetMs(): number {
    return this.#offsetMs;
  }

  /**
   * From an answer's `Date` header. The header changes once a second; within that second the
   * offset learnt stands. An answer without one (a token endpoint behind another gateway) teaches
   * nothing and forgets nothing.
   */
  learnFromDate(date: string | null): void {
    if (!this.#learns || date === null || date === this.#lastDate) return;
    this.#lastDate = date;
    const serverMs = Date.parse(date);
    if (Number.isNaN(serverMs)) return;
    const offset = serverMs - this.#local();
    this.#offsetMs = Math.abs(offset) >= MIN_SKEW_MS ? offset : 0;
  }

  /**
   * From a token the service has just issued, for a service that sends no `Date` header: the
   * JWT's `iat` is its clock at issue (within a second and the request's time). Never overrides
   * an offset learnt from `Date`.
   */
  learnFromToken(accessToken: string | undefined): void {
    if (!this.#learns || this.#lastDate !== null || accessToken === undefined) return;
    const issuedAt = jwtTime(accessToken, 'iat');
    if (issuedAt === undefined) return;
    const offset = issuedAt - this.#local();
    this.#offsetMs = Math.abs(offset) >= MIN_TOKEN_SKEW_MS ? offset : 0;
  }
}
