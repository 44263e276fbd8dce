/**
 * The demo: serves the sandbox (the fake service) on localhost and runs every example against it, each in its
 * own process with the configuration a real deployment would set. Exits non-zero if any fails.
 *
 *   npm run demo                 every example this machine can run; without Chromium, the browser
 *                                one is skipped (saying how to enable it), without redis-server the
 *                                several-instances one
 *   npm run demo -- identity     only the examples whose name contains "identity"
 *   npm run demo -- --all        every example, or fail: what npm test (and so CI) runs
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { freePort, startSandbox } from '@acme/identity/testing';
import { startRedis } from '../scripts/redis-server.js';
import { CHROMIUM } from './browser-sign-in/chromium.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const requireAll = process.argv.includes('--all');
const only = process.argv.slice(2).filter((arg) => arg !== '--all');
const examples = (await readdir(here))
  .filter((name) => name.endsWith('.ts') && name !== 'run-all.ts')
  .filter((name) => only.length === 0 || only.some((o) => name.includes(o)))
  .sort();

// Where the examples listen: the webhook receiver, and the relying party's pages (the OIDC
// examples), whose callback is registered as a redirect URI.
const webhookPort = await freePort();
const rpPort = await freePort();
// The sandbox, as `npx acme-identity-sandbox` serves it: the person approves on the service's pages.
const sandbox = await startSandbox({
  webhookUrl: `http://127.0.0.1:${webhookPort}/webhooks/acme`,
  redirectUris: [
    `http://127.0.0.1:${rpPort}/callback`,
    `http://127.0.0.1:${rpPort}/auth/callback/acme-identity`,
    `http://127.0.0.1:${rpPort}/api/auth/callback/acme-identity`,
  ],
  fake: { webhookRetry: { attempts: 5, baseDelayMs: 200 } },
});
const { credentials } = sandbox;
// A redis-server for the several-instances example, when one is installed (scripts/ensure-redis.sh).
const redis = await startRedis().catch((error: unknown) => {
  if (requireAll) throw error;
  return undefined;
});
/** What an example needs that this machine may lack, and how to get it. */
const missing: Record<string, string | undefined> = {
  'browser-sign-in.ts': existsSync(CHROMIUM)
    ? undefined
    : `no Chromium at ${CHROMIUM}: bash scripts/ensure-chromium.sh installs Debian's (or set CHROMIUM_PATH)`,
  'several-instances.ts': redis ? undefined : 'no redis-server: bash scripts/ensure-redis.sh installs it',
  'inbox.ts': redis ? undefined : 'no redis-server: bash scripts/ensure-redis.sh installs it',
  'return-page.ts': redis ? undefined : 'no redis-server: bash scripts/ensure-redis.sh installs it',
};
console.log(`sandbox on ${sandbox.origin} (base URL ${sandbox.baseUrl})\n`);

const env = {
  ...process.env,
  ACME_BASE_URL: sandbox.baseUrl,
  ACME_AUTH_URL: sandbox.authUrl,
  ACME_CLIENT_ID: credentials.clientId,
  ACME_CLIENT_SECRET: credentials.clientSecret,
  ACME_TENANT_ID: credentials.tenantId,
  ACME_WEBHOOK_SECRET: credentials.webhookSecret,
  WEBHOOK_PORT: String(webhookPort),
  ACME_OIDC_CLIENT_ID: credentials.oidcClientId,
  ACME_OIDC_BACKEND_CLIENT_ID: credentials.oidcBackendClientId,
  ACME_OIDC_BACKEND_CLIENT_SECRET: credentials.oidcBackendClientSecret,
  RP_PORT: String(rpPort),
  ...(redis ? { REDIS_URL: redis.url } : {}),
};

let failed = 0;
let skipped = 0;
for (const name of examples) {
  const lacking = missing[name];
  if (lacking) {
    console.log(`${requireAll ? '✘' : '-'} ${name} skipped: ${lacking}\n`);
    if (requireAll) failed += 1;
    else skipped += 1;
    continue;
  }
  console.log(`▶ examples/${name}`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `${here}${name}`], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (status) => resolve(status ?? 1));
  });
  console.log(code === 0 ? `✔ ${name}\n` : `✘ ${name} exited with ${code}\n`);
  if (code !== 0) failed += 1;
}
await sandbox.close();
await redis?.stop();
console.log(
  `${examples.length - failed - skipped} passed, ${failed} failed${skipped ? `, ${skipped} skipped (npm run demo -- --all runs them all or fails)` : ''}`,
);
process.exit(failed === 0 ? 0 : 1);
