import { inspect } from 'node:util';
import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { ConfigurationError } from '../../src/index.js';
import { signWebhook } from '../../src/testing/index.js';
import {
  MemoryReplayStore,
  WebhookVerificationError,
  createWebhookVerifier,
  type WebhookErrorCode,
  type WebhookVerifierOptions,
} from '../../src/webhooks/index.js';
import { rejection } from '../fixtures.js';

const SECRET = 'whsec_test_0123456789abcdef0123456789';
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJhY2Nlc3NfdG9rZW4iOiJhdF8xIiwiYWNjZXNzX3JlcXVlc3RfY29kZSI6ImFyY18xIn0.c2lnbmF0dXJl';
const payload = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ event: 'approved', access_request_code: 'arc_1', access_token: TOKEN, ...extra });

const hmac = (body: string | Buffer, secret = SECRET, algorithm = 'sha256') => createHmac(algorithm, secret).update(body);

function verifier(options: Partial<WebhookVerifierOptions> = {}) {
  return createWebhookVerifier({ secret: SECRET, ...options });
}

async function refusal(promise: Promise<unknown>): Promise<WebhookErrorCode> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).code;
}

describe('createWebhookVerifier: accepts', () => {
  test("the fake service's signature (sha256=<hex>), as string, Uint8Array, ArrayBuffer and Request", async () => {
    const body = payload();
    const signature = await signWebhook(SECRET, body);
    const bytes = new TextEncoder().encode(body);
    const inputs = [body, bytes, Buffer.from(body), bytes.slice().buffer];
    for (const raw of inputs) {
      const event = await verifier({ replayStore: false }).verify(raw, { 'x-webhook-signature': signature });
      expect(event).toMatchObject({ kind: 'approved', accessRequestCode: 'arc_1', accessToken: TOKEN });
    }
    const request = new Request('https://rp.example/webhooks', { method: 'POST', body, headers: { 'X-Webhook-Signature': signature } });
    expect((await verifier().verifyRequest(request)).accessRequestCode).toBe('arc_1');
  });

  test('hex in any case with or without the prefix, and base64; headers as Headers or a plain object', async () => {
    const body = payload();
    const hex = hmac(body).digest('hex');
    const forms = [hex, hex.toUpperCase(), `SHA256=${hex}`, `sha256=${hex.toUpperCase()}`, hmac(body).digest('base64')];
    for (const signature of forms) {
      await expect(verifier({ replayStore: false }).verify(body, new Headers({ 'X-Webhook-Signature': signature }))).resolves.toBeDefined();
      await expect(verifier({ replayStore: false }).verify(body, { 'X-WEBHOOK-SIGNATURE': signature })).resolves.toBeDefined();
    }
  });

  test('unknown payload fields are kept; the access token is not enumerable', async () => {
    const body = payload({ request_status: 'done', nested: { a: 1 } });
    const event = await verifier().verify(body, { 'x-webhook-signature': hmac(body).digest('hex') });
    expect(event.payload).toEqual({ event: 'approved', access_request_code: 'arc_1', request_status: 'done', nested: { a: 1 } });
    expect(JSON.stringify(event)).not.toContain(TOKEN);
    expect(inspect(event)).not.toContain(TOKEN);
  });

  test('SHA-512 and a timestamp header, when configured', async () => {
    const body = payload();
    const now = 1_800_000_000;
    const options = { algorithm: 'SHA-512' as const, timestamp: { header: 'X-Webhook-Timestamp' }, now: () => now * 1000 };
    const signature = hmac(`${now}.${body}`, SECRET, 'sha512').digest('hex');
    const event = await verifier(options).verify(body, {
      'x-webhook-signature': `sha512=${signature}`,
      'x-webhook-timestamp': String(now),
    });
    expect(event.accessRequestCode).toBe('arc_1');
  });

  test('rotation: the old and the new secret both verify during the overlap', async () => {
    const next = 'whsec_next_abcdefghijklmnopqrstuvwxyz';
    const both = verifier({ secret: [SECRET, next], replayStore: false });
    const body = payload();
    await expect(both.verify(body, { 'x-webhook-signature': hmac(body, SECRET).digest('hex') })).resolves.toBeDefined();
    await expect(both.verify(body, { 'x-webhook-signature': hmac(body, next).digest('hex') })).resolves.toBeDefined();
    expect(await refusal(verifier({ secret: next }).verify(body, { 'x-webhook-signature': hmac(body, SECRET).digest('hex') }))).toBe(
      'ERR_WEBHOOK_SIGNATURE',
    );
  });
});

