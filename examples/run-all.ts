/**
 * The demo: serves the sandbox (the fake service) on localhost and runs every example against it, each in its
 * own process with the configuration a real deployment would set. Exits non-zero if any fails.
 *
 *   npm run demo
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { freePort, startSandbox } from '@acme/identity/testing';
import { startRedis } from '../scripts/redis-server.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
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
  redirectUris: [`http://127.0.0.1:${rpPort}/callback`],
  fake: { webhookRetry: { attempts: 5, baseDelayMs: 200 } },
});
const { credentials } = sandbox;
// A redis-server for the several-instances example, when one is installed (scripts/ensure-redis.sh).
const redis = await startRedis().catch(() => undefined);
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
for (const name of examples) {
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
console.log(`${examples.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
