/**
 * A real redis-server on a free localhost port, started and stopped by whoever needs one: the Redis
 * tests (one per file), the benchmark and the demo. Debian's `redis-server` (scripts/ensure-redis.sh).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/testing/index.js';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
  /** Stops it without a goodbye (as a crash or a network cut would), for the outage tests. */
  kill(): Promise<void>;
  /** Starts it again on the same port: empty, or with what it had when started with `persistent`. */
  restart(): Promise<void>;
}

export interface RedisServerOptions {
  /** Every write appended to a file (`appendfsync always`) in a fresh directory, so a restart keeps it. @default false */
  persistent?: boolean;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  // The append-only file's directory, removed by `stop()` (never by `kill()`: a restart reads it).
  const dir = options.persistent ? mkdtempSync(join(tmpdir(), 'acme-redis-')) : undefined;
  const persistence = dir ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir] : ['--appendonly', 'no'];
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(
      process.env['REDIS_SERVER'] ?? 'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence],
      {
        stdio: 'ignore',
      },
    );
    // Not installed: say so now rather than after the pings (and never as an unhandled 'error').
    let missing: Error | undefined;
    child.once('error', (error) => (missing = error));
    for (let i = 0; i < 100 && !missing; i++) {
      if (await ping(port)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(
      `redis-server did not start on port ${port}${missing ? `: ${missing.message}` : ''} (bash scripts/ensure-redis.sh installs it)`,
    );
  };
  const halt = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  await launch();
  const stop = async () => {
    await halt('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  return { port, url: `redis://127.0.0.1:${port}`, stop, kill: () => halt('SIGKILL'), restart: launch };
}