describe("GitHub's published HMAC-SHA256 example (a vector we did not make)", () => {
  // docs.github.com, "Validating webhook deliveries": secret, payload and expected signature.
  const secret = "It's a Secret to Everybody";
  const body = 'Hello, World!';
  const expected = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

  test('the signature verifies (the body, not being an event, then fails as a payload)', async () => {
    expect(await refusal(verifier({ secret }).verify(body, { 'x-webhook-signature': expected }))).toBe('ERR_WEBHOOK_PAYLOAD');
    expect(await refusal(verifier({ secret }).verify(body, { 'x-webhook-signature': expected.replace('757', '758') }))).toBe(
      'ERR_WEBHOOK_SIGNATURE',
    );
  });

  test('the fake service signs the same way', async () => {
    expect(await signWebhook(secret, body)).toBe(expected);
  });
});

describe('createWebhookVerifier: refuses', () => {
  const body = payload();
  const good = () => hmac(body).digest('hex');

  test('a tampered body', async () => {
    expect(await refusal(verifier().verify(body.replace('arc_1', 'arc_2'), { 'x-webhook-signature': good() }))).toBe(
      'ERR_WEBHOOK_SIGNATURE',
    );
  });

  test('a tampered signature', async () => {
    const sig = good();
    const flipped = sig.slice(0, 10) + (sig[10] === '0' ? '1' : '0') + sig.slice(11);
    expect(await refusal(verifier().verify(body, { 'x-webhook-signature': flipped }))).toBe('ERR_WEBHOOK_SIGNATURE');
  });

  test('the wrong secret', async () => {
    const other = hmac(body, 'whsec_other_0123456789abcdef0123').digest('hex');
    expect(await refusal(verifier().verify(body, { 'x-webhook-signature': other }))).toBe('ERR_WEBHOOK_SIGNATURE');
  });

  test('a signature in the wrong encoding', async () => {
    expect(await refusal(verifier({ encoding: 'hex' }).verify(body, { 'x-webhook-signature': hmac(body).digest('base64') }))).toBe(
      'ERR_WEBHOOK_SIGNATURE_ENCODING',
    );
    expect(await refusal(verifier({ encoding: 'base64' }).verify(body, { 'x-webhook-signature': good() }))).toBe(
      'ERR_WEBHOOK_SIGNATURE_ENCODING',
    );
  });

  test('a truncated signature, or one that is not hex or base64', async () => {
    for (const bad of [good().slice(0, 40), 'sha256=', 'not a signature!', `sha1=${good()}`]) {
      expect(await refusal(verifier().verify(body, { 'x-webhook-signature': bad }))).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    }
  });

  test('a missing signature header', async () => {
    expect(await refusal(verifier().verify(body, {}))).toBe('ERR_WEBHOOK_MISSING_SIGNATURE');
  });

  test('a body already parsed into an object, with how to read the raw body', async () => {
    const error = await rejection(verifier().verify(JSON.parse(body) as never, { 'x-webhook-signature': good() }));
    expect((error as WebhookVerificationError).code).toBe('ERR_WEBHOOK_PARSED_BODY');
    expect((error as Error).message).toContain('express.raw');
  });

  test('an empty or oversized body', async () => {
    expect(await refusal(verifier().verify('', { 'x-webhook-signature': good() }))).toBe('ERR_WEBHOOK_EMPTY_BODY');
    expect(await refusal(verifier().verify(undefined as never, { 'x-webhook-signature': good() }))).toBe('ERR_WEBHOOK_EMPTY_BODY');
    expect(await refusal(verifier({ maxBodyBytes: 10 }).verify(body, { 'x-webhook-signature': good() }))).toBe(
      'ERR_WEBHOOK_BODY_TOO_LARGE',
    );
  });

  test('a stale or future timestamp, when timestamps are enabled', async () => {
    const now = 1_800_000_000;
    const options = { timestamp: { header: 'x-webhook-timestamp', toleranceSeconds: 300 }, now: () => now * 1000 };
    for (const stamp of [now - 301, now + 301]) {
      const signature = hmac(`${stamp}.${body}`).digest('hex');
      expect(
        await refusal(verifier(options).verify(body, { 'x-webhook-signature': signature, 'x-webhook-timestamp': String(stamp) })),
      ).toBe('ERR_WEBHOOK_TIMESTAMP');
    }
    expect(await refusal(verifier(options).verify(body, { 'x-webhook-signature': good() }))).toBe('ERR_WEBHOOK_MISSING_TIMESTAMP');
    // Sent empty is missing too, not a timestamp of the wrong form.
    expect(await refusal(verifier(options).verify(body, { 'x-webhook-signature': good(), 'x-webhook-timestamp': '' }))).toBe(
      'ERR_WEBHOOK_MISSING_TIMESTAMP',
    );
  });

  test('two states: in progress while processed, a duplicate once complete; release() lets the next attempt process it', async () => {
    const webhooks = verifier({ replayStore: new MemoryReplayStore() });
    const event = await webhooks.verify(body, { 'x-webhook-signature': good() });
    expect(await refusal(webhooks.verify(body, { 'x-webhook-signature': good() }))).toBe('ERR_WEBHOOK_IN_PROGRESS');
    await webhooks.release(event);
    const again = await webhooks.verify(body, { 'x-webhook-signature': good() });
    expect(again.deliveryId).toBe(event.deliveryId);
    await webhooks.complete(again);
    expect(await refusal(webhooks.verify(body, { 'x-webhook-signature': good() }))).toBe('ERR_WEBHOOK_DUPLICATE');
  });

  test('a processing lease that runs out (its process died) lets the next attempt process the delivery', async () => {
    let clock = Date.UTC(2026, 10, 24);
    const webhooks = verifier({ replayStore: new MemoryReplayStore({ now: () => clock }), processingLeaseSeconds: 30 });
    await webhooks.verify(body, { 'x-webhook-signature': good() });
    clock += 29_000;
    expect(await refusal(webhooks.verify(body, { 'x-webhook-signature': good() }))).toBe('ERR_WEBHOOK_IN_PROGRESS');
    clock += 2_000;
    await expect(webhooks.verify(body, { 'x-webhook-signature': good() })).resolves.toBeDefined();
  });

  test('a done delivery is remembered for replayTtlSeconds, then forgotten', async () => {
    let clock = Date.UTC(2026, 10, 24);
    const webhooks = verifier({ replayStore: new MemoryReplayStore({ now: () => clock }), replayTtlSeconds: 3600 });
    await webhooks.complete(await webhooks.verify(body, { 'x-webhook-signature': good() }));
    clock += 3_599_000;
    expect(await refusal(webhooks.verify(body, { 'x-webhook-signature': good() }))).toBe('ERR_WEBHOOK_DUPLICATE');
    clock += 2_000;
    await expect(webhooks.verify(body, { 'x-webhook-signature': good() })).resolves.toBeDefined();
  });

  test('by default a delivery is held for 60 s while processed and remembered as done for 24 h: the replay window of a signature without a timestamp', async () => {
    let clock = Date.UTC(2026, 10, 24);
    const asked: string[] = [];
    const store = new MemoryReplayStore({ now: () => clock });
    const webhooks = verifier({
      replayStore: {
        claim: (id, leaseSeconds) => {
          asked.push(`claim ${leaseSeconds}`);
          return store.claim(id, leaseSeconds);
        },
        complete: (id, ttlSeconds) => {
          asked.push(`complete ${ttlSeconds}`);
          store.complete(id, ttlSeconds);
        },
        release: (id) => store.release(id),
      },
    });
    await webhooks.verify(body, { 'x-webhook-signature': good() });
    clock += 59_999;
    expect(await refusal(webhooks.verify(body, { 'x-webhook-signature': good() }))).toBe('ERR_WEBHOOK_IN_PROGRESS');
    clock += 1;
    await webhooks.complete(await webhooks.verify(body, { 'x-webhook-signature': good() }));
    clock += 86_399_999;
    expect(await refusal(webhooks.verify(body, { 'x-webhook-signature': good() }))).toBe('ERR_WEBHOOK_DUPLICATE');
    clock += 1;
    await expect(webhooks.verify(body, { 'x-webhook-signature': good() })).resolves.toBeDefined();
    expect(new Set(asked)).toEqual(new Set(['claim 60', 'complete 86400']));
  });

  test('MemoryReplayStore: a maxEntries that would keep nothing (0, NaN, a fraction) is a ConfigurationError, not a store that forgets every delivery', () => {
    for (const maxEntries of [0, Number.NaN, 1.5, -1, '10']) {
      expect(() => new MemoryReplayStore({ maxEntries: maxEntries as number }), String(maxEntries)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'maxEntries' }),
      );
    }
    const one = new MemoryReplayStore({ maxEntries: 1 });
    one.complete('a', 60);
    expect(one.claim('a', 10)).toBe('done');
  });

  test('MemoryReplayStore: an entry lasts until its time exactly, and past maxEntries the oldest is forgotten first', () => {
    let clock = 1_000_000;
    const store = new MemoryReplayStore({ now: () => clock, maxEntries: 2 });
    expect(store.claim('a', 10)).toBe('claimed');
    clock += 9_999;
    expect(store.claim('a', 10)).toBe('processing');
    clock += 1; // the lease's end: over
    expect(store.claim('a', 10)).toBe('claimed');
    store.complete('a', 60);
    clock += 59_999;
    expect(store.claim('a', 10)).toBe('done');
    clock += 1;
    expect(store.claim('a', 10)).toBe('claimed');
    // a (claimed just now), then b and c: the store holds two, so a, the oldest, goes.
    expect(store.claim('b', 10)).toBe('claimed');
    expect(store.claim('c', 10)).toBe('claimed');
    expect(store.claim('b', 10)).toBe('processing');
    // Completing b makes it the newest: c is the oldest now, and goes when d comes.
    store.complete('b', 60);
    expect(store.claim('d', 10)).toBe('claimed');
    expect(store.claim('b', 10)).toBe('done');
    expect(store.claim('c', 10)).toBe('claimed');
    // a was forgotten when c came.
    expect(store.claim('a', 10)).toBe('claimed');
  });

  test('MemoryReplayStore remembers 100,000 deliveries by default: 99,999 others do not make it forget one; the 100,001st forgets the oldest', () => {
    const store = new MemoryReplayStore();
    store.complete('first', 3600);
    for (let i = 0; i < 99_999; i++) store.claim(`flood-${i}`, 60);
    expect(store.claim('first', 60)).toBe('done');
    store.claim('one-more', 60);
    expect(store.claim('flood-0', 60)).toBe('processing');
    expect(store.claim('first', 60)).toBe('claimed');
  });

  test('replayTtlSeconds and processingLeaseSeconds must be above 0', () => {
    for (const value of [0, -1, NaN, Infinity]) {
      expect(() => verifier({ processingLeaseSeconds: value })).toThrow(/processingLeaseSeconds/);
      expect(() => verifier({ replayTtlSeconds: value })).toThrow(/replayTtlSeconds/);
    }
  });

  test('a verified body that is not an Identity Actions event', async () => {
    for (const bad of ['{"access_request_code":"arc_1"}', '{"access_request_code":"arc_1","access_token":"not-a-jwt"}', '[1]']) {
      expect(await refusal(verifier().verify(bad, { 'x-webhook-signature': hmac(bad).digest('hex') }))).toBe('ERR_WEBHOOK_PAYLOAD');
    }
  });

  test('secrets too short to be safe, when configured', () => {
    expect(() => createWebhookVerifier({ secret: 'short' })).toThrow(ConfigurationError);
    expect(() => createWebhookVerifier({ secret: [SECRET, 'short'] })).toThrow(ConfigurationError);
    expect(() => createWebhookVerifier({ secret: [] })).toThrow(ConfigurationError);
  });

  test('does not leak the secret or the token, nor say which byte differed', async () => {
    const error = await rejection(verifier().verify(body.replace('arc_1', 'arc_2'), { 'x-webhook-signature': good() }));
    const printed = `${(error as Error).message} ${JSON.stringify(error)} ${inspect(error)}`;
    expect(printed).not.toContain(SECRET);
    expect(printed).not.toContain(TOKEN);
    expect(printed).not.toContain(good());
    expect(printed).not.toMatch(/byte|position|offset/i);
  });
});

