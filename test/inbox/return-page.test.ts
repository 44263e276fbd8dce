/**
 * The return page (#42) against a sandbox on localhost: the sealed references of `returnUrls`,
 * a request's outcome and `waitFor` across two instances sharing a store, the status endpoint
 * (JSON, long poll, Server-Sent Events, a late webhook) and `awaitIdentity`'s polling (Node has no
 * EventSource; test/inbox/return-page-chromium.test.ts drives the page in Chromium).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import fc from 'fast-check';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { type AcmeIdentityClient, ConfigurationError } from '../../src/index.js';
import {
  createIdentityInbox,
  createReturnPage,
  MemoryInboxStore,
  RETURN_PARAMETER,
  type IdentityInbox,
  type IdentityInboxOptions,
  type InboxDelivery,
  type InboxStore,
  type ReturnPageState,
} from '../../src/inbox/index.js';
import { awaitIdentity, ReturnPageError } from '../../src/return-page/index.js';
import { DEFAULT_CLIENT, READING_CHOICES, signWebhook, startSandbox, type Sandbox } from '../../src/testing/index.js';
import { createWebhookVerifier } from '../../src/webhooks/index.js';
import { person } from '../fixtures.js';
import { sandboxClient } from '../sandbox-client.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const KEY = new Uint8Array(32).fill(4);
let people = 0;

/** An instance of the relying party: an inbox on `store` whose client talks to the sandbox, and its status endpoint. */
function instance(store: InboxStore, extra: Partial<IdentityInboxOptions> = {}) {
  const acme = sandboxClient(sandbox);
  const inbox = createIdentityInbox({
    client: acme,
    store,
    encryptionKey: KEY,
    logLevel: 'off',
    reconcileIntervalMs: false,
    onIdentity: () => undefined,
    ...extra,
  });
  const deliver = async (payload: object) => {
    const body = JSON.stringify(payload);
    const verifier = createWebhookVerifier({ secret: DEFAULT_CLIENT.webhookSecret, replayStore: false, logLevel: 'off' });
    return inbox.receive(await verifier.verify(body, { 'x-webhook-signature': await signWebhook(DEFAULT_CLIENT.webhookSecret, body) }));
  };
  return { acme, inbox, deliver, page: createReturnPage({ inbox, lateAfterSeconds: 1 }) };
}

/** A request created with the inbox's return URLs and expected: its code and the reference each URL carries. */
async function created(acme: AcmeIdentityClient, inbox: IdentityInbox) {
  const urls = await inbox.returnUrls({ returnUrl: 'https://rp.example/return?step=done', offRampUrl: 'https://rp.example/off-ramp' });
  people += 1;
  const { data } = await acme.identityRequests.create(
    person({
      email: `return${people}@example.com`,
      phone: String(700_000_000 + people),
      return_url: urls.return_url,
      off_ramp_url: urls.off_ramp_url,
      claims: ['acmeidentity.given_name', 'acmeidentity.valid'],
    }),
  );
  await inbox.expect({
    accessRequestCode: data.access_request_code,
    identitySessionCode: data.identity_session_code,
    reference: urls.reference,
  });
  const ref = (url: string) => new URL(url).searchParams.get(RETURN_PARAMETER)!;
  return { arc: data.access_request_code, urls, returnRef: ref(urls.return_url), offRampRef: ref(urls.off_ramp_url) };
}

const statusUrl = (ref: string, extra = '') => `https://rp.example/identity/status?${RETURN_PARAMETER}=${encodeURIComponent(ref)}${extra}`;
const get = (page: { fetch(r: Request): Promise<Response> }, ref: string, extra = '', init: RequestInit = {}) =>
  page.fetch(new Request(statusUrl(ref, extra), init));

