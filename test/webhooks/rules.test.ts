/**
 * The webhook verifier's smaller rules, each pinned by a case that breaks only it (found by
 * mutation testing, #18): how headers are read, how signature headers are split and decoded, how
 * a streamed body is read, what a refusal carries and logs, and what the receiver answers.
 */
import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, test, vi } from 'vitest';
import { ConfigurationError, InvalidInputError } from '../../src/index.js';
import {
  MemoryReplayStore,
  WebhookVerificationError,
  createWebhookReceiver,
  createWebhookVerifier,
  type WebhookErrorCode,
  type WebhookVerifierOptions,
} from '../../src/webhooks/index.js';
import { rejection } from '../fixtures.js';
import { comparisons } from './crypto-path.js';

const SECRET = 'whsec_rules_0123456789abcdef0123';
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJhY2Nlc3NfcmVxdWVzdF9jb2RlIjoiYXJjXzEifQ.c2lnbmF0dXJl';
const BODY = JSON.stringify({ event: 'approved', access_request_code: 'arc_1', access_token: TOKEN });
const mac = (body: string | Uint8Array, algorithm = 'sha256') => createHmac(algorithm, SECRET).update(body);
const HEX = mac(BODY).digest('hex');

const verifier = (options: Partial<WebhookVerifierOptions> = {}) =>
  createWebhookVerifier({ secret: SECRET, replayStore: false, ...options });

/** The code a verification ends with, or 'accepted'. */
const outcome = (promise: Promise<unknown>): Promise<WebhookErrorCode | 'accepted'> =>
  promise.then(
    () => 'accepted',
    (error: unknown) => {
      if (error instanceof WebhookVerificationError) return error.code;
      throw error;
    },
  );

describe('webhooks: reading headers given as a plain object', () => {
  test('the name is matched whatever its case; undefined values and other headers are passed over', async () => {
    const headers = { 'content-type': 'application/json', 'X-Webhook-Signature': HEX, 'x-other': undefined };
    expect(await outcome(verifier().verify(BODY, headers))).toBe('accepted');
  });

  test('non-string entries of an array value are dropped; an array with none left is no header', async () => {
    expect(await outcome(verifier().verify(BODY, { 'x-webhook-signature': [7 as never, HEX] }))).toBe('accepted');
    expect(await outcome(verifier().verify(BODY, { 'x-webhook-signature': [] }))).toBe('ERR_WEBHOOK_MISSING_SIGNATURE');
    expect(await outcome(verifier().verify(BODY, { 'x-webhook-signature': [7 as never] }))).toBe('ERR_WEBHOOK_MISSING_SIGNATURE');
  });
});

