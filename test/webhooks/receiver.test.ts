/** The receiver's answers with a two-state replay store (#14): processed once when all goes well, never zero times. */
import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import {
  MemoryReplayStore,
  createWebhookReceiver,
  createWebhookVerifier,
  type IdentityActionsEvent,
  type ReplayStore,
} from '../../src/webhooks/index.js';

const SECRET = 'whsec_test_0123456789abcdef0123456789';
const body = JSON.stringify({ event: 'approved', access_request_code: 'arc_1', access_token: 'a.b.c' });
const headers = { 'x-webhook-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` };
const request = () => new Request('https://rp.example/hook', { method: 'POST', body, headers });

describe('createWebhookReceiver with the replay store', () => {
  test('a delivery arriving while another attempt processes it gets 409; after completion, redeliveries get 200 and are not processed', async () => {
    let finish!: () => void;
    const handled: IdentityActionsEvent[] = [];
    const receiver = createWebhookReceiver(createWebhookVerifier({ secret: SECRET }), (event) => {
      handled.push(event);
      return new Promise<void>((resolve) => (finish = resolve));
    });
    const first = receiver.handle(body, headers);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const during = await receiver.fetch(request());
    expect(during.status).toBe(409);
    expect(await during.json()).toEqual({ error: 'ERR_WEBHOOK_IN_PROGRESS' });
    finish();
    expect((await first).status).toBe(200);
    expect((await receiver.handle(body, headers)).status).toBe(200);
    expect(handled).toHaveLength(1);
  });

  test('a handler that throws gets 500 and the next attempt is processed', async () => {
    let calls = 0;
    const receiver = createWebhookReceiver(createWebhookVerifier({ secret: SECRET }), () => {
      if (++calls === 1) throw new Error('queue down');
    });
    expect((await receiver.handle(body, headers)).status).toBe(500);
    expect((await receiver.handle(body, headers)).status).toBe(200);
    expect((await receiver.handle(body, headers)).status).toBe(200);
    expect(calls).toBe(2);
  });

  test('a process that dies inside the handler leaves the delivery to a later attempt, once the lease runs out', async () => {
    let clock = Date.UTC(2026, 10, 24);
    const store = new MemoryReplayStore({ now: () => clock });
    // The first process: verified and claimed, then it dies (neither completes nor releases).
    await createWebhookVerifier({ secret: SECRET, replayStore: store }).verify(body, headers);
    let processed = 0;
    const survivor = createWebhookReceiver(
      createWebhookVerifier({ secret: SECRET, replayStore: store, processingLeaseSeconds: 60 }),
      () => {
        processed += 1;
      },
    );
    expect((await survivor.handle(body, headers)).status).toBe(409);
    clock += 61_000;
    expect((await survivor.handle(body, headers)).status).toBe(200);
    expect(processed).toBe(1);
  });

  test('a replay store that cannot be reached: 500, so the service retries; nothing is processed without the guard', async () => {
    const broken: ReplayStore = {
      claim: () => Promise.reject(new Error('ECONNREFUSED')),
      complete: () => undefined,
      release: () => undefined,
    };
    let processed = 0;
    const receiver = createWebhookReceiver(createWebhookVerifier({ secret: SECRET, replayStore: broken }), () => {
      processed += 1;
    });
    const answer = await receiver.fetch(request());
    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual({ error: 'ERR_UNAVAILABLE' });
    expect(processed).toBe(0);
  });

  test('a replay store answering anything but claimed, done or processing fails closed: nothing is processed', async () => {
    for (const answer of [undefined, null, 'CLAIMED', 'ok', true, 1]) {
      const odd: ReplayStore = { claim: () => answer as never, complete: () => undefined, release: () => undefined };
      let processed = 0;
      const receiver = createWebhookReceiver(createWebhookVerifier({ secret: SECRET, replayStore: odd }), () => {
        processed += 1;
      });
      expect((await receiver.handle(body, headers)).status, String(answer)).not.toBe(200);
      expect(processed, String(answer)).toBe(0);
    }
  });

  test('a store that cannot record completion: 500, so a retry processes it again (at least once)', async () => {
    const memory = new MemoryReplayStore();
    const flaky: ReplayStore = {
      claim: (id, lease) => memory.claim(id, lease),
      complete: () => Promise.reject(new Error('READONLY')),
      release: (id) => memory.release(id),
    };
    const receiver = createWebhookReceiver(createWebhookVerifier({ secret: SECRET, replayStore: flaky }), () => undefined);
    expect((await receiver.handle(body, headers)).status).toBe(500);
  });
});

describe('createWebhookReceiver: what it is made of', () => {
  test('a verifier that is none, or a handler that is no function, is a ConfigurationError naming it when the receiver is made', () => {
    const verifier = createWebhookVerifier({ secret: SECRET });
    for (const notVerifier of [undefined, null, {}, { verify: 'yes' }, createWebhookVerifier]) {
      expect(() => createWebhookReceiver(notVerifier as never, () => undefined)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'verifier' }),
      );
    }
    for (const notHandler of [undefined, null, 'onEvent', {}]) {
      expect(() => createWebhookReceiver(verifier, notHandler as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'onEvent' }),
      );
    }
  });
});
