/**
 * The demo: serves the fake service on localhost and runs every example against it, each in its
 * own process with the configuration a real deployment would set. Exits non-zero if any fails.
 *
 *   npm run demo
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createFakeService, DEFAULT_CLIENT, DEFAULT_OIDC_BACKEND_CLIENT, DEFAULT_OIDC_CLIENT, freePort, serveFakeService } from '@acme/identity/testing';

const here = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const examples = (await readdir(here))
  .filter((name) => name.endsWith('.ts') && name !== 'run-all.ts')
  .filter((name) => only.length === 0 || only.some((o) => name.includes(o)))
  .sort();

const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
// The relying party's pages (the OIDC examples) listen here; their callback is a registered redirect URI.
const rpPort = await freePort();
const withCallback = <T extends { redirectUris: readonly string[] }>(client: T) => ({ ...client, redirectUris: [`http://127.0.0.1:${rpPort}/callback`] });
const service = await createFakeService({
  baseUrl: `${origin}/api/v1`,
  authUrl: origin,
  webhookRetry: { attempts: 5, baseDelayMs: 200 },
  oidcClients: [withCallback(DEFAULT_OIDC_CLIENT), withCallback(DEFAULT_OIDC_BACKEND_CLIENT)],
  // As the sandbox: the person approves or cancels on the service's page.
  oidcJourney: 'page',
});
const running = await serveFakeService(service);
// What a developer sets in the operator's portal: where webhooks go.
const webhookPort = await freePort();
service.setWebhookUrl(`http://127.0.0.1:${webhookPort}/webhooks/acme`);
console.log(`fake service on ${origin} (base URL ${service.baseUrl})\n`);

const env = {
  ...process.env,
  ACME_BASE_URL: service.baseUrl,
  ACME_AUTH_URL: service.authUrl,
  ACME_CLIENT_ID: DEFAULT_CLIENT.clientId,
  ACME_CLIENT_SECRET: DEFAULT_CLIENT.clientSecret,
  ACME_TENANT_ID: DEFAULT_CLIENT.tenantId,
  ACME_WEBHOOK_SECRET: DEFAULT_CLIENT.webhookSecret,
  WEBHOOK_PORT: String(webhookPort),
  ACME_OIDC_CLIENT_ID: DEFAULT_OIDC_CLIENT.clientId,
  ACME_OIDC_BACKEND_CLIENT_ID: DEFAULT_OIDC_BACKEND_CLIENT.clientId,
  ACME_OIDC_BACKEND_CLIENT_SECRET: DEFAULT_OIDC_BACKEND_CLIENT.clientSecret!,
  RP_PORT: String(rpPort),
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
await running.close();
console.log(`${examples.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
