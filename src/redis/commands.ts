/**
 * The Redis commands the stores send, through whichever client the application already has:
 * node-redis v5 (`redis`, its `sendCommand`) or ioredis (its `call`). Neither is imported here.
 */
import { ConfigurationError } from '../errors/index.js';
import { positiveOption } from '../errors/options.js';
import { toHex, utf8 } from '../internal/encoding.js';

/** A node-redis v5 client (`createClient()` from `redis`), connected. */
export interface NodeRedisLike {
  readonly isOpen: boolean;
  /** False while it reconnects (commands sent then are refused at once rather than queued). */
  readonly isReady?: boolean;
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

/**
 * How commands go to `client`, each bounded by `timeoutMs`: a client that queues commands while
 * disconnected (both do by default) would otherwise hold a webhook answer or a sign-in until Redis
 * returns. A command past its time is rejected here (it may still run later: the stores' writes are
 * idempotent or guarded by holder tokens).
 */
export function sender(client: RedisClientLike, commandTimeoutMs?: number): Send {
  const timeoutMs = positiveOption('commandTimeoutMs', commandTimeoutMs, 2_000);
  let send: Send | undefined;
  if (client !== null && typeof client === 'object') {
    // ioredis has a `sendCommand` too, taking its own Command objects: `call` tells it apart first.
    if (typeof (client as IoRedisLike).call === 'function' && !('isOpen' in client)) {
      const io = client as IoRedisLike;
      send = (command, ...args) => io.call(command, ...args);
    } else if (typeof (client as NodeRedisLike).sendCommand === 'function') {
      const node = client as NodeRedisLike;
      send = (command, ...args) => node.sendCommand([command, ...args]);
    }
  }
  if (!send) throw new ConfigurationError('client', 'must be a node-redis v5 client (createClient from redis) or an ioredis client');
  const direct = send;
  const away = disconnection(client);
  return (command, ...args) =>
    new Promise((resolve, reject) => {
      // Fail fast while the client is reconnecting: a command queued now would run after the
      // caller gave up (a webhook answered 500 written once Redis returns), and its wait helps no one.
      const state = away();
      if (state) {
        reject(new Error(`Redis is not connected (${state}): ${command} not sent`));
        return;
      }
      // Judged once the event loop has read what already arrived: a reply that came in time but
      // waited behind CPU work (a thousand deliveries verified at once) is not a timeout (#44).
      const late = () => reject(new Error(`Redis did not answer ${command} within ${timeoutMs} ms`));
      const timer = setTimeout(() => afterIo(late), timeoutMs);
      direct(command, ...args).then(
        (value) => {
          clearTimeout(timer);
          resolve(textReply(value));
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
}

const decoder = new TextDecoder();

/**
 * A reply with its bytes read as UTF-8 text, in arrays too (a stream's entries): a node-redis
 * client given a `Buffer` type mapping (`createClient`'s `commandOptions`) answers bytes where
 * every store reads text ("done", a holder token, a sealed token), and would otherwise see none of
 * its own answers.
 */
function textReply(reply: unknown): unknown {
  if (reply instanceof Uint8Array) return decoder.decode(reply);
  return Array.isArray(reply) ? reply.map(textReply) : reply;
}

/** Runs `task` after the event loop's next read of its sockets (`setImmediate`, where the runtime has it). */
const afterIo = (task: () => void) => (typeof setImmediate === 'function' ? setImmediate(task) : setTimeout(task, 0));

/**
 * Whether the client says it is between connections, and how: node-redis open but not ready
 * (reconnecting), ioredis `reconnecting`, `close` or `end`. A client still making its first
 * connection is not away: its commands wait for it, as they would without the SDK.
 */
function disconnection(client: RedisClientLike): () => string | undefined {
  const node = client as Partial<NodeRedisLike>;
  if ('isOpen' in client) return () => (node.isOpen === true && node.isReady === false ? 'reconnecting' : undefined);
  const io = client as { status?: unknown };
  return () => (io.status === 'reconnecting' || io.status === 'close' || io.status === 'end' ? String(io.status) : undefined);
}

/** Each script's SHA-1 in hex, as `EVALSHA` names it: computed once per script and process. */
const scriptNames = new Map<string, Promise<string>>();

function scriptName(script: string): Promise<string> {
  let name = scriptNames.get(script);
  if (!name) {
    name = crypto.subtle.digest('SHA-1', utf8(script)).then((digest) => toHex(new Uint8Array(digest)));
    scriptNames.set(script, name);
  }
  return name;
}

/** Redis's answer to `EVALSHA` for a script it does not have (never run there, or flushed since). */
const isMissingScript = (error: unknown) => String((error as Error | undefined)?.message ?? error).startsWith('NOSCRIPT');

/**
 * Runs a Lua script atomically over `keys` with `args`: by its SHA-1 (`EVALSHA`), so a call sends
 * a few dozen bytes rather than the script, and Redis neither reads nor hashes it again (#44: the
 * script's text was a tenth of the inbox's CPU). A server without the script (restarted, flushed,
 * another node of a cluster) answers `NOSCRIPT` having run nothing; the script is then sent whole
 * (`EVAL`), which also keeps it there for the next call.
 */
export async function evaluate(send: Send, script: string, keys: readonly string[], args: readonly string[]): Promise<unknown> {
  const rest = [String(keys.length), ...keys, ...args];
  try {
    return await send('EVALSHA', await scriptName(script), ...rest);
  } catch (error) {
    if (!isMissingScript(error)) throw error;
    return send('EVAL', script, ...rest);
  }
}

/** Deletes `key` only while it still holds `value`: a lease is released by its holder alone. */
export const COMPARE_AND_DELETE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** A random token naming one holder of a lease. */
export function holderToken(): string {
  return crypto.randomUUID();
}

/** Key prefixes: a string of printable characters without spaces, ending where the store's names begin. */
export function checkPrefix(prefix: unknown): string {
  if (typeof prefix !== 'string' || !/^[\x21-\x7e]*$/.test(prefix))
    throw new ConfigurationError('prefix', 'must be printable ASCII without spaces');
  return prefix;
}
