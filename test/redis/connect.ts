/** A connection to Redis with the client a worker process was told to use: node-redis or ioredis. */
import { createClient } from 'redis';
import { Redis } from 'ioredis';
import type { RedisClientLike } from '../../src/redis/index.js';

export async function connectRedis(kind: string | undefined, url: string): Promise<{ client: RedisClientLike; close(): Promise<unknown> }> {
  if (kind === 'ioredis') {
    const io = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await io.connect();
    return { client: io, close: () => io.quit() };
  }
  const node = await createClient({ url }).connect();
  return { client: node, close: () => node.quit() };
}
