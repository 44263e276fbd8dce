/** #14: with the Redis token store, a call on a warm token makes no Redis round trip; the local copy keeps Redis off the hot path. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createClient } from 'redis';
import { AcmeIdentityClient } from '../../src/index.js';
import { RedisTokenStore } from '../../src/redis/index.js';
import { DEFAULT_CLIENT, startSandbox, type Sandbox } from '../../src/testing/index.js';
import { startRedis, type RedisServer } from '../../scripts/redis-server.js';

let server: RedisServer;
let sandbox: Sandbox;
beforeAll(async () => {
  server = await startRedis();
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox?.close();
  await server?.stop();
});

test('100 calls on a warm token: 0 Redis commands; the cold start: a read, a fresh read, the lease, a read under it, the write, the release (its script sent whole the first time)', async () => {
  const node = await createClient({ url: server.url }).connect();
  const sent: string[] = [];
  const counting = {
    isOpen: true,
    sendCommand: (args: string[]) => {
      sent.push(args[0]!);
      return node.sendCommand(args);
    },
  };
  try {
    const acme = new AcmeIdentityClient({
      baseUrl: sandbox.baseUrl,
      clientId: DEFAULT_CLIENT.clientId,
      clientSecret: DEFAULT_CLIENT.clientSecret,
      tenantId: DEFAULT_CLIENT.tenantId,
      tokenStore: new RedisTokenStore(counting, { encryptionKey: new Uint8Array(32).fill(1) }),
    });
    await acme.status.health();
    await acme.auth.accessToken();
    // The release is a script this Redis has not run yet: named by its SHA-1 (NOSCRIPT), then sent whole.
    expect(sent).toEqual(['GET', 'GET', 'SET', 'GET', 'SET', 'EVALSHA', 'EVAL']);
    sent.length = 0;
    for (let i = 0; i < 100; i++) await acme.auth.accessToken();
    expect(sent).toEqual([]);
  } finally {
    await node.quit();
  }
});
