/**
 * One time base: token expiries are moved onto the local clock with the offset learnt from the
 * service's `Date` headers, whichever form the token response gives its lifetime in.
 */
import { describe, expect, test } from 'vitest';
import type { FakeServiceOptions } from '../../src/testing/index.js';
import { harness, person, received } from '../helpers.js';

const T0 = Date.UTC(2026, 10, 24, 12);
const TTL_SECONDS = 900;
const MARGIN_SECONDS = 60;

/** A fake whose clock runs `skewMs` ahead of the client's (behind when negative). */
async function skewed(skewMs: number, tokenLifetime: FakeServiceOptions['tokenLifetime']) {
  const clock = { now: T0 };
  const h = await harness({
    fake: { now: () => clock.now + skewMs, accessTokenTtlSeconds: TTL_SECONDS, ...(tokenLifetime ? { tokenLifetime } : {}) },
    client: { now: () => clock.now, refreshMarginSeconds: MARGIN_SECONDS },
  });
  return { ...h, clock };
}

const FORMS = [
  ['expires_in', 'expires_in'],
  ['expires (absolute, service time)', 'expires'],
  ["the JWT's exp alone", 'none'],
] as const;
const SKEWS = [
  ['10 minutes behind', -600_000],
  ['10 minutes ahead', 600_000],
] as const;

describe.each(SKEWS)('the service clock %s', (_label, skewMs) => {
  test.each(FORMS)('lifetime from %s: one token request for the whole lifetime, one refresh after it', async (_form, lifetime) => {
    const h = await skewed(skewMs, lifetime);
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
