/** The identity inbox on its memory store, against the fake: persisted before 200, retried within the token's life, handed over once. */
import { http, HttpResponse } from 'msw';
import { describe, expect, test } from 'vitest';
import { ConfigurationError, InboxError, InvalidResponseError } from '../../src/index.js';
import {
  createIdentityInbox,
  MemoryInboxStore,
  type IdentityInboxOptions,
  type InboxDelivery,
  type InboxEvent,
} from '../../src/inbox/index.js';
import { readClaim, remoteJwks } from '../../src/sd-jwt/index.js';
import { DEFAULT_CLIENT, type FakeReadings, webhookRequest } from '../../src/testing/index.js';
import { createWebhookReceiver, createWebhookVerifier } from '../../src/webhooks/index.js';
import { harness, person, rejection, server } from '../helpers.js';

const WEBHOOK_URL = 'https://rp.example/webhooks/inbox';
let people = 0;
/** A person of their own: the fake refuses a second open request to the same person. */
const someone = (overrides: Parameters<typeof person>[0] = {}) =>
  person({
    email: `person${++people}@example.com`,
    phone: String(400_000_000 + people),
    claims: ['acmeidentity.name', 'acmeidentity.credential'],
    ...overrides,
  });

/** A memory store that shows what it was given to keep. */
class SpyStore extends MemoryInboxStore {
  readonly kept: string[] = [];
  override add(record: Parameters<MemoryInboxStore['add']>[0], now: number) {
    this.kept.push(JSON.stringify(record));
    return super.add(record, now);
  }
}

/** A memory store that says it is durable, as a Redis one does. */
class DurableStore extends MemoryInboxStore {
  override readonly durable = true;
}

/** A fake, a client and an inbox behind a receiver, all on one clock the test moves. */
async function setup(options: Partial<IdentityInboxOptions> = {}, fake: { webhookTokenTtlSeconds?: number; readings?: FakeReadings } = {}) {
  let clock = Date.now();
  const now = () => clock;
  const h = await harness({ fake: { now, webhookRetry: { attempts: 3, baseDelayMs: 1 }, ...fake }, client: { now, maxRetries: 0 } });
  h.service.setWebhookUrl(WEBHOOK_URL);
  const delivered: InboxDelivery[] = [];
  const lines: string[] = [];
  const logger = {
    debug: (m: string, f: object) => lines.push(m + JSON.stringify(f)),
    info: (m: string, f: object) => lines.push(m + JSON.stringify(f)),
    warn: (m: string, f: object) => lines.push(m + JSON.stringify(f)),
    error: (m: string, f: object) => lines.push(m + JSON.stringify(f)),
  };
  const inbox = createIdentityInbox({
    client: h.client,
    onIdentity: (delivery) => {
      delivered.push(delivery);
    },
    verification: { keys: remoteJwks(h.service.authUrl), requireSignature: true },
    backoffMs: 1_000,
    now,
    logger,
    logLevel: 'debug',
    ...options,
  });
  const answers: number[] = [];
  const receiver = createWebhookReceiver(
    createWebhookVerifier({ secret: DEFAULT_CLIENT.webhookSecret, replayStore: false }),
    inbox.receive,
  );
  server.use(
    http.post(WEBHOOK_URL, async ({ request }) => {
      const forced = answers.shift();
      return forced === undefined ? receiver.fetch(request) : new HttpResponse(null, { status: forced });
    }),
  );
  const created = async () => {
    const { data } = await h.client.identityRequests.create(someone());
    await inbox.expect({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });
    return data;
  };
  const advance = (ms: number) => {
    clock += ms;
  };
  return { ...h, inbox, delivered, lines, created, advance, now };
}

