/**
 * A whsec_ secret's key form (#44): Standard Webhooks keys with the base64 after `whsec_`, some
 * senders with the secret's text. Both are tried until a verified delivery shows which one the
 * sender uses; from then on one HMAC per delivery, not two. The plain HMAC and Stripe's sets try
 * the text first and the decoded base64 too (a sender that issues Standard Webhooks' secrets may key
 * every convention with it), and learn apart: a plain HMAC delivery decides nothing about the
 * Standard Webhooks form. A secret written in hex is also tried, in every convention, as the bytes
 * its digits spell (a service that shows its secrets in hex may sign with them).
 */
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createWebhookVerifier } from '../../src/webhooks/index.js';
import { macWork } from './crypto-path.js';

const SECRET = 'whsec_c2FuZGJveC1zZWNyZXQtMDEyMzQ1Njc4OWFiY2RlZg==';
const NOW = 1_790_000_000_000;
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJhY2Nlc3NfcmVxdWVzdF9jb2RlIjoiYXJjXzEifQ.c2ln';
const body = (code: string) => JSON.stringify({ event: 'approved', access_request_code: code, access_token: TOKEN });
const standard = (payload: string, id = 'msg_1') => ({
  'webhook-id': id,
  'webhook-timestamp': String(NOW / 1000),
  'webhook-signature': new Webhook(SECRET).sign(id, new Date(NOW), payload),
});
/** Standard Webhooks' form of `payload`, keyed by `key` as given (bytes, or a text's bytes). */
const signedBy = (key: Buffer | string, id: string, payload: string) => ({
  'webhook-id': id,
  'webhook-timestamp': String(NOW / 1000),
  'webhook-signature': `v1,${createHmac('sha256', key)
    .update(`${id}.${NOW / 1000}.${payload}`)
    .digest('base64')}`,
});
/** Standard Webhooks' form, keyed by the secret's text rather than its decoded base64. */
const standardByText = (payload: string, id = 'msg_2') => signedBy(SECRET, id, payload);

/** The base64 after the secret's whsec_, decoded: Standard Webhooks' key. */
const decoded = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
/** A plain HMAC of the body under `key`, in hex. */
const hexBy = (key: Buffer | string, payload: string) => ({
  'x-webhook-signature': createHmac('sha256', key).update(payload).digest('hex'),
});
/** Stripe's set for the body under `key`. */
const stripeBy = (key: Buffer | string, payload: string) => {
  const t = NOW / 1000;
  return { 'x-webhook-signature': `t=${t},v1=${createHmac('sha256', key).update(`${t}.${payload}`).digest('hex')}` };
};

