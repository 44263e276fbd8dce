/**
 * The inbox end to end against the sandbox, as shared rules every durable store keeps (Redis and
 * PostgreSQL call `endToEnd`): the service answering 503 for a while, a token expiring while it is
 * down and a resend reviving it, a cancellation, and a lost webhook the reconciler reports once
 * and whose resend is handed over once.
 */
import { expect, test } from 'vitest';
import { createIdentityInbox, type IdentityInboxOptions, type InboxDelivery, type InboxStore } from '../../src/inbox/index.js';
import { DEFAULT_CLIENT, signWebhook, startSandbox, type Sandbox } from '../../src/testing/index.js';
import { createWebhookVerifier } from '../../src/webhooks/index.js';
import { person } from '../fixtures.js';
import { sandboxClient } from '../sandbox-client.js';

const KEY = new Uint8Array(32).fill(9);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let people = 0;

/**
 * An inbox on `store` whose client talks to `sandbox`, with short backoffs; `deliver` hands it a
 * webhook payload as the receiver would, `create` makes a request it expects.
 */
export function inboxOn(store: InboxStore, sandbox: Sandbox, extra: Partial<IdentityInboxOptions> = {}) {
  const acme = sandboxClient(sandbox);
  const handed: InboxDelivery[] = [];
  const inbox = createIdentityInbox({
    client: acme,
    store,
    encryptionKey: KEY,
    backoffMs: 50,
    maxBackoffMs: 200,
    logLevel: 'off',
    reconcileIntervalMs: false,
    onIdentity: (delivery) => {
      handed.push(delivery);
    },
    ...extra,
  });
  // A verifier per delivery: each is a delivery attempt of its own (the receiver's replay guard is tested elsewhere).
  const deliver = async (payload: object) => {
    const body = JSON.stringify(payload);
    const verifier = createWebhookVerifier({ secret: DEFAULT_CLIENT.webhookSecret });
    return inbox.receive(await verifier.verify(body, { 'x-webhook-signature': await signWebhook(DEFAULT_CLIENT.webhookSecret, body) }));
  };
  const create = async () => {
    people += 1;
    const { data } = await acme.identityRequests.create(
      person({
        email: `end-to-end${people}-${process.pid}@example.com`,
        phone: String(600_000_000 + (process.pid % 1000) * 1000 + people),
      }),
    );
    await inbox.expect({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });
    return data.access_request_code;
  };
  return { inbox, handed, deliver, create };
}

export function endToEnd(setup: { sandbox(): Sandbox; store(): Promise<InboxStore> }): void {
  test('the service answering 503 for a while: handed over once, after the retries', async () => {
    const sandbox = setup.sandbox();
    const { inbox, handed, deliver, create } = inboxOn(await setup.store(), sandbox);
    const arc = await create();
    expect(await deliver(await sandbox.service.approve(arc))).toBe('added');
    sandbox.service.injectFault({ kind: 'status', status: 503, path: /^\/identity\/response/, times: 3 });
    for (let i = 0; i < 100 && handed.length === 0; i++) {
      await inbox.runOnce();
      await sleep(50);
    }
    sandbox.service.clearFaults();
    expect(handed).toMatchObject([{ kind: 'approved', id: arc, attempts: 3 }]);
    for (let i = 0; i < 3; i++) await inbox.runOnce();
    expect(handed).toHaveLength(1);
  }, 120_000);

  test('a token that expires while the service is down is set aside with the expiry code, replayable only with a fresh delivery', async () => {
    const short = await startSandbox({ fake: { webhookTokenTtlSeconds: 8 } });
    try {
      const { inbox, handed, deliver, create } = inboxOn(await setup.store(), short, { maxAttempts: 1_000 });
      const arc = await create();
      await deliver(await short.service.approve(arc));
      short.service.injectFault({ kind: 'status', status: 503, path: /^\/identity\/response/, times: 10_000 });
      for (let i = 0; i < 200 && (await inbox.stats()).dead === 0; i++) {
        await inbox.runOnce();
        await sleep(50);
      }
      const [letter] = await inbox.deadLetters();
      expect(letter).toMatchObject({ reason: 'ERR_INBOX_TOKEN_EXPIRED', errorCode: 'ERR_SERVICE_UNAVAILABLE', record: { id: arc } });
      // Retried until just before the token's expiry: more than a few attempts, none after it.
      expect(letter!.record.attempts).toBeGreaterThan(3);
      await sleep(letter!.record.tokenExpiresAt - Date.now() + 200);
      expect(await inbox.replay(arc).catch((error: unknown) => error)).toMatchObject({ code: 'ERR_INBOX_TOKEN_EXPIRED' });
      short.service.clearFaults();
      expect(await deliver(await short.service.resendWebhook(arc))).toBe('revived');
      await inbox.runOnce();
      expect(handed).toMatchObject([{ kind: 'approved', id: arc }]);
    } finally {
      await short.close();
    }
  }, 120_000);

  test('a cancelled request is handed over once, as cancelled; its redelivery is a duplicate', async () => {
    const sandbox = setup.sandbox();
    const { inbox, handed, deliver, create } = inboxOn(await setup.store(), sandbox);
    const arc = await create();
    const payload = await sandbox.service.cancel(arc, { webhook: 'skip' });
    expect(await deliver(payload)).toBe('added');
    await inbox.runOnce();
    expect(await deliver(payload)).toBe('duplicate');
    await inbox.runOnce();
    expect(handed.map((delivery) => [delivery.kind, delivery.id])).toEqual([['cancelled', arc]]);
  }, 120_000);

  test('a webhook that never came: reported once across two instances, and the resend asked for is handed over once', async () => {
    const sandbox = setup.sandbox();
    const store = await setup.store();
    const reported: string[] = [];
    const options = {
      graceSeconds: 0.001,
      onMissingDelivery: (missing: { accessRequestCode: string }) => void reported.push(missing.accessRequestCode),
    };
    const first = inboxOn(store, sandbox, options);
    const second = inboxOn(store, sandbox, options);
    const arc = await first.create();
    // Approved, and its webhook lost on the way.
    await sandbox.service.approve(arc, { webhook: 'skip' });
    await sleep(5);
    await Promise.all([first.inbox.reconcile(), second.inbox.reconcile()]);
    expect(reported).toEqual([arc]);
    expect(await first.deliver(await sandbox.service.resendWebhook(arc))).toBe('added');
    await Promise.all([first.inbox.runOnce(), second.inbox.runOnce()]);
    expect([...first.handed, ...second.handed].map((delivery) => delivery.id)).toEqual([arc]);
    await Promise.all([first.inbox.reconcile(), second.inbox.reconcile()]);
    expect(reported).toEqual([arc]);
  }, 120_000);
}
