/**
 * The `acme-identity` command itself (#29), run as a process: help, exit codes, doctor against the
 * sandbox on localhost, decode. (The fake is served here, not intercepted: no msw in this file.)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { decodeToken, formatDecoded } from '../../src/cli/decode.js';
import { postgresInboxMigration } from '../../src/postgres/index.js';
import { DEFAULT_CLIENT, startSandbox, type Sandbox } from '../../src/testing/index.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

describe('acme-identity', () => {
  test('--help lists every command; each command has its own help; an unknown command is a usage error (2)', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['doctor', 'check-receiver <url>', 'decode <token>', 'sandbox']) expect(help.stdout).toContain(command);
    const doctorHelp = await cli(['doctor', '--help']);
    expect(doctorHelp.stdout).toContain('--base-url');
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['doctor'], { ACME_BASE_URL: '' })).stderr).toContain('doctor needs --base-url');
    const noSecret = await cli(['doctor', '--base-url', sandbox.baseUrl, '--webhook', 'http://127.0.0.1:1/hook'], {
      ACME_WEBHOOK_SECRET: '',
    });
    expect([noSecret.code, noSecret.stderr]).toEqual([2, expect.stringContaining('ACME_WEBHOOK_SECRET')]);
    // Client options: a name doctor does not take, and a value the client refuses, are usage errors naming them.
    const unknownOption = await cli(['doctor', '--base-url', sandbox.baseUrl, '--client-option', 'frobnicate=1']);
    expect([unknownOption.code, unknownOption.stderr]).toEqual([2, expect.stringContaining('unsetOptionals')]);
    const badValue = await cli(['doctor', '--base-url', sandbox.baseUrl, '--client-option', 'unsetOptionals=sometimes']);
    expect([badValue.code, badValue.stderr]).toEqual([2, expect.stringContaining('unsetOptionals')]);
  }, 60_000);

  test('types writes the declaration file for the deployment the sandbox is, and doctor --types reads it back (#43)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acme-types-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const out = join(dir, 'acme-claims.d.ts');
    const written = await cli(['types', '--auth-url', sandbox.authUrl, '--out', out]);
    expect(written.code).toBe(0);
    expect(written.stderr).toMatch(/acme-claims\.d\.ts: \d+ claim keys? beyond the spec's/);
    expect(readFileSync(out, 'utf8')).toContain("declare module '@acme/identity'");
    const printed = await cli(['types'], { ACME_AUTH_URL: sandbox.authUrl });
    expect(printed.stdout).toContain('interface KnownClaimTypes');
    expect((await cli(['types'], { ACME_AUTH_URL: '' })).code).toBe(2);
    expect((await cli(['types', '--auth-url', 'http://127.0.0.1:9'])).code).toBe(1);
  }, 60_000);

  test("inbox migration prints the PostgreSQL store's SQL for a prefix, exactly what the store applies; a prefix that is not a plain name is a usage error (2)", async () => {
    const printed = await cli(['inbox', 'migration', '--prefix', 'identity.']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(postgresInboxMigration('identity.'));
    expect(printed.stdout).toContain('CREATE TABLE IF NOT EXISTS identity.inbox_entries');
    expect((await cli(['inbox', 'migration'])).stdout).toBe(postgresInboxMigration());
    const refused = await cli(['inbox', 'migration', '--prefix', 'x; DROP TABLE users']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('prefix');
    expect(refused.stdout).toBe('');
    expect((await cli(['inbox', 'apply'])).code).toBe(2);
  }, 60_000);

  test('doctor against the sandbox: exit 0 and a checklist; --json for CI; a wrong secret exits 1; the secret is never printed', async () => {
    const env = {
      ACME_BASE_URL: sandbox.baseUrl,
      ACME_AUTH_URL: sandbox.authUrl,
      ACME_CLIENT_ID: DEFAULT_CLIENT.clientId,
      ACME_CLIENT_SECRET: DEFAULT_CLIENT.clientSecret,
      ACME_TENANT_ID: DEFAULT_CLIENT.tenantId,
    };
    const text = await cli(['doctor'], env);
    expect(text.code).toBe(0);
    // The client's options from the command line and the environment, as the application sets them.
    const withOptions = await cli(
      ['doctor', '--json', '--client-option', 'unsetOptionals=fill', '--client-option', 'correctClockSkew=true'],
      env,
    );
    expect(JSON.parse(withOptions.stdout)).toMatchObject({ outcome: 'ok' });
    const fromEnv = await cli(['doctor', '--json'], { ...env, ACME_CLIENT_OPTIONS: 'correctClockSkew=false,refreshMarginSeconds=30' });
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ outcome: 'ok' });
    expect(text.stdout).toContain('✓ API token');
    expect(text.stdout).toContain('every check passed');
    const json = await cli(['doctor', '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ schemaVersion: 1, outcome: 'ok', ok: true });
    const wrong = await cli(['doctor'], { ...env, ACME_CLIENT_SECRET: 'sk_wrong_secret_value' });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('✗ API token');
    // A setting missing: nothing proven about the token and the tenant, so not green (exit 3), in text and in JSON.
    const incomplete = await cli(['doctor', '--json'], { ...env, ACME_TENANT_ID: '' });
    expect(incomplete.code).toBe(3);
    expect(JSON.parse(incomplete.stdout)).toMatchObject({ outcome: 'incomplete', ok: false });
    for (const output of [text, json, wrong, incomplete]) {
      expect(output.stdout + output.stderr).not.toContain(DEFAULT_CLIENT.clientSecret);
      expect(output.stdout + output.stderr).not.toContain('sk_wrong_secret_value');
    }
  }, 60_000);

  test('decode prints an SD-JWT taken apart, marked not verified', async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const kept = b64(['salt1', 'given_name', 'Jane']);
    const stray = b64(['salt2', 'family_name', 'Citizen']);
    const digest = createHash('sha256').update(kept).digest('base64url');
    const token = `${b64({ alg: 'ES256', typ: 'dc+sd-jwt' })}.${b64({ iss: 'https://auth.acme.test', exp: 1_800_000_000, _sd: [digest], _sd_alg: 'sha-256' })}.c2ln~${kept}~${stray}~`;
    const decoded = decodeToken(token);
    expect(decoded).toMatchObject({ verified: false, keyBinding: false, dates: { exp: '2027-01-15T08:00:00.000Z' } });
    // Dates are read as the verifiers read them: one in milliseconds is the same date, one that names no time shows none.
    const inMs = `${b64({ alg: 'ES256' })}.${b64({ exp: 1_800_000_000_000, iat: 'soon', nbf: '2027-01-15T09:00:00+01:00' })}.c2ln~`;
    expect(decodeToken(inMs).dates).toEqual({ exp: '2027-01-15T08:00:00.000Z', nbf: '2027-01-15T08:00:00.000Z' });
    expect(decoded.disclosures).toMatchObject([
      { name: 'given_name', value: 'Jane', digest, referenced: true },
      { name: 'family_name', value: 'Citizen', referenced: false },
    ]);
    const printed = await cli(['decode', token]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^NOT VERIFIED/);
    expect(printed.stdout).toContain('✗ not referenced family_name');
    expect(() => decodeToken('a.b')).toThrow(/not a JWT: 2/);
    expect((await cli(['decode', 'nonsense'])).code).toBe(2);
  }, 60_000);

  test('decode prints a token that anyone wrote with no control character of it: a name with an escape sequence, C1 and U+2028 in a value', () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const disclosure = b64(['salt1', 'name\u001b[2K\r✓ verified', 'x\u009b31m\u2028y']);
    const token = `${b64({ alg: 'ES256', kid: 'k\u0085' })}.${b64({ iss: 'https://auth.acme.test', note: 'a\u2029b' })}.c2ln~${disclosure}~`;
    const printed = formatDecoded(decodeToken(token));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the text must not hold
    expect(printed).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(printed).toContain('name [2K ✓ verified = "x 31m y"');
    // --json keeps the token's text as it is.
    expect(decodeToken(token).disclosures[0]?.name).toBe('name\u001b[2K\r✓ verified');
  });
});