describe('property: no single-byte change verifies', () => {
  const body = payload();
  const signature = hmac(body).digest('hex');

  test('of the body', async () => {
    const webhooks = verifier({ replayStore: false });
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: body.length - 1 }), fc.integer({ min: 1, max: 255 }), async (index, delta) => {
        const bytes = Buffer.from(body);
        bytes[index] = (bytes[index]! + delta) % 256;
        expect(await refusal(webhooks.verify(bytes, { 'x-webhook-signature': signature }))).not.toBe('ERR_WEBHOOK_PAYLOAD');
      }),
      { numRuns: 300 },
    );
  });

  test('of the signature', async () => {
    const webhooks = verifier({ replayStore: false });
    const mac = Buffer.from(signature, 'hex');
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: mac.length - 1 }), fc.integer({ min: 1, max: 255 }), async (index, delta) => {
        const changed = Buffer.from(mac);
        changed[index] = (changed[index]! + delta) % 256;
        expect(await refusal(webhooks.verify(body, { 'x-webhook-signature': changed.toString('hex') }))).toBe('ERR_WEBHOOK_SIGNATURE');
      }),
      { numRuns: 300 },
    );
  });
});

describe('createWebhookVerifier: each limit on both sides', () => {
  const body = payload();
  const signature = () => hmac(body).digest('hex');
  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      () => 'accepted',
      (error: WebhookVerificationError) => error.code,
    );

  test('maxBodyBytes: a body of exactly that many bytes is read; one more is refused', async () => {
    const size = new TextEncoder().encode(body).length;
    expect(await outcome(verifier({ maxBodyBytes: size, replayStore: false }).verify(body, { 'x-webhook-signature': signature() }))).toBe(
      'accepted',
    );
    expect(
      await outcome(verifier({ maxBodyBytes: size - 1, replayStore: false }).verify(body, { 'x-webhook-signature': signature() })),
    ).toBe('ERR_WEBHOOK_BODY_TOO_LARGE');
  });

  test('a declared Content-Length is refused before reading only above maxBodyBytes, and only when it is a number', async () => {
    const size = new TextEncoder().encode(body).length;
    const request = (contentLength: string) =>
      new Request('https://rp.example/webhooks', {
        method: 'POST',
        body,
        headers: { 'content-length': contentLength, 'x-webhook-signature': signature() },
      });
    expect(await outcome(verifier({ maxBodyBytes: size, replayStore: false }).verifyRequest(request(String(size))))).toBe('accepted');
    expect(await outcome(verifier({ maxBodyBytes: size - 1, replayStore: false }).verifyRequest(request(String(size))))).toBe(
      'ERR_WEBHOOK_BODY_TOO_LARGE',
    );
  });

  test('toleranceSeconds: a timestamp exactly that far either way is accepted; one second more is refused', async () => {
    const now = 1_800_000_000;
    const options = {
      timestamp: { header: 'x-webhook-timestamp', toleranceSeconds: 300 },
      now: () => now * 1000,
      replayStore: false as const,
    };
    const at = (stamp: number | string) =>
      outcome(
        verifier(options).verify(body, {
          'x-webhook-signature': hmac(`${stamp}.${body}`).digest('hex'),
          'x-webhook-timestamp': String(stamp),
        }),
      );
    expect(await at(now - 300)).toBe('accepted');
    expect(await at(now + 300)).toBe('accepted');
    expect(await at(now - 301)).toBe('ERR_WEBHOOK_TIMESTAMP');
    expect(await at(now + 301)).toBe('ERR_WEBHOOK_TIMESTAMP');
    // The clock's time is its whole seconds, as the senders' libraries count them (Stripe's and
    // Standard Webhooks' Math.floor): 999 ms into a second is still that second, never the next.
    const late = { ...options, now: () => now * 1000 + 999 };
    const stamped = (stamp: number) => ({
      'x-webhook-signature': hmac(`${stamp}.${body}`).digest('hex'),
      'x-webhook-timestamp': String(stamp),
    });
    expect(await outcome(verifier(late).verify(body, stamped(now - 300)))).toBe('accepted');
    expect(await outcome(verifier(late).verify(body, stamped(now - 301)))).toBe('ERR_WEBHOOK_TIMESTAMP');
    // Not a UNIX time in digits: refused for its form, never compared (NaN would pass a tolerance
    // test). Twenty digits are more than nanoseconds have.
    for (const stamp of [`${now}.5`, `${now}x`, ` ${now}`, `-${now}`, '1e9', 'NaN', `${now}0000000000`]) {
      expect(await at(stamp), stamp).toBe('ERR_WEBHOOK_TIMESTAMP');
    }
  });

  test('every option that bounds a check is refused, naming itself, when it would not bound it (NaN, a string, a negative number, not a header name)', async () => {
    const refused = (options: Partial<Parameters<typeof createWebhookVerifier>[0]>) => {
      try {
        createWebhookVerifier({ secret: SECRET, ...options });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        return (error as ConfigurationError).option;
      }
      return 'accepted';
    };
    const stamp = (toleranceSeconds: unknown, header: unknown = 'x-webhook-timestamp') =>
      ({ timestamp: { header, toleranceSeconds } }) as never;
    for (const bad of [Number.NaN, -1, '5']) {
      expect(refused(stamp(bad)), String(bad)).toBe('timestamp.toleranceSeconds');
      expect(refused({ toleranceSeconds: bad as number }), String(bad)).toBe('toleranceSeconds');
      expect(refused({ maxBodyBytes: bad as number }), String(bad)).toBe('maxBodyBytes');
      expect(refused({ minSecretBytes: bad as number }), String(bad)).toBe('minSecretBytes');
    }
    for (const header of [5, '', 'x webhook', 'x-ts\r\nx-injected: 1']) {
      expect(refused(stamp(300, header)), String(header)).toBe('timestamp.header');
      expect(refused({ signatureHeader: header as string }), String(header)).toBe('signatureHeader');
    }
    expect(refused({ timestamp: 'x-webhook-timestamp' as never })).toBe('timestamp');
    expect(refused({ encoding: 'HEX' as never })).toBe('encoding');
    // What each bounds, at its edge: 0 seconds of tolerance, a one-byte body limit.
    expect(refused(stamp(0))).toBe('accepted');
    expect(refused({ timestamp: { header: 'x-webhook-timestamp' }, maxBodyBytes: 1 })).toBe('accepted');
    // A tolerance of 0 is a bound like any other: the clock's own second passes, a timestamp of 1970 does not.
    const now = 1_800_000_000;
    const v = verifier({ timestamp: { header: 'x-webhook-timestamp', toleranceSeconds: 0 }, now: () => now * 1000, replayStore: false });
    const signed = (at: number) => ({ 'x-webhook-signature': hmac(`${at}.${body}`).digest('hex'), 'x-webhook-timestamp': String(at) });
    expect(await outcome(v.verify(body, signed(now)))).toBe('accepted');
    expect(await outcome(v.verify(body, signed(1)))).toBe('ERR_WEBHOOK_TIMESTAMP');
  });

  test('minSecretBytes: a secret of exactly that length is taken; one byte shorter is refused', () => {
    expect(() => createWebhookVerifier({ secret: 'x'.repeat(16) })).not.toThrow();
    expect(() => createWebhookVerifier({ secret: 'x'.repeat(15) })).toThrow(ConfigurationError);
    expect(() => createWebhookVerifier({ secret: new Uint8Array(24), minSecretBytes: 24 })).not.toThrow();
    expect(() => createWebhookVerifier({ secret: new Uint8Array(23), minSecretBytes: 24 })).toThrow(ConfigurationError);
  });

  test('the signature forms are anchored: garbage before or after a valid signature is refused', async () => {
    const hex = signature();
    const b64 = hmac(body).digest('base64');
    for (const header of [`x${hex}`, `${hex}x`, `sha256=${hex}!`, `!sha256=${hex}`, `${b64}==x`, `x${b64}`, `sha256=${hex} extra`]) {
      const code = await outcome(verifier({ replayStore: false }).verify(body, { 'x-webhook-signature': header }));
      expect(code, header).not.toBe('accepted');
    }
    // The bare forms themselves are accepted, so the refusals above are the garbage's.
    for (const header of [hex, `sha256=${hex}`, b64]) {
      expect(await outcome(verifier({ replayStore: false }).verify(body, { 'x-webhook-signature': header })), header).toBe('accepted');
    }
  });
});
