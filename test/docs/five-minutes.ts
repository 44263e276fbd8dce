/**
 * The README's "Integrate in five minutes", as a test runs it: its server, with the person's
 * approval (a POST to the journey page's button) after it, against a sandbox with the environment
 * the sandbox prints. Run from the sources (five-minutes.test.ts) and from the packed package on
 * Node 20 and Node 26 (test/package).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startSandbox, type Sandbox } from '../../src/testing/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Writes the README's server to `file`, listening on `PORT` and (unless `approve` is false) approving its own request. */
export function writeFiveMinuteServer(file: string, approve = true): void {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Integrate in five minutes'));
  const server = /```ts\n(\/\/ server\.ts[\s\S]*?)```/.exec(section)?.[1];
  if (!server) throw new Error('no server.ts block under "Integrate in five minutes" in the README');
  const script = server
    .replace('app.listen(3000);', "app.listen(Number(process.env['PORT']));")
    .concat(approve ? "await fetch(data.redirect_url + '/approve', { method: 'POST', redirect: 'manual' });\n" : '');
  writeFileSync(file, script);
}

/** One run of a server: its arguments, and what it prints once it has done its part (then it is stopped). */
export interface ServerRun {
  args: string[];
  until: string;
}

/**
 * Runs `command` with each run's arguments, one after the other, against one fresh sandbox (a
 * restarted server), each until it prints its `until` (or exits); resolves with the last one's
 * output. By default one run, until the verified name is printed.
 */
export async function runFiveMinuteServer(
  command: string,
  args: string[],
  cwd: string,
  runs: readonly ServerRun[] = [{ args, until: 'verified:' }],
): Promise<string> {
  const port = await freePort();
  const sandbox = await startSandbox({ webhookUrl: `http://127.0.0.1:${port}/webhooks/acme` });
  let output = '';
  try {
    for (const run of runs) output = await runOnce(command, run, cwd, sandbox, port);
    return output;
  } finally {
    await sandbox.close();
  }
}

async function runOnce(command: string, run: ServerRun, cwd: string, sandbox: Sandbox, port: number): Promise<string> {
  const { credentials: c } = sandbox;
  const env = {
    ...process.env,
    PORT: String(port),
    ACME_BASE_URL: sandbox.baseUrl,
    ACME_AUTH_URL: sandbox.authUrl,
    ACME_CLIENT_ID: c.clientId,
    ACME_CLIENT_SECRET: c.clientSecret,
    ACME_TENANT_ID: c.tenantId,
    ACME_WEBHOOK_SECRET: c.webhookSecret,
  };
  const child = spawn(command, run.args, { cwd, env });
  let output = '';
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await new Promise<void>((resolve) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      if (output.includes(run.until)) resolve();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    // `close`, not `exit`: a server that died has its last words read before they are shown (test/child.ts says why).
    void closed.then(resolve);
  });
  child.kill();
  // Its port is free again before the next run listens on it.
  await closed;
  return output;
}
