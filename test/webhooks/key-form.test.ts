/**
 * A whsec_ secret's key form (#44): Standard Webhooks keys with the base64 after `whsec_`, some
 * senders with the secret's text. Both are tried until a verified delivery shows which one the
 * sender uses; from then on one HMAC per delivery, not two. A plain HMAC delivery (keyed by the
 * text) decides nothing about the Standard Webhooks form.
 */
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
});
