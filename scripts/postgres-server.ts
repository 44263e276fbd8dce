/**
 * A real PostgreSQL server on a free localhost port, in a throw-away cluster, started and stopped
 * by the tests that need one. Debian's `postgresql` (scripts/ensure-postgres.sh); `initdb` and
 * `postgres` refuse to run as root, so as root they run as the `postgres` user.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../src/testing/index.js';

export interface PostgresServer {
  readonly port: number;
  /** A connection string for the `postgres` database, as the `postgres` user (trust auth, localhost only). */
  readonly url: string;
  /** Kills the server at once (SIGKILL: a crash); what was committed is on disk. */
  kill(): Promise<void>;
  /** Starts it again on the same data and port, after `kill`. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Where Debian keeps the server's binaries (`/usr/lib/postgresql/<version>/bin`), newest first; or POSTGRES_BIN. */
function binaries(): string {
  const given = process.env['POSTGRES_BIN'];
  if (given) return given;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((version) => join(root, version, 'bin')).find((bin) => existsSync(join(bin, 'initdb')));
  if (!found) throw new Error('PostgreSQL is not installed (bash scripts/ensure-postgres.sh installs it)');
  return found;
}

/** The user the server runs as: `postgres` when this process is root (initdb and postgres refuse root), else this one. */
function serverUser(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = binaries();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'acme-postgres-'));
  const data = join(dir, 'data');
  const user = serverUser();
  if ('uid' in user) chownSync(dir, user.uid, user.gid);
  chmodSync(dir, 0o700);
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'], {
    stdio: 'ignore',
    cwd: dir,
    ...user,
  });
  // 400 connections, not the default 100: a test file keeps its pools (up to 8 clients each) until
  // it ends, and on a loaded machine their idle clients outlived the tests that made them until
  // eight worker processes at once met "sorry, too many clients already" (#45).
  const settings = ['listen_addresses=127.0.0.1', 'fsync=off', 'max_connections=400'];
  const args = ['-D', data, '-p', String(port), '-k', dir, ...settings.flatMap((setting) => ['-c', setting])];
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child = await launch(join(bin, 'postgres'), args, { cwd: dir, user }, url);
  const ended = () =>
    child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once('exit', resolve)) : Promise.resolve();
  return {
    port,
    url,
    async kill() {
      const exited = ended();
      child.kill('SIGKILL');
      await exited;
    },
    async restart() {
      // A postmaster killed leaves its backends to notice and exit: the new one is tried until they have.
      child = await launch(join(bin, 'postgres'), args, { cwd: dir, user }, url);
    },
    async stop() {
      const exited = ended();
      // SIGINT: PostgreSQL's "fast" shutdown.
      child.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts `postgres` and resolves once it takes connections; tried again while it exits at once (a cluster still being let go of). */
async function launch(
  binary: string,
  args: string[],
  where: { cwd: string; user: { uid: number; gid: number } | Record<string, never> },
  url: string,
): Promise<ChildProcess> {
  let missing: Error | undefined;
  const start = () => {
    const started = spawn(binary, args, { stdio: 'ignore', cwd: where.cwd, ...where.user });
    started.once('error', (error) => (missing = error));
    return started;
  };
  let child = start();
  for (let i = 0; ; i++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return child;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (missing || i >= 150) throw new Error(`postgres did not start (${url}): ${(missing ?? (error as Error)).message}`);
      if (child.exitCode !== null) child = start();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
