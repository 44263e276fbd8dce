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
