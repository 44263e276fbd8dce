/**
 * One instance of a relying party, as a separate process, for the multi-process tests of the Redis
 * stores. Prints one JSON line with what it saw.
 *
 *   tokens  <client> <redisUrl> <baseUrl> <calls> <not before, ms> (the second round runs just after the token's exp)
 *   webhook <client> <redisUrl> <secret> <body> <signature> <holdMs> [leaseSeconds] [armed]
 *     (writes "handling" to stderr in the handler; armed: writes "armed" to stderr once connected,
 *     and delivers only when a line arrives on stdin)
 *   hold-lease <client> <redisUrl> <tokenKey> <ttlMs>      (then hangs: the test kills it)
 *   tokens-short <client> <redisUrl> <baseUrl> <calls>
 */
import { AcmeIdentityClient } from '../../src/index.js';
import { RedisReplayStore, RedisTokenStore } from '../../src/redis/index.js';
import { DEFAULT_CLIENT } from '../../src/testing/index.js';
import { createWebhookReceiver, createWebhookVerifier } from '../../src/webhooks/index.js';
import { connectRedis } from './connect.js';

const [mode, kind, redisUrl, ...rest] = process.argv.slice(2);
const KEY = new Uint8Array(32).fill(7);

const redis = await connectRedis(kind, redisUrl!);
if (mode === 'tokens') {
  const [baseUrl, calls, phase2At] = rest;
  const acme = new AcmeIdentityClient({
    baseUrl: baseUrl!,
    clientId: DEFAULT_CLIENT.clientId,
    clientSecret: DEFAULT_CLIENT.clientSecret,
    tenantId: DEFAULT_CLIENT.tenantId,
    refreshMarginSeconds: 1,
    tokenStore: new RedisTokenStore(redis.client, { encryptionKey: KEY }),
  });
  const round = async () => new Set(await Promise.all(Array.from({ length: Number(calls) }, () => acme.auth.accessToken()))).size;
  const first = await round();
  // Every process wakes at the same instant, just after the shared token's exp (whole seconds): due for renewal in every process.
  const token = await acme.auth.accessToken();
  const exp = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp * 1000;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.max(Number(phase2At), exp + 100) - Date.now())));
  const second = await round();
  process.stdout.write(`${JSON.stringify({ first, second })}\n`);
} else if (mode === 'hold-lease') {
  // Takes the renewal lease of a client's tokens, says so, and hangs until it is killed.
  const [key, ttlMs] = rest;
  const asked = Date.now();
  const lease = await new RedisTokenStore(redis.client, { encryptionKey: KEY }).lease(key!, Number(ttlMs));
  // The lease was set after `asked`: it runs out no earlier than this.
  process.stdout.write(`${JSON.stringify({ held: lease ? 1 : 0, notBefore: asked + Number(ttlMs) })}\n`);
  await new Promise(() => undefined);
} else if (mode === 'tokens-short') {
  // Token calls with a short renewal lease (tokenTimeoutMs 500, no retries: a 5.5 s lease).
  const [baseUrl, calls] = rest;
  const acme = new AcmeIdentityClient({
    baseUrl: baseUrl!,
    clientId: DEFAULT_CLIENT.clientId,
    clientSecret: DEFAULT_CLIENT.clientSecret,
    tenantId: DEFAULT_CLIENT.tenantId,
    tokenTimeoutMs: 500,
    maxRetries: 0,
    tokenStore: new RedisTokenStore(redis.client, { encryptionKey: KEY }),
  });
  const tokens = new Set(await Promise.all(Array.from({ length: Number(calls) }, () => acme.auth.accessToken({ timeoutMs: 20_000 }))));
  process.stdout.write(`${JSON.stringify({ tokens: tokens.size })}\n`);
} else if (mode === 'webhook') {
  const [secret, body, signature, holdMs, leaseSeconds, armed] = rest;
  let processed = 0;
  const verifier = createWebhookVerifier({
    secret: secret!,
    replayStore: new RedisReplayStore(redis.client),
    ...(leaseSeconds ? { processingLeaseSeconds: Number(leaseSeconds) } : {}),
  });
  const receiver = createWebhookReceiver(verifier, async () => {
    processed += 1;
    process.stderr.write('handling\n');
    await new Promise((resolve) => setTimeout(resolve, Number(holdMs)));
  });
  if (armed === 'armed') {
    process.stderr.write('armed\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
  }
  const outcome = await receiver.handle(body!, { 'x-webhook-signature': signature! });
  process.stdout.write(`${JSON.stringify({ status: outcome.status, processed })}\n`);
}
await redis.close();
