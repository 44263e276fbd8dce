/**
 * The Redis commands the stores send, through whichever client the application already has:
 * node-redis v5 (`redis`, its `sendCommand`) or ioredis (its `call`). Neither is imported here.
 */
import { ConfigurationError } from '../errors/index.js';

/** A node-redis v5 client (`createClient()` from `redis`), connected. */
export interface NodeRedisLike {
  readonly isOpen: boolean;
  sendCommand(args: string[]): Promise<unknown>;
}

/** An ioredis client (`new Redis()`). */
export interface IoRedisLike {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** Either client; the stores tell them apart by the method each has. */
export type RedisClientLike = NodeRedisLike | IoRedisLike;

/** Sends one command and resolves its reply. */
export type Send = (command: string, ...args: string[]) => Promise<unknown>;

export function sender(client: RedisClientLike): Send {
  if (client !== null && typeof client === 'object') {
    // ioredis has a `sendCommand` too, taking its own Command objects: `call` tells it apart first.
    if (typeof (client as IoRedisLike).call === 'function' && !('isOpen' in client)) {
      const io = client as IoRedisLike;
      return (command, ...args) => io.call(command, ...args);
    }
    if (typeof (client as NodeRedisLike).sendCommand === 'function') {
      const node = client as NodeRedisLike;
      return (command, ...args) => node.sendCommand([command, ...args]);
    }
  }
  throw new ConfigurationError('client', 'must be a node-redis v5 client (createClient from redis) or an ioredis client');
}

/** Runs a Lua script atomically (`EVAL`) over `keys` with `args`. */
export function evaluate(send: Send, script: string, keys: readonly string[], args: readonly string[]): Promise<unknown> {
  return send('EVAL', script, String(keys.length), ...keys, ...args);
}

/** Deletes `key` only while it still holds `value`: a lease is released by its holder alone. */
export const COMPARE_AND_DELETE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** A random token naming one holder of a lease. */
export function holderToken(): string {
  return crypto.randomUUID();
}

/** Key prefixes: a string of printable characters without spaces, ending where the store's names begin. */
export function checkPrefix(prefix: unknown): string {
  if (typeof prefix !== 'string' || !/^[\x21-\x7e]*$/.test(prefix)) throw new ConfigurationError('prefix', 'must be printable ASCII without spaces');
  return prefix;
}
