/**
 * The service's webhook may follow any of the conventions the spec leaves open ("HMAC algorithm,
 * signed content … not shown"; "kinds of event and the complete payload schema: not shown"). Each
 * form here is made by an implementation that is not the SDK's: `node:crypto` by hand for Stripe's
 * form, the `standardwebhooks` package for Standard Webhooks.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from 'vitest';
import {
  WebhookVerificationError,
  createWebhookVerifier,
  type WebhookErrorCode,
  type WebhookVerifierOptions,
} from '../../src/webhooks/index.js';
import { eventKind } from '../../src/webhooks/verify.js';
import { READING_CHOICES, resolveReadings, webhookRequest } from '../../src/testing/index.js';
import { rejection } from '../fixtures.js';

const SECRET = 'whsec_c2FuZGJveC1zZWNyZXQtMDEyMzQ1Njc4OWFiY2RlZg==';
const OTHER = 'whsec_another_secret_0123456789abcdef';
const NOW = 1_790_000_000_000;
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJhY2Nlc3NfcmVxdWVzdF9jb2RlIjoiYXJjXzEifQ.c2ln';
const body = (fields: Record<string, unknown> = { event: 'approved' }) =>
  JSON.stringify({ ...fields, access_request_code: 'arc_1', access_token: TOKEN });

const verifier = (options: Partial<WebhookVerifierOptions> = {}) =>
  createWebhookVerifier({ secret: SECRET, replayStore: false, now: () => NOW, logLevel: 'off', ...options });

/** A signature made with `node:crypto`, not the SDK: an HMAC of `text`, SHA-256 under SECRET in hex unless told otherwise. */
function hmac(
  text: string,
  { hash = 'sha256', secret = SECRET, encoding = 'hex' }: { hash?: string; secret?: string; encoding?: 'hex' | 'base64' } = {},
) {
  return createHmac(hash, secret).update(text).digest(encoding);
}

/** Stripe's `Stripe-Signature` form, as Stripe's libraries write it: HMAC-SHA256 of `${t}.${body}`, hex. */
const stripe = (payload: string, t: number | string = Math.floor(NOW / 1000), secret = SECRET) =>
  `t=${t},v1=${hmac(`${t}.${payload}`, { secret })}`;

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return error as WebhookVerificationError;
}

