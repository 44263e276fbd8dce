/**
 * The return page end to end in Chromium (#42): two relying-party processes on one Redis, the
 * return page served by one (examples/return-page/app.ts) while the webhook goes to the other.
 * The person is played on the sandbox's own journey page; the return page must reach the result
 * without a reload: verified, the same with the webhook 10 s late (the waiting state shown first),
 * cancelled, the off-ramp, a webhook that never comes (the page says the result is on its way),
 * and a reference forged or expired (refused, nothing disclosed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AcmeIdentityClient } from '../../src/index.js';
import { createIdentityInbox, RETURN_PARAMETER, type IdentityInbox } from '../../src/inbox/index.js';
import { RedisInboxStore } from '../../src/redis/index.js';
import { freePort, startSandbox, type Sandbox } from '../../src/testing/index.js';
import { createClient } from 'redis';
import { launchChromium } from '../../examples/browser-sign-in/chromium.js';
import { startRedis, type RedisServer } from '../../scripts/redis-server.js';
import { person } from '../fixtures.js';

const INSTANCE = fileURLToPath(new URL('./return-page-instance.ts', import.meta.url));
const KEY = Buffer.from(new Uint8Array(32).fill(6)).toString('base64');
const PREFIX = `return-page-e2e-${process.pid}:`;

let redis: RedisServer;
let sandbox: Sandbox;
let browser: Browser;
let pageOrigin: string;
let webhookUrl: string;
let creator: { acme: AcmeIdentityClient; inbox: IdentityInbox; shortLived: IdentityInbox; close(): Promise<unknown> };
const children: ChildProcess[] = [];

/** Starts an instance process; resolves its origin once it listens. */
async function instance(mode: 'page' | 'webhooks', port: number, env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', INSTANCE, mode, String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { origin: string }).origin);
    });
    child.once('exit', (code) => reject(new Error(`${mode} instance exited with ${code}`)));
  });
}

beforeAll(async () => {
  redis = await startRedis();
  const webhookPort = await freePort();
  webhookUrl = `http://127.0.0.1:${webhookPort}/webhooks/acme`;
  sandbox = await startSandbox({ webhookUrl, fake: { webhookRetry: { attempts: 1 } } });
  const env = {
    REDIS_URL: redis.url,
    INBOX_PREFIX: PREFIX,
    ACME_INBOX_KEY: KEY,
    ACME_BASE_URL: sandbox.baseUrl,
    ACME_CLIENT_ID: sandbox.credentials.clientId,
    ACME_CLIENT_SECRET: sandbox.credentials.clientSecret,
    ACME_TENANT_ID: sandbox.credentials.tenantId,
    ACME_WEBHOOK_SECRET: sandbox.credentials.webhookSecret,
  };
  [pageOrigin] = await Promise.all([instance('page', await freePort(), env), instance('webhooks', webhookPort, env)]);
  // A third instance, here, creates the requests (any instance may: they share the store and the key).
  const client = await createClient({ url: redis.url }).connect();
  const { clientId, clientSecret, tenantId } = sandbox.credentials;
  const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, clientId, clientSecret, tenantId, maxRetries: 0 });
  const creatorWith = (returnReferenceTtlSeconds?: number) =>
    createIdentityInbox({
      client: acme,
      store: new RedisInboxStore(client, { prefix: PREFIX }),
      encryptionKey: KEY,
      logLevel: 'off',
      reconcileIntervalMs: false,
      onIdentity: () => undefined,
      ...(returnReferenceTtlSeconds ? { returnReferenceTtlSeconds } : {}),
    });
  // The second seals references that open for a second only.
  creator = { acme, inbox: creatorWith(), shortLived: creatorWith(1), close: () => client.quit() };
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const child of children) child.kill('SIGKILL');
  await creator?.close();
  await sandbox?.close();
  await redis?.stop();
});

let people = 0;
/** A request created with the return URLs; its journey page's URL. */
async function created(inbox = creator.inbox): Promise<{ arc: string; journey: string; returnUrl: string }> {
  const urls = await inbox.returnUrls({ returnUrl: `${pageOrigin}/return`, offRampUrl: `${pageOrigin}/off-ramp` });
  people += 1;
  const { data } = await creator.acme.identityRequests.create(
    person({
      email: `page${people}@example.com`,
      phone: String(800_000_000 + people),
      return_url: urls.return_url,
      off_ramp_url: urls.off_ramp_url,
    }),
  );
  await inbox.expect({
    accessRequestCode: data.access_request_code,
    identitySessionCode: data.identity_session_code,
    reference: urls.reference,
  });
  return { arc: data.access_request_code, journey: data.redirect_url, returnUrl: urls.return_url };
}

/** The person finishes on the journey page by clicking `button`, and lands back on the relying party's page. */
async function finish(page: Page, journey: string, button: 'Approve' | 'Complete partially (off-ramp)' | 'Cancel'): Promise<void> {
  await page.goto(journey);
  await Promise.all([page.waitForURL(`${pageOrigin}/**`), page.getByRole('button', { name: button }).click()]);
}

