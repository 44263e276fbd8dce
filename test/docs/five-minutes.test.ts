/**
 * #27: the README's "Integrate in five minutes" works as written: its server, run with tsx against
 * the sandbox with the environment the sandbox prints, gets a webhook and a verified identity once
 * the person approves. (The package test runs it from the packed package on Node 20 and 26.)
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { runFiveMinuteServer, writeFiveMinuteServer } from './five-minutes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test("the README's five-minute server verifies the identity of a person who approves", async () => {
  const dir = join(ROOT, '.tmp/five-minutes');
  mkdirSync(dir, { recursive: true });
  writeFiveMinuteServer(join(dir, 'server.ts'));
  const output = await runFiveMinuteServer(process.execPath, ['--import', 'tsx', join(dir, 'server.ts')], ROOT);
  expect(output).toContain("verified: { first_name: 'Jane', last_name: 'Citizen' }");
}, 60_000);

test("the README's five-minute server restarted before the person approved: the second run is not a ConflictError, and verifies (#43)", async () => {
  const dir = join(ROOT, '.tmp/five-minutes-twice');
  mkdirSync(dir, { recursive: true });
  writeFiveMinuteServer(join(dir, 'first.ts'), false);
  writeFiveMinuteServer(join(dir, 'second.ts'));
  const output = await runFiveMinuteServer(process.execPath, [], ROOT, [
    { args: ['--import', 'tsx', join(dir, 'first.ts')], until: 'open this page' },
    { args: ['--import', 'tsx', join(dir, 'second.ts')], until: 'verified:' },
  ]);
  expect(output).not.toContain('ConflictError');
  expect(output).toContain("verified: { first_name: 'Jane', last_name: 'Citizen' }");
}, 90_000);