describe("webhook signatures: Stripe's t=…,v1=… in X-Webhook-Signature", () => {
  test('is detected and verified over "<t>.<body>"', async () => {
    const payload = body();
    const event = await verifier().verify(payload, { 'x-webhook-signature': stripe(payload) });
    expect(event).toMatchObject({ kind: 'approved', accessRequestCode: 'arc_1' });
    // With a v0 entry and spaces, as Stripe's test mode writes it.
    await expect(verifier().verify(payload, { 'x-webhook-signature': `${stripe(payload)}, v0=${'ab'.repeat(32)}` })).resolves.toBeDefined();
  });

  test('rejects a MAC of the body alone in that form, a wrong secret, and a timestamp outside the tolerance', async () => {
    const payload = body();
    const t = Math.floor(NOW / 1000);
    const bodyOnly = `t=${t},v1=${hmac(payload)}`;
    expect((await refusal(verifier().verify(payload, { 'x-webhook-signature': bodyOnly }))).code).toBe('ERR_WEBHOOK_SIGNATURE');
    const other = stripe(payload, t, 'whsec_another_secret_0123456789abcdef');
    expect((await refusal(verifier().verify(payload, { 'x-webhook-signature': other }))).code).toBe('ERR_WEBHOOK_SIGNATURE');
    for (const [stamp, code] of [
      [t - 301, 'ERR_WEBHOOK_TIMESTAMP'],
      [t + 301, 'ERR_WEBHOOK_TIMESTAMP'],
    ] as const) {
      expect((await refusal(verifier().verify(payload, { 'x-webhook-signature': stripe(payload, stamp) }))).code).toBe(code);
    }
    await expect(verifier().verify(payload, { 'x-webhook-signature': stripe(payload, t - 300) })).resolves.toBeDefined();
    await expect(
      verifier({ toleranceSeconds: 1000 }).verify(payload, { 'x-webhook-signature': stripe(payload, t - 900) }),
    ).resolves.toBeDefined();
  });

  test('property: a timestamp in milliseconds (the webhookTimestamp reading) is the instant it names, held to the same tolerance', async () => {
    const payload = body();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -600_000, max: 600_000 }), async (offsetMs) => {
        const stamp = NOW + offsetMs;
        const skew = Math.abs(Math.floor(NOW / 1000) - Math.floor(stamp / 1000));
        const verified = verifier().verify(payload, { 'x-webhook-signature': stripe(payload, stamp) });
        if (skew <= 300) await expect(verified).resolves.toMatchObject({ kind: 'approved' });
        else expect((await refusal(verified)).code).toBe('ERR_WEBHOOK_TIMESTAMP');
      }),
      { numRuns: 60 },
    );
  });

  test('property: a timestamp written as a date with its zone (the webhookTimestamp reading iso8601), in t= or X-Webhook-Timestamp, is the instant it names, held to the same tolerance; one without its zone is no time', async () => {
    const payload = body();
    /** `ms` as ISO 8601 in the zone `offsetMinutes` east of UTC (`Z` for 0), with `digits` of fraction. */
    const iso = (ms: number, offsetMinutes: number, digits: number) => {
      const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 19);
      const fraction =
        digits === 0
          ? ''
          : `.${String(ms % 1000)
              .padStart(3, '0')
              .padEnd(digits, '0')
              .slice(0, digits)}`;
      const sign = offsetMinutes < 0 ? '-' : '+';
      const abs = Math.abs(offsetMinutes);
      const zone =
        offsetMinutes === 0 ? 'Z' : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
      return `${local}${fraction}${zone}`;
    };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -600_000, max: 600_000 }),
        fc.constantFrom(0, 660, -330, 345, -720, 840),
        fc.constantFrom(0, 3, 6, 9),
        fc.boolean(),
        async (offsetMs, zone, digits, inHeader) => {
          const at = NOW + offsetMs;
          const stamp = iso(at, zone, digits);
          const skew = Math.abs(Math.floor(NOW / 1000) - Math.floor(at / 1000));
          const headers = inHeader
            ? { 'x-webhook-signature': `sha256=${hmac(`${stamp}.${payload}`)}`, 'x-webhook-timestamp': stamp }
            : { 'x-webhook-signature': stripe(payload, stamp) };
          const verified = verifier().verify(payload, headers);
          if (skew <= 300) await expect(verified, stamp).resolves.toMatchObject({ kind: 'approved' });
          else expect((await refusal(verified)).code, stamp).toBe('ERR_WEBHOOK_TIMESTAMP');
        },
      ),
      { numRuns: 80 },
    );
    // Without its zone a date names no instant: refused, never read in this machine's zone.
    const naive = new Date(NOW).toISOString().slice(0, 19);
    const refused = await refusal(verifier().verify(payload, { 'x-webhook-signature': stripe(payload, naive) }));
    expect([refused.code, refused.message]).toEqual(['ERR_WEBHOOK_TIMESTAMP', expect.stringMatching(/nor an ISO 8601 date with its zone/)]);
  });

  test.each(['stripe', 'standard', 'timestamped', 'rotation', 'slack'] as const)(
    '%s: a delivery the fake stamps in each webhookTimestamp reading verifies',
    async (webhookSignature) => {
      for (const webhookTimestamp of READING_CHOICES.webhookTimestamp) {
        const { body: text, headers } = await webhookRequest(
          { secret: SECRET, readings: resolveReadings({ webhookSignature, webhookTimestamp }), now: () => NOW },
          { event: 'approved', access_request_code: 'arc_1', access_token: TOKEN },
        );
        await expect(verifier().verify(text, headers), webhookTimestamp).resolves.toMatchObject({ accessRequestCode: 'arc_1' });
      }
    },
  );

  test('a timestamp in microseconds or nanoseconds is the instant it names (the one rule for times); more digits than nanoseconds have are no UNIX time, and a far one is far off', async () => {
    const payload = body();
    for (const stamp of [NOW * 1000, NOW * 1_000_000]) {
      await expect(verifier().verify(payload, { 'x-webhook-signature': stripe(payload, stamp) }), String(stamp)).resolves.toBeDefined();
    }
    // Twenty digits: no unit writes a UNIX time so long.
    const long = await refusal(verifier().verify(payload, { 'x-webhook-signature': stripe(payload, NOW * 10_000_000) }));
    expect(long.code).toBe('ERR_WEBHOOK_TIMESTAMP');
    expect(long.message).toMatch(/not a UNIX time in digits/);
    // Digits only: a sign is no UNIX time's either (a time before 1970 is no delivery's).
    for (const signed of [`-${NOW / 1000}`, `+${NOW / 1000}`]) {
      const refused = await refusal(verifier().verify(payload, { 'x-webhook-signature': stripe(payload, signed) }));
      expect([signed, refused.code, refused.message]).toEqual([
        signed,
        'ERR_WEBHOOK_TIMESTAMP',
        expect.stringMatching(/not a UNIX time in digits/),
      ]);
    }
    // Fourteen digits are milliseconds of the year 2537: read as such, and refused as far off.
    const far = await refusal(verifier().verify(payload, { 'x-webhook-signature': stripe(payload, NOW * 10) }));
    expect(far.code).toBe('ERR_WEBHOOK_TIMESTAMP');
    expect(far.message).toMatch(/from this machine's clock/);
  });

  test("a set whose only right MAC is under v0= (another scheme of Stripe's) is not verified by it: only v1 is ours", async () => {
    const payload = body();
    const t = Math.floor(NOW / 1000);
    const mac = hmac(`${t}.${payload}`);
    const error = await refusal(verifier().verify(payload, { 'x-webhook-signature': `t=${t},v0=${mac},v1=${'ab'.repeat(32)}` }));
    expect(error.code).toBe('ERR_WEBHOOK_SIGNATURE');
  });

  test('items of other names are passed over, as Stripe reads them: only t= is the timestamp, even beside names that start with t', async () => {
    const payload = body();
    for (const extra of ['tx=1', 'ts=1790000000', 'trace=abc', 'v0=00']) {
      await expect(verifier().verify(payload, { 'x-webhook-signature': `${stripe(payload)},${extra}` }), extra).resolves.toBeDefined();
      // Before the set's own items too: a Stripe item anywhere in the group makes it a Stripe set.
      await expect(verifier().verify(payload, { 'x-webhook-signature': `${extra},${stripe(payload)}` }), extra).resolves.toBeDefined();
    }
  });

  test('a header of that form with two timestamps, no v1, or a v1 that is not 64 hex digits is malformed, and says which forms were tried', async () => {
    const payload = body();
    const good = stripe(payload);
    // The right MAC with a byte more, or one less: not an HMAC-SHA256, whatever it begins with.
    for (const header of [
      `t=1,${good}`,
      `t=${Math.floor(NOW / 1000)},v0=${'ab'.repeat(32)},v1=zz`,
      `${good},v1=abc`,
      `${good}00`,
      good.slice(0, -2),
    ]) {
      const error = await refusal(verifier().verify(payload, { 'x-webhook-signature': header }));
      expect(error.code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
      expect(error.message).toMatch(/Stripe's t=…,v1=…; Standard Webhooks' v1,<base64>/);
    }
  });
});

