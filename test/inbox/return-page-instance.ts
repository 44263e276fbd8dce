/**
 * One instance of the relying party for the return page's end-to-end test, as a process of its
 * own on a shared Redis: `page` serves the return page and its status endpoint
 * (examples/return-page/app.ts) and works no entries; `webhooks` receives the webhooks and works
 * the entries. Prints one JSON line when it is listening: `{ "origin": … }`. Killed by the test.
 *
 *   page|webhooks <port>    (REDIS_URL, INBOX_PREFIX, ACME_INBOX_KEY and the ACME_* settings in the environment)
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createClient } from 'redis';
import { AcmeIdentityClient } from '../../src/index.js';
import { createIdentityInbox } from '../../src/inbox/index.js';
import { RedisInboxStore } from '../../src/redis/index.js';
import { acmeWebhookHandler } from '../../src/webhooks/frameworks/express.js';
import { startReturnPageApp } from '../../examples/return-page/app.js';

const [mode, port] = process.argv.slice(2);
const env = (name: string) => process.env[name] ?? '';
const redis = await createClient({ url: env('REDIS_URL') }).connect();
const inbox = createIdentityInbox({
  client: new AcmeIdentityClient({
    baseUrl: env('ACME_BASE_URL'),
    clientId: env('ACME_CLIENT_ID'),
    clientSecret: env('ACME_CLIENT_SECRET'),
    tenantId: env('ACME_TENANT_ID'),
  }),
  store: new RedisInboxStore(redis, { prefix: env('INBOX_PREFIX') }),
  encryptionKey: env('ACME_INBOX_KEY'),
  pollIntervalMs: 100,
  logLevel: 'off',
  onIdentity: () => undefined,
});

if (mode === 'page') {
  const { origin } = await startReturnPageApp(inbox, Number(port));
  process.stdout.write(`${JSON.stringify({ origin })}\n`);
} else {
  const app = express();
  app.post('/webhooks/acme', acmeWebhookHandler({ secret: env('ACME_WEBHOOK_SECRET'), verifierOptions: { replayStore: false }, inbox }));
  const server = app.listen(Number(port), '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
  });
  inbox.start();
}