describe('webhooks: the signature header', () => {
  test('separators around and between the entries are not entries', async () => {
    for (const header of [` ${HEX}`, `${HEX} `, `,${HEX},`, `sha256=${HEX},  ,sha256=${'0'.repeat(64)}`]) {
      expect(await outcome(verifier().verify(BODY, { 'x-webhook-signature': header })), header).toBe('accepted');
    }
  });

  test('a header of separators only carries no signature', async () => {
    expect(await outcome(verifier().verify(BODY, { 'x-webhook-signature': ' , ,' }))).toBe('ERR_WEBHOOK_MISSING_SIGNATURE');
  });

  test('more entries than maxSignatures is refused before any is checked, even when one of them matches', async () => {
    // Base64 entries are short enough to pass the header's length bound, so the count is what refuses.
    const other = Buffer.alloc(32).toString('base64');
    const b64 = mac(BODY).digest('base64');
    expect(await outcome(verifier({ maxSignatures: 2 }).verify(BODY, { 'x-webhook-signature': `${other},${other},${b64}` }))).toBe(
      'ERR_WEBHOOK_MALFORMED_SIGNATURE',
    );
    expect(await outcome(verifier({ maxSignatures: 2 }).verify(BODY, { 'x-webhook-signature': `${other},${b64}` }))).toBe('accepted');
  });

  test('a header exactly as long as maxSignatures entries can be is read; one character more is refused unread', async () => {
    // With SHA-256 set, the longest entry is Stripe's set of one signature: `t=` and its
    // timestamp (35 characters at most: an ISO 8601 date with nine digits of fraction and an
    // offset), `,v1=` and 64 hex digits, two separators: 107. Without it, an HMAC-SHA512's with
    // the longest name read, `hmac-sha-512=`, and 128 hex digits, two separators: 143.
    for (const [algorithm, length] of [
      ['SHA-256', 107],
      ['auto', 143],
    ] as const) {
      const exact = `sha256=${HEX}`.padEnd(length, ' ');
      const one = verifier({ maxSignatures: 1, algorithm });
      expect(await outcome(one.verify(BODY, { 'x-webhook-signature': exact })), algorithm).toBe('accepted');
      expect(await outcome(one.verify(BODY, { 'x-webhook-signature': `${exact} ` })), algorithm).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    }
  });

  test('a signature that is neither hex nor base64 is malformed, not a crash: both forms are anchored at each end', async () => {
    const b64 = mac(BODY).digest('base64');
    const malformed = [
      'sha256=!!!!',
      'sha256=zz',
      `sha256=${'g'.repeat(64)}`,
      '%%%',
      `g${HEX.slice(1)}`,
      `${HEX.slice(0, -1)}g`,
      `!${b64.slice(1)}`,
      `${b64}!`,
    ];
    // SHA-256 set: without it, 64 characters of base64 are an HMAC-SHA384's length, read and refused as not matching.
    for (const header of malformed) {
      const result = await outcome(verifier({ algorithm: 'SHA-256' }).verify(BODY, { 'x-webhook-signature': header }));
      expect(result, header).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    }
  });

  test('base64 with its padding, or without, and base64url: SHA-512 needs two padding characters', async () => {
    const padded = mac(BODY, 'sha512').digest('base64');
    expect(padded.endsWith('==')).toBe(true);
    for (const header of [padded, padded.replace(/=+$/, ''), mac(BODY, 'sha512').digest('base64url')]) {
      expect(await outcome(verifier({ algorithm: 'SHA-512' }).verify(BODY, { 'x-webhook-signature': header })), header).toBe('accepted');
    }
  });

  test('property: an HMAC of any SHA-2 hash verifies by default, its length naming the hash; one of a hash not read (SHA-1, or another than the one set) is refused naming the algorithm to set, and verifies once it is set', async () => {
    const HASHES = { 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512', 'SHA-1': 'sha1' } as const;
    const names = Object.keys(HASHES) as (keyof typeof HASHES)[];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.constantFrom('auto', ...names),
        fc.constantFrom('hex', 'prefixed', 'PREFIXED', 'base64', 'base64url'),
        async (signed, configured, form) => {
          const digest = mac(BODY, HASHES[signed]);
          const written = {
            hex: () => digest.digest('hex'),
            prefixed: () => `${HASHES[signed]}=${digest.digest('hex')}`,
            PREFIXED: () => `${HASHES[signed].toUpperCase()}=${digest.digest('hex')}`,
            base64: () => digest.digest('base64'),
            base64url: () => digest.digest('base64url'),
          }[form]();
          const headers = { 'x-webhook-signature': written };
          const read = configured === 'auto' ? ['SHA-256', 'SHA-384', 'SHA-512'] : [configured];
          if (read.includes(signed)) {
            expect(await outcome(verifier({ algorithm: configured }).verify(BODY, headers)), written).toBe('accepted');
            return;
          }
          // The one ambiguity: 64 hex digits (an HMAC-SHA-256) are also 48 bytes of base64, an
          // HMAC-SHA-384's length, so with SHA-384 set they are read as that, and do not match.
          // Named by a prefix, they are what it names.
          if (signed === 'SHA-256' && configured === 'SHA-384' && form === 'hex') {
            expect(await outcome(verifier({ algorithm: configured }).verify(BODY, headers)), written).toBe('ERR_WEBHOOK_SIGNATURE');
            return;
          }
          const error = await rejection(verifier({ algorithm: configured }).verify(BODY, headers));
          expect(error, written).toMatchObject({ code: 'ERR_WEBHOOK_MALFORMED_SIGNATURE' });
          expect((error as Error).message, written).toContain(`set algorithm: '${signed}'`);
          expect(await outcome(verifier({ algorithm: signed }).verify(BODY, headers)), written).toBe('accepted');
        },
      ),
      { numRuns: 80 },
    );
  });

  test('a prefix names its hash: sha256= on an HMAC-SHA512 is malformed, never read as the SHA-512 its length names', async () => {
    const sha512 = mac(BODY, 'sha512').digest('hex');
    expect(await outcome(verifier().verify(BODY, { 'x-webhook-signature': `sha512=${sha512}` }))).toBe('accepted');
    for (const written of [`sha256=${sha512}`, `sha384=${sha512}`, `SHA256=${sha512}`]) {
      expect(await outcome(verifier().verify(BODY, { 'x-webhook-signature': written })), written).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    }
  });

  test('MACs of two hashes in one header (a sender moving from SHA-256 to SHA-512) are each read by its length: either one verifies, in either place', async () => {
    const wrong = (hash: string) => mac(`${BODY} `, hash).digest('hex');
    for (const [first, second] of [
      [mac(BODY).digest('hex'), wrong('sha512')],
      [wrong('sha512'), mac(BODY).digest('hex')],
      [mac(BODY, 'sha512').digest('hex'), wrong('sha256')],
      [wrong('sha256'), mac(BODY, 'sha512').digest('base64')],
      [wrong('sha256'), `${wrong('sha256')},sha512=${mac(BODY, 'sha512').digest('hex')}`],
    ]) {
      const written = `${first} ${second}`;
      expect(await outcome(verifier().verify(BODY, { 'x-webhook-signature': written })), written).toBe('accepted');
    }
    expect(await outcome(verifier().verify(BODY, { 'x-webhook-signature': `${wrong('sha256')} ${wrong('sha512')}` }))).toBe(
      'ERR_WEBHOOK_SIGNATURE',
    );
  });

  test("a MAC of no other hash's length says nothing of the algorithm", async () => {
    // The right length but not base64 (three padding characters): malformed, and SHA-256 is already set.
    const overPadded = `${mac(BODY).digest('base64').replace(/=+$/, '')}===`;
    for (const written of ['ab'.repeat(24), 'q'.repeat(30), 'not a mac', overPadded]) {
      const error = await rejection(verifier().verify(BODY, { 'x-webhook-signature': written }));
      expect(error, written).toMatchObject({ code: 'ERR_WEBHOOK_MALFORMED_SIGNATURE' });
      expect((error as Error).message, written).not.toContain('set algorithm');
    }
  });

  test('the right MAC in base64 with more than two padding characters is malformed: base64 pads with two at most (#45)', async () => {
    const bare = mac(BODY).digest('base64').replace(/=+$/, '');
    for (const [padding, expected] of [
      ['', 'accepted'],
      ['=', 'accepted'],
      ['==', 'accepted'],
      ['===', 'ERR_WEBHOOK_MALFORMED_SIGNATURE'],
      ['====', 'ERR_WEBHOOK_MALFORMED_SIGNATURE'],
      ['========', 'ERR_WEBHOOK_MALFORMED_SIGNATURE'],
    ] as const) {
      expect(await outcome(verifier().verify(BODY, { 'x-webhook-signature': `${bare}${padding}` })), padding).toBe(expected);
    }
  });
});

