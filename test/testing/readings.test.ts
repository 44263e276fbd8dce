/** The fake's readings themselves: checked, and each written as the convention it names says (checked by code that is not the fake's). */
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from 'vitest';
import {
  DEFAULT_CLIENT,
  DEFAULT_HEX_WEBHOOK_SECRET,
  DEFAULT_READINGS,
  createFakeService,
  parseReadings,
  resolveReadings,
  startSandbox,
  webhookRequest,
  type WebhookPayload,
} from '../../src/testing/index.js';
import { booleansAs, numbersAsStrings } from '../../src/testing/readings.js';

const SECRET = `whsec_${Buffer.from('a-secret-of-thirty-two-bytes!!!!').toString('base64')}`;
const NOW = 1_790_000_000_000;
const payload: WebhookPayload = { event: 'approved', access_request_code: 'arc_1', access_token: 'a.b.c' };
const request = (readings: Parameters<typeof resolveReadings>[0]) =>
  webhookRequest({ secret: SECRET, readings: resolveReadings(readings), now: () => NOW }, payload);

describe('readings: checked', () => {
  test('an unknown reading or value is a TypeError naming it, from resolveReadings and createFakeService', async () => {
    expect(() => resolveReadings({ webhookKind: 'header' as never })).toThrow(/webhookKind must be event, type, dotted/);
    expect(() => resolveReadings({ envelopes: 'x' } as never)).toThrow(/no reading named envelopes/);
    expect(() => resolveReadings({ clockSkewSeconds: Number.NaN })).toThrow(TypeError);
    await expect(createFakeService({ readings: { numbers: 'hex' as never } })).rejects.toThrow(/numbers must be/);
  });

  test('unset, every reading is the default; parseReadings reads --reading pairs, numbers as numbers', () => {
    expect(resolveReadings()).toEqual(DEFAULT_READINGS);
    expect(parseReadings(['webhookKind=none', 'clockSkewSeconds=-600'])).toEqual({ webhookKind: 'none', clockSkewSeconds: -600 });
    expect(() => parseReadings(['webhookKind'])).toThrow(/expected name=value/);
    expect(() => parseReadings(['webhookKind=nope'])).toThrow(TypeError);
  });

  test("numbersAsStrings writes only the spec's integer fields as strings, at any depth", () => {
    expect(numbersAsStrings({ data: { exp: 5, count: 5, items: [{ iat: 1 }] }, expires_in: 900, phone_country_code: 61 })).toEqual({
      data: { exp: '5', count: 5, items: [{ iat: '1' }] },
      expires_in: '900',
      phone_country_code: 61,
    });
  });

  test('booleansAs writes only the booleans of REST answers, as "true"/"false" or as the words "Yes"/"No"', () => {
    const answer = { data: { partially_complete: false, send_email: true, other: true }, revoked: true };
    expect(booleansAs('json', answer)).toBe(answer);
    expect(booleansAs('strings', answer)).toEqual({
      data: { partially_complete: 'false', send_email: 'true', other: true },
      revoked: 'true',
    });
    expect(booleansAs('words', answer)).toEqual({ data: { partially_complete: 'No', send_email: 'Yes', other: true }, revoked: 'Yes' });
  });
});

