/**
 * #16: the sandbox's pages as a developer sees them, in Debian's headless Chromium: the home page,
 * a journey, a sign-in's consent page and a link that leads nowhere, in one look. Their screenshots
 * are the README's (docs/sandbox/): written when missing, or again with UPDATE_SCREENSHOTS=1.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../examples/browser-sign-in/chromium.js';
import { AcmeIdentityClient } from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/testing/index.js';
import { person } from '../fixtures.js';

const SHOTS = fileURLToPath(new URL('../../docs/sandbox/', import.meta.url));

let browser: Browser;
let sandbox: Sandbox;
let tab: Page;

beforeAll(async () => {
  sandbox = await startSandbox();
  browser = await launchChromium();
  tab = await browser.newPage({ viewport: { width: 1000, height: 760 } });
});

afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

/** The page's screenshot into the docs, when it has none yet or when asked to renew them. */
async function screenshot(name: string) {
  const file = `${SHOTS}${name}.png`;
  if (existsSync(file) && !process.env['UPDATE_SCREENSHOTS']) return;
  mkdirSync(SHOTS, { recursive: true });
  await tab.screenshot({ path: file, fullPage: true });
}

/** What every page of the sandbox has: its header, linking home, and a title. */
async function expectSandboxLook(title: string) {
  await expect(tab.locator('header a[href="/"]').textContent()).resolves.toBe('acme identity sandbox');
  await expect(tab.locator('main h1').textContent()).resolves.toBe(title);
  // Styled: the header is dark, not the browser's default.
  await expect(tab.locator('header').evaluate((e) => getComputedStyle(e).backgroundColor)).resolves.not.toBe('rgba(0, 0, 0, 0)');
}

test('a journey: who the person is, what is asked, and the three answers', async () => {
  const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
  const { data } = await acme.identityRequests.create(person());
  await tab.goto(data.redirect_url);
  await expectSandboxLook('Verify your identity');
  for (const id of ['approve', 'partial', 'cancel']) await expect(tab.locator(`button#${id}`).isVisible()).resolves.toBe(true);
  await expect(tab.locator('main').textContent()).resolves.toContain('acmeidentity.given_name');
  await screenshot('journey');
});

test('a sign-in waiting on its consent page', async () => {
  const authorize = new URL(`${sandbox.authUrl}/oauth/oidc/authorize`);
  const query = {
    response_type: 'code',
    client_id: sandbox.credentials.oidcClientId,
    redirect_uri: sandbox.credentials.redirectUris[0]!,
    scope: 'openid profile',
    claims: JSON.stringify({ acme: ['acmeidentity.name', 'sanctionscheck.is_pep'] }),
    state: 'state-1',
    nonce: 'nonce-1',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  };
  for (const [key, value] of Object.entries(query)) authorize.searchParams.set(key, value);
  await tab.goto(authorize.href);
  await expectSandboxLook('Sign in');
  await expect(tab.locator('button#approve').isVisible()).resolves.toBe(true);
  await screenshot('consent');
});

test('the home page: endpoints, what is in progress, recent webhook deliveries', async () => {
  await tab.goto(`${sandbox.origin}/`);
  await expectSandboxLook('What this sandbox serves');
  const sections = await tab.locator('section h2').allTextContents();
  expect(sections).toEqual(['Endpoints', 'Identity requests in progress', 'Sign-ins waiting for the person', 'Recent webhook deliveries']);
  // The journey and the sign-in opened above are listed, each with a link a developer can follow.
  await expect(tab.locator('a[href^="/journey/"]').count()).resolves.toBe(1);
  await screenshot('home');
});

test('a link that leads nowhere', async () => {
  const answer = await tab.goto(`${sandbox.origin}/journey/arc_gone`);
  expect(answer?.status()).toBe(404);
  await expectSandboxLook('Nothing here');
  await screenshot('not-found');
});
