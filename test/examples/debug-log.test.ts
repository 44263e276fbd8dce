/**
 * #15: every example run with logging at debug, as an operator would switch it on
 * (`ACME_IDENTITY_LOG=debug`), and the SDK's whole log searched for each secret and each personal
 * value the run used. The examples' own prints are theirs; what is searched is what the SDK wrote.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, onTestFinished, test } from 'vitest';
import { DEFAULT_CLIENT, DEFAULT_OIDC_BACKEND_CLIENT } from '../../src/testing/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CAPTURE = fileURLToPath(new URL('./capture-log.mjs', import.meta.url));

test('a whole run of every example at debug logs no secret, token or personal value', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acme-log-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'log.jsonl');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/run-all.ts', '--all'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ACME_IDENTITY_LOG: 'debug',
        ACME_LOG_CAPTURE: file,
        NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${CAPTURE}`.trim(),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('exit', resolve);
  });
  expect(code).toBe(0);
  const log = readFileSync(file, 'utf8');
  const lines = log
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { level: string; message: string; fields: Record<string, unknown> | null });
  // Not vacuous: every kind of line was written.
  expect(lines.some((l) => l.level === 'debug' && /^\[acme-identity\] (GET|POST|DELETE) \//.test(l.message))).toBe(true);
  expect(lines.some((l) => l.fields?.['grant'] === 'key-pair')).toBe(true);
  expect(lines.some((l) => l.message.includes('sandbox: the person approved'))).toBe(true);
  // The inbox's lines too (examples/inbox.ts): stored, handed over, set aside, replayed.
  for (const said of ['delivery added', 'identity handed over', 'identity set aside', 'dead entry replayed'])
    expect(
      lines.some((l) => l.message.includes(said)),
      said,
    ).toBe(true);
  const secrets = [
    DEFAULT_CLIENT.clientSecret,
    DEFAULT_CLIENT.tenantId,
    DEFAULT_CLIENT.webhookSecret,
    DEFAULT_OIDC_BACKEND_CLIENT.clientSecret!,
    // What the examples send about the person.
    'Jane',
    'Citizen',
    'jane.citizen@example.com',
    'jane.observed',
    '412345678',
    '412345999',
    'ola.citizen@example.com',
    '412345679',
  ];
  for (const secret of secrets) expect(log.toLowerCase(), secret).not.toContain(secret.toLowerCase());
  // No token of any kind: no JWT, no bearer credential.
  expect(log).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/);
  expect(log).not.toMatch(/Bearer /i);
  // No code of a request (they open a person's journey and name their identity).
  expect(log).not.toMatch(/\barc_[A-Za-z0-9_-]{8,}/);
}, 120_000);
