/**
 * The identity inbox (`@acme/identity/inbox`) on Redis: each webhook delivery is stored before the
 * receiver answers 200, a worker fetches and verifies the identity with the webhook's token and
 * hands it to the handler once; what cannot be finished waits in a dead-letter list to be replayed.
 *
 * Configuration comes from the environment, as it would in a real backend:
 *   ACME_BASE_URL, ACME_AUTH_URL, ACME_CLIENT_ID, ACME_CLIENT_SECRET, ACME_TENANT_ID,
 *   ACME_WEBHOOK_SECRET, WEBHOOK_PORT, REDIS_URL, and ACME_INBOX_KEY (32 random bytes in base64,
 *   the same on every instance: the X-Access-Token is sealed with it in Redis).
 * `npm run demo` serves the fake service on localhost, starts a redis-server and sets them.
 */
import type { AddressInfo } from 'node:net';
import { createClient } from 'redis';
import { AcmeIdentityClient } from '@acme/identity';
import { createIdentityInbox, type InboxDelivery } from '@acme/identity/inbox';
import { RedisInboxStore } from '@acme/identity/redis';
import { readClaim, remoteJwks } from '@acme/identity/sd-jwt';
import { nodeHttpServer } from './webhook-recipes/node-http.js';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const redis = await createClient({ url: env('REDIS_URL') }).connect();
const acme = new AcmeIdentityClient({
  baseUrl: env('ACME_BASE_URL'),
  clientId: env('ACME_CLIENT_ID'),
  clientSecret: env('ACME_CLIENT_SECRET'),
  tenantId: env('ACME_TENANT_ID'),
});

// Your handler: save the identity, keyed by delivery.id (the access_request_code), so that doing it
// twice changes nothing. Here it fails the first time for one person, as a database outage would.
const saved = new Map<string, InboxDelivery>();
let outage = true;
const done = new Map<string, () => void>();
async function onIdentity(delivery: InboxDelivery): Promise<void> {
  if (outage && delivery.kind === 'approved' && readClaim(delivery.identity.claims, 'acmeidentity.name')?.first_name === 'Ola') {
    outage = false;
    throw new Error('database unavailable');
  }
  saved.set(delivery.id, delivery);
  done.get(delivery.id)?.();
}

const inbox = createIdentityInbox({
  client: acme,
  store: new RedisInboxStore(redis, { prefix: `example-${Date.now()}:` }),
  encryptionKey: process.env['ACME_INBOX_KEY'] ?? Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'),
  verification: { keys: remoteJwks(env('ACME_AUTH_URL')), requireSignature: true },
  // One attempt before a failure is set aside, so the example shows the dead-letter list at once
  // (the default is 8 attempts with backoff, within the token's lifetime).
  maxAttempts: 1,
  pollIntervalMs: 100,
  onIdentity,
});

// The receiver answers 200 only once the delivery is stored in Redis. The inbox is the replay guard
// (a resend revives an entry set aside), so the verifier keeps none of its own.
const receiver = nodeHttpServer(env('ACME_WEBHOOK_SECRET'), inbox.receive, { replayStore: false });
await new Promise<void>((resolve) => receiver.listen(Number(env('WEBHOOK_PORT')), '127.0.0.1', resolve));
console.log(`webhook receiver on port ${(receiver.address() as AddressInfo).port}`);
inbox.start();

async function verifyPerson(first: string, email: string, phone: string): Promise<string> {
  const { data } = await acme.identityRequests.create({
    first_name: first,
    last_name: 'Citizen',
    email,
    phone,
    phone_country_code: 61,
    purpose: 'account-opening',
    return_url: 'https://rp.example/verified',
    off_ramp_url: 'https://rp.example/later',
    claims: ['acmeidentity.name', 'acmeidentity.credential'],
  });
  // Record the codes at create: the inbox fetches with identity_session_code, and its reconciler
  // (inbox.reconcile()) reports a completed request whose webhook never came.
  await inbox.expect({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });
  // The person approves (in the sandbox, the journey page's "Approve" button does this).
  await fetch(`${data.redirect_url}/approve`, { method: 'POST', redirect: 'manual' });
  return data.access_request_code;
}

const within = <T>(promise: Promise<T>, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within 10 s`)), 10_000))]);

try {
  const jane = await verifyPerson('Jane', 'jane.citizen@example.com', '412345678');
  await within(new Promise<void>((resolve) => done.set(jane, resolve)), 'Jane');
  const name = (delivery: InboxDelivery | undefined) =>
    delivery?.kind === 'approved' ? readClaim(delivery.identity.claims, 'acmeidentity.name')?.first_name : undefined;
  const janes = saved.get(jane);
  console.log(`handed over: ${name(janes)}, verified by ${janes?.kind === 'approved' ? janes.identity.proof : 'nothing'}`);

  // Ola's hand-over fails (the database is down): the entry is set aside, nothing is lost.
  const ola = await verifyPerson('Ola', 'ola.citizen@example.com', '412345679');
  for (let i = 0; i < 100 && (await inbox.stats()).dead === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  const [letter] = await inbox.deadLetters();
  console.log(`dead letter: ${letter?.reason} (${letter?.message}); stats ${JSON.stringify(await inbox.stats())}`);

  // The database is back: replay it (within the X-Access-Token's lifetime; after it, ask the service
  // to send the webhook again, and the fresh delivery revives the entry).
  const handed = new Promise<void>((resolve) => done.set(ola, resolve));
  await inbox.replay(ola);
  await within(handed, 'Ola');
  console.log(`replayed and handed over: ${name(saved.get(ola))}; stats ${JSON.stringify(await inbox.stats())}`);
} finally {
  await inbox.stop();
  receiver.close();
  await redis.quit();
}