describe('webhook signatures: Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)', () => {
  const sign = (payload: string, id = 'msg_1', at = new Date(NOW), secret = SECRET) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, payload),
  });

  test('signed by the standardwebhooks package, with a whsec_ secret: verified', async () => {
    const payload = body({ type: 'identity.request.approved' });
    expect(await verifier().verify(payload, sign(payload))).toMatchObject({ kind: 'approved', accessRequestCode: 'arc_1' });
    expect((await verifier().verify(payload, new Headers(sign(payload)))).accessToken).toBe(TOKEN);
  });

  test('with svix- headers, and with the signature in X-Webhook-Signature instead', async () => {
    const payload = body();
    const headers = sign(payload);
    await expect(
      verifier().verify(payload, {
        'svix-id': headers['webhook-id'],
        'svix-timestamp': headers['webhook-timestamp'],
        'svix-signature': headers['webhook-signature'],
      }),
    ).resolves.toBeDefined();
    await expect(
      verifier().verify(payload, {
        'webhook-id': headers['webhook-id'],
        'webhook-timestamp': headers['webhook-timestamp'],
        'x-webhook-signature': headers['webhook-signature'],
      }),
    ).resolves.toBeDefined();
  });

  test('an entry in X-Webhook-Signature with a stray comma before or after it is still a Standard Webhooks entry', async () => {
    const payload = body();
    const headers = sign(payload);
    for (const written of [`,${headers['webhook-signature']}`, `${headers['webhook-signature']},`, `,,${headers['webhook-signature']},`]) {
      const signed = {
        'webhook-id': headers['webhook-id'],
        'webhook-timestamp': headers['webhook-timestamp'],
        'x-webhook-signature': written,
      };
      await expect(verifier().verify(payload, signed), written).resolves.toMatchObject({ accessRequestCode: 'arc_1' });
    }
  });

  test('webhook-id is read before svix-id, as webhook-timestamp and webhook-signature are before theirs', async () => {
    const payload = body();
    const signed = sign(payload, 'msg_signed');
    await expect(verifier().verify(payload, { ...signed, 'svix-id': 'msg_other' })).resolves.toBeDefined();
    const swapped = { ...signed, 'webhook-id': 'msg_other', 'svix-id': 'msg_signed' };
    expect((await refusal(verifier().verify(payload, swapped))).code).toBe('ERR_WEBHOOK_SIGNATURE');
  });

  test('the id and the timestamp are signed: changing either is refused; a stale timestamp too', async () => {
    const payload = body();
    const headers = sign(payload);
    const codes: WebhookErrorCode[] = [];
    for (const changed of [
      { ...headers, 'webhook-id': 'msg_2' },
      { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) },
      sign(payload, 'msg_1', new Date(NOW - 301_000)),
      { ...headers, 'webhook-id': '' },
    ]) {
      codes.push((await refusal(verifier().verify(payload, changed))).code);
    }
    expect(codes).toEqual(['ERR_WEBHOOK_SIGNATURE', 'ERR_WEBHOOK_SIGNATURE', 'ERR_WEBHOOK_TIMESTAMP', 'ERR_WEBHOOK_MALFORMED_SIGNATURE']);
  });

  test('a signature of another version only (v1a) is malformed; several v1 during a rotation, one matching, verify', async () => {
    const payload = body();
    const headers = sign(payload);
    const v1a = { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v1a,') };
    expect((await refusal(verifier().verify(payload, v1a))).code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    const rotated = { ...headers, 'webhook-signature': `v1,${Buffer.alloc(32, 7).toString('base64')} ${headers['webhook-signature']}` };
    await expect(verifier().verify(payload, rotated)).resolves.toBeDefined();
    // An asymmetric v1a entry beside the v1 one is Standard Webhooks' too, and passed over, in either header.
    const asymmetric = `v1a,${Buffer.alloc(64, 9).toString('base64')} ${headers['webhook-signature']}`;
    await expect(verifier().verify(payload, { ...headers, 'webhook-signature': asymmetric })).resolves.toBeDefined();
    const { 'webhook-signature': _, ...rest } = headers;
    await expect(verifier().verify(payload, { ...rest, 'x-webhook-signature': asymmetric })).resolves.toBeDefined();
  });

  test('an Identity Actions event inside data, as enveloping senders write it, is read from there', async () => {
    const payload = JSON.stringify({
      type: 'identity.request.cancelled',
      timestamp: '2026-11-25T00:00:00Z',
      data: { access_request_code: 'arc_9', access_token: TOKEN },
    });
    const event = await verifier().verify(payload, sign(payload));
    expect(event).toMatchObject({ kind: 'cancelled', accessRequestCode: 'arc_9', accessToken: TOKEN });
    expect(JSON.stringify(event)).not.toContain(TOKEN);
  });

  test('the kind is read inside data too, where the envelope names none; an envelope and its data that disagree say unknown', async () => {
    const inside = JSON.stringify({ id: 'msg_1', data: { event: 'approved', access_request_code: 'arc_9', access_token: TOKEN } });
    expect(await verifier().verify(inside, sign(inside))).toMatchObject({ kind: 'approved', rawKind: 'approved' });
    const disagree = JSON.stringify({
      type: 'identity.request.cancelled',
      data: { event: 'approved', access_request_code: 'arc_9', access_token: TOKEN },
    });
    expect(await verifier().verify(disagree, sign(disagree))).toMatchObject({ kind: 'unknown' });
  });

  test('property: the event is read wherever an envelope puts it (the top, data, data.object as Stripe writes an event, payload), beside fields of the sender: its code, token and kind; the payload keeps the envelope, the token taken out', async () => {
    const PATHS: readonly (readonly string[])[] = [[], ['data'], ['data', 'object'], ['payload']];
    const extra = fc.dictionary(
      fc.constantFrom('id', 'created', 'note', 'livemode', 'object'),
      fc.oneof(fc.string({ maxLength: 8 }), fc.integer()),
      {
        maxKeys: 3,
      },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS),
        fc.constantFrom('approved', 'cancelled'),
        fc.boolean(),
        extra,
        extra,
        async (path, kind, kindInside, outer, inner) => {
          const fields = { ...inner, access_request_code: 'arc_env', access_token: TOKEN, ...(kindInside ? { event: kind } : {}) };
          const { access_token: _, ...kept } = fields;
          // The envelope around the fields, and the payload expected: the same with the token taken out.
          let sent: Record<string, unknown> = fields;
          let expected: Record<string, unknown> = kept;
          for (const key of [...path].reverse()) {
            sent = { [key]: sent };
            expected = { [key]: expected };
          }
          if (!kindInside) {
            sent = { ...outer, type: `identity.request.${kind}`, ...sent };
            expected = { ...outer, type: `identity.request.${kind}`, ...expected };
          }
          const text = JSON.stringify(sent);
          const event = await verifier().verify(text, sign(text));
          expect(event).toMatchObject({ kind, accessRequestCode: 'arc_env', accessToken: TOKEN });
          expect(event.payload).toEqual(expected);
          expect(JSON.stringify(event)).not.toContain(TOKEN);
        },
      ),
      { numRuns: 80 },
    );
  });

  test('property: a body holding an event at several of those places is read at the first of them, in the order top, data, data.object, payload', async () => {
    const PATHS: readonly (readonly string[])[] = [[], ['data'], ['data', 'object'], ['payload']];
    await fc.assert(
      fc.asyncProperty(fc.subarray([0, 1, 2, 3], { minLength: 1 }), async (held) => {
        const sent: Record<string, unknown> = {};
        for (const i of held) {
          let at = sent;
          for (const key of PATHS[i] as readonly string[]) {
            at[key] ??= {};
            at = at[key] as Record<string, unknown>;
          }
          Object.assign(at, { access_request_code: `arc_${i}`, access_token: TOKEN });
        }
        const text = JSON.stringify(sent);
        expect((await verifier().verify(text, sign(text))).accessRequestCode).toBe(`arc_${Math.min(...held)}`);
      }),
    );
  });

  test('an envelope whose data holds no event, with none elsewhere, is refused naming what data lacks', async () => {
    const text = JSON.stringify({ type: 'identity.request.approved', data: { access_token: TOKEN }, payload: { note: 1 } });
    const error = await refusal(verifier().verify(text, sign(text)));
    expect(error.code).toBe('ERR_WEBHOOK_PAYLOAD');
    expect(error.message).toContain('(access_request_code)');
  });

  test('an envelope whose data is no object (a text, a number, null, a list) is passed over for the payload beside it', async () => {
    for (const data of ['text', 7, null, [1], true]) {
      const text = JSON.stringify({ event: 'cancelled', data, payload: { access_request_code: 'arc_p', access_token: TOKEN } });
      expect(await verifier().verify(text, sign(text))).toMatchObject({ kind: 'cancelled', accessRequestCode: 'arc_p' });
    }
  });
});

