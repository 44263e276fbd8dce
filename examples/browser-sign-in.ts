/**
 * Sign a person in from a browser page with Authorization Code + PKCE, as a public client:
 * `examples/browser-sign-in/page.ts` is the page (`@acme/identity/oidc/browser`), here served on
 * localhost and driven in headless Chromium, where the person approves on the service's page.
 *
 * Configuration from the environment: ACME_AUTH_URL, ACME_OIDC_CLIENT_ID, RP_PORT (the page's
 * port; `${origin}/callback` must be a registered redirect URI). `npm run demo` sets them.
 */
import { launchChromium } from './browser-sign-in/chromium.js';
import { serveSignInPage } from './browser-sign-in/server.js';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const page = await serveSignInPage({ authUrl: env('ACME_AUTH_URL'), clientId: env('ACME_OIDC_CLIENT_ID'), port: Number(env('RP_PORT')) });
const browser = await launchChromium();
try {
  const tab = await browser.newPage();
  await tab.goto(page.origin);
  await tab.click('#sign-in');
  // The service's page: the person approves.
  await tab.waitForURL((url) => url.href.startsWith(env('ACME_AUTH_URL')));
  console.log(`the person is at ${new URL(tab.url()).pathname} and approves`);
  await tab.click('#approve');
  const out = tab.locator('#out[data-state]');
  await out.waitFor();
  const [state, text] = await Promise.all([out.getAttribute('data-state'), out.textContent()]);
  if (state !== 'signed-in') throw new Error(`the sign-in failed: ${text}`);
  console.log(`back at ${tab.url()}, signed in: ${text}`);
} finally {
  await browser.close();
  await page.close();
}
