/** The webhook verifier's edges (#13): bounded work per delivery, one header rule, early size refusal, typed misuse. */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test, vi } from 'vitest';
import { InvalidInputError } from '../../src/errors/index.js';
import { WebhookVerificationError, createWebhookVerifier, type WebhookVerifierOptions } from '../../src/webhooks/index.js';
import { rejection } from '../fixtures.js';

const SECRET = 'whsec_test_0123456789abcdef0123456789';
const OTHER = 'whsec_other_0123456789abcdef01234567';
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJhY2Nlc3NfcmVxdWVzdF9jb2RlIjoiYXJjXzEifQ.c2lnbmF0dXJl';
const BODY = JSON.stringify({ event: 'approved', access_request_code: 'arc_1', access_token: TOKEN });
const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const verifier = (options: Partial<WebhookVerifierOptions> = {}) =>
  createWebhookVerifier({ secret: SECRET, replayStore: false, ...options });

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).code;
}

describe('webhooks: bounded work per delivery', () => {
  test('a header with more signatures than 4 per secret is malformed, even when one of them is right', async () => {
    const wrong = sign(BODY, OTHER);
    const many = [...Array(4).fill(wrong), sign(BODY)].join(', ');
    expect(await code(verifier().verify(BODY, { 'x-webhook-signature': many }))).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    // Four are checked: the right one among them verifies.
    await expect(
      verifier().verify(BODY, { 'x-webhook-signature': [...Array(3).fill(wrong), sign(BODY)].join(', ') }),
    ).resolves.toBeDefined();
    // Two secrets: eight.
    await expect(
      verifier({ secret: [SECRET, OTHER] }).verify(BODY, { 'x-webhook-signature': [...Array(7).fill(wrong), sign(BODY)].join(' ') }),
    ).resolves.toBeDefined();
    expect(await code(verifier({ maxSignatures: 1 }).verify(BODY, { 'x-webhook-signature': `${wrong},${sign(BODY)}` }))).toBe(
      'ERR_WEBHOOK_MALFORMED_SIGNATURE',
    );
  });

  test("a huge signature header is refused without being split, X-Webhook-Signature or Standard Webhooks' own", async () => {
    const stamped = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) };
    for (const name of ['x-webhook-signature', 'webhook-signature']) {
      const split = vi.spyOn(String.prototype, 'split');
      try {
        const error = await rejection(verifier().verify(BODY, { ...stamped, [name]: `v1,${'a'.repeat(1_000_000)}` }));
        expect(error, name).toMatchObject({ code: 'ERR_WEBHOOK_MALFORMED_SIGNATURE', message: expect.stringContaining('longer than') });
        expect(split.mock.contexts.some((context) => String(context).length >= 1_000_000)).toBe(false);
      } finally {
        split.mockRestore();
      }
    }
  });

  test('maxSignatures that is not a whole number of 1 or more is a ConfigurationError', () => {
    for (const value of [0, -1, 1.5, NaN]) expect(() => verifier({ maxSignatures: value })).toThrow(/maxSignatures/);
  });
});