describe('webhook signatures: choosing the scheme', () => {
  test("scheme: 'hmac' refuses Stripe's form as malformed; scheme: 'stripe' refuses a bare HMAC", async () => {
    const payload = body();
    expect((await refusal(verifier({ scheme: 'hmac' }).verify(payload, { 'x-webhook-signature': stripe(payload) }))).code).toBe(
      'ERR_WEBHOOK_MALFORMED_SIGNATURE',
    );
    const bare = hmac(payload);
    expect((await refusal(verifier({ scheme: 'stripe' }).verify(payload, { 'x-webhook-signature': bare }))).code).toBe(
      'ERR_WEBHOOK_MALFORMED_SIGNATURE',
    );
  });

  test("scheme: 'standard' refuses a header carrying a bare HMAC and a Stripe set, as many of each, as malformed, not as empty (#45)", async () => {
    const payload = body();
    const bare = hmac(payload);
    const both = { 'x-webhook-signature': `sha256=${bare} ${stripe(payload)}` };
    const error = await refusal(verifier({ scheme: 'standard' }).verify(payload, both));
    expect(error.code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    expect(error.message).toContain('not in the standard form');
  });

  test("scheme: 'hmac' or 'stripe' refuses a Standard Webhooks entry written in X-Webhook-Signature, with its id and timestamp beside it", async () => {
    const payload = body();
    const at = new Date(NOW);
    const entry = new Webhook(SECRET).sign('msg_1', at, payload);
    const headers = { 'x-webhook-signature': entry, 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(NOW / 1000)) };
    // The same entry verifies where that convention is read: the refusals below are the scheme's.
    await expect(verifier().verify(payload, headers)).resolves.toMatchObject({ kind: 'approved' });
    for (const scheme of ['hmac', 'stripe'] as const) {
      const error = await refusal(verifier({ scheme }).verify(payload, headers));
      expect(error.code, scheme).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
      expect(error.message, scheme).toContain(`not in the ${scheme} form`);
    }
  });

  test('no signature in any header this verifier reads is missing, naming both headers', async () => {
    const error = await refusal(verifier().verify(body(), { 'stripe-signature': 'x' }));
    expect(error.code).toBe('ERR_WEBHOOK_MISSING_SIGNATURE');
    expect(error.message).toContain('X-Webhook-Signature');
    expect(error.message).toContain('webhook-signature');
  });

  test('an unknown scheme or a negative tolerance is a configuration error', () => {
    expect(() => verifier({ scheme: 'svix' as never })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'scheme' }));
    // Only the four names: one that would check nothing ('none'), another case, or any other text is refused.
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom('none', 'off', 'HMAC', 'Stripe', 'plain', '', 'auto '), fc.string()), (scheme) => {
        fc.pre(!['auto', 'hmac', 'stripe', 'standard'].includes(scheme));
        expect(() => verifier({ scheme: scheme as never })).toThrow(
          expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'scheme' }),
        );
      }),
    );
    expect(() => verifier({ toleranceSeconds: -1 })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'toleranceSeconds' }),
    );
  });
});

describe('webhook event kinds: read on one rule, never guessed', () => {
  test.each([
    [{ event: 'approved' }, 'approved'],
    [{ type: 'cancelled' }, 'cancelled'],
    [{ event_type: 'identity.request.approved' }, 'approved'],
    [{ eventType: 'IdentityRequest:Canceled' }, 'cancelled'],
    [{ status: 'APPROVED' }, 'approved'],
    [{ Status: 'CANCELLED' }, 'cancelled'],
    [{ action: 'REQUEST_CANCELLED' }, 'cancelled'],
    [{ kind: 'identity/approved' }, 'approved'],
    [{ type: 'identity_action', status: 'approved' }, 'approved'],
    [{ event: 'approved', status: 'approved' }, 'approved'],
    // Nothing says, or the fields disagree, or a word is negated: unknown, never a guess.
    [{}, 'unknown'],
    [{ event: 'completed' }, 'unknown'],
    [{ event: 'approved', status: 'cancelled' }, 'unknown'],
    [{ status: 'not approved' }, 'unknown'],
    [{ status: 'approved_then_cancelled' }, 'unknown'],
    [{ event: 'unapproved' }, 'unknown'],
    // Each negating word, written apart from the kind it negates.
    [{ status: 'un-approved' }, 'unknown'],
    [{ status: 'no_cancellation' }, 'unknown'],
    [{ status: 'non.approved' }, 'unknown'],
    [{ status: 'never cancelled' }, 'unknown'],
    [{ action: 'NOT:APPROVE' }, 'unknown'],
    // A field that cannot be read beside one that says: still unknown, whichever it sides with.
    [{ event: 'approved', status: 'not approved' }, 'unknown'],
    [{ event: 'cancelled', status: 'never cancelled' }, 'unknown'],
    [{ type: 'approved', action: 'approved_and_cancelled' }, 'unknown'],
    [{ event: 42 }, 'unknown'],
    [{ message: 'approved' }, 'unknown'],
  ])('%j is %s', (fields, kind) => {
    expect(eventKind(fields).kind).toBe(kind);
  });

  test('property: a kind field is read whatever its case and the `_` or `-` inside it (up to 15 characters), its value whatever its case and the separators between its words', () => {
    const NAMES = ['event', 'type', 'eventtype', 'status', 'action', 'kind'];
    const APPROVING = ['approved', 'approve'];
    const CANCELLING = ['cancelled', 'canceled', 'cancel', 'cancellation'];
    const NEGATING = ['not', 'no', 'non', 'un', 'never'];
    const OTHERS = ['identity', 'request', 'webhook', 'done', 'approvedx', 'notice'];
    /** The rule as the docs say it, over the value's words: one kind named, none negated. */
    const said = (words: readonly string[]): string => {
      const approved = words.some((w) => APPROVING.includes(w));
      const cancelled = words.some((w) => CANCELLING.includes(w));
      if (approved === cancelled || words.some((w) => NEGATING.includes(w))) return 'unknown';
      return approved ? 'approved' : 'cancelled';
    };
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        fc.array(fc.constantFrom('lower', 'upper'), { minLength: 9, maxLength: 9 }),
        fc.array(fc.constantFrom('', '', '_', '-', '__'), { minLength: 9, maxLength: 9 }),
        fc.array(fc.constantFrom(...APPROVING, ...CANCELLING, ...NEGATING, ...OTHERS), { minLength: 1, maxLength: 4 }),
        fc.array(fc.constantFrom('.', '_', ':', '/', '-', ' ', '__', '. ', '\t'), { minLength: 3, maxLength: 3 }),
        fc.boolean(),
        (name, cases, gaps, words, separators, shout) => {
          const key = [...name].map((c, i) => (cases[i] === 'upper' ? c.toUpperCase() : c) + gaps[i]).join('');
          const value = words.map((word, i) => (i === 0 ? word : `${separators[i - 1]}${word}`)).join('');
          const kind = key.length <= 15 ? said(words) : 'unknown';
          expect(eventKind({ [key]: shout ? value.toUpperCase() : value }).kind).toBe(kind);
          expect(eventKind({ access_request_code: 'arc_1', [key]: value, padding: 'x' }).kind).toBe(kind);
        },
      ),
      { numRuns: 400 },
    );
  });

  test('an event without a kind field verifies, with kind unknown (never undefined) and no rawKind', async () => {
    const payload = body({});
    const event = await verifier().verify(payload, { 'x-webhook-signature': hmac(payload) });
    expect(event.kind).toBe('unknown');
    expect(event).not.toHaveProperty('rawKind');
  });

  test('rawKind keeps what the payload said, cut to 64 characters', () => {
    expect(eventKind({ event: 'identity.request.approved' })).toEqual({ kind: 'approved', rawKind: 'identity.request.approved' });
    expect(eventKind({ event: `approved.${'x'.repeat(100)}` }).rawKind).toHaveLength(64);
  });

  test('rawKind is the field that said the kind: a field naming neither, before or after it, does not replace it', () => {
    expect(eventKind({ event: 'approved', type: 'webhook' })).toEqual({ kind: 'approved', rawKind: 'approved' });
    expect(eventKind({ type: 'webhook', status: 'cancelled' })).toEqual({ kind: 'cancelled', rawKind: 'cancelled' });
  });

  test('only the payload own fields are read: a kind inherited from a polluted Object.prototype (another library) says nothing', () => {
    const prototype = Object.prototype as Record<string, unknown>;
    prototype['status'] = 'cancelled';
    try {
      expect(eventKind(JSON.parse('{"event":"approved"}'))).toEqual({ kind: 'approved', rawKind: 'approved' });
      expect(eventKind(JSON.parse('{"access_request_code":"arc_1"}'))).toEqual({ kind: 'unknown' });
    } finally {
      delete prototype['status'];
    }
  });

  test('a field name of up to 15 characters is read, separators and all; a longer one is not', () => {
    // Both are event_type with separators between its letters: 15 characters, then 16.
    expect(eventKind({ e_v_e_n_t_t_ype: 'approved' }).kind).toBe('approved');
    expect(eventKind({ e_v_e_n_t_t_y_pe: 'approved' })).toEqual({ kind: 'unknown' });
  });
});

