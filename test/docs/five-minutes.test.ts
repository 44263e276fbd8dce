/**
 * #27: the README's "Integrate in five minutes" works as written: its server, run with tsx against
 * the sandbox with the environment the sandbox prints, gets a webhook and a verified identity once
 * the person approves.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { freePort, startSandbox } from '../../src/testing/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test("the README's five-minute server verifies the identity of a person who approves", async () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Integrate in five minutes'));
  const server = /```ts\n(\/\/ server\.ts[\s\S]*?)```/.exec(section)?.[1];
  expect(server).toBeDefined();
  // Where the person approves, the test does: a POST to the journey page's approve button.
  const script = server!
    .replace('app.listen(3000);', "app.listen(Number(process.env['PORT']));")
    .concat("await fetch(data.redirect_url + '/approve', { method: 'POST', redirect: 'manual' });\n");
  const dir = join(ROOT, '.tmp/five-minutes');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'server.ts'), script);

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
    const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'server.ts')], { cwd: ROOT, env });
    let output = '';
    // The server runs until the verified name is printed (or it exits, failing).
    const done = new Promise<void>((resolve) => {
      const read = (chunk: Buffer) => {
        output += chunk;
        if (output.includes('verified:')) resolve();
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.on('exit', () => resolve());
    });
    await done;
    child.kill();
    expect(output).toContain("verified: { first_name: 'Jane', last_name: 'Citizen' }");
  } finally {
    await sandbox.close();
  }
}, 60_000);
