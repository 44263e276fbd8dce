/**
 * The Redis stores (#14) against a real redis-server started here, with both clients people use
 * (node-redis v5 and ioredis), and several processes where the issue is across processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient } from 'redis';
import { Redis } from 'ioredis';
import { ConfigurationError } from '../../src/index.js';
import { RedisReplayStore, RedisStateStore, RedisTokenStore, type RedisClientLike } from '../../src/redis/index.js';
import { createOidcClient, OidcError } from '../../src/oidc/index.js';
import { DEFAULT_CLIENT, DEFAULT_OIDC_CLIENT, startSandbox, type Sandbox } from '../../src/testing/index.js';
import { ended, lastJsonLine } from '../child.js';
import { startRedis, type RedisServer } from '../../scripts/redis-server.js';

/** The rejection of `promise` (not importing the shared helpers: they start msw, which would intercept the sandbox's traffic). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
const KEY = new Uint8Array(32).fill(7);

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

/** Runs the worker in its own process; resolves its JSON line. */
async function worker(args: string[]): Promise<Record<string, number>> {
  return resultOf(spawn(process.execPath, ['--import', 'tsx', WORKER, ...args], { stdio: ['ignore', 'pipe', 'inherit'] }));
}

/** What a worker process printed last, once it exited; an error if it failed. */
async function resultOf(child: ChildProcess): Promise<Record<string, number>> {
  const { code, stdout } = await ended(child);
  if (code !== 0) throw new Error(`worker exited with ${code}: ${stdout}`);
  return lastJsonLine<Record<string, number>>(stdout);
}

const kinds = ['node-redis', 'ioredis'] as const;
async function connect(
  kind: (typeof kinds)[number],
): Promise<{ client: RedisClientLike; close(): Promise<unknown>; raw: (cmd: string[]) => Promise<unknown> }> {
  if (kind === 'ioredis') {
    const io = new Redis(server.url, { maxRetriesPerRequest: 1 });
    return { client: io, close: () => io.quit(), raw: ([c, ...a]) => io.call(c!, ...a!) };
  }
  const node = await createClient({ url: server.url }).connect();
  return { client: node, close: () => node.quit(), raw: (cmd) => node.sendCommand(cmd) };
}

