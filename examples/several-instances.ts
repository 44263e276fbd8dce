/**
 * Two instances of a relying party sharing their state on Redis (`@acme/identity/redis`): one
 * token request for both, and a webhook delivery that reaches both processed once.
 *
 * Configuration comes from the environment, as it would in a real backend:
 *   ACME_BASE_URL, ACME_CLIENT_ID, ACME_CLIENT_SECRET, ACME_TENANT_ID, ACME_WEBHOOK_SECRET, REDIS_URL
 * `npm run demo` serves the fake service on localhost, starts a redis-server when one is installed
 * (`bash scripts/ensure-redis.sh`), and sets them. In production, ACME_TOKEN_KEY holds 32 random
 * bytes in base64, the same on every instance.
 */
import { createHmac } from 'node:crypto';
import { createClient } from 'redis';
import { AcmeIdentityClient } from '@acme/identity';
import { RedisReplayStore, RedisTokenStore } from '@acme/identity/redis';
import { createWebhookReceiver, createWebhookVerifier } from '@acme/identity/webhooks';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

if (!process.env['REDIS_URL']) {
  console.log('skipped: no REDIS_URL (install redis-server with `bash scripts/ensure-redis.sh` and run the demo again)');
  process.exit(0);
}

const tokenKey = process.env['ACME_TOKEN_KEY'] ?? Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');
// Keys of this run only (the demo's Redis is fresh each time; a deployment keeps the default prefix).
const prefix = `example-${Date.now()}:`;

/** One instance: its own Redis connection, client and webhook receiver, as a separate process would have. */
async function instance(name: string, renewals: string[], processed: string[]) {
  const redis = await createClient({ url: env('REDIS_URL') }).connect();
  const acme = new AcmeIdentityClient({
    baseUrl: env('ACME_BASE_URL'),
    clientId: env('ACME_CLIENT_ID'),
    clientSecret: env('ACME_CLIENT_SECRET'),
    tenantId: env('ACME_TENANT_ID'),
    tokenStore: new RedisTokenStore(redis, { encryptionKey: tokenKey, prefix }),
    hooks: { onTokenRenewal: (event) => renewals.push(`${name}: ${event.grant} ${event.outcome}`) },
  });
  const receiver = createWebhookReceiver(
    createWebhookVerifier({ secret: env('ACME_WEBHOOK_SECRET'), replayStore: new RedisReplayStore(redis, { prefix }) }),
    async (event) => {
      processed.push(`${name}: ${event.accessRequestCode}`);
      await new Promise((resolve) => setTimeout(resolve, 100)); // the handler takes a moment
    },
  );
  return { acme, receiver, close: () => redis.quit() };
}

const renewals: string[] = [];
const processed: string[] = [];
const a = await instance('instance A', renewals, processed);
const b = await instance('instance B', renewals, processed);

// Both instances need a token at once: one of them gets it, the other uses it.
await Promise.all([a.acme.auth.accessToken(), b.acme.auth.accessToken()]);
await Promise.all([a.acme.status.health(), b.acme.status.health()]);
console.log(`token renewals: ${renewals.join('; ')}`);

// The same delivery reaches both instances at once (a retry, a load balancer): processed once.
const body = JSON.stringify({
  event: 'approved',
  access_request_code: `arc_example_${Date.now()}`,
  access_token: 'eyJhbGciOiJub25lIn0.e30.',
});
const signature = `sha256=${createHmac('sha256', env('ACME_WEBHOOK_SECRET')).update(body).digest('hex')}`;
const answers = await Promise.all([a, b].map((i) => i.receiver.handle(body, { 'x-webhook-signature': signature })));
console.log(`webhook answers: ${answers.map((o) => o.status).join(', ')}; processed by ${processed.join('; ')}`);

await Promise.all([a.close(), b.close()]);
if (renewals.length !== 1) throw new Error(`expected one token renewal for both instances, saw ${renewals.length}`);
if (processed.length !== 1) throw new Error(`expected the delivery processed once, saw ${processed.length}`);