describe('return references', () => {
  test('returnUrls keeps each URL as given and adds acme_ref; each opens to its request once expected, the off-ramp marked as such', async () => {
    const { acme, inbox } = instance(new MemoryInboxStore());
    const { arc, urls, returnRef, offRampRef } = await created(acme, inbox);
    expect(new URL(urls.return_url).searchParams.get('step')).toBe('done');
    expect(new URL(urls.return_url).origin + new URL(urls.return_url).pathname).toBe('https://rp.example/return');
    expect(await inbox.openReference(returnRef)).toEqual({ accessRequestCode: arc, offRamp: false });
    expect(await inbox.openReference(offRampRef)).toEqual({ accessRequestCode: arc, offRamp: true });
    // The URLs name neither code: the reference is sealed, the code is only in the store.
    for (const url of [urls.return_url, urls.off_ramp_url]) expect(url).not.toContain(arc);
  });

  test('a reference altered anywhere, sealed by another inbox, past its time, or never expected opens to nothing (property over alterations)', async () => {
    let clock = Date.now();
    const store = new MemoryInboxStore();
    const { acme, inbox } = instance(store, { now: () => clock, returnReferenceTtlSeconds: 60 });
    const { returnRef } = await created(acme, inbox);
    await fc.assert(
      fc.asyncProperty(fc.nat(returnRef.length - 1), fc.constantFrom(...'ABCDEFabcdef0123456789+/=.-_'), async (at, replacement) => {
        fc.pre(returnRef[at] !== replacement);
        const altered = returnRef.slice(0, at) + replacement + returnRef.slice(at + 1);
        expect(await inbox.openReference(altered), `${returnRef} -> ${altered}`).toBeUndefined();
      }),
      { seed: 42, numRuns: 200 },
    );
    const other = instance(store, { encryptionKey: new Uint8Array(32).fill(5) });
    expect(await other.inbox.openReference(returnRef)).toBeUndefined();
    const unexpected = await inbox.returnUrls({ returnUrl: 'https://rp.example/r', offRampUrl: 'https://rp.example/o' });
    expect(await inbox.openReference(new URL(unexpected.return_url).searchParams.get(RETURN_PARAMETER)!)).toBeUndefined();
    for (const junk of ['', 'v1.', 'x'.repeat(2_000), 'not sealed']) expect(await inbox.openReference(junk)).toBeUndefined();
    clock += 61_000;
    expect(await inbox.openReference(returnRef)).toBeUndefined();
  });

  test('a reference opens only as this inbox wrote it: not in another spelling of its base64, not past its own sealed time where the store still names it; a long one is not even decrypted (#45)', async () => {
    let clock = Date.now();
    /** A store that names a reference for ever: the sealed time alone must end it. */
    class KeepsReferences extends MemoryInboxStore {
      override async referred(reference: string): Promise<string | undefined> {
        return super.referred(reference, 0);
      }
    }
    const { acme, inbox } = instance(new KeepsReferences(), { now: () => clock, returnReferenceTtlSeconds: 60 });
    // Base64 with padding leaves bits of its last character unused: another spelling of the same bytes.
    let returnRef = '';
    for (let i = 0; i < 20 && !returnRef.endsWith('='); i++) ({ returnRef } = await created(acme, inbox));
    expect(returnRef.endsWith('=')).toBe(true);
    const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const last = returnRef.search(/=+$/) - 1;
    const respelt = returnRef.slice(0, last) + BASE64[BASE64.indexOf(returnRef[last]!) ^ 1] + returnRef.slice(last + 1);
    expect(Buffer.from(respelt.slice(3), 'base64')).toEqual(Buffer.from(returnRef.slice(3), 'base64'));
    expect(await inbox.openReference(respelt)).toBeUndefined();
    expect(await inbox.openReference(returnRef)).toMatchObject({ offRamp: false });
    const decrypt = vi.spyOn(crypto.subtle, 'decrypt');
    try {
      expect(await inbox.openReference(`v1.${'A'.repeat(1_000)}`)).toBeUndefined();
      expect(decrypt).not.toHaveBeenCalled();
    } finally {
      decrypt.mockRestore();
    }
    clock += 61_000;
    expect(await inbox.openReference(returnRef)).toBeUndefined();
  });

  test('returnUrls: a URL that is not one, or an inbox with no key to seal with, is a ConfigurationError naming it', async () => {
    const { inbox } = instance(new MemoryInboxStore());
    await expect(inbox.returnUrls({ returnUrl: 'not a url', offRampUrl: 'https://rp.example/o' })).rejects.toMatchObject({
      option: 'returnUrl',
    });
    await expect(inbox.returnUrls({ returnUrl: 'https://rp.example/r', offRampUrl: 'javascript:alert(1)' })).rejects.toMatchObject({
      option: 'offRampUrl',
    });
    const plain = createIdentityInbox({
      client: instance(new MemoryInboxStore()).acme,
      allowPlaintext: true,
      logLevel: 'off',
      onIdentity: () => undefined,
    });
    await expect(plain.returnUrls({ returnUrl: 'https://rp.example/r', offRampUrl: 'https://rp.example/o' })).rejects.toThrow(
      ConfigurationError,
    );
  });
});