const verifier = () => createWebhookVerifier({ secret: SECRET, replayStore: false, now: () => NOW, logLevel: 'off' });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a whsec_ secret’s key form, decided once', () => {
  test('two HMACs until a Standard Webhooks delivery verifies, then one per delivery', async () => {
    const hmacs = macWork();
    const v = verifier();
    await v.verify(body('arc_1'), standard(body('arc_1')));
    expect(hmacs).toHaveBeenCalledTimes(2);
    hmacs.mockClear();
    await v.verify(body('arc_2'), standard(body('arc_2'), 'msg_3'));
    expect(hmacs).toHaveBeenCalledTimes(1);
  });

  test('learnt the same way from deliveries whose webhook-id holds dots (the id is part of the signed content, not a separator of it)', async () => {
    const hmacs = macWork();
    const v = verifier();
    await v.verify(body('arc_1'), standard(body('arc_1'), 'msg.1.a'));
    expect(hmacs).toHaveBeenCalledTimes(2);
    hmacs.mockClear();
    await v.verify(body('arc_2'), standard(body('arc_2'), 'msg.2.b.c'));
    expect(hmacs).toHaveBeenCalledTimes(1);
  });

  test('a sender keying with the text is learnt the same way; a plain HMAC of the body decides nothing', async () => {
    const v = verifier();
    // A plain HMAC keyed by the text verifies, and leaves the Standard Webhooks form open.
    const plain = body('arc_p');
    await expect(
      v.verify(plain, { 'x-webhook-signature': createHmac('sha256', SECRET).update(plain).digest('hex') }),
    ).resolves.toBeDefined();
    await expect(v.verify(body('arc_1'), standard(body('arc_1')))).resolves.toBeDefined();
    const other = verifier();
    await expect(other.verify(body('arc_1'), standardByText(body('arc_1')))).resolves.toBeDefined();
    const hmacs = macWork();
    await expect(other.verify(body('arc_2'), standardByText(body('arc_2'), 'msg_4'))).resolves.toBeDefined();
    // Learnt: the text form alone is tried now.
    expect(hmacs).toHaveBeenCalledTimes(1);
  });

  test('once learnt, a further delivery neither narrows the forms again nor imports its keys afresh (Web Crypto)', async () => {
    const v = verifier();
    await v.verify(body('arc_1'), standard(body('arc_1')));
    await v.verify(body('arc_2'), standard(body('arc_2'), 'msg_3'));
    const imports = vi.spyOn(crypto.subtle, 'importKey');
    const hmacs = macWork();
    await v.verify(body('arc_3'), standard(body('arc_3'), 'msg_5'));
    expect(hmacs).toHaveBeenCalledTimes(1);
    expect(imports).not.toHaveBeenCalled();
  });

  test('a secret whose text after whsec_ is not base64 (three =) has one key, its text: a MAC under what it would decode to is refused', async () => {
    const text = `${SECRET}=`;
    const decoded = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const v = createWebhookVerifier({ secret: text, replayStore: false, now: () => NOW, logLevel: 'off' });
    const payload = body('arc_1');
    const signed = (key: Buffer | string, id: string) => signedBy(key, id, payload);
    const hmacs = macWork();
    await expect(v.verify(payload, signed(decoded, 'msg_1'))).rejects.toMatchObject({ code: 'ERR_WEBHOOK_SIGNATURE' });
    expect(hmacs).toHaveBeenCalledTimes(1);
    await expect(v.verify(payload, signed(text, 'msg_2'))).resolves.toBeDefined();
  });

  test('only a leading whsec_ marks the base64 form: one further in is part of the text, never cut out to make a key', async () => {
    // 'ab' + 'whsec_' + base64: cut out, what is left would decode to another key.
    const inner = `ab${SECRET}`;
    const cutKey = Buffer.from(inner.replace('whsec_', ''), 'base64');
    const v = createWebhookVerifier({ secret: inner, replayStore: false, now: () => NOW, logLevel: 'off' });
    const payload = body('arc_1');
    const signed = (key: Buffer | string, id: string) => signedBy(key, id, payload);
    await expect(v.verify(payload, signed(cutKey, 'msg_1'))).rejects.toMatchObject({ code: 'ERR_WEBHOOK_SIGNATURE' });
    await expect(v.verify(payload, signed(inner, 'msg_2'))).resolves.toBeDefined();
  });

  test.each([
    ['a plain HMAC of the body', hexBy],
    ["Stripe's set", stripeBy],
  ])(
    '%s keyed with the decoded base64 after whsec_ verifies; two HMACs until then, one after, and the text form is then refused',
    async (_name, sign) => {
      const v = verifier();
      const hmacs = macWork();
      await expect(v.verify(body('arc_1'), sign(decoded, body('arc_1')))).resolves.toMatchObject({ accessRequestCode: 'arc_1' });
      expect(hmacs).toHaveBeenCalledTimes(2);
      hmacs.mockClear();
      await expect(v.verify(body('arc_2'), sign(decoded, body('arc_2')))).resolves.toMatchObject({ accessRequestCode: 'arc_2' });
      expect(hmacs).toHaveBeenCalledTimes(1);
      // Learnt: a MAC under the text is no longer this sender's.
      await expect(v.verify(body('arc_3'), sign(SECRET, body('arc_3')))).rejects.toMatchObject({ code: 'ERR_WEBHOOK_SIGNATURE' });
    },
  );

  test('the forms are learnt apart: a plain HMAC under the text leaves Standard Webhooks keyed by the decoded base64, and the other way round', async () => {
    const v = verifier();
    await expect(v.verify(body('arc_1'), hexBy(SECRET, body('arc_1')))).resolves.toBeDefined();
    await expect(v.verify(body('arc_2'), standard(body('arc_2')))).resolves.toBeDefined();
    const hmacs = macWork();
    await expect(v.verify(body('arc_3'), hexBy(SECRET, body('arc_3')))).resolves.toBeDefined();
    await expect(v.verify(body('arc_4'), standard(body('arc_4'), 'msg_4'))).resolves.toBeDefined();
    expect(hmacs).toHaveBeenCalledTimes(2);
  });

  test('without whsec_, a secret that is base64 keys the plain HMAC with its text alone: one HMAC, and a MAC under its decoded bytes is refused', async () => {
    const text = SECRET.slice('whsec_'.length);
    const v = createWebhookVerifier({ secret: text, replayStore: false, now: () => NOW, logLevel: 'off' });
    const hmacs = macWork();
    await expect(v.verify(body('arc_1'), hexBy(decoded, body('arc_1')))).rejects.toMatchObject({ code: 'ERR_WEBHOOK_SIGNATURE' });
    expect(hmacs).toHaveBeenCalledTimes(1);
    await expect(v.verify(body('arc_2'), hexBy(text, body('arc_2')))).resolves.toBeDefined();
  });

  test('two Standard Webhooks deliveries verified at once: the later one, checked against the forms as they were, narrows nothing else', async () => {
    const v = verifier();
    // On Web Crypto both are checked before either learns; on node:crypto one after the other.
    await Promise.all([
      v.verify(body('arc_1'), standard(body('arc_1'), 'msg_1')),
      v.verify(body('arc_2'), standard(body('arc_2'), 'msg_2')),
    ]);
    // The plain HMAC's form is still open: a MAC under the text verifies, and so would one under the decoded bytes.
    await expect(v.verify(body('arc_3'), hexBy(SECRET, body('arc_3')))).resolves.toBeDefined();
  });

  test('two plain HMAC deliveries verified at once: the later one narrows nothing, Standard Webhooks keyed by the decoded base64 still verifies', async () => {
    const v = verifier();
    await Promise.all([v.verify(body('arc_1'), hexBy(SECRET, body('arc_1'))), v.verify(body('arc_2'), hexBy(SECRET, body('arc_2')))]);
    await expect(v.verify(body('arc_3'), standard(body('arc_3'), 'msg_3'))).resolves.toBeDefined();
  });
});

