/**
 * The sandbox under your hands (#29): `acme-identity sandbox trigger|approve|deliveries|resend|
 * clock|rotate-key|fault` against a running sandbox whose webhooks go to a real receiver on localhost.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { controlRequest, parseDuration, sendControl } from '../../src/cli/control.js';
import { AcmeIdentityClient } from '../../src/index.js';
import { DEFAULT_CLIENT, freePort, startSandbox, type Sandbox } from '../../src/testing/index.js';
import { OUTCOMES } from '../../src/testing/control.js';
import { createWebhookReceiver, createWebhookVerifier, type IdentityActionsEvent } from '../../src/webhooks/index.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

let sandbox: Sandbox;
let receiverServer: Server;
const events: IdentityActionsEvent[] = [];

beforeAll(async () => {
  const receiver = createWebhookReceiver(
    createWebhookVerifier({ secret: DEFAULT_CLIENT.webhookSecret, logLevel: 'off', replayStore: false }),
    (event) => {
      events.push(event);
    },
  );
  receiverServer = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    response.writeHead((await receiver.handle(Buffer.concat(chunks), request.headers)).status).end();
  });
  await new Promise<void>((resolve) => receiverServer.listen(0, '127.0.0.1', resolve));
  sandbox = await startSandbox({ webhookUrl: `http://127.0.0.1:${(receiverServer.address() as AddressInfo).port}/webhooks` });
});
afterAll(async () => {
  await sandbox?.close();
  receiverServer?.close();
});

const control = (...args: string[]) => sendControl(sandbox.origin, args);

describe('acme-identity sandbox, against a running sandbox', () => {
  test('trigger sends a signed webhook the receiver verifies; deliveries lists it without its token; resend sends a fresh one', async () => {
    const triggered = await control('trigger', 'approved');
    expect(triggered.status).toBe(200);
    const body = triggered.body as { access_request_code: string; identity_session_code: string; delivery: Record<string, unknown> };
    expect(body.delivery).toMatchObject({ event: 'approved', access_request_code: body.access_request_code, status: 200, delivered: true });
    const event = events.find((e) => e.accessRequestCode === body.access_request_code)!;
    expect(event.kind).toBe('approved');

    const listed = await control('deliveries');
    expect(JSON.stringify(listed.body)).not.toContain(event.accessToken);
    const number = (listed.body as { deliveries: { id: number; access_request_code: string }[] }).deliveries.find(
      (d) => d.access_request_code === body.access_request_code,
    )!.id;

    const resent = await control('resend', String(number));
    expect(resent.body).toMatchObject({ delivery: { access_request_code: body.access_request_code, delivered: true } });
    const fresh = events.filter((e) => e.accessRequestCode === body.access_request_code);
    expect(fresh).toHaveLength(2);
    expect(fresh[1]!.accessToken).not.toBe(fresh[0]!.accessToken);

    // The fresh token fetches the identity; the first one no longer does.
    const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
    const options = { identitySessionCode: body.identity_session_code };
    await expect(acme.identityResponses.getVerified(fresh[1]!, options)).resolves.toMatchObject({ claims: expect.any(Object) });
    await expect(acme.identityResponses.getVerified(fresh[0]!, options)).rejects.toMatchObject({ step: 'fetch' });

    for (const outcome of ['cancelled', 'partial'])
      expect(((await control('trigger', outcome)).body as { outcome: string }).outcome).toBe(outcome);
  });

  test('trigger invalid: an approval whose identity the service does not vouch for (acmeidentity.valid false); the CLI takes what the control API takes', async () => {
    const { body } = await control('trigger', 'invalid');
    const { identity_session_code: identitySessionCode, delivery } = body as { identity_session_code: string; delivery: { index: number } };
    const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
    const event = events.findLast((e) => e.accessRequestCode === (body as { access_request_code: string }).access_request_code);
    expect(delivery).toBeDefined();
    await expect(acme.identityResponses.getVerified(event!, { identitySessionCode })).resolves.toMatchObject({ valid: false });
    for (const outcome of OUTCOMES) expect(controlRequest(['trigger', outcome]).body).toEqual({ outcome });
  });

  test('sandbox --help lists the commands of a running sandbox: trigger, approve, resend, the clock', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', MAIN, 'sandbox', '--help']);
    for (const command of ['trigger', 'approve <code>', 'deliveries', 'resend', 'clock advance', 'rotate-key', 'fault'])
      expect(stdout).toContain(command);
  });

  test('approve settles a request the application created: its webhook is the one the application expects (#41)', async () => {
    const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
    const { data } = await acme.identityRequests.create({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada.approve@example.com',
      phone: '412999111',
      phone_country_code: 61,
      purpose: 'test',
      return_url: 'https://rp.example/return',
      off_ramp_url: 'https://rp.example/off-ramp',
      claims: ['acmeidentity.given_name'],
    });
    const approved = await control('approve', data.access_request_code);
    expect(approved).toMatchObject({ status: 200, body: { outcome: 'approved', access_request_code: data.access_request_code } });
    const event = events.filter((e) => e.accessRequestCode === data.access_request_code).at(-1)!;
    expect(event.kind).toBe('approved');
    const identity = await acme.identityResponses.getVerified(event, { identitySessionCode: data.identity_session_code });
    expect(identity.claims['acmeidentity.given_name']).toBe('Ada');
    expect((await control('approve', 'arc_never_created')).status).toBe(404);
    expect(() => controlRequest(['approve'])).toThrow(/access_request_code/);
    expect(() => controlRequest(['approve', 'arc_1', 'maybe'])).toThrow(/approved\|partial\|invalid\|cancelled/);
  });

  test('clock advance: the identity response expires after half an hour, the X-Access-Token after an hour, each said as itself', async () => {
    const { body } = await control('trigger', 'approved');
    const { access_request_code: code, identity_session_code: isc } = body as {
      access_request_code: string;
      identity_session_code: string;
    };
    const event = events.filter((e) => e.accessRequestCode === code).at(-1)!;
    const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
    await expect(acme.identityResponses.getVerified(event, { identitySessionCode: isc })).resolves.toBeDefined();
    // Three quarters of an hour on: the token still fetches, but the response it fetches has expired (#43).
    expect((await control('clock', 'advance', '45m')).status).toBe(200);
    const meanwhile = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
    const stale = await meanwhile.identityResponses
      .get({ accessRequestCode: code, identitySessionCode: isc, accessToken: event.accessToken })
      .catch((error: unknown) => error);
    expect(stale).toMatchObject({ code: 'ERR_SD_JWT_EXPIRED' });
    expect((await control('clock', 'advance', '2h')).status).toBe(200);
    const later = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
    // The X-Access-Token expired: said as such, with when and what to do, not as bad client credentials (#43).
    await expect(later.identityResponses.getVerified(event, { identitySessionCode: isc })).rejects.toMatchObject({
      code: 'ERR_IDENTITY_FLOW',
      step: 'token',
      message: expect.stringMatching(/X-Access-Token expired at \d{4}-.*ask the service to send the webhook again/),
    });
  });

  test('rotate-key publishes a new key beside the old; fault injects a fault into the next matching request', async () => {
    const rotated = await control('rotate-key');
    expect(rotated.body).toMatchObject({ kid: expect.any(String), keys: 2 });
    const discovery = (await (await fetch(`${sandbox.authUrl}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
    const { keys } = (await (await fetch(discovery.jwks_uri)).json()) as { keys: { kid: string }[] };
    expect(keys.map((key) => key.kid)).toContain((rotated.body as { kid: string }).kid);
    expect(keys.length).toBe(2);
    expect((await control('fault', 'status', '--status', '503', '--path', '/status/health')).status).toBe(200);
    expect((await fetch(`${sandbox.baseUrl}/status/health`)).status).toBe(503);
    expect((await fetch(`${sandbox.baseUrl}/status/health`)).status).toBe(200);
    expect((await control('fault', 'nonsense')).status).toBe(400);
  });

  test('usage: durations, verbs and arguments are checked before anything is sent', () => {
    expect(parseDuration('90s')).toBe(90);
    expect(parseDuration('15m')).toBe(900);
    expect(parseDuration('2h')).toBe(7_200);
    expect(parseDuration('1d')).toBe(86_400);
    expect(parseDuration('45')).toBe(45);
    expect(() => parseDuration('soon')).toThrow(/not a duration/);
    expect(() => controlRequest(['trigger', 'maybe'])).toThrow(/approved, partial, invalid, cancelled/);
    expect(() => controlRequest(['resend'])).toThrow(/delivery number/);
    expect(() => controlRequest(['clock', 'back', '1h'])).toThrow(/clock advance/);
    expect(() => controlRequest(['explode'])).toThrow(/not a command/);
    expect(controlRequest(['resend', 'arc_x'])).toEqual({ method: 'POST', path: '/resend', body: { access_request_code: 'arc_x' } });
  });

  test('a sandbox listening beyond loopback serves no control API', async () => {
    const exposed = await startSandbox({ hostname: '0.0.0.0', port: await freePort() });
    try {
      const answer = await sendControl(exposed.origin.replace('0.0.0.0', '127.0.0.1'), ['deliveries']);
      expect(answer.status).toBe(404);
      expect(JSON.stringify(answer.body)).not.toContain('deliveries');
    } finally {
      await exposed.close();
    }
  });

  test('as a command: output, --json, exit codes (0, 1 without a sandbox, 2 for a usage error)', async () => {
    const cli = async (args: string[]) =>
      run(process.execPath, ['--import', 'tsx', MAIN, ...args], { env: { ...process.env, NO_COLOR: '1' } }).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout + error.stderr }),
      );
    const triggered = await cli(['sandbox', 'trigger', 'approved', '--json', '--url', sandbox.origin]);
    expect(triggered.code).toBe(0);
    expect(JSON.parse(triggered.stdout)).toMatchObject({ outcome: 'approved', delivery: { delivered: true } });
    const line = await cli(['sandbox', 'trigger', 'cancelled', '--url', sandbox.origin]);
    expect(line.stdout).toMatch(/^cancelled: access_request_code arc_\S+, identity_session_code isc_\S+\nwebhook cancelled #\d+ → 200\n$/);
    expect((await cli(['sandbox', 'clock', 'advance', '1m', '--url', sandbox.origin])).stdout).toMatch(
      /^the service's clock is now \d{4}-/,
    );
    const table = await cli(['sandbox', 'deliveries', '--url', sandbox.origin]);
    expect(table.stdout).toMatch(/approved +arc_\S+ +attempt 1 +→ 200/);
    expect((await cli(['sandbox', 'clock', 'advance', 'soon', '--url', sandbox.origin])).code).toBe(2);
    const nobody = await cli(['sandbox', 'deliveries', '--url', `http://127.0.0.1:${await freePort()}`]);
    expect(nobody).toMatchObject({ code: 1, stdout: expect.stringContaining('no sandbox answered') });
  }, 60_000);
});
