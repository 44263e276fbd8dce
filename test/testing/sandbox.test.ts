/** The sandbox on localhost: the exported `startSandbox`, and the `acme-identity-sandbox` command. */
import { describe, expect, onTestFinished, test, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { AcmeIdentityClient } from '../../src/index.js';
import { freePort, startSandbox } from '../../src/testing/index.js';
import { createWebhookVerifier } from '../../src/webhooks/index.js';
import { acmeWebhookHandler } from '../../src/webhooks/frameworks/express.js';
import { sendControl } from '../../src/cli/control.js';
import express from 'express';
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

describe('startSandbox: its pages', () => {
  test('the home page lists the endpoints, identity requests in progress, sign-ins waiting and recent webhook deliveries', async () => {
    const receiver = createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const sandbox = await startSandbox({ webhookUrl, fake: { webhookRetry: { attempts: 1, baseDelayMs: 1 } } });
    try {
      const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
      const { data: open } = await acme.identityRequests.create(person());
      const { data: done } = await acme.identityRequests.create(person({ email: 'other@example.com', phone: '498765432' }));
      await fetch(`${done.redirect_url}/cancel`, { method: 'POST', redirect: 'manual' });
      await sandbox.service.webhooksSettled();
      const authorize = new URL(`${sandbox.authUrl}/oauth/oidc/authorize`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: sandbox.credentials.oidcClientId,
        redirect_uri: sandbox.credentials.redirectUris[0]!,
        scope: 'openid',
        state: 's',
        nonce: 'n',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      }))
        authorize.searchParams.set(k, v);
      expect((await fetch(authorize)).status).toBe(200);

      const home = await fetch(`${sandbox.origin}/`);
      expect(home.headers.get('content-type')).toContain('text/html');
      const html = await home.text();
      for (const shown of [
        sandbox.baseUrl,
        `${sandbox.baseUrl}/docs/spec`,
        `${sandbox.authUrl}/.well-known/openid-configuration`,
        open.access_request_code,
        sandbox.credentials.oidcClientId,
      ]) {
        expect(html).toContain(shown);
      }
      // The cancelled request is no longer in progress; its webhook delivery is, with the receiver's 503.
      expect(html.split(done.access_request_code)).toHaveLength(2);
      expect(html).toMatch(
        /cancelled<\/td><td><code>[^<]+<\/code><\/td><td><code>http:\/\/127\.0\.0\.1:\d+\/hook<\/code><\/td><td>1<\/td><td><span class="bad">503/,
      );
      expect(html).not.toContain(sandbox.credentials.clientSecret);
    } finally {
      await sandbox.close();
      receiver.close();
    }
  });

  test("a refused delivery shows the receiver's refusal code: in the list, the log and the control API", async () => {
    // The SDK's own Express handler behind express.json(): the mistake of the first hour, refused as ERR_WEBHOOK_PARSED_BODY.
    const warned: string[] = [];
    const sandbox = await startSandbox({
      fake: { webhookRetry: { attempts: 1, baseDelayMs: 1 } },
      logLevel: 'warn',
      logger: { debug: () => undefined, info: () => undefined, warn: (message) => warned.push(message), error: () => undefined },
    });
    const app = express();
    app.use(express.json());
    app.post('/hook', acmeWebhookHandler({ secret: sandbox.credentials.webhookSecret, onEvent: () => undefined }));
    const receiver = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => receiver.once('listening', resolve));
    sandbox.service.setWebhookUrl(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    try {
      const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
      const { data } = await acme.identityRequests.create(person());
      await fetch(`${data.redirect_url}/approve`, { method: 'POST', redirect: 'manual' });
      await sandbox.service.webhooksSettled();
      expect(sandbox.service.deliveries).toMatchObject([{ status: 500, delivered: false, code: 'ERR_WEBHOOK_PARSED_BODY' }]);
      expect(warned).toContainEqual(expect.stringContaining('HTTP 500: the receiver says ERR_WEBHOOK_PARSED_BODY'));
      expect(await (await fetch(`${sandbox.origin}/`)).text()).toMatch(
        /<span class="bad">500<\/span> <code>ERR_WEBHOOK_PARSED_BODY<\/code>/,
      );
      const { body } = await sendControl(sandbox.origin, ['deliveries']);
      expect(body).toMatchObject({ deliveries: [{ status: 500, delivered: false, code: 'ERR_WEBHOOK_PARSED_BODY' }] });
    } finally {
      await sandbox.close();
      receiver.close();
    }
  });

  test('a journey or a consent page that does not exist is an HTML page saying so, in the same look, not raw JSON', async () => {
    const sandbox = await startSandbox();
    try {
      for (const [method, path] of [
        ['GET', '/journey/arc_nope'],
        ['POST', '/journey/arc_nope/approve'],
        ['POST', '/oauth/oidc/consent/nope/approve'],
      ] as const) {
        const answer = await fetch(`${sandbox.origin}${path}`, { method });
        expect(answer.status).toBe(404);
        expect(answer.headers.get('content-type')).toContain('text/html');
        const html = await answer.text();
        expect(html).toContain('<header><a href="/">acme identity sandbox</a>');
        expect(html).toContain('Nothing here');
      }
    } finally {
      await sandbox.close();
    }
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
      expect(messages).toContainEqual(
        expect.stringMatching(/^info \[acme-identity\] sandbox: POST \/api\/v1\/identity\/request 200 in \d+ ms$/),
      );
      expect(messages).toContainEqual(
        expect.stringMatching(
          /^info \[acme-identity\] sandbox: GET \/api\/v1\/identity\/request\/\{access_request_code\}\/\{identity_session_code\} 200 in \d+ ms$/,
        ),
      );
      expect(messages).toContainEqual(
        expect.stringMatching(/^info \[acme-identity\] sandbox: POST \/journey\/\{access_request_code\}\/approve 303 in \d+ ms$/),
      );
      expect(messages).toContain('info [acme-identity] sandbox: the person approved an identity request');
      expect(messages).toContainEqual(
        expect.stringMatching(
          /^warn \[acme-identity\] sandbox: webhook approved to http:\/\/127\.0\.0\.1:\d+\/hook failed \(attempt 1, HTTP 500\)$/,
        ),
      );
      expect(messages).toContainEqual(
        expect.stringMatching(/^info \[acme-identity\] sandbox: webhook approved delivered to .* \(attempt 2\)$/),
      );
      const text = messages.join('\n');
      for (const secret of [data.access_request_code, data.identity_session_code, sandbox.credentials.clientSecret, 'jane'])
        expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
    } finally {
      await sandbox.close();
      receiver.close();
    }
  });

  test('says why nothing arrives: no webhook URL set, an unregistered redirect_uri (#27)', async () => {
    const lines: { level: string; message: string }[] = [];
    const at = (level: string) => (message: string) => lines.push({ level, message });
    const sandbox = await startSandbox({
      logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
      logLevel: 'info',
    });
    try {
      const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
      const { data } = await acme.identityRequests.create(person());
      await fetch(`${data.redirect_url}/approve`, { method: 'POST', redirect: 'manual' });
      const unregistered = 'http://127.0.0.1:5999/callback';
      const authorize = new URL(`${sandbox.authUrl}/oauth/oidc/authorize`);
      for (const [key, value] of Object.entries({
        response_type: 'code',
        client_id: sandbox.credentials.oidcClientId,
        redirect_uri: unregistered,
        scope: 'openid',
        state: 'state-0123456789',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      }))
        authorize.searchParams.set(key, value);
      expect((await fetch(authorize, { redirect: 'manual' })).status).toBe(400);
      const warnings = lines.filter((l) => l.level === 'warn').map((l) => l.message);
      expect(warnings).toContainEqual(
        expect.stringContaining('no webhook sent: no webhook URL is set (start the sandbox with --webhook-url URL)'),
      );
      expect(warnings).toContainEqual(expect.stringContaining(`not registered (start the sandbox with --redirect-uri ${unregistered})`));
    } finally {
      await sandbox.close();
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
    // Each request logged once, as one line: no dump of the fields after it (#27).
    const logged = sandbox
      .output()
      .stdout.split('\n')
      .filter((line) => line.includes('/status/health'));
    expect(logged).toEqual([expect.stringMatching(/^\[acme-identity\] sandbox: GET \/api\/v1\/status\/health 200 in \d+ ms$/)]);
    expect(sandbox.output().stdout).not.toContain('method:');
  });

  test('prints ready-to-paste export lines, the OIDC pair included, and writes them to --write-env', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acme-env-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, '.env');
    const sandbox = run(['--port', '0', '--write-env', file]);
    const stdout = await sandbox.ready;
    const exported = Object.fromEntries([...stdout.matchAll(/^export (ACME_[A-Z_]+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
    expect(Object.keys(exported).sort()).toEqual([
      'ACME_AUTH_URL',
      'ACME_BASE_URL',
      'ACME_CLIENT_ID',
      'ACME_CLIENT_SECRET',
      'ACME_OIDC_BACKEND_CLIENT_ID',
      'ACME_OIDC_BACKEND_CLIENT_SECRET',
      'ACME_OIDC_CLIENT_ID',
      'ACME_SANDBOX_URL',
      'ACME_TENANT_ID',
      'ACME_WEBHOOK_SECRET',
    ]);
    expect(exported['ACME_BASE_URL']).toMatch(/\/api\/v1$/);
    // The variables work as they are: a token with them.
    const token = await fetch(`${exported['ACME_BASE_URL']}/auth/api-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: exported['ACME_CLIENT_ID'], client_secret: exported['ACME_CLIENT_SECRET'] }),
    });
    expect(token.status).toBe(200);
    const written = readFileSync(file, 'utf8');
    for (const [name, value] of Object.entries(exported)) expect(written).toContain(`${name}=${value}\n`);
    sandbox.child.kill('SIGTERM');
    expect(await sandbox.exited).toBe(0);
  });

  test('a launcher that exits without passing its signal on (as npx and npm can): the sandbox stops too, not left as an orphan', async () => {
    // The launcher answers SIGTERM by exiting alone, as a wrapper that forwards nothing would.
    const launcher = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn(process.execPath, ['--import', 'tsx', ${JSON.stringify(CLI)}, '--port', '0'], { stdio: 'inherit' }); process.on('SIGTERM', () => process.exit(0));`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    launcher.stdout.on('data', (chunk) => (stdout += chunk));
    await new Promise<void>((resolve) => launcher.stdout.on('data', () => stdout.includes('Ctrl-C') && resolve()));
    const baseUrl = /base URL\s+(\S+)/.exec(stdout)![1]!;
    expect((await fetch(`${baseUrl}/status/health`)).status).toBe(200);
    launcher.kill('SIGTERM');
    // The sandbox notices it has been given to another parent, and stops serving.
    let serving = true;
    for (let i = 0; i < 50 && serving; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      serving = await fetch(`${baseUrl}/status/health`).then(
        () => true,
        () => false,
      );
    }
    expect(serving).toBe(false);
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

describe('freePort', () => {
  const listen = (port: number) =>
    new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject).listen(port, '127.0.0.1', () => resolve(server));
    });
  const close = (server: ReturnType<typeof createServer>) => new Promise<void>((resolve) => server.close(() => resolve()));

  test('gives a port below the ephemeral ranges, where no outgoing connection or listen(0) is handed it, that can be listened on', async () => {
    for (let i = 0; i < 5; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(32_768);
      await close(await listen(port));
    }
  });

  test('passes over a port in use, and lets the system choose once every port it drew was taken', async () => {
    // Every draw lands on 20000; occupy it (or find it occupied) so that each try is refused.
    const first = await listen(20_000).catch(() => undefined);
    if (first) onTestFinished(() => close(first));
    const random = vi.spyOn(Math, 'random').mockReturnValue(0);
    onTestFinished(() => random.mockRestore());
    const port = await freePort();
    expect(random).toHaveBeenCalledTimes(50);
    expect(port).not.toBe(20_000);
    await close(await listen(port));
  });
});