describe('identity inbox (memory store)', () => {
  test('a delivery is stored before the 200, then fetched, verified and handed over once; redeliveries are duplicates', async () => {
    const { service, inbox, delivered, created } = await setup();
    const request = await created();
    await service.approve(request.access_request_code);
    await service.webhooksSettled();
    expect(service.deliveries).toMatchObject([{ status: 200, delivered: true }]);
    // Nothing fetched yet: the 200 was answered once the delivery was stored.
    expect(delivered).toEqual([]);
    expect(await inbox.stats()).toMatchObject({ pending: 1, inFlight: 0, dead: 0 });

    expect(await inbox.runOnce()).toBe(1);
    expect(delivered).toHaveLength(1);
    const [handed] = delivered;
    expect(handed).toMatchObject({
      kind: 'approved',
      id: request.access_request_code,
      accessRequestCode: request.access_request_code,
      attempts: 0,
    });
    // A store without transactions hands over no `transaction` key at all (a handler may test `'transaction' in`).
    expect(Object.keys(handed ?? {}).sort()).toEqual(['accessRequestCode', 'attempts', 'id', 'identity', 'kind', 'receivedAt']);
    expect(handed?.kind === 'approved' && readClaim(handed.identity.claims, 'acmeidentity.name')).toEqual({
      first_name: 'Jane',
      last_name: 'Citizen',
    });
    expect(handed?.kind === 'approved' && handed.identity.proof).toBe('signature');
    expect(await inbox.stats()).toEqual({ pending: 0, inFlight: 0, dead: 0, oldestAgeMs: 0 });

    // The service sends it again (its 200 was lost, say): recognised, not handed over twice.
    await service.resendWebhook(request.access_request_code);
    await service.webhooksSettled();
    expect(await inbox.runOnce()).toBe(0);
    expect(delivered).toHaveLength(1);
  });

  test('the service answering 503 for a while: retried with backoff, then handed over once', async () => {
    const { service, inbox, delivered, created, advance } = await setup();
    const request = await created();
    await service.approve(request.access_request_code);
    await service.webhooksSettled();
    service.injectFault({ kind: 'status', status: 503, path: /^\/identity\/response/, times: 3 });
    for (let i = 0; i < 3; i++) {
      expect(await inbox.runOnce()).toBe(1);
      expect(delivered).toEqual([]);
      expect(await inbox.deadLetters()).toEqual([]);
      expect(await inbox.stats()).toMatchObject({ pending: 1, dead: 0 });
      // Not due again before its backoff.
      expect(await inbox.runOnce()).toBe(0);
      advance(60_000);
    }
    expect(await inbox.runOnce()).toBe(1);
    expect(delivered).toMatchObject([{ kind: 'approved', attempts: 3 }]);
    expect(await inbox.stats()).toMatchObject({ pending: 0, dead: 0 });
  });

  // The inbox's rules (rules.test.ts) classify errors built by hand; here each is what the client
  // really throws when the service answers the fetch so (#45).
  test.each([
    [{ kind: 'status', status: 503 }, 'retry', 'ERR_SERVICE_UNAVAILABLE'],
    [{ kind: 'status', status: 500 }, 'retry', 'ERR_INTERNAL'],
    [{ kind: 'status', status: 429, retryAfter: '1' }, 'retry', 'ERR_RATE_LIMITED'],
    [{ kind: 'proxy-502' }, 'retry', 'ERR_EXTERNAL_SERVICE'],
    [{ kind: 'network' }, 'retry', 'ERR_CONNECTION'],
    [{ kind: 'reset-after-headers' }, 'retry', 'ERR_CONNECTION'],
    [{ kind: 'status', status: 404 }, 'dead', 'ERR_NOT_FOUND'],
    [{ kind: 'status', status: 400 }, 'dead', 'ERR_VALIDATION'],
    [{ kind: 'status', status: 403 }, 'dead', 'ERR_PERMISSION_DENIED'],
  ] as const)('the fetch answered %o: %s, as %s', async (fault, outcome, errorCode) => {
    const events: InboxEvent[] = [];
    const { service, inbox, created } = await setup({ hooks: { onInbox: (event) => void events.push(event) } });
    const request = await created();
    await service.approve(request.access_request_code);
    await service.webhooksSettled();
    service.injectFault({ ...fault, path: /^\/identity\/response/, times: 1 });
    expect(await inbox.runOnce()).toBe(1);
    expect(events.filter((e) => e.outcome === 'retry' || e.outcome === 'dead')).toMatchObject([{ outcome, errorCode }]);
    expect(await inbox.stats()).toMatchObject(outcome === 'retry' ? { pending: 1, dead: 0 } : { pending: 0, dead: 1 });
  });

  test('a token that expires while the service is down is set aside with the expiry code; replayable only with a fresh delivery', async () => {
    const { service, inbox, delivered, created, advance } = await setup({ maxAttempts: 100 }, { webhookTokenTtlSeconds: 120 });
    const request = await created();
    await service.approve(request.access_request_code);
    await service.webhooksSettled();
    service.injectFault({ kind: 'status', status: 503, path: /^\/identity\/response/, times: 1_000 });
    for (let i = 0; i < 20 && (await inbox.stats()).dead === 0; i++) {
      await inbox.runOnce();
      advance(30_000);
    }
    const [letter] = await inbox.deadLetters();
    expect(letter).toMatchObject({ reason: 'ERR_INBOX_TOKEN_EXPIRED', errorCode: 'ERR_SERVICE_UNAVAILABLE' });
    expect(letter?.record.id).toBe(request.access_request_code);
    // The last attempt went just before the expiry, never after it.
    const fetches = service.requests.filter((r) => r.path.startsWith('/identity/response'));
    expect(fetches.length).toBeGreaterThan(2);
    expect(delivered).toEqual([]);

    const refused = await rejection(inbox.replay(request.access_request_code));
    expect(refused).toBeInstanceOf(InboxError);
    expect(refused).toMatchObject({ code: 'ERR_INBOX_TOKEN_EXPIRED', entryId: request.access_request_code });

    // The service recovers and the operator has the webhook sent again: the fresh token revives the entry.
    service.clearFaults();
    await service.resendWebhook(request.access_request_code);
    await service.webhooksSettled();
    expect(await inbox.deadLetters()).toEqual([]);
    expect(await inbox.runOnce()).toBe(1);
    expect(delivered).toMatchObject([{ kind: 'approved', id: request.access_request_code }]);
  });

  test('a replay of a dead entry whose token is still valid tries it again; discard removes one; unknown ids are typed errors', async () => {
    let fail = true;
    const { service, inbox, delivered, created } = await setup({
      maxAttempts: 1,
      onIdentity: (delivery) => {
        if (fail) throw new Error(`could not save Jane Citizen (${delivery.id})`);
        delivered.push(delivery);
      },
    });
    const first = await created();
    const second = await created();
    await service.approve(first.access_request_code);
    await service.approve(second.access_request_code);
    await service.webhooksSettled();
    expect(await inbox.runOnce()).toBe(2);
    const letters = await inbox.deadLetters();
    expect(letters.map((l) => l.reason)).toEqual(['ERR_INBOX_HANDLER', 'ERR_INBOX_HANDLER']);
    // The handler's message may hold anything (here, a name): only its class is kept.
    expect(letters[0]?.message).toBe('onIdentity threw Error');
    expect(JSON.stringify(letters)).not.toContain('Jane');

    fail = false;
    await inbox.replay(first.access_request_code);
    await inbox.discard(second.access_request_code);
    expect(await inbox.runOnce()).toBe(1);
    expect(delivered.map((d) => d.id)).toEqual([first.access_request_code]);
    expect(await inbox.stats()).toMatchObject({ pending: 0, dead: 0 });
    for (const call of [inbox.replay('arc_nothing'), inbox.discard(second.access_request_code)]) {
      expect(await rejection(call)).toMatchObject({ name: 'InboxError', code: 'ERR_INBOX_NOT_FOUND' });
    }
  });

  test('a handler that fails is retried (the identity fetched again) and never loses the entry; its failures dead-letter it once the attempts are spent', async () => {
    let failures = 2;
    const seen: number[] = [];
    const { service, inbox, created, advance } = await setup({
      maxAttempts: 3,
      onIdentity: (delivery) => {
        seen.push(delivery.attempts);
        if (failures-- > 0) throw new TypeError('database down');
      },
    });
    const request = await created();
    await service.approve(request.access_request_code);
    await service.webhooksSettled();
    for (let i = 0; i < 3; i++) {
      await inbox.runOnce();
      advance(60_000);
    }
    expect(seen).toEqual([0, 1, 2]);
    expect(service.requests.filter((r) => r.path.startsWith('/identity/response'))).toHaveLength(3);
    expect(await inbox.stats()).toMatchObject({ pending: 0, dead: 0 });
  });

  test('runOnce called while a pass is under way waits for it: an entry whose handler runs past its lease is not taken back by this worker and handed over again (#45)', async () => {
    let entered!: () => void;
    const handling = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handed: string[] = [];
    const { service, inbox, created, advance } = await setup({
      concurrency: 1,
      leaseMs: 60_000,
      onIdentity: async (delivery) => {
        handed.push(delivery.id);
        entered();
        await released;
      },
    });
    const request = await created();
    await service.approve(request.access_request_code);
    await service.webhooksSettled();
    const first = inbox.runOnce();
    await handling;
    // The handler is still at work when its lease ends on the inbox's clock; a second pass is asked for.
    advance(120_000);
    const second = inbox.runOnce();
    release();
    expect(await first).toBe(1);
    expect(await second).toBe(0);
    expect(handed).toEqual([request.access_request_code]);
    expect(await inbox.stats()).toMatchObject({ pending: 0, inFlight: 0, dead: 0 });
  });

  test('a cancelled request is handed over as cancelled, once', async () => {
    const { service, inbox, delivered, created } = await setup();
    const request = await created();
    await service.cancel(request.access_request_code);
    await service.webhooksSettled();
    expect(await inbox.runOnce()).toBe(1);
    expect(delivered).toEqual([
      {
        kind: 'cancelled',
        id: request.access_request_code,
        accessRequestCode: request.access_request_code,
        attempts: 0,
        receivedAt: expect.any(Number),
      },
    ]);
    await service.resendWebhook(request.access_request_code);
    await service.webhooksSettled();
    expect(await inbox.runOnce()).toBe(0);
    expect(delivered).toHaveLength(1);
  });

  test('a response no retry can fix (refused by verification) is set aside at once, as refused', async () => {
    const { service, inbox, delivered, created } = await setup({ verification: { requestCode: 'not-this-request' } });
    const request = await created();
    await service.approve(request.access_request_code);
    await service.webhooksSettled();
    expect(await inbox.runOnce()).toBe(1);
    const [letter] = await inbox.deadLetters();
    expect(letter).toMatchObject({ reason: 'ERR_INBOX_REFUSED', errorCode: 'ERR_SD_JWT_REQUEST_CODE' });
    expect(letter?.record.attempts).toBe(1);
    expect(delivered).toEqual([]);
  });

  test('with maxAttempts: 1, a request whose session code is unknown is set aside as unknown after its one try, not as retries exhausted', async () => {
    const { service, client, inbox, delivered } = await setup({ maxAttempts: 1 });
    const { data } = await client.identityRequests.create(someone());
    await service.approve(data.access_request_code);
    await service.webhooksSettled();
    await inbox.runOnce();
    expect(await inbox.deadLetters()).toMatchObject([{ reason: 'ERR_INBOX_UNKNOWN_REQUEST', record: { attempts: 1 } }]);
    expect(delivered).toEqual([]);
  });

  test('an entry handed over or set aside wakes its waiters at once: waitFor answers the final state without waiting for its next read', async () => {
    for (const [verification, state] of [
      [{}, 'verified'],
      [{ requestCode: 'not-this-request' }, 'failed'],
    ] as const) {
      const { service, inbox, created } = await setup({ verification });
      const request = await created();
      await service.approve(request.access_request_code);
      await service.webhooksSettled();
      const leaving = new AbortController();
      let answered: unknown;
      // A read an hour away: only the worker's wake-up can answer it now.
      void inbox
        .waitFor(request.access_request_code, { timeoutMs: 3_600_000, pollMs: 3_600_000, signal: leaving.signal })
        .then((outcome) => {
          answered = outcome;
        });
      expect(await inbox.runOnce()).toBe(1);
      for (let turn = 0; turn < 10 && answered === undefined; turn++) await new Promise((resolve) => setImmediate(resolve));
      leaving.abort();
      expect(answered).toMatchObject({ state, final: true });
    }
  });

  test('a request whose session code is unknown is tried once more (expect may come late), then set aside as unknown, not after every retry', async () => {
    const { service, client, inbox, delivered, advance } = await setup({ maxAttempts: 8 });
    const { data } = await client.identityRequests.create(someone());
    await service.approve(data.access_request_code);
    await service.webhooksSettled();
    await inbox.runOnce();
    advance(60_000);
    await inbox.runOnce();
    expect(await inbox.deadLetters()).toMatchObject([{ reason: 'ERR_INBOX_UNKNOWN_REQUEST', record: { attempts: 2 } }]);
    expect(delivered).toEqual([]);
    // Recorded late, then replayed: handed over.
    await inbox.expect({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });
    await inbox.replay(data.access_request_code);
    expect(await inbox.runOnce()).toBe(1);
    expect(delivered).toMatchObject([{ kind: 'approved', id: data.access_request_code }]);
  });

  test('sessionCode looks the code up when expect was not called', async () => {
    const codes = new Map<string, string>();
    const { service, client, inbox, delivered } = await setup({ sessionCode: (arc) => codes.get(arc) });
    const { data } = await client.identityRequests.create(someone());
    codes.set(data.access_request_code, data.identity_session_code);
    await service.approve(data.access_request_code);
    await service.webhooksSettled();
    expect(await inbox.runOnce()).toBe(1);
    expect(delivered).toMatchObject([{ kind: 'approved', id: data.access_request_code }]);
  });

  test('the code recorded with expect() is the one used: sessionCode is asked only for a request expect() never recorded', async () => {
    const asked: string[] = [];
    const { service, inbox, delivered, created } = await setup({
      sessionCode: (arc) => {
        asked.push(arc);
        return 'isc_not_this_one';
      },
    });
    const request = await created();
    await service.approve(request.access_request_code);
    await service.webhooksSettled();
    expect(await inbox.runOnce()).toBe(1);
    expect(delivered).toMatchObject([{ kind: 'approved', id: request.access_request_code }]);
    expect(asked).toEqual([]);
  });

  test('a webhook that carries the identity_session_code (webhookCodes: both) is fetched with it when nothing else names the code', async () => {
    const { service, client, inbox, delivered } = await setup({}, { readings: { webhookCodes: 'both' } });
    const { data } = await client.identityRequests.create(someone());
    await service.approve(data.access_request_code);
    await service.webhooksSettled();
    expect(await inbox.runOnce()).toBe(1);
    expect(delivered).toMatchObject([{ kind: 'approved', id: data.access_request_code }]);
    expect(await inbox.deadLetters()).toEqual([]);
  });

  test("the code the application gave wins over the webhook's: expect() first, then sessionCode, then the webhook", async () => {
    const asked: string[] = [];
    const { service, client, inbox, delivered } = await setup(
      {
        sessionCode: (arc) => {
          asked.push(arc);
          return arc === looked ? lookedUp : undefined;
        },
      },
      { readings: { webhookCodes: 'both' } },
    );
    // Three requests: one recorded with expect(), one the lookup knows, one only its webhook names.
    const expected = await client.identityRequests.create(someone());
    await inbox.expect({ accessRequestCode: expected.data.access_request_code, identitySessionCode: expected.data.identity_session_code });
    const viaLookup = await client.identityRequests.create(someone());
    const looked = viaLookup.data.access_request_code;
    const lookedUp = viaLookup.data.identity_session_code;
    const onlyWebhook = await client.identityRequests.create(someone());
    for (const request of [expected, viaLookup, onlyWebhook]) await service.approve(request.data.access_request_code);
    await service.webhooksSettled();
    expect(await inbox.runOnce()).toBe(3);
    expect(delivered.map((delivery) => delivery.id).sort()).toEqual(
      [expected, viaLookup, onlyWebhook].map((request) => request.data.access_request_code).sort(),
    );
    expect(asked.sort()).toEqual([looked, onlyWebhook.data.access_request_code].sort());
  });

  test("a webhook's identity_session_code is not taken over expect()'s: a wrong one in a verified delivery changes nothing", async () => {
    const { service, client, inbox, delivered } = await setup();
    const { data } = await client.identityRequests.create(someone());
    await inbox.expect({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });
    await service.approve(data.access_request_code, { webhook: 'skip' });
    // The approval as the service signed it, then verified; received with another request's session code beside it.
    const payload = service.events.at(-1)!;
    const { body, headers } = await webhookRequest({ secret: DEFAULT_CLIENT.webhookSecret }, payload);
    const event = await createWebhookVerifier({ secret: DEFAULT_CLIENT.webhookSecret, replayStore: false }).verify(body, headers);
    const { kind, accessRequestCode, accessToken } = event;
    expect(await inbox.receive({ kind, accessRequestCode, accessToken, identitySessionCode: 'isc_another_request' })).toBe('added');
    expect(await inbox.runOnce()).toBe(1);
    expect(delivered).toMatchObject([{ kind: 'approved', id: data.access_request_code }]);
  });

  test("a webhook's identity_session_code that is no text (an untyped caller's number) is none: never sent as a request's code", async () => {
    const { service, client, inbox, delivered, lines } = await setup();
    const { data } = await client.identityRequests.create(someone());
    await service.approve(data.access_request_code, { webhook: 'skip' });
    const payload = service.events.at(-1)!;
    const { body, headers } = await webhookRequest({ secret: DEFAULT_CLIENT.webhookSecret }, payload);
    const { kind, accessRequestCode, accessToken } = await createWebhookVerifier({
      secret: DEFAULT_CLIENT.webhookSecret,
      replayStore: false,
    }).verify(body, headers);
    const numbered = { kind, accessRequestCode, accessToken, identitySessionCode: 12_345 as unknown as string };
    expect(await inbox.receive(numbered)).toBe('added');
    await inbox.runOnce();
    expect(delivered).toEqual([]);
    expect(service.requests.filter((r) => r.path.startsWith('/identity/response/'))).toEqual([]);
    expect(lines.some((line) => line.includes('"errorCode":"ERR_INBOX_UNKNOWN_REQUEST"'))).toBe(true);
  });

  test('the reconciler reports a completed request whose webhook never came, after the grace period, once', async () => {
    const reports: unknown[] = [];
    const { service, inbox, created, advance, lines } = await setup({ graceSeconds: 300, onMissingDelivery: (m) => reports.push(m) });
    const lost = await created();
    const fine = await created();
    await service.approve(lost.access_request_code, { webhook: 'skip' });
    await service.approve(fine.access_request_code);
    await service.webhooksSettled();
    expect(await inbox.reconcile()).toEqual([]);
    advance(301_000);
    const missing = await inbox.reconcile();
    expect(missing).toEqual([{ accessRequestCode: lost.access_request_code, reason: 'completed', at: expect.any(Number) }]);
    expect(reports).toEqual(missing);
    expect(lines.some((line) => line.includes('no webhook for a request that was completed'))).toBe(true);
    expect(lines.join('\n')).not.toContain(lost.access_request_code);
    expect(await inbox.reconcile()).toEqual([]);
  });

  test.each(['remaining', 'hours'] as const)(
    'a service writing time_expires as a duration (%s): the request is never taken as expired in 1970, and the refusal names the field',
    async (requestExpiry) => {
      const { client, inbox, lines } = await setup({}, { readings: { requestExpiry } });
      const { data } = await client.identityRequests.create(someone({ expiry_hours: 1 }));
      const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
      await inbox.expect(codes);
      const refused = await rejection(client.identityRequests.get(codes));
      expect(refused).toBeInstanceOf(InvalidResponseError);
      expect((refused as InvalidResponseError).issues.join(' ')).toContain('time_expires');
      expect((refused as Error).message).toContain('before 2001');
      expect(await inbox.reconcile()).toEqual([]);
      expect(await inbox.askService(data.access_request_code)).toBeUndefined();
      expect(lines.filter((line) => line.includes('no webhook for a request that'))).toEqual([]);
      expect(lines.some((line) => line.includes('reconciler could not read a request') && line.includes('ERR_INVALID_RESPONSE'))).toBe(
        true,
      );
    },
  );

  test('the reconciler reports a request that expired unopened', async () => {
    const { client, inbox, advance, lines } = await setup();
    const { data } = await client.identityRequests.create(someone({ expiry_hours: 1 }));
    await inbox.expect({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });
    expect(await inbox.reconcile()).toEqual([]);
    advance(3_601_000);
    expect(await inbox.reconcile()).toMatchObject([{ accessRequestCode: data.access_request_code, reason: 'expired' }]);
    expect(lines.filter((line) => line.includes('no webhook for a request that'))).toEqual([
      expect.stringContaining('no webhook for a request that expired unopened'),
    ]);
  });

  test("the sandbox's home page shows an attached inbox: its figures and its dead letters with their reasons", async () => {
    const { service, inbox, created } = await setup({ verification: { requestCode: 'not-this-request' } });
    const page = async () => (await service.fetch(new Request(`${service.authUrl}/`))).text();
    expect(await page()).not.toContain('Identity inbox');
    service.attachInbox(inbox);
    expect(await page()).toContain('0 pending, 0 in flight, <span class="ok">0 dead</span>');
    const request = await created();
    await service.approve(request.access_request_code);
    await service.webhooksSettled();
    expect(await page()).toContain('1 pending, 0 in flight');
    await inbox.runOnce();
    const html = await page();
    expect(html).toContain('<span class="bad">1 dead</span>');
    expect(html).toContain(`<code>${request.access_request_code}</code>`);
    expect(html).toContain('<code>ERR_INBOX_REFUSED</code>');
    expect(html).toContain('<code>ERR_SD_JWT_REQUEST_CODE</code>');
    service.attachInbox({ stats: () => Promise.reject(new Error('down')), deadLetters: () => Promise.resolve([]) });
    expect(await page()).toContain('The inbox did not answer');
  });

  test('hooks.onInbox sees each step of an entry: stored, retried, handed over; nothing in it names the request', async () => {
    const events: InboxEvent[] = [];
    let fail = 1;
    const { service, inbox, created, advance } = await setup({
      maxAttempts: 2,
      hooks: { onInbox: (event) => events.push(event) },
      onIdentity: () => {
        if (fail-- > 0) throw new Error('x');
      },
    });
    const request = await created();
    await service.approve(request.access_request_code);
    await service.webhooksSettled();
    await inbox.runOnce();
    advance(60_000);
    await inbox.runOnce();
    expect(events.map((e) => e.outcome)).toEqual(['added', 'retry', 'handed-over']);
    expect(events[1]).toMatchObject({ attempts: 1, errorCode: 'ERR_HANDLER', waitMs: expect.any(Number) });
    expect(events[2]).toMatchObject({ kind: 'approved', delivery: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) });
    expect(JSON.stringify(events)).not.toContain(request.access_request_code);
  });

  test('no token, request code or claim in its logs; the token is sealed in the store', async () => {
    const spy = new SpyStore();
    const stored = spy.kept;
    const { service, inbox, created, lines } = await setup({ store: spy });
    const request = await created();
    const payload = await service.approve(request.access_request_code);
    await service.webhooksSettled();
    await inbox.runOnce();
    const text = lines.join('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const secret of [payload.access_token, request.access_request_code, request.identity_session_code, 'Jane', 'Citizen']) {
      expect(text).not.toContain(secret);
    }
    expect(stored).toHaveLength(1);
    expect(stored[0]).not.toContain(payload.access_token);
    expect(stored[0]).toContain('"token":"v1.');
  });

  test('refuses what it cannot work with: no client, no handler, a durable store without a key, an option out of range, an event without a token', async () => {
    const { client } = await harness();
    const durable = new DurableStore();
    const cases: [() => unknown, string][] = [
      [() => createIdentityInbox({ onIdentity: () => undefined } as never), 'client'],
      [() => createIdentityInbox({ client } as never), 'onIdentity'],
      [() => createIdentityInbox({ client, onIdentity: () => undefined, store: durable }), 'encryptionKey'],
      [() => createIdentityInbox({ client, onIdentity: () => undefined, encryptionKey: 'c2hvcnQ=' }), 'encryptionKey'],
      [() => createIdentityInbox({ client, onIdentity: () => undefined, maxAttempts: 0 }), 'maxAttempts'],
      [() => createIdentityInbox({ client, onIdentity: () => undefined, leaseMs: Number.NaN }), 'leaseMs'],
    ];
    for (const [make, option] of cases) {
      let thrown: unknown;
      try {
        make();
      } catch (error) {
        thrown = error;
      }
      expect(thrown, option).toBeInstanceOf(ConfigurationError);
      expect(thrown).toMatchObject({ option });
    }
    const inbox = createIdentityInbox({ client, onIdentity: () => undefined });
    expect(await rejection(inbox.receive({ accessRequestCode: 'arc', accessToken: undefined as never }))).toMatchObject({
      option: 'event',
    });
    // With a key or allowPlaintext a durable store is accepted.
    expect(() => createIdentityInbox({ client, onIdentity: () => undefined, store: durable, allowPlaintext: true })).not.toThrow();
  });

  test('start polls until stop; a store that fails is logged, and the entry waits for the next poll', async () => {
    let broken = 2;
    let polls = 0;
    class FlakyStore extends MemoryInboxStore {
      override claim(...args: Parameters<MemoryInboxStore['claim']>) {
        polls += 1;
        return broken-- > 0 ? Promise.reject(new Error('connection lost')) : super.claim(...args);
      }
    }
    const { service, inbox, delivered, created, lines } = await setup({ pollIntervalMs: 10, store: new FlakyStore() });
    const request = await created();
    inbox.start();
    inbox.start();
    // The delivery comes once the store answers again: a delivery stored between two failed polls
    // would be an answer, and the second failure an outage of its own (a second line).
    await expect.poll(() => polls, { timeout: 5_000 }).toBeGreaterThanOrEqual(3);
    await service.approve(request.access_request_code);
    await service.webhooksSettled();
    await expect.poll(() => delivered.length, { timeout: 5_000 }).toBe(1);
    await inbox.stop();
    // One outage, said once each way, however many polls failed in it.
    expect(lines.filter((line) => line.includes('inbox store unreachable'))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('inbox store answers again'))).toHaveLength(1);
    const stopped = polls;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(polls).toBe(stopped);
  });
});