describe('the person brought back by the service, however it writes return_url (the returnUrl reading)', () => {
  test.each(READING_CHOICES.returnUrl)('%s: the reference the browser reads from the URL opens, on both URLs', async (returnUrl) => {
    const served = await startSandbox({ fake: { readings: { returnUrl } } });
    try {
      const acme = sandboxClient(served);
      const inbox = createIdentityInbox({
        client: acme,
        store: new MemoryInboxStore(),
        encryptionKey: KEY,
        logLevel: 'off',
        reconcileIntervalMs: false,
        onIdentity: () => undefined,
      });
      const page = createReturnPage({ inbox });
      for (const [action, offRamp] of [
        ['approve', false],
        ['partial', true],
      ] as const) {
        // A reference with a `+` in it, which a sender that unescapes the URL leaves raw.
        const refOf = (made: Awaited<ReturnType<typeof created>>) => (offRamp ? made.offRampRef : made.returnRef);
        let request = await created(acme, inbox);
        for (let i = 0; i < 50 && !refOf(request).includes('+'); i++) request = await created(acme, inbox);
        const { arc } = request;
        const finished = await fetch(`${served.authUrl}/journey/${arc}/${action}`, {
          method: 'POST',
          redirect: 'manual',
        });
        const location = finished.headers.get('location') ?? '';
        expect(location.startsWith(offRamp ? 'https://rp.example/off-ramp' : 'https://rp.example/return')).toBe(true);
        // What the page's script reads from its own URL.
        const brought = new URL(location).searchParams.get(RETURN_PARAMETER) ?? '';
        expect(await inbox.openReference(brought), `${location}`).toEqual({ accessRequestCode: arc, offRamp });
        expect((await get(page, brought)).status).toBe(200);
      }
    } finally {
      await served.close();
    }
  });

  test('property: a reference followed by what a sender concatenates (from a character no reference holds), or with its + read as a space, opens to its request; the reference cut short opens nothing', async () => {
    const { acme, inbox } = instance(new MemoryInboxStore());
    let returnRef = '';
    let arc = '';
    for (let i = 0; i < 50 && !returnRef.includes('+'); i++) ({ returnRef, arc } = await created(acme, inbox));
    expect(returnRef).toContain('+');
    const opened = { accessRequestCode: arc, offRamp: false };
    expect(await inbox.openReference(returnRef.replace(/\+/g, ' '))).toEqual(opened);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...'?&#%;,!"<>~*()[]{}|\\^`\'-_'), fc.string({ maxLength: 40 }), async (first, rest) => {
        expect(await inbox.openReference(`${returnRef}${first}${rest}`)).toEqual(opened);
      }),
      { seed: 7, numRuns: 60 },
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: returnRef.length - 1 }), async (end) => {
        expect(await inbox.openReference(returnRef.slice(0, end))).toBeUndefined();
      }),
      { seed: 7, numRuns: 40 },
    );
  });
});