describe('webhooks: one rule for a header sent twice', () => {
  test("a plain object's headers are its own: a signature it inherits is no signature", async () => {
    const inherited = Object.create({ 'x-webhook-signature': sign(BODY) }) as Record<string, string>;
    expect(await code(verifier().verify(BODY, inherited))).toBe('ERR_WEBHOOK_MISSING_SIGNATURE');
    await expect(verifier().verify(BODY, { ...Object.getPrototypeOf(inherited) })).resolves.toBeDefined();
  });

  test('property: in a plain object, only the signature header (in any case) is read; a valid signature under any other name is no signature', async () => {
    const wanted = 'x-webhook-signature';
    // Any other name, many of them as long as the wanted one and one letter apart.
    const otherName = fc
      .oneof(
        fc.string({ minLength: 1, maxLength: 30 }),
        fc.nat({ max: wanted.length - 1 }).map((i) => `${wanted.slice(0, i)}${wanted[i] === 'z' ? 'a' : 'z'}${wanted.slice(i + 1)}`),
      )
      .filter(
        (name) => name.toLowerCase() !== wanted && name.toLowerCase() !== 'webhook-signature' && name.toLowerCase() !== 'svix-signature',
      );
    const casing = fc.array(fc.boolean(), { minLength: wanted.length, maxLength: wanted.length });
    await fc.assert(
      fc.asyncProperty(otherName, casing, async (name, upper) => {
        expect(await code(verifier().verify(BODY, { [name]: sign(BODY), 'content-type': 'application/json' }))).toBe(
          'ERR_WEBHOOK_MISSING_SIGNATURE',
        );
        const spelled = [...wanted].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('');
        await expect(verifier().verify(BODY, { [name]: sign(BODY, OTHER), [spelled]: sign(BODY) })).resolves.toBeDefined();
      }),
      { numRuns: 60 },
    );
  });

  test('as Node array or Headers, every value counts: the good signature in the second value verifies in both forms', async () => {
    const values = [sign(BODY, OTHER), sign(BODY)];
    await expect(verifier().verify(BODY, { 'x-webhook-signature': values })).resolves.toBeDefined();
    const headers = new Headers();
    for (const value of values) headers.append('x-webhook-signature', value);
    await expect(verifier().verify(BODY, headers)).resolves.toBeDefined();
  });

  test("Standard Webhooks' header sent twice: the good entry in the second value verifies as Node array and as Headers", async () => {
    const stamp = String(Math.floor(Date.now() / 1000));
    const entry = (secret: string) => `v1,${createHmac('sha256', secret).update(`msg_1.${stamp}.${BODY}`).digest('base64')}`;
    const values = [entry(OTHER), entry(SECRET)];
    const node = { 'webhook-id': 'msg_1', 'webhook-timestamp': stamp, 'webhook-signature': values };
    await expect(verifier({ scheme: 'standard' }).verify(BODY, node)).resolves.toBeDefined();
    const headers = new Headers({ 'webhook-id': 'msg_1', 'webhook-timestamp': stamp });
    for (const value of values) headers.append('webhook-signature', value);
    await expect(verifier({ scheme: 'standard' }).verify(BODY, headers)).resolves.toBeDefined();
  });

  test('a hex signature of another length than the hash is malformed, never a raw RangeError', async () => {
    const hex = createHmac('sha256', SECRET).update(BODY).digest('hex');
    for (const signature of [`${hex}00`, `${hex}0`, `sha256=${hex}ab`, hex.slice(2)]) {
      expect(await code(verifier().verify(BODY, { 'x-webhook-signature': signature })), signature).toBe('ERR_WEBHOOK_MALFORMED_SIGNATURE');
    }
  });

  test("the timestamp option's tolerance is 300 s unless given, either way of the clock", async () => {
    const now = Date.UTC(2026, 10, 24);
    const signed = (stamp: number) => ({
      'x-webhook-signature': `sha256=${createHmac('sha256', SECRET).update(`${stamp}.${BODY}`).digest('hex')}`,
      'x-webhook-timestamp': String(stamp),
    });
    const v = verifier({ timestamp: { header: 'x-webhook-timestamp' }, now: () => now });
    for (const off of [-300, 300]) await expect(v.verify(BODY, signed(now / 1000 + off))).resolves.toBeDefined();
    for (const off of [-301, 301]) expect(await code(v.verify(BODY, signed(now / 1000 + off)))).toBe('ERR_WEBHOOK_TIMESTAMP');
  });

  test('a timestamp header sent twice is refused in both forms', async () => {
    const now = Date.UTC(2026, 10, 24);
    const stamp = String(now / 1000);
    const signature = `sha256=${createHmac('sha256', SECRET).update(`${stamp}.${BODY}`).digest('hex')}`;
    const v = verifier({ timestamp: { header: 'x-webhook-timestamp' }, now: () => now });
    await expect(v.verify(BODY, { 'x-webhook-signature': signature, 'x-webhook-timestamp': stamp })).resolves.toBeDefined();
    expect(await code(v.verify(BODY, { 'x-webhook-signature': signature, 'x-webhook-timestamp': [stamp, stamp] }))).toBe(
      'ERR_WEBHOOK_TIMESTAMP',
    );
    const headers = new Headers({ 'x-webhook-signature': signature });
    headers.append('x-webhook-timestamp', stamp);
    headers.append('x-webhook-timestamp', stamp);
    expect(await code(v.verify(BODY, headers))).toBe('ERR_WEBHOOK_TIMESTAMP');
  });
});