describe.each(kinds)('with %s', (kind) => {
  describe('RedisTokenStore', () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await startSandbox({ fake: { accessTokenTtlSeconds: 4 } });
    });
    afterAll(async () => {
      await sandbox?.close();
    });

    test('8 processes × 250 concurrent calls: one token request on a cold start, one refresh at expiry, no rotated refresh token presented', async () => {
      const before = sandbox.service.requests.length;
      const phase2 = Date.now();
      const results = await Promise.all(
        Array.from({ length: 8 }, () => worker(['tokens', kind, server.url, sandbox.baseUrl, '250', String(phase2)])),
      );
      const requests = sandbox.service.requests.slice(before);
      expect(requests.filter((r) => r.path === '/auth/api-token')).toHaveLength(1);
      expect(requests.filter((r) => r.path === '/auth/api-token/refresh')).toHaveLength(1);
      // Within each round, every one of a process's 250 calls got the same token (the still-valid one or
      // the renewed one, never a mix of a rotated-away token and others).
      expect(results).toEqual(Array(8).fill({ first: 1, second: 1 }));
    }, 60_000);

    test('tokens reach Redis encrypted, bound to their key; without a key the store refuses to start', async () => {
      const redis = await connect(kind);
      try {
        const store = new RedisTokenStore(redis.client, { encryptionKey: KEY, prefix: `t-${kind}:` });
        await store.set('k', {
          accessToken: 'at_secret_value',
          refreshToken: 'rt_secret_value',
          expiresAt: Date.now() + 60_000,
          obtainedAt: Date.now(),
        });
        const raw = String(await redis.raw(['GET', `t-${kind}:token:k`]));
        expect(raw).toMatch(/^v1\./);
        expect(raw).not.toContain('secret_value');
        expect(Number(await redis.raw(['PTTL', `t-${kind}:token:k`]))).toBeGreaterThan(0);
        // Another process (a fresh store) reads it back; a value moved to another key does not open.
        const other = new RedisTokenStore(redis.client, { encryptionKey: KEY, prefix: `t-${kind}:` });
        expect(await other.get('k')).toMatchObject({ accessToken: 'at_secret_value' });
        await redis.raw(['SET', `t-${kind}:token:moved`, raw]);
        expect(await other.get('moved')).toBeUndefined();
        expect(
          await new RedisTokenStore(redis.client, { encryptionKey: new Uint8Array(32).fill(8), prefix: `t-${kind}:` }).get('k'),
        ).toBeUndefined();
        expect(() => new RedisTokenStore(redis.client)).toThrow(ConfigurationError);
        // Only allowPlaintext: true stores tokens in clear: a value that merely reads as true (a string from a config file) does not.
        for (const allowPlaintext of ['true', 1, 'yes', {}]) {
          expect(() => new RedisTokenStore(redis.client, { allowPlaintext } as never)).toThrow(
            expect.objectContaining({ name: 'ConfigurationError', option: 'encryptionKey' }),
          );
        }
        expect(() => new RedisTokenStore(redis.client, { encryptionKey: new Uint8Array(16) })).toThrow(/32 bytes/);
      } finally {
        await redis.close();
      }
    });

    test("a token Redis no longer holds (evicted, flushed) is still this process's own copy, refresh token included; another process has none; a token read is kept", async () => {
      const redis = await connect(kind);
      try {
        const prefix = `e-${kind}:`;
        const writer = new RedisTokenStore(redis.client, { encryptionKey: KEY, prefix });
        const token = { accessToken: 'at', refreshToken: 'rt', expiresAt: Date.now() - 1_000, obtainedAt: Date.now() - 60_000 };
        await writer.set('k', token);
        await redis.raw(['DEL', `${prefix}token:k`]);
        // Read afresh (the client is about to renew): the refresh token survives Redis's loss of it.
        expect(await writer.get('k', { fresh: true })).toEqual(token);
        expect(await new RedisTokenStore(redis.client, { encryptionKey: KEY, prefix }).get('k', { fresh: true })).toBeUndefined();
        // A token read from Redis is kept as this process's copy: while valid, it is used without a round trip.
        const valid = { ...token, expiresAt: Date.now() + 60_000 };
        await writer.set('k', valid);
        const reader = new RedisTokenStore(redis.client, { encryptionKey: KEY, prefix });
        expect(await reader.get('k')).toEqual(valid);
        await redis.raw(['DEL', `${prefix}token:k`]);
        expect(reader.get('k')).toEqual(valid);
      } finally {
        await redis.close();
      }
    });

    test("a stored token that does not open is absent, even beside this process's own copy (another instance may have renewed, rotating that refresh token away)", async () => {
      const redis = await connect(kind);
      try {
        const prefix = `u-${kind}:`;
        const store = new RedisTokenStore(redis.client, { encryptionKey: KEY, prefix });
        await store.set('k', { accessToken: 'at', refreshToken: 'rt', expiresAt: Date.now() + 60_000, obtainedAt: Date.now() });
        // Written by an instance with another key, and a value not written by this store at all.
        const other = new RedisTokenStore(redis.client, { encryptionKey: new Uint8Array(32).fill(9), prefix });
        await other.set('k', { accessToken: 'at2', refreshToken: 'rt2', expiresAt: Date.now() + 60_000, obtainedAt: Date.now() });
        expect(await store.get('k', { fresh: true })).toBeUndefined();
        await redis.raw(['SET', `${prefix}token:k`, 'not a sealed token']);
        expect(await store.get('k', { fresh: true })).toBeUndefined();
      } finally {
        await redis.close();
      }
    });

    test('the lease is one holder at a time, released only by its holder, and expires when the holder dies', async () => {
      const redis = await connect(kind);
      try {
        const a = new RedisTokenStore(redis.client, { allowPlaintext: true, prefix: `l-${kind}:` });
        const b = new RedisTokenStore(redis.client, { allowPlaintext: true, prefix: `l-${kind}:` });
        const held = await a.lease('k', 300);
        expect(held).toBeDefined();
        expect(await b.lease('k', 300)).toBeUndefined();
        await new Promise((resolve) => setTimeout(resolve, 350)); // the holder "died"
        const taken = await b.lease('k', 5_000);
        expect(taken).toBeDefined();
        await held!.release(); // the dead holder's late release must not free b's lease
        expect(await a.lease('k', 300)).toBeUndefined();
        await taken!.release();
        expect(await a.lease('k', 300)).toBeDefined();
      } finally {
        await redis.close();
      }
    });
  });

  describe('RedisReplayStore', () => {
    test('the same delivery to 8 processes at once is processed exactly once; the others get 409 or 200', async () => {
      const secret = DEFAULT_CLIENT.webhookSecret;
      const body = JSON.stringify({ event: 'approved', access_request_code: `arc_${kind}_${Date.now()}`, access_token: 'a.b.c' });
      const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
      const results = await Promise.all(
        Array.from({ length: 8 }, () => worker(['webhook', kind, server.url, secret, body, signature, '300'])),
      );
      expect(results.reduce((sum, r) => sum + r['processed']!, 0)).toBe(1);
      expect(results.filter((r) => r['status'] === 200 && r['processed'] === 1)).toHaveLength(1);
      expect(results.every((r) => r['status'] === 200 || r['status'] === 409)).toBe(true);
      // A redelivery afterwards: 200, not processed.
      const later = await worker(['webhook', kind, server.url, secret, body, signature, '0']);
      expect(later).toEqual({ status: 200, processed: 0 });
    }, 60_000);

    test("a release by a holder whose lease ran out does not drop the next holder's", async () => {
      const redis = await connect(kind);
      try {
        const [a, b] = [
          new RedisReplayStore(redis.client, { prefix: `r-${kind}:` }),
          new RedisReplayStore(redis.client, { prefix: `r-${kind}:` }),
        ];
        expect(await a.claim('d', 0.2)).toBe('claimed');
        expect(await b.claim('d', 0.2)).toBe('processing');
        await new Promise((resolve) => setTimeout(resolve, 250));
        expect(await b.claim('d', 5)).toBe('claimed');
        await a.release('d');
        expect(await a.claim('d', 5)).toBe('processing');
        await b.complete('d', 60);
        expect(await a.claim('d', 5)).toBe('done');
        expect(Number(await redis.raw(['PTTL', `r-${kind}:webhook:d`]))).toBeGreaterThan(0);
      } finally {
        await redis.close();
      }
    });

    test('a store forgets a lease once it is released or completed: a second release sends nothing to Redis', async () => {
      const redis = await connect(kind);
      try {
        const sent: string[] = [];
        // The client as the store sees it, counting what reaches Redis.
        const counted = new Proxy(redis.client, {
          get(target, name, receiver) {
            const value = Reflect.get(target, name, receiver);
            if (typeof value !== 'function') return value;
            return (...args: unknown[]) => {
              sent.push(String(name));
              return Reflect.apply(value, target, args);
            };
          },
        });
        const store = new RedisReplayStore(counted, { prefix: `f-${kind}:` });
        expect(await store.claim('d', 5)).toBe('claimed');
        await store.release('d');
        expect(await store.claim('d', 5)).toBe('claimed');
        const afterRelease = sent.length;
        await store.release('d');
        await store.release('d');
        expect(sent.length).toBe(afterRelease + 1);
        expect(await store.claim('e', 5)).toBe('claimed');
        await store.complete('e', 60);
        const afterComplete = sent.length;
        await store.release('e');
        expect(sent.length).toBe(afterComplete);
        expect(await store.claim('e', 5)).toBe('done');
      } finally {
        await redis.close();
      }
    });
  });

  describe('RedisStateStore', () => {
    test('a callback replayed to another instance is refused before it reaches the token endpoint', async () => {
      const redis = await connect(kind);
      const sandbox = await startSandbox({ oidcJourney: 'auto', redirectUris: ['https://rp.example/callback'] });
      try {
        const instance = () =>
          createOidcClient({
            authUrl: sandbox.authUrl,
            clientId: DEFAULT_OIDC_CLIENT.clientId,
            redirectUri: 'https://rp.example/callback',
            stateStore: new RedisStateStore(redis.client, { prefix: `s-${kind}:` }),
          });
        const [a, b] = [instance(), instance()];
        const { url, transaction } = await a.startSignIn();
        const back = await fetch(url, { redirect: 'manual' });
        const callback = back.headers.get('location')!;
        await expect(a.finishSignIn(callback, transaction)).resolves.toHaveProperty('claims');
        const tokenCalls = sandbox.service.requests.filter((r) => r.path.endsWith('/oauth/oidc/token')).length;
        const error = await rejection(b.finishSignIn(callback, transaction));
        expect(error).toBeInstanceOf(OidcError);
        expect(error).toMatchObject({ code: 'ERR_OIDC_STATE' });
        expect(sandbox.service.requests.filter((r) => r.path.endsWith('/oauth/oidc/token'))).toHaveLength(tokenCalls);
      } finally {
        await sandbox.close();
        await redis.close();
      }
    });
  });
});