describe('webhooks: a body read from a Web request', () => {
  const streamed = (chunks: string[], headers: Record<string, string> = {}) => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    return new Request('https://rp.example/webhooks', {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { 'x-webhook-signature': HEX, ...headers },
    } as RequestInit);
  };
  const thirds = [BODY.slice(0, 10), BODY.slice(10, 60), BODY.slice(60)];

  test('a body in several chunks is put together in order', async () => {
    expect(await outcome(verifier().verifyRequest(streamed(thirds)))).toBe('accepted');
  });

  test('without Content-Length, a body of exactly maxBodyBytes is read; one byte more is refused', async () => {
    const size = new TextEncoder().encode(BODY).length;
    expect(await outcome(verifier({ maxBodyBytes: size }).verifyRequest(streamed(thirds)))).toBe('accepted');
    expect(await outcome(verifier({ maxBodyBytes: size - 1 }).verifyRequest(streamed(thirds)))).toBe('ERR_WEBHOOK_BODY_TOO_LARGE');
  });

  test('property: a body given as a string is measured in UTF-8 bytes, not characters: at maxBodyBytes it is read, one byte over it is refused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), async (note) => {
        const body = JSON.stringify({ event: 'approved', access_request_code: 'arc_1', access_token: TOKEN, note });
        const size = new TextEncoder().encode(body).length;
        const headers = { 'x-webhook-signature': mac(body).digest('hex') };
        expect(await outcome(verifier({ maxBodyBytes: size }).verify(body, headers))).toBe('accepted');
        expect(await outcome(verifier({ maxBodyBytes: size - 1 }).verify(body, headers))).toBe('ERR_WEBHOOK_BODY_TOO_LARGE');
      }),
      { numRuns: 60 },
    );
    // Three bytes a character (each € is one UTF-16 unit): a text far within the limit counted in
    // units, or in twice the units, is one byte over it in UTF-8.
    const wide = JSON.stringify({ event: 'approved', access_request_code: 'arc_1', access_token: TOKEN, note: '€'.repeat(400) });
    const bytes = new TextEncoder().encode(wide).length;
    expect(bytes).toBeGreaterThan(2 * wide.length);
    const headers = { 'x-webhook-signature': mac(wide).digest('hex') };
    expect(await outcome(verifier({ maxBodyBytes: bytes - 1 }).verify(wide, headers))).toBe('ERR_WEBHOOK_BODY_TOO_LARGE');
    expect(await outcome(verifier({ maxBodyBytes: bytes }).verify(wide, headers))).toBe('accepted');
  });

  test('a Content-Length that is not a decimal number is not trusted either way: the body is read, within the limit', async () => {
    const size = new TextEncoder().encode(BODY).length;
    // Around the digits, only what HTTP calls whitespace (space, tab) is taken, and a Request strips
    // it already; a no-break space, a vertical tab or a form feed makes it no number (#45).
    for (const declared of ['1e9', '0x7fffffff', ' 99999999x', '\u00a099999999', '\v99999999', '99999999\f']) {
      expect(
        await outcome(verifier({ maxBodyBytes: size }).verifyRequest(streamed(thirds, { 'content-length': declared }))),
        declared,
      ).toBe('accepted');
    }
  });

  test('anything but a Request is refused as input, naming it', async () => {
    const error = await rejection(verifier().verifyRequest({ headers: {}, body: BODY } as never));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues).toEqual([{ field: 'request', message: expect.any(String) }]);
  });
});