describe('outcome and waitFor', () => {
  test('a request through its life: awaiting, processing, then verified; partial; cancelled; unknown for one never seen', async () => {
    const { acme, inbox, deliver } = instance(new MemoryInboxStore());
    expect(await inbox.outcome('arc_never_seen')).toEqual({ state: 'unknown', final: true });
    for (const [settle, state] of [
      [(arc: string) => sandbox.service.approve(arc), 'verified'],
      [(arc: string) => sandbox.service.approve(arc, { partiallyComplete: true }), 'partial'],
      [(arc: string) => sandbox.service.cancel(arc), 'cancelled'],
    ] as const) {
      const { arc } = await created(acme, inbox);
      expect(await inbox.outcome(arc)).toMatchObject({ state: 'awaiting', final: false });
      expect(await deliver(await settle(arc))).toBe('added');
      expect(await inbox.outcome(arc)).toMatchObject({ state: 'processing', final: false });
      await inbox.runOnce();
      expect(await inbox.outcome(arc)).toMatchObject({ state, final: true });
    }
  });

  test('an identity the service marks not valid (acmeidentity.valid false, in any form, partial or not) is handed over as invalid, its claims under invalidIdentity: never as verified', async () => {
    for (const [approval, state] of [
      [{ values: { 'acmeidentity.valid': false } }, 'invalid'],
      [{ values: { 'acmeidentity.valid': 'No' } }, 'invalid'],
      [{ values: { 'acmeidentity.valid': false }, partiallyComplete: true }, 'invalid'],
      [{ values: { 'acmeidentity.valid': 'Yes' } }, 'verified'],
      [{ values: { 'acmeidentity.valid': true }, partiallyComplete: true }, 'partial'],
    ] as const) {
      const handed: InboxDelivery[] = [];
      const { acme, inbox, deliver } = instance(new MemoryInboxStore(), { onIdentity: (delivery) => void handed.push(delivery) });
      const { arc } = await created(acme, inbox);
      await deliver(await sandbox.service.approve(arc, approval));
      await inbox.runOnce();
      expect(await inbox.outcome(arc)).toMatchObject({ state, final: true });
      expect(handed).toHaveLength(1);
      const [delivery] = handed;
      if (state === 'invalid') {
        expect(delivery).toMatchObject({
          kind: 'invalid',
          invalidIdentity: { valid: false, claims: { 'acmeidentity.given_name': 'Jane' } },
        });
        expect(delivery).not.toHaveProperty('identity');
      } else {
        expect(delivery).toMatchObject({ kind: 'approved', identity: { valid: true } });
      }
    }
  });

  test('waitFor: woken at once by a settlement on this instance; another instance sharing the store sees it within its poll', async () => {
    const store = new MemoryInboxStore();
    const one = instance(store);
    const two = instance(store);
    const { arc } = await created(one.acme, one.inbox);
    const here = one.inbox.waitFor(arc, { timeoutMs: 20_000, pollMs: 60_000 });
    const there = two.inbox.waitFor(arc, { timeoutMs: 20_000, pollMs: 50 });
    await one.deliver(await sandbox.service.approve(arc));
    await one.inbox.runOnce();
    // The poll of a minute outlasts the test's own 20 s: only the wake-up of the settlement on this
    // instance passes (test/inbox/outcomes.test.ts holds the wake-ups on a controlled clock).
    expect(await here).toMatchObject({ state: 'verified' });
    expect(await there).toMatchObject({ state: 'verified', final: true });
  });

  test('waitFor: the state at the timeout, at once on an abort, and on the first change after since', async () => {
    const { acme, inbox, deliver } = instance(new MemoryInboxStore());
    const { arc } = await created(acme, inbox);
    expect(await inbox.waitFor(arc, { timeoutMs: 100, pollMs: 20 })).toMatchObject({ state: 'awaiting', final: false });
    const controller = new AbortController();
    const aborted = inbox.waitFor(arc, { timeoutMs: 60_000, signal: controller.signal });
    controller.abort();
    expect(await aborted).toMatchObject({ state: 'awaiting' });
    const changed = inbox.waitFor(arc, { since: 'awaiting', timeoutMs: 20_000, pollMs: 20 });
    await deliver(await sandbox.service.approve(arc));
    expect(await changed).toMatchObject({ state: 'processing', final: false });
  });
});

