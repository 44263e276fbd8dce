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

describe('startSandbox: its log', () => {
  test('each request (method, path template, status, ms), each journey outcome, each webhook delivery and failed attempt; no code or secret', async () => {
    const lines: { level: string; message: string }[] = [];
    const at = (level: string) => (message: string) => lines.push({ level, message });
    let answers = 0;
    const receiver = createServer((_req, res) => res.writeHead(answers++ === 0 ? 500 : 200).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const sandbox = await startSandbox({
      webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
      logLevel: 'info',
      fake: { webhookRetry: { attempts: 3, baseDelayMs: 10 } },
    });
    try {
      const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
      const { data } = await acme.identityRequests.create(person());
      await acme.identityRequests.get({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });
      await fetch(`${data.redirect_url}/approve`, { method: 'POST', redirect: 'manual' });
      await sandbox.service.webhooksSettled();
      const messages = lines.map((l) => `${l.level} ${l.message}`);
      expect(messages).toContainEqual(expect.stringMatching(/^info \[acme-identity\] sandbox: POST \/api\/v1\/identity\/request 200 in \d+ ms$/));
      expect(messages).toContainEqual(expect.stringMatching(/^info \[acme-identity\] sandbox: GET \/api\/v1\/identity\/request\/\{access_request_code\}\/\{identity_session_code\} 200 in \d+ ms$/));
      expect(messages).toContainEqual(expect.stringMatching(/^info \[acme-identity\] sandbox: POST \/journey\/\{access_request_code\}\/approve 303 in \d+ ms$/));
      expect(messages).toContain('info [acme-identity] sandbox: the person approved an identity request');
      expect(messages).toContainEqual(expect.stringMatching(/^warn \[acme-identity\] sandbox: webhook approved to http:\/\/127\.0\.0\.1:\d+\/hook failed \(attempt 1, HTTP 500\)$/));
      expect(messages).toContainEqual(expect.stringMatching(/^info \[acme-identity\] sandbox: webhook approved delivered to .* \(attempt 2\)$/));
      const text = messages.join('\n');
      for (const secret of [data.access_request_code, data.identity_session_code, sandbox.credentials.clientSecret, 'jane']) expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
    } finally {
      await sandbox.close();
      receiver.close();
    }
  });

  test('quiet by default', async () => {
    const lines: string[] = [];
    const push = (message: string) => lines.push(message);
    const sandbox = await startSandbox({ logger: { debug: push, info: push, warn: push, error: push } });
    await fetch(`${sandbox.baseUrl}/status/health`);
    await sandbox.close();
    expect(lines).toEqual([]);
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