describe('webhooks: what a refusal carries', () => {
  test('a body that is neither text, bytes nor an object (a number, a boolean) is no body, not a parsed one', async () => {
    for (const body of [42, true]) {
      expect(await outcome(verifier().verify(body as never, { 'x-webhook-signature': HEX })), String(body)).toBe('ERR_WEBHOOK_EMPTY_BODY');
    }
    expect(await outcome(verifier().verify({ event: 'approved' } as never, { 'x-webhook-signature': HEX }))).toBe(
      'ERR_WEBHOOK_PARSED_BODY',
    );
  });

  test('bytes that are not UTF-8 are refused even when signed, with the decoding error as the cause', async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode(BODY.slice(0, -2)), 0xff, 0x22, 0x7d]);
    const error = await rejection(verifier().verify(bytes, { 'x-webhook-signature': mac(bytes).digest('hex') }));
    expect(error).toMatchObject({ code: 'ERR_WEBHOOK_PAYLOAD' });
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  test('signed text that is not JSON is a payload refusal whose cause is the parse error', async () => {
    const error = await rejection(verifier().verify('not json', { 'x-webhook-signature': mac('not json').digest('hex') }));
    expect(error).toMatchObject({ code: 'ERR_WEBHOOK_PAYLOAD' });
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  test('a refusal with no underlying error has no cause at all', async () => {
    const error = await rejection(verifier().verify(BODY, { 'x-webhook-signature': '0'.repeat(64) }));
    expect(error).toMatchObject({ code: 'ERR_WEBHOOK_SIGNATURE' });
    expect('cause' in (error as object)).toBe(false);
  });

  test('a payload refusal names the fields at fault, or (body) when the body is not an object', async () => {
    const missing = JSON.stringify({ event: 'approved', access_request_code: 'arc_1' });
    const error = await rejection(verifier().verify(missing, { 'x-webhook-signature': mac(missing).digest('hex') }));
    expect((error as Error).message).toMatch(
      /\(access_token\): only a delivery that says it is a cancellation may come without access_token$/,
    );
    // A cancellation may lack its token: one that lacks its code names only the code.
    const codeless = JSON.stringify({ event: 'cancelled', access_token: null });
    const cancellation = await rejection(verifier().verify(codeless, { 'x-webhook-signature': mac(codeless).digest('hex') }));
    expect((cancellation as Error).message).toMatch(/\(access_request_code\)$/);
    const list = await rejection(verifier().verify('[1]', { 'x-webhook-signature': mac('[1]').digest('hex') }));
    expect((list as Error).message).toMatch(/\(\(body\)\)$/);
  });

  /** Where a delivery's fields sit: at the top, or in one of the envelopes the verifier reads. */
  const PLACES = {
    top: (kind: object, fields: object) => ({ ...kind, ...fields }),
    data: (kind: object, fields: object) => ({ ...kind, data: fields }),
    'data.object': (kind: object, fields: object) => ({ ...kind, data: { object: fields } }),
    payload: (kind: object, fields: object) => ({ ...kind, payload: fields }),
  };
  /** The token as a payload may carry it, or not. */
  const TOKENS = {
    absent: {},
    null: { access_token: null },
    empty: { access_token: '' },
    'not a JWT': { access_token: 'x' },
    JWT: { access_token: TOKEN },
  };
  const KIND_WORDS = {
    cancelled: ['cancelled', 'identity.request.canceled', 'REQUEST_CANCELLED'],
    approved: ['approved', 'identity.request.approved'],
    none: [],
  };

  test('property: only a delivery that says it is a cancellation may come without access_token (absent or null), wherever its fields sit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(KIND_WORDS) as (keyof typeof KIND_WORDS)[])),
        fc.constantFrom('event', 'type', 'event_type', 'status', 'action', 'kind'),
        fc.nat(2),
        fc.constantFrom(...(Object.keys(PLACES) as (keyof typeof PLACES)[])),
        fc.constantFrom(...(Object.keys(TOKENS) as (keyof typeof TOKENS)[])),
        async (said, field, pick, place, tokenForm) => {
          const words: readonly string[] = KIND_WORDS[said];
          const kind = words.length === 0 ? {} : { [field]: words[pick % words.length] };
          const body = JSON.stringify(PLACES[place](kind, { access_request_code: 'arc_1', ...TOKENS[tokenForm] }));
          const verified = verifier().verify(body, { 'x-webhook-signature': mac(body).digest('hex') });
          const tokenless = tokenForm === 'absent' || tokenForm === 'null';
          if (tokenForm !== 'JWT' && !(tokenless && said === 'cancelled')) {
            const error = await rejection(verified);
            expect(error).toMatchObject({ code: 'ERR_WEBHOOK_PAYLOAD', message: expect.stringContaining('(access_token)') });
            return;
          }
          const event = await verified;
          expect(event.accessToken).toBe(tokenless ? '' : TOKEN);
          expect(event.kind).toBe(said === 'none' ? 'unknown' : said);
          expect(event.accessRequestCode).toBe('arc_1');
        },
      ),
      { seed: 45, numRuns: 300 },
    );
  });

  test("property: an identity_session_code beside the fields is the event's identitySessionCode, wherever they sit; one that is no text, or empty, is none, and the payload keeps it either way", async () => {
    const CODES = { absent: undefined, text: 'isc_1', empty: '', number: 7, null: null, object: { code: 'isc_1' } };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(PLACES) as (keyof typeof PLACES)[])),
        fc.constantFrom(...(Object.keys(CODES) as (keyof typeof CODES)[])),
        async (place, form) => {
          const code = CODES[form];
          const fields = {
            access_request_code: 'arc_1',
            access_token: TOKEN,
            ...(form === 'absent' ? {} : { identity_session_code: code }),
          };
          const body = JSON.stringify(PLACES[place]({ event: 'approved' }, fields));
          const event = await verifier().verify(body, { 'x-webhook-signature': mac(body).digest('hex') });
          expect(event.identitySessionCode).toBe(form === 'text' ? 'isc_1' : undefined);
          expect(Object.hasOwn(event, 'identitySessionCode')).toBe(form === 'text');
          expect(JSON.stringify(event.payload).includes('identity_session_code')).toBe(form !== 'absent');
        },
      ),
      { seed: 46, numRuns: 100 },
    );
  });

  test('a token with anything before or after its three parts is not an access_token', async () => {
    for (const token of [` ${TOKEN}`, `${TOKEN} `, `!${TOKEN}`, `${TOKEN}.x`, `${TOKEN}\n`]) {
      const body = JSON.stringify({ event: 'approved', access_request_code: 'arc_1', access_token: token });
      expect(await outcome(verifier().verify(body, { 'x-webhook-signature': mac(body).digest('hex') })), JSON.stringify(token)).toBe(
        'ERR_WEBHOOK_PAYLOAD',
      );
    }
  });

  test('deliveryId is an enumerable field of the event; the access token is not', async () => {
    const event = await createWebhookVerifier({ secret: SECRET }).verify(BODY, { 'x-webhook-signature': HEX });
    expect(Object.keys(event)).toContain('deliveryId');
    expect(Object.keys(event)).not.toContain('accessToken');
    expect(event.deliveryId).toMatch(/^[A-Za-z0-9_-]{20,}$/);
  });

  test('one event, one handover: a redelivery whose sender minted a fresh token is a duplicate (regression: keyed on the body, it was processed twice)', async () => {
    const v = createWebhookVerifier({ secret: SECRET, replayStore: new MemoryReplayStore() });
    const send = (fields: Record<string, unknown>) => {
      const body = JSON.stringify(fields);
      return v.verify(body, { 'x-webhook-signature': mac(body).digest('hex') });
    };
    const first = await send({ event: 'approved', access_request_code: 'arc_1', access_token: TOKEN });
    await v.complete(first);
    const fresh = `${TOKEN.slice(0, -2)}xy`;
    // The same meaning in other bytes: a fresh token, fields in another order, the kind in capitals.
    for (const again of [
      { event: 'approved', access_request_code: 'arc_1', access_token: fresh },
      { access_token: fresh, access_request_code: 'arc_1', event: 'APPROVED', sent_at: 2 },
    ]) {
      expect(await rejection(send(again))).toMatchObject({ code: 'ERR_WEBHOOK_DUPLICATE' });
    }
    // Another request, or another kind of the same request, is another event.
    const other = await send({ event: 'approved', access_request_code: 'arc_2', access_token: fresh });
    const cancelled = await send({ event: 'cancelled', access_request_code: 'arc_1', access_token: fresh });
    expect(new Set([first.deliveryId, other.deliveryId, cancelled.deliveryId]).size).toBe(3);
  });

  test('the event has one shape with a replay store and without one; its token is read, never printed, spread or serialized, and not written over', async () => {
    const withoutKind = JSON.stringify({ access_request_code: 'arc_1', access_token: TOKEN });
    for (const body of [BODY, withoutKind]) {
      const headers = { 'x-webhook-signature': mac(body).digest('hex') };
      const stored = await createWebhookVerifier({ secret: SECRET }).verify(body, headers);
      const unstored = await verifier().verify(body, headers);
      const expected =
        body === BODY
          ? ['kind', 'rawKind', 'accessRequestCode', 'payload', 'deliveryId']
          : ['kind', 'accessRequestCode', 'payload', 'deliveryId'];
      expect(Object.keys(stored)).toEqual(expected);
      expect(Object.keys(unstored)).toEqual(expected);
      expect(JSON.parse(JSON.stringify(unstored))).toEqual(JSON.parse(JSON.stringify(stored)));
      expect(unstored.deliveryId).toBe(stored.deliveryId);
      for (const event of [stored, unstored]) {
        expect(event.accessToken).toBe(TOKEN);
        expect(Object.hasOwn(event, 'accessToken')).toBe(false);
        for (const shown of [JSON.stringify(event), inspect(event, { depth: 5, getters: false }), JSON.stringify({ ...event })]) {
          expect(shown).not.toContain(TOKEN);
        }
        expect(() => {
          (event as { accessToken: string }).accessToken = 'other';
        }).toThrow(TypeError);
        expect(event.accessToken).toBe(TOKEN);
      }
    }
  });

  test('a refusal is logged at warn with its code and reason, a redelivery at info; no value of the delivery is logged', async () => {
    const lines: { level: string; message: string; fields: unknown }[] = [];
    const logger = Object.fromEntries(
      ['debug', 'info', 'warn', 'error'].map((level) => [
        level,
        (message: string, fields: unknown) => lines.push({ level, message, fields }),
      ]),
    );
    const logging = verifier({ logger: logger as never, logLevel: 'info', replayStore: new MemoryReplayStore() });
    await rejection(logging.verify(BODY, { 'x-webhook-signature': '0'.repeat(64) }));
    await rejection(logging.verify('', { 'x-webhook-signature': HEX }));
    await logging.verify(BODY, { 'x-webhook-signature': HEX }).then((event) => logging.complete(event));
    await rejection(logging.verify(BODY, { 'x-webhook-signature': HEX }));
    // A second delivery held by an attempt still processing it: normal, at info.
    const other = BODY.replace('arc_1', 'arc_2');
    const otherMac = mac(other).digest('hex');
    await logging.verify(other, { 'x-webhook-signature': otherMac });
    await rejection(logging.verify(other, { 'x-webhook-signature': otherMac }));
    expect(lines).toEqual([
      {
        level: 'warn',
        message: expect.stringContaining('ERR_WEBHOOK_SIGNATURE: the signature does not match'),
        fields: { code: 'ERR_WEBHOOK_SIGNATURE' },
      },
      {
        level: 'warn',
        message: expect.stringContaining('ERR_WEBHOOK_EMPTY_BODY: the body is empty'),
        fields: { code: 'ERR_WEBHOOK_EMPTY_BODY' },
      },
      { level: 'info', message: expect.stringContaining('ERR_WEBHOOK_DUPLICATE'), fields: { code: 'ERR_WEBHOOK_DUPLICATE' } },
      { level: 'info', message: expect.stringContaining('ERR_WEBHOOK_IN_PROGRESS'), fields: { code: 'ERR_WEBHOOK_IN_PROGRESS' } },
    ]);
    expect(JSON.stringify(lines)).not.toContain('arc_');
  });

  test('ACME_IDENTITY_LOG that names no level leaves the verifier at warn: a refusal is still logged, a redelivery is not', async () => {
    vi.stubEnv('ACME_IDENTITY_LOG', 'loud');
    try {
      const lines: string[] = [];
      const logging = verifier({
        logger: { info: (message: string) => lines.push(`info ${message}`), warn: (message: string) => lines.push(`warn ${message}`) },
        replayStore: new MemoryReplayStore(),
      });
      await logging.verify(BODY, { 'x-webhook-signature': HEX }).then((event) => logging.complete(event));
      await rejection(logging.verify(BODY, { 'x-webhook-signature': HEX }));
      await rejection(logging.verify(BODY, { 'x-webhook-signature': '0'.repeat(64) }));
      expect(lines).toEqual([expect.stringMatching(/^warn .*ERR_WEBHOOK_SIGNATURE/)]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  test("verifyRequest's own refusals (a body over maxBodyBytes, read before any signature) are logged as verify's are", async () => {
    const warnings: string[] = [];
    const logging = verifier({ logger: { info() {}, warn: (message: string) => warnings.push(message) }, maxBodyBytes: 16 });
    const request = new Request('https://rp.example/webhooks', { method: 'POST', body: BODY, headers: { 'x-webhook-signature': HEX } });
    expect(await rejection(logging.verifyRequest(request))).toMatchObject({ code: 'ERR_WEBHOOK_BODY_TOO_LARGE' });
    expect(warnings).toEqual([expect.stringContaining('ERR_WEBHOOK_BODY_TOO_LARGE: the body is larger than 16 bytes')]);
  });

  test('a refusal of the same kind is warned about once a minute (#27)', async () => {
    const warnings: string[] = [];
    const clock = { now: Date.now() };
    const logging = verifier({ logger: { info() {}, warn: (message: string) => warnings.push(message) }, now: () => clock.now });
    const wrongSecret = () => rejection(logging.verify(BODY, { 'x-webhook-signature': '0'.repeat(64) }));
    for (let i = 0; i < 5; i++) await wrongSecret();
    await rejection(logging.verify('', { 'x-webhook-signature': HEX }));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('ERR_WEBHOOK_SIGNATURE: the signature does not match the body');
    expect(warnings[1]).toContain('ERR_WEBHOOK_EMPTY_BODY');
    clock.now += 59_999;
    await wrongSecret();
    expect(warnings).toHaveLength(2);
    clock.now += 1;
    await wrongSecret();
    expect(warnings).toHaveLength(3);
    expect(warnings[2]).toContain('ERR_WEBHOOK_SIGNATURE');
  });

  test('no body at all (express.raw with its default type) names the type to give it', async () => {
    const error = await rejection(verifier().verify(undefined as never, { 'x-webhook-signature': HEX }));
    expect(error).toMatchObject({ code: 'ERR_WEBHOOK_EMPTY_BODY', message: expect.stringContaining("type: 'application/json'") });
  });
});

describe('webhooks: configuration', () => {
  test('an algorithm other than auto, SHA-256, SHA-384, SHA-512 or SHA-1 is refused, naming algorithm', () => {
    for (const algorithm of ['sha1', 'sha256', 'MD5', 'SHA-224', 'toString']) {
      const error = (() => {
        try {
          verifier({ algorithm: algorithm as never });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error, algorithm).toBeInstanceOf(ConfigurationError);
      expect(error).toMatchObject({ option: 'algorithm' });
    }
  });

  test('a secret given as bytes is copied: the caller zeroing its buffer afterwards changes nothing', async () => {
    const key = new TextEncoder().encode(SECRET);
    const verifying = createWebhookVerifier({ secret: key, replayStore: false });
    key.fill(0);
    await expect(verifying.verify(BODY, { 'x-webhook-signature': HEX })).resolves.toMatchObject({ accessRequestCode: 'arc_1' });
  });

  test('no secret at all is refused as such, and a short one is named by its place in the list', () => {
    expect(() => createWebhookVerifier({ secret: [] })).toThrow(
      expect.objectContaining({ option: 'secret', message: expect.stringContaining('at least one') }),
    );
    expect(() => createWebhookVerifier({ secret: [SECRET, 'short'] })).toThrow(/secret 2 is shorter than 16 bytes/);
    expect(() => createWebhookVerifier({ secret: [SECRET, 42 as never] })).toThrow(/secret 2 must be a string or a Uint8Array/);
  });
});

describe('webhooks: what the receiver answers a Web request', () => {
  const receiver = (handler: () => Promise<void> = async () => undefined) => createWebhookReceiver(verifier(), handler);
  const request = (signature = HEX) =>
    new Request('https://rp.example/webhooks', { method: 'POST', body: BODY, headers: { 'x-webhook-signature': signature } });

  test('200 with {received: true} when processed', async () => {
    const response = await receiver().fetch(request());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
  });

  test('400 with the refusal code; 500 with ERR_HANDLER when the handler throws', async () => {
    const refused = await receiver().fetch(request('0'.repeat(64)));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: 'ERR_WEBHOOK_SIGNATURE' });
    const failed = await receiver(async () => {
      throw new Error('database down');
    }).fetch(request());
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: 'ERR_HANDLER' });
  });
});

describe('webhooks: the MACs are compared in constant time, every pair', () => {
  test('each configured secret against each signature is compared in constant time (timingSafeEqual, or Web Crypto verify), a match first or not', async () => {
    const compare = comparisons();
    try {
      const other = 'whsec_other_0123456789abcdef0123456789';
      const twoSecrets = createWebhookVerifier({ secret: [SECRET, other], replayStore: false, logLevel: 'off' });
      // The matching signature first: a comparison that stopped at the first match would make 1 call.
      const header = [HEX, '0'.repeat(64), '1'.repeat(64)].join(',');
      await twoSecrets.verify(BODY, { 'x-webhook-signature': header });
      // Each whsec_ secret is two keys until a delivery shows its form (its text, and its base64
      // decoded): 2 secrets × 2 forms × 3 signatures.
      expect(compare).toHaveBeenCalledTimes(12);
      compare.mockClear();
      // The first secret's form is learnt (its text): 3 keys × 2 signatures.
      await rejection(twoSecrets.verify(BODY, { 'x-webhook-signature': ['0'.repeat(64), '1'.repeat(64)].join(',') }));
      expect(compare).toHaveBeenCalledTimes(6);
    } finally {
      compare.mockRestore();
    }
  });
});
