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
import { freePort, startSandbox } from '../../src/testing/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Writes the README's server to `file`, listening on `PORT` and approving its own request. */
export function writeFiveMinuteServer(file: string): void {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Integrate in five minutes'));
  const server = /```ts\n(\/\/ server\.ts[\s\S]*?)```/.exec(section)?.[1];
  if (!server) throw new Error('no server.ts block under "Integrate in five minutes" in the README');
  const script = server
    .replace('app.listen(3000);', "app.listen(Number(process.env['PORT']));")
    .concat("await fetch(data.redirect_url + '/approve', { method: 'POST', redirect: 'manual' });\n");
  writeFileSync(file, script);
}

/** Runs `command args` against a fresh sandbox until it prints the verified name (or exits); resolves with its output. */
export async function runFiveMinuteServer(command: string, args: string[], cwd: string): Promise<string> {
  const port = await freePort();
  const sandbox = await startSandbox({ webhookUrl: `http://127.0.0.1:${port}/webhooks/acme` });
  try {
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
    const child = spawn(command, args, { cwd, env });
    let output = '';
    await new Promise<void>((resolve) => {
      const read = (chunk: Buffer) => {
        output += chunk;
        if (output.includes('verified:')) resolve();
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      // `close`, not `exit`: a server that died has its last words read before they are shown (test/child.ts says why).
      child.on('close', () => resolve());
    });
    child.kill();
    return output;
  } finally {
    await sandbox.close();
  }
}
