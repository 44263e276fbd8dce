/** `acme-identity verify` and `acme-identity webhook verify` (#29): the SDK's verifiers at the command line, their codes in the outcome. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseDelivery, verifyDelivery, verifyToken } from '../../src/cli/verify.js';
import { signWebhook, startSandbox, type Sandbox } from '../../src/testing/index.js';
import { disclose, issueSdJwt } from '../../src/testing/sd-jwt.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

async function sdJwt(overrides: { exp?: number; iss?: string } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return issueSdJwt(
    sandbox.service.keys,
    { iss: overrides.iss ?? sandbox.authUrl, iat: now, exp: overrides.exp ?? now + 3600 },
    [await disclose('given_name', 'Jane')],
    { nowMs: Date.now() },
  );
}

describe('acme-identity verify', () => {
  test("an SD-JWT signed by the sandbox's key verifies; a tampered, an expired and an unknown issuer's one are refused with the verifier's code", async () => {
    const good = await sdJwt();
    const verified = await verifyToken(good, sandbox.authUrl);
    expect(verified).toMatchObject({ ok: true, message: expect.stringContaining(`of ${sandbox.authUrl}`), details: { disclosures: 1 } });
    const [jwt, ...rest] = good.split('~');
    const [h, p, sig] = jwt!.split('.');
    const tampered = [`${h}.${p}.${sig!.slice(0, -4)}AAAA`, ...rest].join('~');
    expect(await verifyToken(tampered, sandbox.authUrl)).toMatchObject({ ok: false, code: 'ERR_SD_JWT_SIGNATURE' });
    expect(await verifyToken(await sdJwt({ exp: Math.floor(Date.now() / 1000) - 60 }), sandbox.authUrl)).toMatchObject({
      ok: false,
      code: 'ERR_SD_JWT_EXPIRED',
    });
    expect((await verifyToken(good, 'http://127.0.0.1:9')).ok).toBe(false);
  });

  test("a token signed with the issuer's key that names another issuer, or none, is refused; one with the issuer's slash verifies", async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await verifyToken(await sdJwt({ iss: 'https://other-issuer.example' }), sandbox.authUrl)).toMatchObject({
      ok: false,
      code: 'ERR_SD_JWT_ISSUER',
      message: expect.stringContaining(sandbox.authUrl),
    });
    const withoutIss = await issueSdJwt(sandbox.service.keys, { iat: now, exp: now + 60 }, [], { nowMs: Date.now() });
    expect(await verifyToken(withoutIss, sandbox.authUrl)).toMatchObject({ ok: false, code: 'ERR_SD_JWT_ISSUER' });
    expect(await verifyToken(await sdJwt({ iss: `${sandbox.authUrl}/` }), sandbox.authUrl)).toMatchObject({ ok: true });
  });

  test('an issuer on http: at a host other than localhost: refused, unless allowInsecureRequests says so', async () => {
    // The sandbox as a container network would name it: requests and answers rewritten between the names.
    const issuer = 'http://acme-sandbox.test:4010';
    const viaContainerName: typeof fetch = async (input, init) => {
      const url = (input instanceof Request ? input.url : String(input)).replace(issuer, sandbox.authUrl);
      const answer = await fetch(url, init);
      const text = (await answer.text()).replaceAll(sandbox.authUrl, issuer);
      return new Response(text, { status: answer.status, headers: { 'content-type': answer.headers.get('content-type') ?? '' } });
    };
    const token = await sdJwt({ iss: issuer });
    const refused = await verifyToken(token, issuer, { fetch: viaContainerName });
    expect(refused).toMatchObject({ ok: false, code: 'ERR_INVALID_CONFIG', message: expect.stringContaining('allowInsecureRequests') });
    expect(await verifyToken(token, issuer, { fetch: viaContainerName, allowInsecureRequests: true })).toMatchObject({
      ok: true,
      message: expect.stringContaining(`of ${issuer}`),
    });
  });

  test('as a command: ✓ and exit 0, ✗ with the code and exit 1', async () => {
    const cli = (args: string[], input?: string) =>
      new Promise<{ code: number; stdout: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          ['--import', 'tsx', MAIN, ...args],
          { env: { ...process.env, NO_COLOR: '1' } },
          (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout: stdout + stderr }),
        );
        child.stdin?.end(input ?? '');
      });
    const good = await sdJwt();
    const ok = await cli(['verify', good, '--auth-url', sandbox.authUrl]);
    expect(ok).toMatchObject({ code: 0, stdout: expect.stringMatching(/^✓ verified: signed by /) });
    const bad = await cli(['verify', `${good.slice(0, 20)}x${good.slice(21)}`, '--auth-url', sandbox.authUrl]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^✗ ERR_SD_JWT_/);

    const body = JSON.stringify({ event: 'approved', access_request_code: 'arc_saved', access_token: 'a.b.c' });
    const saved = `POST /webhooks/acme HTTP/1.1\r\nContent-Type: application/json\r\nX-Webhook-Signature: ${await signWebhook(sandbox.credentials.webhookSecret, body)}\r\n\r\n${body}`;
    const delivered = await cli(['webhook', 'verify', '--secret', sandbox.credentials.webhookSecret], saved);
    expect(delivered).toMatchObject({ code: 0, stdout: expect.stringContaining('verified: approved for arc_saved') });
    expect(delivered.stdout).not.toContain('a.b.c');
    const forged = await cli(['webhook', 'verify', '--secret', `${sandbox.credentials.webhookSecret}x`], saved);
    expect(forged).toMatchObject({ code: 1, stdout: expect.stringContaining('✗ ERR_WEBHOOK_SIGNATURE') });
  }, 60_000);
});

describe('acme-identity webhook verify', () => {
  test('a saved delivery: as an HTTP message, or its raw body with --signature; reformatted, it is refused', async () => {
    const secret = sandbox.credentials.webhookSecret;
    const body = JSON.stringify({ event: 'cancelled', access_request_code: 'arc_s', access_token: 'a.b.c' });
    const signature = await signWebhook(secret, body);
    expect(parseDelivery(`X-Webhook-Signature: ${signature}\n\n${body}`)).toEqual({ body, headers: { 'x-webhook-signature': signature } });
    expect(await verifyDelivery(parseDelivery(`X-Webhook-Signature: ${signature}\n\n${body}`), secret)).toMatchObject({
      ok: true,
      details: { kind: 'cancelled' },
    });
    expect(await verifyDelivery(parseDelivery(body, signature), secret)).toMatchObject({ ok: true });
    expect(await verifyDelivery(parseDelivery(JSON.stringify(JSON.parse(body), null, 1), signature), secret)).toMatchObject({
      ok: false,
      code: 'ERR_WEBHOOK_SIGNATURE',
    });
    expect(() => parseDelivery(body)).toThrow(/blank line/);
    expect(() => parseDelivery(`not a header\n\n${body}`)).toThrow(/not a header line/);
    // A line that opens with its colon names no header.
    expect(() => parseDelivery(`: ${signature}\n\n${body}`)).toThrow(/not a header line/);
  });
});