describe('readings: the webhook as each convention writes it', () => {
  test('webhookKind: where the payload says what happened', async () => {
    const bodies = await Promise.all(
      (['event', 'type', 'dotted', 'status', 'none', 'envelope', 'object', 'payload'] as const).map(async (webhookKind) =>
        JSON.parse((await request({ webhookKind })).body),
      ),
    );
    expect(bodies).toEqual([
      { event: 'approved', access_request_code: 'arc_1', access_token: 'a.b.c' },
      { type: 'approved', access_request_code: 'arc_1', access_token: 'a.b.c' },
      { event_type: 'identity.request.approved', access_request_code: 'arc_1', access_token: 'a.b.c' },
      { status: 'APPROVED', access_request_code: 'arc_1', access_token: 'a.b.c' },
      { access_request_code: 'arc_1', access_token: 'a.b.c' },
      {
        type: 'identity.request.approved',
        timestamp: new Date(NOW).toISOString(),
        data: { access_request_code: 'arc_1', access_token: 'a.b.c' },
      },
      {
        id: 'evt_arc_1_approved',
        object: 'event',
        type: 'identity_request.approved',
        created: Math.floor(NOW / 1000),
        data: { object: { object: 'identity_request', access_request_code: 'arc_1', access_token: 'a.b.c' } },
      },
      { event: 'approved', payload: { access_request_code: 'arc_1', access_token: 'a.b.c' } },
    ]);
  });

  test('the raw-body HMAC forms: sha256=hex, hex, base64', async () => {
    const mac = (body: string) => createHmac('sha256', SECRET).update(body);
    const prefixed = await request({});
    expect(prefixed.headers['x-webhook-signature']).toBe(`sha256=${mac(prefixed.body).digest('hex')}`);
    const hex = await request({ webhookSignature: 'hex' });
    expect(hex.headers['x-webhook-signature']).toBe(mac(hex.body).digest('hex'));
    const base64 = await request({ webhookSignature: 'base64' });
    expect(base64.headers['x-webhook-signature']).toBe(mac(base64.body).digest('base64'));
  });

  test("stripe: t=<seconds>,v1=<hex HMAC of '<t>.<body>'>", async () => {
    const { body, headers } = await request({ webhookSignature: 'stripe' });
    const t = Math.floor(NOW / 1000);
    expect(headers['x-webhook-signature']).toBe(`t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}`);
  });

  test("timestamped: X-Webhook-Timestamp, and sha256= and the hex HMAC of '<t>.<body>'", async () => {
    const { body, headers } = await request({ webhookSignature: 'timestamped' });
    const t = Math.floor(NOW / 1000);
    expect(headers['x-webhook-timestamp']).toBe(String(t));
    expect(headers['x-webhook-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}`);
    const ms = await request({ webhookSignature: 'timestamped', webhookTimestamp: 'milliseconds' });
    expect(ms.headers['x-webhook-timestamp']).toBe(String(NOW));
  });

  test("slack: the timestamp in the webhookStampHeader reading's header, and v0= and the hex HMAC of 'v0:<t>:<body>'", async () => {
    const { body, headers } = await request({ webhookSignature: 'slack', webhookStampHeader: 'x-request-timestamp' });
    const t = Math.floor(NOW / 1000);
    expect(headers['x-request-timestamp']).toBe(String(t));
    expect(headers['x-webhook-signature']).toBe(`v0=${createHmac('sha256', SECRET).update(`v0:${t}:${body}`).digest('hex')}`);
  });

  test('webhookKey: decoded keys every convention with the base64 after whsec_; text keys Standard Webhooks with the text', async () => {
    const decoded = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const hex = await request({ webhookSignature: 'hex', webhookKey: 'decoded' });
    expect(hex.headers['x-webhook-signature']).toBe(createHmac('sha256', decoded).update(hex.body).digest('hex'));
    const stripe = await request({ webhookSignature: 'stripe', webhookKey: 'decoded' });
    const t = Math.floor(NOW / 1000);
    expect(stripe.headers['x-webhook-signature']).toBe(
      `t=${t},v1=${createHmac('sha256', decoded).update(`${t}.${stripe.body}`).digest('hex')}`,
    );
    const standard = await request({ webhookSignature: 'standard', webhookKey: 'text' });
    const id = standard.headers['webhook-id'];
    expect(standard.headers['webhook-signature']).toBe(
      `v1,${createHmac('sha256', SECRET)
        .update(`${id}.${NOW / 1000}.${standard.body}`)
        .digest('base64')}`,
    );
    // A whsec_ secret written in base64url is decoded as such.
    const urlSafe = `whsec_${Buffer.from('\xff\xfe-a-secret-of-thirty-bytes!!!', 'latin1').toString('base64url')}`;
    const url = await webhookRequest(
      { secret: urlSafe, readings: resolveReadings({ webhookSignature: 'hex', webhookKey: 'decoded' }), now: () => NOW },
      payload,
    );
    expect(url.headers['x-webhook-signature']).toBe(
      createHmac('sha256', Buffer.from(urlSafe.slice('whsec_'.length), 'base64url'))
        .update(url.body)
        .digest('hex'),
    );
  });

  test("webhookKey: hex keys every convention with the bytes the secret's hex digits spell, and refuses a secret that is not hex", async () => {
    const key = Buffer.from('5ca1ab1e'.repeat(8), 'hex');
    for (const secret of [key.toString('hex'), `whsec_${key.toString('hex').toUpperCase()}`]) {
      const sign = (webhookSignature: 'hex' | 'standard') =>
        webhookRequest({ secret, readings: resolveReadings({ webhookSignature, webhookKey: 'hex' }), now: () => NOW }, payload);
      const plain = await sign('hex');
      expect(plain.headers['x-webhook-signature']).toBe(createHmac('sha256', key).update(plain.body).digest('hex'));
      const standard = await sign('standard');
      const id = standard.headers['webhook-id'];
      expect(standard.headers['webhook-signature']).toBe(
        `v1,${createHmac('sha256', key)
          .update(`${id}.${NOW / 1000}.${standard.body}`)
          .digest('base64')}`,
      );
    }
    await expect(request({ webhookKey: 'hex' })).rejects.toThrow(/webhookKey=hex .*not hex digits/);
    await expect(webhookRequest({ secret: 'abc', readings: resolveReadings({ webhookKey: 'hex' }) }, payload)).rejects.toThrow(TypeError);
  });

  test("webhookHashName: the plain HMAC's prefix names the webhookHash reading's hash as written, over the MAC node:crypto makes", async () => {
    const names = {
      sha256: 'sha{bits}=',
      'sha-256': 'sha-{bits}=',
      'hmac-sha256': 'hmac-sha{bits}=',
      'HMAC-SHA256': 'HMAC-SHA{bits}=',
    } as const;
    for (const webhookHash of ['SHA-256', 'SHA-384', 'SHA-512'] as const) {
      const bits = webhookHash.slice(4);
      for (const [webhookHashName, form] of Object.entries(names)) {
        const signed = await request({ webhookHash, webhookHashName: webhookHashName as keyof typeof names });
        const mac = createHmac(`sha${bits}`, SECRET).update(signed.body).digest('hex');
        expect(signed.headers['x-webhook-signature'], `${webhookHash} ${webhookHashName}`).toBe(`${form.replace('{bits}', bits)}${mac}`);
      }
    }
  });

  test('webhookStampJoin: the timestamped form signs the timestamp and the body joined by a dot, a colon or nothing, the timestamp in its header', async () => {
    for (const [webhookStampJoin, join] of [
      ['dot', '.'],
      ['colon', ':'],
      ['none', ''],
    ] as const) {
      const signed = await request({ webhookSignature: 'timestamped', webhookStampJoin });
      const t = signed.headers['x-webhook-timestamp'];
      expect(t).toBe(String(NOW / 1000));
      const mac = createHmac('sha256', SECRET).update(`${t}${join}${signed.body}`).digest('hex');
      expect(signed.headers['x-webhook-signature'], webhookStampJoin).toBe(`sha256=${mac}`);
    }
  });

  test('webhookKey: hex gives the default registration a secret in hex, and refuses a registration whose secret is not', async () => {
    const service = await createFakeService({ readings: { webhookKey: 'hex' } });
    expect(service.clients[0]?.webhookSecret).toBe(DEFAULT_HEX_WEBHOOK_SECRET);
    expect(DEFAULT_HEX_WEBHOOK_SECRET).toMatch(/^(?:[0-9a-f]{2}){32}$/);
    expect((await createFakeService()).clients[0]?.webhookSecret).toBe(DEFAULT_CLIENT.webhookSecret);
    // The sandbox gives the developer the secret its fake signs with.
    const sandbox = await startSandbox({ fake: { readings: { webhookKey: 'hex' } } });
    try {
      expect(sandbox.credentials.webhookSecret).toBe(DEFAULT_HEX_WEBHOOK_SECRET);
    } finally {
      await sandbox.close();
    }
    await expect(createFakeService({ readings: { webhookKey: 'hex' }, clients: [DEFAULT_CLIENT] })).rejects.toThrow(
      /client sandbox-client's webhook secret is not hex digits/,
    );
  });

  test('standard: verified by the standardwebhooks package', async () => {
    const { body, headers } = await request({ webhookSignature: 'standard' });
    expect(headers).toMatchObject({ 'webhook-id': expect.stringMatching(/^msg_/), 'webhook-timestamp': String(NOW / 1000) });
    const fakeNow = Date.now;
    Date.now = () => NOW;
    try {
      expect(new Webhook(SECRET).verify(body, headers)).toEqual(JSON.parse(body));
    } finally {
      Date.now = fakeNow;
    }
  });
});
