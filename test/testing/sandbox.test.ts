/** The sandbox on localhost: the exported `startSandbox`, and the `acme-identity-sandbox` command. */
import { describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { AcmeIdentityClient } from '../../src/index.js';
import { startSandbox } from '../../src/testing/index.js';
import { createWebhookVerifier } from '../../src/webhooks/index.js';
import { person } from '../fixtures.js';

const CLI = fileURLToPath(new URL('../../src/testing/cli.ts', import.meta.url));

describe('startSandbox', () => {
  test('serves the REST API, the OpenAPI document, the OIDC issuer and the journey page; webhooks reach the configured URL', async () => {
    const received: { body: string; signature: string | undefined }[] = [];
    const receiver = createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      received.push({ body, signature: req.headers['x-webhook-signature'] as string | undefined });
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const sandbox = await startSandbox({ webhookUrl, redirectUris: ['http://127.0.0.1:5173/callback'] });
    try {
      expect(sandbox.baseUrl).toBe(`${sandbox.origin}/api/v1`);
      expect((await (await fetch(sandbox.specUrl)).json()) as object).toHaveProperty('openapi');
      expect(await (await fetch(`${sandbox.authUrl}/.well-known/openid-configuration`)).json()).toMatchObject({ issuer: sandbox.authUrl });
      expect(sandbox.credentials.redirectUris).toContain('http://127.0.0.1:5173/callback');

      const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
      const { data: created } = await acme.identityRequests.create(person());
      // The person approves on the journey page, which sends them back to return_url.
      const page = await fetch(created.redirect_url);
      expect(await page.text()).toContain('approve');
      const back = await fetch(`${created.redirect_url}/approve`, { method: 'POST', redirect: 'manual' });
      expect(back.headers.get('location')).toBe('https://rp.example/return');
      await sandbox.service.webhooksSettled();
      expect(received).toHaveLength(1);
      const verifier = createWebhookVerifier({ secret: sandbox.credentials.webhookSecret });
      await expect(verifier.verify(received[0]!.body, { 'x-webhook-signature': received[0]!.signature! })).resolves.toMatchObject({
        accessRequestCode: created.access_request_code,
      });
    } finally {
      await sandbox.close();
      receiver.close();
    }
    await expect(fetch(sandbox.specUrl)).rejects.toThrow();
  });
});

/** Runs the command; resolves with its output once `until` appears in stdout, and a way to stop it. */
function run(args: string[], until = 'Ctrl-C to stop.') {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => stdout.includes(until) && resolve(stdout));
    void exited.then((code) => reject(new Error(`exited with ${code}: ${stdout}${stderr}`)));
  });
  // Tests that expect an early exit never await `ready`.
  ready.catch(() => {});
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

describe('acme-identity-sandbox', () => {
  test('prints where it is and what to configure, serves, and stops cleanly on SIGTERM', async () => {
    const sandbox = run(['--port', '0', '--webhook-url', 'http://127.0.0.1:9/hook', '--redirect-uri', 'http://localhost:5173/callback']);
    const stdout = await sandbox.ready;
    const baseUrl = /base URL\s+(\S+)/.exec(stdout)![1]!;
    expect(stdout).toMatch(/client secret\s+\S+/);
    expect(stdout).toMatch(/tenant id\s+\S+/);
    expect(stdout).toMatch(/webhook secret\s+whsec_/);
    expect(stdout).toContain('http://localhost:5173/callback');
    expect(await (await fetch(`${baseUrl}/status/health`)).json()).toBeTruthy();
    sandbox.child.kill('SIGTERM');
    expect(await sandbox.exited).toBe(0);
    expect(sandbox.output().stdout).toContain('sandbox stopped');
  });

  test('SIGINT (Ctrl-C) stops it too', async () => {
    const sandbox = run(['--port', '0']);
    await sandbox.ready;
    sandbox.child.kill('SIGINT');
    expect(await sandbox.exited).toBe(0);
  });

  test('--help, and a bad option refused with the usage', async () => {
    const help = run(['--help'], 'Options:');
    expect(await help.ready).toContain('--webhook-url');
    expect(await help.exited).toBe(0);
    for (const args of [['--port', 'eighty'], ['--journey', 'sometimes'], ['--webhook-url', 'not a url'], ['--colour']]) {
      const bad = run(args);
      expect(await bad.exited).toBe(2);
      expect(bad.output().stderr).toContain('Options:');
    }
  });
});
