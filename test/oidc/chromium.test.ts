/**
 * The browser bundle in a real browser: Debian's headless Chromium, driven by playwright-core,
 * does the whole redirect flow against the fake served on localhost, with the example's page.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../examples/browser-sign-in/chromium.js';
import { serveSignInPage, type SignInPage } from '../../examples/browser-sign-in/server.js';
import { DEFAULT_OIDC_CLIENT, freePort, startSandbox } from '../../src/testing/index.js';

let browser: Browser;
let page: SignInPage;
let authUrl: string;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  const rpPort = await freePort();
  const sandbox = await startSandbox({ redirectUris: [`http://127.0.0.1:${rpPort}/callback`] });
  authUrl = sandbox.authUrl;
  page = await serveSignInPage({ authUrl, clientId: DEFAULT_OIDC_CLIENT.clientId, port: rpPort });
  browser = await launchChromium();
  closers.push(
    () => browser.close(),
    () => page.close(),
    () => sandbox.close(),
  );
});

afterAll(async () => {
  for (const close of closers) await close();
});

/** Clicks "Sign in" and waits for the service's consent page. */
async function toConsent(tab: Page) {
  await tab.goto(page.origin);
  await tab.click('#sign-in');
  await tab.waitForURL((url) => url.href.startsWith(`${authUrl}/oauth/oidc/authorize`));
}

/** What the page shows once the callback is handled. */
async function outcome(tab: Page) {
  const out = tab.locator('#out[data-state]');
  await out.waitFor();
  return { state: await out.getAttribute('data-state'), text: (await out.textContent()) ?? '' };
}

describe('OIDC in headless Chromium', () => {
  test('sign in: redirect, approve, callback; the code leaves the address bar', async () => {
    const tab = await browser.newPage();
    await toConsent(tab);
    await tab.click('#approve');
    const { state, text } = await outcome(tab);
    expect(state, text).toBe('signed-in');
    expect(JSON.parse(text)).toMatchObject({
      sub: expect.stringMatching(/^person_/),
      name: { first_name: 'Jane', last_name: 'Citizen' },
      given_name: 'Jane',
    });
    expect(tab.url()).toBe(`${page.origin}/account`);
    // Nothing of the sign-in stays in sessionStorage.
    expect(await tab.evaluate(() => sessionStorage.length)).toBe(0);
    await tab.close();
  });

  test('the person cancels: the page shows ERR_OIDC_AUTHORIZATION (access_denied)', async () => {
    const tab = await browser.newPage();
    await toConsent(tab);
    await tab.click('#cancel');
    const { state, text } = await outcome(tab);
    expect(state).toBe('error');
    expect(text).toMatch(/^ERR_OIDC_AUTHORIZATION: access_denied/);
    await tab.close();
  });

  test('two tabs signing in at once both succeed, the second to start finishing first', async () => {
    const context = await browser.newContext();
    const [first, second] = [await context.newPage(), await context.newPage()];
    await toConsent(first);
    await toConsent(second);
    await second.click('#approve');
    expect((await outcome(second)).state).toBe('signed-in');
    await first.click('#approve');
    expect((await outcome(first)).state).toBe('signed-in');
    await context.close();
  });

  test('opening the callback URL again (a replayed link) is refused with ERR_OIDC_STATE', async () => {
    const tab = await browser.newPage();
    await toConsent(tab);
    const callback = tab.waitForRequest((request) => request.url().startsWith(`${page.origin}/callback`));
    await tab.click('#approve');
    const callbackUrl = (await callback).url();
    expect((await outcome(tab)).state).toBe('signed-in');
    await tab.goto(callbackUrl);
    const { state, text } = await outcome(tab);
    expect(state).toBe('error');
    expect(text).toMatch(/^ERR_OIDC_STATE/);
    await tab.close();
  });
});
