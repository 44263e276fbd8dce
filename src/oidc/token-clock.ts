/**
 * The clock that wrote a sign-in's ID token, read from the token answer before oauth4webapi judges
 * the token: the service's clock minus ours (from the answer's `Date`, else the token's `iat`), and
 * the unit its times are written in. The flow (flow.ts) judges the token on that clock, in that unit.
 */
import { isObject } from '../internal/guards.js';
import { MIN_SKEW_MS, MIN_TOKEN_SKEW_MS, jwtPayload, unitsPerSecond, unixSeconds, type UnitsPerSecond } from '../internal/times.js';
import { isString } from './failures.js';

/**
 * What the ID token in a token answer says of the clock that wrote it, read before oauth4webapi
 * checks it (the payload decoded, not trusted: oauth4webapi and the signature check judge it):
 * the service's clock minus ours, and the unit of its times. See {@link serviceSkewMs} and
 * {@link timeUnit}.
 */
export async function tokenClock(response: Response, now: number): Promise<{ skewMs: number; unit: UnitsPerSecond }> {
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  // Without one (no JSON, no JWT), oauth4webapi says what is wrong next.
  const claims = isObject(body) && isString(body['id_token']) ? jwtPayload(body['id_token']) : undefined;
  return { skewMs: serviceSkewMs(response, claims?.['iat'], now), unit: timeUnit(claims) };
}

/**
 * The service's clock minus ours, in ms, as the REST client learns it: from the token answer's
 * `Date` header, else (a browser sees no `Date` across origins; a gateway may drop it) from the ID
 * token's `iat`, stamped by the service's clock as it answered. Within 2 s of ours (3 s from
 * `iat`, which is truncated and stamped before the answer travelled) it is none. A service whose
 * clock is ten minutes slow issues ID tokens that, on ours, expired when they were issued: judged
 * on its clock, they are judged as it meant them.
 *
 * Never less than the token's `iat` says: the service's clock read it when it signed, and a
 * `Date` header is truncated to its second. So an `nbf` of the token's issue (as many providers
 * write it) is valid at once, not refused for the second the header lost or the skew left
 * unlearnt. The clock only moves forward: no token is taken to expire later than it does.
 */
function serviceSkewMs(response: Response, iat: unknown, now: number): number {
  // Not numericDate, which floors to the whole second: an iat in milliseconds keeps its fraction.
  const issuedAtMs = typeof iat === 'number' && Number.isFinite(iat) ? unixSeconds(iat) * 1000 : undefined;
  const date = Date.parse(response.headers.get('date') ?? '');
  let learnt = 0;
  if (!Number.isNaN(date)) learnt = skewBeyond(date - now, MIN_SKEW_MS);
  else if (issuedAtMs !== undefined) learnt = skewBeyond(issuedAtMs - now, MIN_TOKEN_SKEW_MS);
  return issuedAtMs === undefined ? learnt : Math.max(learnt, issuedAtMs - now);
}

/** An offset in ms, in whole seconds, or 0 within `minMs`. */
const skewBeyond = (offsetMs: number, minMs: number) => (Math.abs(offsetMs) >= minMs ? Math.round(offsetMs / 1000) * 1000 : 0);

/** The ID token's times that oauth4webapi judges against its clock (`iat` it only reads). */
const JUDGED_TIMES = ['exp', 'nbf', 'auth_time'] as const;

/**
 * The unit an ID token's times are written in, by the SDK's one rule for times
 * ({@link unitsPerSecond}): milliseconds when one of them is written in milliseconds, as a service
 * that signs `Date.now()` writes them (the `tokenTimes` reading), and so for microseconds and
 * nanoseconds. oauth4webapi reads them as seconds: an `exp` in milliseconds would lie thousands of
 * years ahead (a token that never expires), an `auth_time` would never be older than `max_age`, and
 * an `nbf` would never come. So the client it judges with counts in that unit ({@link OidcCore.client}):
 * each check is its own, at the instant it would be in seconds. A token that mixes the units is
 * judged in the finest of them, where a time in a coarser unit lies in 1970: expired, or too old
 * for `max_age`, never valid for longer than it says.
 */
function timeUnit(claims: Record<string, unknown> | undefined): UnitsPerSecond {
  let unit: UnitsPerSecond = 1;
  for (const claim of JUDGED_TIMES) {
    const time = claims?.[claim];
    const written = typeof time === 'number' ? unitsPerSecond(time) : 1;
    if (written > unit) unit = written;
  }
  return unit;
}