describe('the status endpoint', () => {
  test('JSON: the state and whether the person came by the off-ramp, never cached; one 404 that says nothing for every reference that does not open; 405 for a POST', async () => {
    const { acme, inbox, page } = instance(new MemoryInboxStore());
    const { returnRef, offRampRef } = await created(acme, inbox);
    const answer = await get(page, returnRef);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await answer.json()).toMatchObject({ state: 'awaiting', final: false, offRamp: false });
    expect(await (await get(page, offRampRef)).json()).toMatchObject({ state: 'awaiting', offRamp: true });
    const refusals = await Promise.all(
      [`${returnRef.slice(0, -2)}AA`, 'forged', ''].map(async (ref) => {
        const refused = await get(page, ref);
        return [refused.status, await refused.text()];
      }),
    );
    expect(new Set(refusals.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(refusals[0]![0]).toBe(404);
    expect((await get(page, returnRef, '', { method: 'POST' })).status).toBe(405);
  });

  test('long poll: answered on the change, not at the end of the wait', async () => {
    const { acme, inbox, page, deliver } = instance(new MemoryInboxStore());
    const { arc, returnRef } = await created(acme, inbox);
    // A wait of 30 s (the most the page allows) outlasts the test's own 20 s: only an answer on the change passes.
    const polled = get(page, returnRef, '&wait=30&since=awaiting');
    await deliver(await sandbox.service.approve(arc));
    expect(await (await polled).json()).toMatchObject({ state: 'processing' });
  });

  test('long poll: a wait is held to 0 to 30 s whatever the page asks; only text/event-stream opens a stream', async () => {
    const { acme, inbox } = instance(new MemoryInboxStore());
    const { returnRef } = await created(acme, inbox);
    // The inbox as the endpoint sees it, recording each wait asked of it and answering at once.
    const waits: number[] = [];
    const recording = Object.assign(Object.create(inbox) as IdentityInbox, {
      waitFor: (code: string, options: { timeoutMs?: number }) => {
        waits.push(options.timeoutMs ?? -1);
        return inbox.waitFor(code, { timeoutMs: 0 });
      },
    });
    const page = createReturnPage({ inbox: recording, lateAfterSeconds: 1 });
    for (const wait of ['99999', '31', '30', '-5', 'soon']) await get(page, returnRef, `&wait=${wait}&since=awaiting`);
    expect(waits).toEqual([30_000, 30_000, 30_000, 0, 0]);
    const other = await get(page, returnRef, '', { headers: { accept: 'application/x-event-stream' } });
    expect(other.headers.get('content-type')).toContain('application/json');
  });

  test('Server-Sent Events: the state now, then each change, and the stream closes on a final state', async () => {
    const { acme, inbox, page, deliver } = instance(new MemoryInboxStore());
    const { arc, returnRef } = await created(acme, inbox);
    const answer = await get(page, returnRef, '', { headers: { accept: 'text/event-stream' } });
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    const reading = answer.text();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await deliver(await sandbox.service.approve(arc));
    await inbox.runOnce();
    const events = (await reading)
      .split('\n\n')
      .filter((block) => block.startsWith('event: state'))
      .map((block) => (JSON.parse(block.split('\ndata: ')[1]!) as ReturnPageState).state);
    expect(events[0]).toBe('awaiting');
    expect(events.at(-1)).toBe('verified');
    expect(events).toEqual([...new Set(events)]);
  });

  test('a late webhook: once the page has waited lateAfterSeconds, it is told how far the person got, as the service says', async () => {
    const { acme, inbox, page } = instance(new MemoryInboxStore());
    const { arc, returnRef } = await created(acme, inbox);
    // Waited under a second: nothing asked of the service.
    expect(await (await get(page, returnRef)).json()).not.toHaveProperty('service');
    expect(await (await get(page, returnRef, '&waited=5')).json()).toMatchObject({ state: 'awaiting', service: 'not-started' });
    // Completed on the service, its webhook lost on the way: the page is told the result is coming.
    await sandbox.service.approve(arc, { webhook: 'skip' });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await (await get(page, returnRef, '&waited=5')).json()).toMatchObject({ state: 'awaiting', service: 'completed' });
  });

  test('awaitIdentity (polling, where there is no EventSource): each change to onUpdate, resolved with the final state; a reference not known rejects with ReturnPageError', async () => {
    const { acme, inbox, page, deliver } = instance(new MemoryInboxStore());
    const { arc, returnRef } = await created(acme, inbox);
    const realFetch = globalThis.fetch;
    // The page's requests to the relying party reach its status endpoint; the SDK's to the sandbox go out as ever.
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      return new URL(request.url).hostname === 'rp.example' ? page.fetch(request) : realFetch(request);
    }) as typeof fetch;
    try {
      const updates: string[] = [];
      const waiting = awaitIdentity('https://rp.example/identity/status', {
        reference: returnRef,
        onUpdate: (update) => updates.push(update.state),
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await deliver(await sandbox.service.approve(arc));
      await inbox.runOnce();
      expect(await waiting).toMatchObject({ state: 'verified', final: true, offRamp: false });
      expect(updates[0]).toBe('awaiting');
      expect(updates.at(-1)).toBe('verified');
      const refused = await awaitIdentity('https://rp.example/identity/status', { reference: 'forged' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ReturnPageError);
      expect(refused).toMatchObject({ status: 404 });
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});

describe('the status endpoint in each framework, over a real socket', () => {
  /** An inbox with one request awaiting its webhook, and the status endpoint's path with its reference. */
  async function awaitingOne() {
    const { acme, inbox } = instance(new MemoryInboxStore());
    const { returnRef } = await created(acme, inbox);
    return { inbox, path: `/identity/status?${RETURN_PARAMETER}=${encodeURIComponent(returnRef)}` };
  }
  const servers: { close(): unknown }[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  test.each(['express', 'fastify', 'hono', 'node:http'] as const)(
    '%s: JSON, and Server-Sent Events streamed as they come',
    async (framework) => {
      const { inbox, path } = await awaitingOne();
      const page = createReturnPage({ inbox });
      let origin: string;
      if (framework === 'express') {
        const app = express();
        app.get('/identity/status', page.node);
        const server = app.listen(0, '127.0.0.1');
        await new Promise((resolve) => server.once('listening', resolve));
        servers.push(server);
        origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      } else if (framework === 'fastify') {
        const app = Fastify();
        app.get('/identity/status', async (request, reply) => {
          reply.hijack();
          await page.node(request.raw, reply.raw);
        });
        origin = await app.listen({ port: 0, host: '127.0.0.1' });
        servers.push(app);
      } else {
        const hono = new Hono().get('/identity/status', (c) => page.fetch(c.req.raw));
        const server = createServer(async (request, response) => {
          if (framework === 'node:http') return page.node(request, response);
          // Hono served through a Node adapter of its own making: a Web Request in, a Web Response out.
          const answer = await hono.fetch(new Request(`http://127.0.0.1${request.url}`, { headers: request.headers as HeadersInit }));
          response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(await answer.text());
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        servers.push(server);
        origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      }
      const json = await fetch(`${origin}${path}`);
      expect([json.status, json.headers.get('cache-control'), await json.json()]).toEqual([
        200,
        'no-store',
        expect.objectContaining({ state: 'awaiting' }),
      ]);
      expect((await fetch(`${origin}/identity/status?${RETURN_PARAMETER}=v1.forged`)).status).toBe(404);
      if (framework === 'hono') return;
      // The first event arrives while the stream is still open: it is streamed, not buffered to the end.
      const controller = new AbortController();
      const stream = await fetch(`${origin}${path}`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
      expect(stream.headers.get('content-type')).toBe('text/event-stream');
      const reader = stream.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).toMatch(/^event: state\ndata: \{"state":"awaiting"/);
      controller.abort();
    },
  );
});