// Every process of a run on the same client, then the same run on the other client.
describe.each(kinds)('a process killed inside the webhook handler, with %s', (kind) => {
  test("leaves the delivery to the service's retry: 409 while its lease lasts, then processed, once", async () => {
    const secret = DEFAULT_CLIENT.webhookSecret;
    const body = JSON.stringify({ event: 'approved', access_request_code: `arc_killed_${kind}_${Date.now()}`, access_token: 'a.b.c' });
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const dying = spawn(process.execPath, ['--import', 'tsx', WORKER, 'webhook', kind, server.url, secret, body, signature, '60000', '8'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    // The first redelivery's process is started and connected beforehand, and delivers at once
    // after the kill: well inside the 8 s lease, however long a process takes to start here.
    const redelivery = spawn(
      process.execPath,
      ['--import', 'tsx', WORKER, 'webhook', kind, server.url, secret, body, signature, '0', '8', 'armed'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const said = (child: ChildProcess, word: string) =>
      new Promise<void>((resolve) => child.stderr!.on('data', (chunk) => String(chunk).includes(word) && resolve()));
    await Promise.all([said(dying, 'handling'), said(redelivery, 'armed')]);
    dying.kill('SIGKILL');
    const killedAt = Date.now();
    redelivery.stdin!.end('go\n');
    expect(await resultOf(redelivery)).toEqual({ status: 409, processed: 0 });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt + 8_300 - Date.now())));
    expect(await worker(['webhook', kind, server.url, secret, body, signature, '0', '8'])).toEqual({ status: 200, processed: 1 });
    expect(await worker(['webhook', kind, server.url, secret, body, signature, '0', '8'])).toEqual({ status: 200, processed: 0 });
  }, 120_000);
});

describe.each(kinds)('a lease holder killed mid-renewal, with %s', (kind) => {
  test('holds the others back only until its lease runs out: then one of them renews, once', async () => {
    const sandbox = await startSandbox();
    try {
      const key = `${sandbox.baseUrl}#${DEFAULT_CLIENT.clientId}`;
      const holder = spawn(process.execPath, ['--import', 'tsx', WORKER, 'hold-lease', kind, server.url, key, '5500'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const held = await new Promise<{ held: number; notBefore: number }>((resolve) =>
        holder.stdout.once('data', (line: Buffer) => resolve(JSON.parse(line.toString()))),
      );
      expect(held.held).toBe(1);
      holder.kill('SIGKILL');
      const results = await Promise.all(Array.from({ length: 4 }, () => worker(['tokens-short', kind, server.url, sandbox.baseUrl, '50'])));
      expect(results).toEqual(Array(4).fill({ tokens: 1 }));
      const renewals = sandbox.service.requests.filter((r) => r.path === '/auth/api-token');
      expect(renewals).toHaveLength(1);
      // Not before the dead holder's lease ran out (the sandbox's clock is this machine's). How long
      // after is the test's own time limit: a wall-clock bound would be a timing, not a rule.
      expect(renewals[0]!.at).toBeGreaterThanOrEqual(held.notBefore);
    } finally {
      await sandbox.close();
    }
  }, 120_000);
});

describe.each(kinds)('Redis stopped and started again mid-run, with %s', (kind) => {
  test('no delivery is lost (500 while down, processed once after) and the token store works again without a restart', async () => {
    const flaky = await startRedis();
    let node: RedisClientLike & { quit(): Promise<unknown> };
    let ready: () => boolean;
    if (kind === 'ioredis') {
      const io = new Redis(flaky.url, { retryStrategy: () => 100, maxRetriesPerRequest: null });
      io.on('error', () => undefined);
      await new Promise((resolve) => io.once('ready', resolve));
      node = io;
      ready = () => io.status === 'ready';
    } else {
      const client = createClient({ url: flaky.url, socket: { reconnectStrategy: () => 100 } });
      client.on('error', () => undefined);
      await client.connect();
      node = client;
      ready = () => client.isReady;
    }
    const sandbox = await startSandbox();
    try {
      const { createWebhookReceiver, createWebhookVerifier } = await import('../../src/webhooks/index.js');
      const { AcmeIdentityClient } = await import('../../src/index.js');
      const secret = DEFAULT_CLIENT.webhookSecret;
      const body = JSON.stringify({ event: 'approved', access_request_code: `arc_outage_${kind}`, access_token: 'a.b.c' });
      const headers = { 'x-webhook-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` };
      let processed = 0;
      const receiver = createWebhookReceiver(createWebhookVerifier({ secret, replayStore: new RedisReplayStore(node) }), () => {
        processed += 1;
      });
      const warnings: string[] = [];
      const acme = new AcmeIdentityClient({
        baseUrl: sandbox.baseUrl,
        clientId: DEFAULT_CLIENT.clientId,
        clientSecret: DEFAULT_CLIENT.clientSecret,
        tenantId: DEFAULT_CLIENT.tenantId,
        tokenStore: new RedisTokenStore(node, { encryptionKey: KEY }),
        logger: { debug() {}, info() {}, error() {}, warn: (message: string) => warnings.push(message) },
      });
      await flaky.kill();
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Down: the delivery is answered 500 (the service retries), the client works on its own token.
      expect((await receiver.handle(body, headers)).status).toBe(500);
      expect(await acme.auth.accessToken()).toMatch(/^eyJ/);
      expect(warnings.some((w) => w.includes('the token store could not'))).toBe(true);
      await flaky.restart();
      for (let i = 0; i < 50 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      // Back: the service's retry is processed, once; the store is written again.
      expect((await receiver.handle(body, headers)).status).toBe(200);
      expect((await receiver.handle(body, headers)).status).toBe(200);
      expect(processed).toBe(1);
      const store = new RedisTokenStore(node, { encryptionKey: KEY });
      await store.set('after', { accessToken: 'x', refreshToken: undefined, expiresAt: Date.now() + 60_000, obtainedAt: Date.now() });
      expect(await new RedisTokenStore(node, { encryptionKey: KEY }).get('after')).toMatchObject({ accessToken: 'x' });
    } finally {
      await sandbox.close();
      await node.quit().catch(() => undefined);
      await flaky.stop();
    }
  }, 120_000);
});

describe('when Redis is unreachable', () => {
  test('webhooks answer 500 (the service retries) and OIDC callbacks fail closed with a typed error', async () => {
    const down = await startRedis();
    const io = new Redis(down.url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    await new Promise((resolve) => io.once('ready', resolve));
    await down.kill();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const { createWebhookReceiver, createWebhookVerifier } = await import('../../src/webhooks/index.js');
    const secret = DEFAULT_CLIENT.webhookSecret;
    const body = JSON.stringify({ event: 'approved', access_request_code: 'arc_down', access_token: 'a.b.c' });
    let processed = 0;
    const receiver = createWebhookReceiver(createWebhookVerifier({ secret, replayStore: new RedisReplayStore(io) }), () => {
      processed += 1;
    });
    const outcome = await receiver.handle(body, {
      'x-webhook-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    });
    expect(outcome.status).toBe(500);
    expect(processed).toBe(0);
    const state = new RedisStateStore(io);
    await expect(Promise.resolve().then(() => state.use('s', 1000))).rejects.toThrow();
    io.disconnect();
  });
});
