/** Runs the fault-sequence property as a process of its own: it must hold, and the process must exit by itself. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { ended } from '../../child.js';

const SCRIPT = fileURLToPath(new URL('./fault-sequences.ts', import.meta.url));
const RUNS = Number(process.env['FAULT_RUNS'] ?? 30);

test(`${RUNS} random fault sequences against a read and a create: typed errors, no repeated create, the deadline kept, nothing left running`, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    env: { ...process.env, FAULT_RUNS: String(RUNS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // The process is never told to exit: a timer or socket left open would keep it alive past this.
  const limit = setTimeout(() => child.kill('SIGKILL'), 100_000);
  const { code, stdout } = await ended(child);
  clearTimeout(limit);
  const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { runs?: number; failures?: string[] };
  expect(report.failures, stderr).toEqual([]);
  expect(report.runs).toBe(RUNS);
  expect(code).toBe(0);
}, 120_000);
