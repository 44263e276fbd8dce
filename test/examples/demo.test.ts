/**
 * #16: `npm run demo` on a machine without Chromium runs every example that needs no browser and
 * says how to enable the browser one; `--all` (what npm test and CI run) fails instead of skipping.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { ended } from '../child.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The demo, limited to two examples, with Chromium looked for where there is none. */
async function demo(...args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/run-all.ts', 'browser-sign-in', 'identity-request', ...args], {
    cwd: ROOT,
    env: { ...process.env, CHROMIUM_PATH: '/nonexistent/chromium' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { code, stdout } = await ended(child);
  return { code, out: stdout };
}

test('without Chromium, the demo runs the other examples and says how to enable the browser one', async () => {
  const { code, out } = await demo();
  expect(code).toBe(0);
  expect(out).toContain('✔ identity-request.ts');
  expect(out).toMatch(/browser-sign-in\.ts skipped: no Chromium at \/nonexistent\/chromium: bash scripts\/ensure-chromium\.sh/);
  expect(out).toContain('1 passed, 0 failed, 1 skipped');
}, 120_000);

test('with --all, a missing Chromium fails the demo rather than skipping', async () => {
  const { code, out } = await demo('--all');
  expect(code).toBe(1);
  expect(out).toMatch(/✘ browser-sign-in\.ts skipped: no Chromium/);
}, 120_000);