/** Every state the page showed, in order, until `final` (each change of #state's data-state). */
async function statesUntil(page: Page, final: string, timeout = 20_000): Promise<string[]> {
  await page.waitForFunction((state) => document.querySelector('#state')?.getAttribute('data-state') === state, final, { timeout });
  return page.evaluate(() => (window as unknown as { seen?: string[] }).seen ?? []);
}

/** Records each state the page shows, from its first paint. */
async function watch(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { seen: string[] }).seen = seen;
    new MutationObserver(() => {
      const state = document.querySelector('#state')?.getAttribute('data-state');
      if (state && seen.at(-1) !== state) seen.push(state);
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-state'] });
  });
}

describe('the return page in Chromium, the webhook handled by another process', () => {
  test('verified, with no reload', async () => {
    const page = await browser.newPage();
    await watch(page);
    const { journey } = await created();
    await finish(page, journey, 'Approve');
    expect(await statesUntil(page, 'verified')).toContain('verified');
    expect(await page.locator('#state').textContent()).toBe('Verified: thank you.');
    await page.close();
  }, 60_000);

  test('the webhook 10 s late: the page shows the waiting state first, then verified, with no reload', async () => {
    const page = await browser.newPage();
    await watch(page);
    const { arc, journey } = await created();
    // The webhook fails to arrive (nothing listens there); it is sent again 10 s later.
    sandbox.service.setWebhookUrl('http://127.0.0.1:9/webhooks/acme');
    let navigations = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations += 1;
    });
    await finish(page, journey, 'Approve');
    const before = navigations;
    await page.waitForFunction(() => document.querySelector('#state')?.getAttribute('data-state') === 'awaiting');
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    expect(await page.locator('#state').getAttribute('data-state')).toBe('awaiting');
    sandbox.service.setWebhookUrl(webhookUrl);
    await sandbox.service.resendWebhook(arc);
    const seen = await statesUntil(page, 'verified');
    expect(seen[0]).toBe('awaiting');
    expect(seen.at(-1)).toBe('verified');
    expect(navigations).toBe(before);
    await page.close();
  }, 60_000);

  test('cancelled; and the off-ramp, a partial result', async () => {
    const cancelled = await browser.newPage();
    await finish(cancelled, (await created()).journey, 'Cancel');
    await statesUntil(cancelled, 'cancelled');
    await cancelled.close();
    const partial = await browser.newPage();
    await finish(partial, (await created()).journey, 'Complete partially (off-ramp)');
    expect(new URL(partial.url()).pathname).toBe('/off-ramp');
    await statesUntil(partial, 'partial');
    expect(await partial.locator('#state').textContent()).toContain('more documents');
    await partial.close();
  }, 60_000);

  test('a webhook that never comes: after a while the page says the person finished and the result is on its way', async () => {
    const page = await browser.newPage();
    const { journey } = await created();
    sandbox.service.setWebhookUrl('http://127.0.0.1:9/webhooks/acme');
    try {
      await finish(page, journey, 'Approve');
      await page.waitForFunction(() => document.querySelector('#state')?.textContent?.includes('on its way'), undefined, {
        timeout: 30_000,
      });
      expect(await page.locator('#state').getAttribute('data-state')).toBe('awaiting');
    } finally {
      sandbox.service.setWebhookUrl(webhookUrl);
      await page.close();
    }
  }, 60_000);

  test('a reference forged, altered, expired or for nothing: refused with one answer that discloses nothing, and the page says it found nothing', async () => {
    const page = await browser.newPage();
    const { arc } = await created();
    const expiring = await created(creator.shortLived);
    const expired = new URL(expiring.returnUrl).searchParams.get(RETURN_PARAMETER)!;
    const first = await fetch(`${pageOrigin}/identity/status?${RETURN_PARAMETER}=${encodeURIComponent(expired)}`);
    expect(first.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const urls = await creator.inbox.returnUrls({ returnUrl: `${pageOrigin}/return`, offRampUrl: `${pageOrigin}/off-ramp` });
    const unbound = new URL(urls.return_url).searchParams.get(RETURN_PARAMETER)!;
    const answers = new Set<string>();
    for (const ref of ['v1.forged', `${unbound.slice(0, -4)}AAA=`, unbound, arc, expired]) {
      const answer = await fetch(`${pageOrigin}/identity/status?${RETURN_PARAMETER}=${encodeURIComponent(ref)}`);
      answers.add(`${answer.status} ${await answer.text()}`);
    }
    expect([...answers]).toEqual([expect.stringMatching(/^404 /)]);
    expect([...answers][0]).not.toContain(arc);
    await page.goto(`${pageOrigin}/return?${RETURN_PARAMETER}=${encodeURIComponent('v1.forged')}`);
    await page.waitForFunction(() => document.querySelector('#state')?.getAttribute('data-state') === 'unknown');
    await page.close();
  }, 60_000);
});