describe('webhooks: verifyRequest stops at maxBodyBytes', () => {
  test('a Content-Length over the limit, by as little as one byte, is refused before the body is read', async () => {
    for (const declared of [2 * 1024 * 1024, 8 * 1024 + 1]) {
      let pulled = 0;
      const body = new ReadableStream({
        pull(controller) {
          pulled++;
          controller.enqueue(new Uint8Array(1024));
        },
      });
      const request = new Request('https://rp.example/webhooks', {
        method: 'POST',
        body,
        duplex: 'half',
        headers: { 'content-length': String(declared), 'x-webhook-signature': sign(BODY) },
      } as RequestInit);
      expect(await code(verifier({ maxBodyBytes: 8 * 1024 }).verifyRequest(request)), String(declared)).toBe('ERR_WEBHOOK_BODY_TOO_LARGE');
      expect(pulled, String(declared)).toBeLessThanOrEqual(1);
    }
  });

  test('a body without Content-Length is read until it passes the limit, not a chunk further, and then cancelled', async () => {
    // Chunks of 1 KB, pulled only when read (no queue ahead): the chunk that passes the limit is the
    // last one read, whether it passes it by a kilobyte or by one byte.
    for (const [maxBodyBytes, chunks] of [
      [8 * 1024, 9],
      [8 * 1024 - 1, 8],
    ] as const) {
      let pulled = 0;
      let cancelled = false;
      const body = new ReadableStream(
        {
          pull(controller) {
            pulled++;
            controller.enqueue(new Uint8Array(1024));
          },
          cancel() {
            cancelled = true;
          },
        },
        { highWaterMark: 0 },
      );
      const request = new Request('https://rp.example/webhooks', {
        method: 'POST',
        body,
        duplex: 'half',
        headers: { 'x-webhook-signature': sign(BODY) },
      } as RequestInit);
      expect(await code(verifier({ maxBodyBytes }).verifyRequest(request))).toBe('ERR_WEBHOOK_BODY_TOO_LARGE');
      expect([pulled, cancelled], `${maxBodyBytes} bytes`).toEqual([chunks, true]);
    }
  });

  test('an endless chunked body over a real socket is read to the limit and no further', async () => {
    let sent = 0;
    let outcome: string | undefined;
    const limit = 64 * 1024;
    const done = new Promise<void>((resolve) => {
      const server = createServer(async (req, res) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            req.on('data', (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)));
            req.on('end', () => controller.close());
            req.on('error', (error) => controller.error(error));
          },
          cancel() {
            req.destroy();
          },
        });
        const request = new Request('http://127.0.0.1/webhooks', { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
        outcome = await code(verifier({ maxBodyBytes: limit }).verifyRequest(request));
        res.writeHead(400).end();
        server.close();
        resolve();
      }).listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        const client = httpRequest({
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: '/webhooks',
          headers: { 'x-webhook-signature': sign(BODY) },
        });
        client.on('error', () => undefined);
        client.on('response', (response) => response.resume());
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        const write = () => {
          // 32 MiB at most: the verifier must stop long before.
          while (sent < 32 * 1024 * 1024 && !client.destroyed) {
            sent += chunk.length;
            if (!client.write(chunk)) return void client.once('drain', write);
          }
          client.end();
        };
        write();
      });
    });
    await done;
    expect(outcome).toBe('ERR_WEBHOOK_BODY_TOO_LARGE');
    expect(sent).toBeLessThan(8 * 1024 * 1024);
  });
});

describe('webhooks: misuse is typed', () => {
  test.each([null, undefined, 'x-webhook-signature: a', 42])('verify(body, %s) is an InvalidInputError naming headers', async (headers) => {
    const error = await rejection(verifier().verify(BODY, headers as never));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field: 'headers' });
  });

  test('verifyRequest of something that is not a Request is an InvalidInputError', async () => {
    expect(await rejection(verifier().verifyRequest({ headers: {} } as never))).toBeInstanceOf(InvalidInputError);
  });
});