describe('a secret written in hex, tried as the bytes its digits spell', () => {
  /** Each convention's signature of `payload` under `key`, as its sender writes it. */
  const conventions: [string, (key: Buffer, payload: string, id: string) => Record<string, string>][] = [
    ['a plain HMAC of the body', (key, payload) => hexBy(key, payload)],
    ["Stripe's set", (key, payload) => stripeBy(key, payload)],
    ['Standard Webhooks', (key, payload, id) => signedBy(key, id, payload)],
  ];
  /** A secret of `bytes` written in hex: either case, with or without whsec_. */
  const hexSecret = fc
    .record({ bytes: fc.uint8Array({ minLength: 16, maxLength: 64 }), upper: fc.boolean(), whsec: fc.boolean() })
    .map(({ bytes, upper, whsec }) => {
      const digits = Buffer.from(bytes).toString('hex');
      return { key: Buffer.from(bytes), secret: `${whsec ? 'whsec_' : ''}${upper ? digits.toUpperCase() : digits}` };
    });

  test.each(conventions)(
    '%s keyed with those bytes verifies; learnt, then one HMAC a delivery, and the text form refused',
    async (_name, sign) => {
      await fc.assert(
        fc.asyncProperty(hexSecret, async ({ key, secret }) => {
          const v = createWebhookVerifier({ secret, replayStore: false, now: () => NOW, logLevel: 'off' });
          await expect(v.verify(body('arc_1'), sign(key, body('arc_1'), 'msg_1'))).resolves.toMatchObject({ accessRequestCode: 'arc_1' });
          const hmacs = macWork();
          await expect(v.verify(body('arc_2'), sign(key, body('arc_2'), 'msg_2'))).resolves.toMatchObject({ accessRequestCode: 'arc_2' });
          expect(hmacs).toHaveBeenCalledTimes(1);
          hmacs.mockRestore();
          await expect(v.verify(body('arc_3'), sign(Buffer.from(secret), body('arc_3'), 'msg_3'))).rejects.toMatchObject({
            code: 'ERR_WEBHOOK_SIGNATURE',
          });
        }),
        { numRuns: 25 },
      );
    },
  );

  test('a secret of hex digits is still its text first: a sender keying with the text is learnt, and the hex form is then refused', async () => {
    const key = Buffer.alloc(32, 0xab);
    const secret = key.toString('hex');
    const v = createWebhookVerifier({ secret, replayStore: false, now: () => NOW, logLevel: 'off' });
    const hmacs = macWork();
    await expect(v.verify(body('arc_1'), hexBy(secret, body('arc_1')))).resolves.toBeDefined();
    // Both forms are tried (every pair is compared) until one verifies: the text did.
    expect(hmacs).toHaveBeenCalledTimes(2);
    await expect(v.verify(body('arc_2'), hexBy(key, body('arc_2')))).rejects.toMatchObject({ code: 'ERR_WEBHOOK_SIGNATURE' });
  });

  test.each([
    ['an odd count of digits', `${'ab'.repeat(20)}c`],
    ['digits spelling fewer bytes than minSecretBytes (15 of 16)', 'ab'.repeat(15)],
    ['a letter that is not a hex digit among them', `${'ab'.repeat(20)}g0`],
    ['whsec_ further in than the start', `ab${'whsec_'}${'cd'.repeat(20)}`],
  ])('%s: not a hex secret, its text the only key of the plain HMAC (one HMAC)', async (_name, secret) => {
    const v = createWebhookVerifier({ secret, replayStore: false, now: () => NOW, logLevel: 'off' });
    const digits = secret.replace(/[^0-9a-f]/gi, '');
    const spelt = Buffer.from(digits.slice(0, digits.length - (digits.length % 2)), 'hex');
    const hmacs = macWork();
    await expect(v.verify(body('arc_1'), hexBy(spelt, body('arc_1')))).rejects.toMatchObject({ code: 'ERR_WEBHOOK_SIGNATURE' });
    expect(hmacs).toHaveBeenCalledTimes(1);
    await expect(v.verify(body('arc_2'), hexBy(secret, body('arc_2')))).resolves.toBeDefined();
  });

  test('minSecretBytes sets how few bytes the digits may spell: 20 digits are tried as 10 bytes under minSecretBytes: 10', async () => {
    const key = Buffer.alloc(10, 0x5c);
    const secret = key.toString('hex');
    const v = createWebhookVerifier({ secret, minSecretBytes: 10, replayStore: false, now: () => NOW, logLevel: 'off' });
    await expect(v.verify(body('arc_1'), hexBy(key, body('arc_1')))).resolves.toBeDefined();
  });

  test('key bytes given as bytes are the key alone, whatever they spell as text', async () => {
    const bytes = Buffer.from('ab'.repeat(20));
    const v = createWebhookVerifier({ secret: new Uint8Array(bytes), replayStore: false, now: () => NOW, logLevel: 'off' });
    const hmacs = macWork();
    await expect(v.verify(body('arc_1'), hexBy(Buffer.from('ab'.repeat(20), 'hex'), body('arc_1')))).rejects.toMatchObject({
      code: 'ERR_WEBHOOK_SIGNATURE',
    });
    expect(hmacs).toHaveBeenCalledTimes(1);
  });
});