describe('webhook signatures: the edges of each form (each pinned for its rule)', () => {
  const payload = body();
  const t = Math.floor(NOW / 1000);
  const v1 = (secret = SECRET) => hmac(`${t}.${payload}`, { secret });

  test("Stripe's header in any order and with spaces after its commas", async () => {
    for (const header of [`v1=${v1()},t=${t}`, `t=${t}, v1=${v1()}`, `v1=${v1()},  t=${t}`]) {
      await expect(verifier().verify(payload, { 'x-webhook-signature': header })).resolves.toMatchObject({ kind: 'approved' });
    }
  });

  test("Stripe's keys are its own, in lower case: a set whose signature is written V1= has none, and is malformed", async () => {
    for (const header of [`t=${t},V1=${v1()}`, `V1=${v1()},t=${t}`]) {
      expect((await refusal(verifier().verify(payload, { 'x-webhook-signature': header }))).code, header).toBe(
        'ERR_WEBHOOK_MALFORMED_SIGNATURE',
      );
    }
  });

  test("Stripe's header carries at most maxSignatures v1 entries: that many is read, one more is refused", async () => {
    const others = (n: number) => Array.from({ length: n }, (_, i) => `v1=${String(i).repeat(64).slice(0, 64)}`).join(',');
    await expect(verifier().verify(payload, { 'x-webhook-signature': `t=${t},${others(3)},v1=${v1()}` })).resolves.toBeDefined();
    const error = await refusal(verifier().verify(payload, { 'x-webhook-signature': `t=${t},${others(4)},v1=${v1()}` }));
    expect(error.code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
  });

  test('an explicit scheme with its header missing is a missing signature, never a crash', async () => {
    for (const scheme of ['hmac', 'stripe', 'standard'] as const) {
      expect((await refusal(verifier({ scheme }).verify(payload, {}))).code).toBe('ERR_WEBHOOK_MISSING_SIGNATURE');
    }
    // Only Standard Webhooks' header, where the scheme reads X-Webhook-Signature: missing too.
    for (const scheme of ['hmac', 'stripe'] as const) {
      const only = {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(t),
        'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
      };
      expect((await refusal(verifier({ scheme }).verify(payload, only))).code, scheme).toBe('ERR_WEBHOOK_MISSING_SIGNATURE');
    }
    // scheme stripe, a header without any v1 entry: malformed.
    expect((await refusal(verifier({ scheme: 'stripe' }).verify(payload, { 'x-webhook-signature': `t=${t}` }))).code).toBe(
      'ERR_WEBHOOK_MALFORMED_SIGNATURE',
    );
  });

  const standard = (signature: string, id = 'msg_1') => ({
    'webhook-id': id,
    'webhook-timestamp': String(t),
    'webhook-signature': signature,
  });
  const good = (id = 'msg_1') => new Webhook(SECRET).sign(id, new Date(NOW), payload);

  test('Standard Webhooks: a webhook-id of 256 characters is read, 257 is malformed', async () => {
    const long = 'm'.repeat(256);
    await expect(verifier().verify(payload, standard(good(long), long))).resolves.toBeDefined();
    const longer = 'm'.repeat(257);
    expect((await refusal(verifier().verify(payload, standard(good(longer), longer)))).code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
  });

  test('Standard Webhooks: at most maxSignatures entries, spaces between them not counted; a v1 of the wrong length is malformed', async () => {
    const filler = `v1,${Buffer.alloc(32, 1).toString('base64')}`;
    await expect(verifier({ maxSignatures: 2 }).verify(payload, standard(`${filler}  ${good()}`))).resolves.toBeDefined();
    // Any whitespace between entries, a tab as well as spaces.
    await expect(verifier({ maxSignatures: 2 }).verify(payload, standard(`${filler}\t${good()}`))).resolves.toBeDefined();
    expect((await refusal(verifier({ maxSignatures: 2 }).verify(payload, standard(`${filler} ${filler} ${good()}`)))).code).toBe(
      'ERR_WEBHOOK_MALFORMED_SIGNATURE',
    );
    // Shorter or longer than an HMAC-SHA256 (64 bytes is an Ed25519 signature under the wrong version): malformed.
    for (const bytes of [3, 31, 33, 64]) {
      const wrong = `v1,${Buffer.alloc(bytes, 7).toString('base64')}`;
      expect((await refusal(verifier().verify(payload, standard(`${good()} ${wrong}`)))).code, `${bytes} bytes`).toBe(
        'ERR_WEBHOOK_MALFORMED_SIGNATURE',
      );
    }
  });

  test("Stripe's and Standard Webhooks' HMAC is SHA-256 whatever algorithm says (it names the plain HMAC's hash)", async () => {
    for (const algorithm of ['SHA-384', 'SHA-512'] as const) {
      await expect(
        verifier({ algorithm }).verify(payload, { 'x-webhook-signature': `t=${t},v1=${v1()}` }),
        algorithm,
      ).resolves.toBeDefined();
      await expect(verifier({ algorithm }).verify(payload, standard(good())), algorithm).resolves.toBeDefined();
    }
  });

  test("Standard Webhooks' own header is read before X-Webhook-Signature, where the standard form is chosen or seen", async () => {
    const wrong = `v1,${Buffer.alloc(32, 7).toString('base64')}`;
    // Chosen: X-Webhook-Signature carries something else, webhook-signature the signature.
    await expect(
      verifier({ scheme: 'standard' }).verify(payload, { ...standard(good()), 'x-webhook-signature': 'sha256=00' }),
    ).resolves.toBeDefined();
    // Seen: X-Webhook-Signature in the standard form, beside the standard header that holds the right one.
    await expect(verifier().verify(payload, { ...standard(good()), 'x-webhook-signature': wrong })).resolves.toBeDefined();
    // Without the standard header, the standard form in X-Webhook-Signature is read there.
    const { 'webhook-signature': _, ...withoutIt } = standard(good());
    await expect(verifier().verify(payload, { ...withoutIt, 'x-webhook-signature': good() })).resolves.toBeDefined();
  });

  test('Standard Webhooks with a secret that is not base64: its text is the key', async () => {
    const secret = 'not base64 at all, but long enough!';
    const id = 'msg_2';
    const signature = `v1,${hmac(`${id}.${t}.${payload}`, { encoding: 'base64', secret })}`;
    await expect(verifier({ secret }).verify(payload, standard(signature, id))).resolves.toBeDefined();
    // A whsec_ secret whose text (not its base64) signed: tried too.
    const text = `v1,${hmac(`${id}.${t}.${payload}`, { encoding: 'base64' })}`;
    await expect(verifier().verify(payload, standard(text, id))).resolves.toBeDefined();
  });

  test('toleranceSeconds must be a number, 0 or more: 0 is allowed, "5" is not', () => {
    expect(() => verifier({ toleranceSeconds: 0 })).not.toThrow();
    expect(() => verifier({ toleranceSeconds: '5' as never })).toThrow(expect.objectContaining({ option: 'toleranceSeconds' }));
    // NaN is refused too: no timestamp is "more than NaN" away, so every one would pass.
    expect(() => verifier({ toleranceSeconds: Number.NaN })).toThrow(expect.objectContaining({ option: 'toleranceSeconds' }));
  });
});

describe('webhook payloads: the documented fields, checked by hand', () => {
  const sign = (text: string) => ({ 'x-webhook-signature': hmac(text) });
  test.each([
    ['an access_request_code that is not a string', { access_request_code: 42, access_token: TOKEN }, 'access_request_code'],
    ['an empty access_request_code', { access_request_code: '', access_token: TOKEN }, 'access_request_code'],
    ['no access_token', { access_request_code: 'arc_1' }, 'access_token'],
    ['an access_token that is not a JWT', { access_request_code: 'arc_1', access_token: 'opaque' }, 'access_token'],
  ])('%s is refused, naming the field', async (_name, fields, field) => {
    const text = JSON.stringify({ event: 'approved', ...fields });
    const error = await refusal(verifier().verify(text, sign(text)));
    expect(error.code).toBe('ERR_WEBHOOK_PAYLOAD');
    expect(error.message).toContain(field);
  });

  test('an event inside data keeps the envelope fields in its payload, and data without access_token', async () => {
    const text = JSON.stringify({
      type: 'identity.request.approved',
      id: 'evt_1',
      data: { access_request_code: 'arc_1', access_token: TOKEN, extra: 1 },
    });
    const event = await verifier().verify(text, sign(text));
    expect(event.payload).toEqual({ type: 'identity.request.approved', id: 'evt_1', data: { access_request_code: 'arc_1', extra: 1 } });
  });

  test('a flat event is read at the top even when it also has a data object: its access_request_code says where the event is', async () => {
    const text = JSON.stringify({
      event: 'approved',
      access_request_code: 'arc_top',
      access_token: TOKEN,
      data: { access_request_code: 'arc_inner', access_token: 'x.y.z', note: "the sender's own field" },
    });
    const event = await verifier().verify(text, sign(text));
    expect(event).toMatchObject({ kind: 'approved', accessRequestCode: 'arc_top', accessToken: TOKEN });
    expect(event.payload).toMatchObject({ access_request_code: 'arc_top', data: { access_request_code: 'arc_inner' } });
  });
});

describe('webhook event kinds: rawKind', () => {
  test('a kind field that says neither approved nor cancelled is kept as rawKind, cut to 64 characters', () => {
    expect(eventKind({ type: 'identity_action' })).toEqual({ kind: 'unknown', rawKind: 'identity_action' });
    expect(eventKind({ type: 'x'.repeat(100) }).rawKind).toHaveLength(64);
  });
});

describe('webhook signatures: the header read whatever the sender writes around the signatures (mutation survivors, #45)', () => {
  test('empty entries between commas are passed over, not read as signatures', async () => {
    const payload = body();
    const written = `sha256=${hmac(payload)},,sha256=${hmac(payload, { secret: OTHER })}`;
    await expect(verifier().verify(payload, { 'x-webhook-signature': written })).resolves.toBeDefined();
  });

  test('runs of commas inside a Stripe set are passed over and not counted as signatures', async () => {
    const payload = body();
    const [stamp, mac] = stripe(payload).split(',');
    await expect(verifier().verify(payload, { 'x-webhook-signature': `${stamp},,,,,${mac}` })).resolves.toBeDefined();
  });

  test("Standard Webhooks' header with spaces around it (a plain object keeps them) holds one signature, not three", async () => {
    const payload = body();
    const id = 'msg_spaced';
    const signature = new Webhook(SECRET).sign(id, new Date(NOW), payload);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(NOW / 1000), 'webhook-signature': `  ${signature}  ` };
    await expect(verifier({ maxSignatures: 1 }).verify(payload, headers)).resolves.toBeDefined();
  });

  test('with SHA-384 and SHA-512, as many full-length signatures as are checked are not too long to read', async () => {
    const payload = body();
    for (const [algorithm, name] of [
      ['SHA-384', 'sha384'],
      ['SHA-512', 'sha512'],
    ] as const) {
      const mac = (secret: string) => `${name}=${hmac(payload, { hash: name, secret })}`;
      const written = [mac(OTHER), mac(OTHER), mac(OTHER), mac(SECRET)].join(', ');
      await expect(verifier({ algorithm }).verify(payload, { 'x-webhook-signature': written }), algorithm).resolves.toBeDefined();
    }
  });

  test('signatures only of a convention the scheme does not read are malformed, not missing', async () => {
    const payload = body();
    const standardEntry = `v1,${hmac(payload, { encoding: 'base64' })}`;
    for (const [scheme, written] of [
      ['hmac', standardEntry],
      ['stripe', `${hmac(payload)} ${standardEntry}`],
      ['standard', hmac(payload)],
    ] as const) {
      const error = await refusal(verifier({ scheme }).verify(payload, { 'x-webhook-signature': written }));
      expect({ scheme, code: error.code }).toEqual({ scheme, code: 'ERR_WEBHOOK_MALFORMED_SIGNATURE' });
    }
  });

  test('a base64 HMAC that happens to end in "t=" or "v1=" is still an HMAC of the body, not a Stripe item', async () => {
    // Bodies differing in one field until the base64 MAC ends as a Stripe key would: about one in 64.
    let payload = '';
    for (let i = 0; !/(t|v\d+)=$/.test(hmac(payload, { encoding: 'base64' })); i++) payload = body({ event: 'approved', n: i });
    await expect(verifier().verify(payload, { 'x-webhook-signature': hmac(payload, { encoding: 'base64' }) })).resolves.toBeDefined();
  });

  test('a Stripe set with an item of its own (scheme=…) beside t= and v1= is still a Stripe set', async () => {
    const payload = body();
    await expect(verifier().verify(payload, { 'x-webhook-signature': `${stripe(payload)},scheme=v1` })).resolves.toBeDefined();
  });

  test('signatures are counted across conventions: two HMACs and a Stripe set of three are five, over the four checked', async () => {
    const payload = body();
    const t = Math.floor(NOW / 1000);
    const wrong = 'ab'.repeat(32);
    const written = `${hmac(payload, { encoding: 'base64', secret: OTHER })} ${hmac(payload, { encoding: 'base64' })} t=${t},v1=${wrong},v1=${wrong},v1=${wrong}`;
    expect((await refusal(verifier().verify(payload, { 'x-webhook-signature': written }))).code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    // Four (one HMAC fewer) are checked, and the right one among them verifies.
    const four = `${hmac(payload, { encoding: 'base64' })} t=${t},v1=${wrong},v1=${wrong},v1=${wrong}`;
    await expect(verifier().verify(payload, { 'x-webhook-signature': four })).resolves.toBeDefined();
  });

  test('with two whsec_ secrets, each keeps its own Standard Webhooks key form once a delivery showed it', async () => {
    const second = 'whsec_c2Vjb25kLXNhbmRib3gtc2VjcmV0LTAxMjM0NTY3ODk=';
    const v = verifier({ secret: [SECRET, second] });
    const signed = (secret: string, id: string) => {
      const payload = body();
      return [
        payload,
        {
          'webhook-id': id,
          'webhook-timestamp': String(NOW / 1000),
          'webhook-signature': new Webhook(secret).sign(id, new Date(NOW), payload),
        },
      ] as const;
    };
    // The second secret's form is learnt first; the first secret's deliveries still verify after it, and so do the second's.
    for (const [secret, id] of [
      [second, 'msg_1'],
      [SECRET, 'msg_2'],
      [second, 'msg_3'],
      [SECRET, 'msg_4'],
    ] as const) {
      await expect(v.verify(...signed(secret, id)), id).resolves.toBeDefined();
    }
  });

  test('events of two unknown kinds for one request are two deliveries (their ids differ), one kind sent again is the same', async () => {
    const v = verifier();
    const idOf = async (kind: string, token = TOKEN) => {
      const payload = JSON.stringify({ event: kind, access_request_code: 'arc_1', access_token: token });
      return (await v.verify(payload, { 'x-webhook-signature': hmac(payload) })).deliveryId;
    };
    expect(await idOf('escalated')).not.toBe(await idOf('reviewed'));
    expect(await idOf('escalated')).toBe(await idOf('escalated', `${TOKEN}x`));
    expect(await idOf('escalated')).not.toBe(await idOf('approved'));
  });

  test('a base64 MAC with more padding than its length needs (up to two =) is read as its bytes: padding is not what is signed', async () => {
    const payload = body();
    for (const [algorithm, name] of [
      ['SHA-256', 'sha256'],
      ['SHA-384', 'sha384'],
      ['SHA-512', 'sha512'],
    ] as const) {
      const bare = hmac(payload, { hash: name, encoding: 'base64' }).replace(/=+$/, '');
      for (const padding of ['', '=', '==']) {
        const written = `${bare}${padding}`;
        await expect(verifier().verify(payload, { 'x-webhook-signature': written }), `${algorithm} ${written}`).resolves.toBeDefined();
      }
      // Three is more than base64 ever writes: not a signature form.
      expect((await refusal(verifier().verify(payload, { 'x-webhook-signature': `${bare}===` }))).code).toBe(
        'ERR_WEBHOOK_MALFORMED_SIGNATURE',
      );
    }
  });

  test('an HMAC entry ending in v<digits>, followed by a comma and another, is not a Standard Webhooks entry: the other still verifies', async () => {
    const payload = body();
    // A decoy of an HMAC-SHA384's length (64 base64 characters) whose text ends as a Standard Webhooks version would.
    for (const decoy of [`${'A'.repeat(62)}v1`, `${'B'.repeat(61)}v12`, `${'C'.repeat(60)}v1ab`]) {
      const written = `${decoy},${hmac(payload)}`;
      await expect(verifier().verify(payload, { 'x-webhook-signature': written }), written).resolves.toMatchObject({ kind: 'approved' });
    }
  });

  test('a Standard Webhooks entry of another version, whatever its number (v2, v10), is passed over beside a v1 that verifies', async () => {
    const payload = body();
    const id = 'msg_versions';
    const signature = new Webhook(SECRET).sign(id, new Date(NOW), payload);
    const other = `${'Z'.repeat(43)}=`;
    // In Standard Webhooks' own header, and in X-Webhook-Signature, where each entry's form says its convention.
    for (const header of ['webhook-signature', 'x-webhook-signature']) {
      for (const version of ['v2', 'v10', 'v123']) {
        const headers = { 'webhook-id': id, 'webhook-timestamp': String(NOW / 1000), [header]: `${version},${other} ${signature}` };
        await expect(verifier().verify(payload, headers), `${header}: ${version}`).resolves.toBeDefined();
      }
    }
  });

  test('a refusal names another hash only for a MAC whose text has that length as hex or canonical base64, never after dropping an inner =', async () => {
    const payload = body();
    // 43 base64 characters would be an HMAC-SHA256; with an = inside them it is no base64 at all.
    const inner = `${'A'.repeat(42)}=A`;
    const error = await refusal(verifier({ algorithm: 'SHA-512' }).verify(payload, { 'x-webhook-signature': inner }));
    expect(error.code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    expect(error.message).not.toContain("set algorithm: 'SHA-256'");
    expect(error.message).toContain('not a hex or base64 HMAC-SHA-512 (64 bytes)');
    // The same characters without the = are an HMAC-SHA256's length, and the refusal says which algorithm to set.
    const bare = await refusal(verifier({ algorithm: 'SHA-512' }).verify(payload, { 'x-webhook-signature': `${'A'.repeat(43)}=` }));
    expect(bare.message).toContain("set algorithm: 'SHA-256'");
  });

  test('a group of Stripe items whose version has several digits (v10=) is read as a Stripe set, and refused as one without its t=', async () => {
    const payload = body();
    const error = await refusal(verifier().verify(payload, { 'x-webhook-signature': `v10=${hmac(payload)}` }));
    expect(error.code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    expect(error.message).toContain('has t= but not one timestamp');
  });
});

describe("webhook signatures: an empty request, the edges of Stripe's sets, and the signature a delivery is learnt from (#45)", () => {
  const T = Math.floor(NOW / 1000);

  test('a Web request with no body at all is an empty body, not one too large', async () => {
    const request = new Request('https://rp.example/webhooks', {
      method: 'POST',
      headers: { 'x-webhook-signature': `sha256=${hmac('')}` },
    });
    expect((await refusal(verifier().verifyRequest(request))).code).toBe('ERR_WEBHOOK_EMPTY_BODY');
  });

  test("every item of a Stripe set but its timestamp counts toward maxSignatures, v0's too", async () => {
    const payload = body();
    const header = `${stripe(payload)},${Array.from({ length: 4 }, () => `v0=${'ab'.repeat(32)}`).join(',')}`;
    expect((await refusal(verifier({ maxSignatures: 4 }).verify(payload, { 'x-webhook-signature': header }))).code).toBe(
      'ERR_WEBHOOK_MALFORMED_SIGNATURE',
    );
    await expect(verifier({ maxSignatures: 5 }).verify(payload, { 'x-webhook-signature': header })).resolves.toBeDefined();
  });

  test('an item whose key only ends in t (st=…) is no timestamp: it joins the Stripe set before it rather than starting one', async () => {
    const payload = body();
    const header = `${stripe(payload)} st=1,v1=${'cd'.repeat(32)}`;
    await expect(verifier().verify(payload, { 'x-webhook-signature': header })).resolves.toBeDefined();
  });

  test("a Stripe timestamp holding a second '=' is a timestamp that is no UNIX time, not a set without one", async () => {
    const payload = body();
    const header = `t=${T}=1,v1=${hmac(`${T}=1.${payload}`)}`;
    expect((await refusal(verifier().verify(payload, { 'x-webhook-signature': header }))).code).toBe('ERR_WEBHOOK_TIMESTAMP');
  });

  test("a hash's name is a prefix only at the start of an entry: xsha1=<hex> is no MAC, not an HMAC-SHA-1 to configure", async () => {
    const payload = body();
    const error = await refusal(verifier().verify(payload, { 'x-webhook-signature': `xsha1=${hmac(payload, { hash: 'sha1' })}` }));
    expect(error.code).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    expect(error.message).toMatch(/^the signature is not a hex or base64 HMAC-SHA-256/);
  });

  /** A hash's name as a sender may write it before its MAC: `sha256`, `sha-256`, `hmac-sha256`, `HMAC_SHA-256`, in any case. */
  const hashName = (bits: string) =>
    fc
      .record({
        hmac: fc.constantFrom('', 'hmac', 'hmac-', 'hmac_'),
        dash: fc.boolean(),
        upper: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
      })
      .map(({ hmac: before, dash, upper }) =>
        [...`${before}sha${dash ? '-' : ''}${bits}`].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''),
      );

  test('property: an HMAC named sha256=, sha-256=, hmac-sha256= or hmac_sha-256= (any case) verifies under the hash it names, and only its MAC does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(['256', 'sha256'], ['384', 'sha384'], ['512', 'sha512'])
          .chain(([bits, hash]) => hashName(bits).map((name) => ({ name, hash }))),
        fc.string({ maxLength: 40 }),
        async ({ name, hash }, code) => {
          const payload = body({ event: 'approved', code });
          const event = await verifier().verify(payload, { 'x-webhook-signature': `${name}=${hmac(payload, { hash })}` });
          expect(event.kind).toBe('approved');
          const forged = await refusal(verifier().verify(payload, { 'x-webhook-signature': `${name}=${hmac(`${payload} `, { hash })}` }));
          expect(forged.code).toBe('ERR_WEBHOOK_SIGNATURE');
        },
      ),
      { numRuns: 60 },
    );
  });

  test("a named hash the verifier is not set to read is refused naming the algorithm to set, whatever the name's spelling", async () => {
    const payload = body();
    for (const name of ['sha512', 'sha-512', 'hmac-sha512', 'HMAC_SHA-512']) {
      const error = await refusal(
        verifier({ algorithm: 'SHA-256' }).verify(payload, { 'x-webhook-signature': `${name}=${hmac(payload, { hash: 'sha512' })}` }),
      );
      expect(error.code, name).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
      expect(error.message, name).toContain(`the signature is named ${name}=, an HMAC-SHA-512: set algorithm: 'SHA-512'`);
    }
  });

  test('a name read only as a whole: hmac--sha256=, sha--256=, hmacsha-256x= or xhmac-sha256= before a MAC is no name, the entry malformed', async () => {
    const payload = body();
    for (const name of ['hmac--sha256', 'sha--256', 'hmacsha-256x', 'xhmac-sha256', 'hmac-sha', 'hmac-256', 'sha-2566']) {
      const error = await refusal(verifier().verify(payload, { 'x-webhook-signature': `${name}=${hmac(payload)}` }));
      expect(error.code, name).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    }
  });

  test('a delivery with two valid signatures is learnt from the first the header lists, on either crypto path', async () => {
    const v = verifier();
    const payload = body();
    // A plain HMAC of the body beside an undecided X-Webhook-Timestamp, then a Stripe set: the plain one verifies first and
    // shows the timestamp header is sent beside a body signed alone.
    await v.verify(payload, { 'x-webhook-signature': `sha256=${hmac(payload)} ${stripe(payload)}`, 'x-webhook-timestamp': String(T) });
    const next = body({ event: 'approved', n: 2 });
    const stamped = { 'x-webhook-signature': `sha256=${hmac(`${T}.${next}`)}`, 'x-webhook-timestamp': String(T) };
    expect((await refusal(v.verify(next, stamped))).code).toBe('ERR_WEBHOOK_SIGNATURE');
    // A verifier that has seen nothing yet still tries the timestamp header's form.
    await expect(verifier().verify(next, stamped)).resolves.toBeDefined();
  });
});
