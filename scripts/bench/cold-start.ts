/**
 * Cold start (issue #16): a fresh `node` that imports the main entry and constructs a client, less
 * a fresh `node` that does nothing, beside the same for stripe-node, in one run: the contenders
 * interleaved, 15 rounds, the median of each. Goal: at most half of stripe-node's.
 *
 * Measures the built package (dist/, built first when missing: `npm run build`). stripe-node is a
 * dependency of this benchmark alone (scripts/bench/cold-start/package.json), installed here on the
 * first run.
 *
 *   npm run bench            (ROUNDS=30 for more samples)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 15);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HERE = fileURLToPath(new URL('./cold-start/', import.meta.url));

if (!existsSync(join(ROOT, 'dist/index.js'))) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
if (!existsSync(join(HERE, 'node_modules/stripe'))) {
  console.log('(installing stripe-node for this benchmark into scripts/bench/cold-start)');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: HERE, stdio: 'inherit' });
}

// Each contender is a file of its own, run by a fresh node; stripe's beside its node_modules.
const scratch = mkdtempSync(join(HERE, '.probe-'));
const probes = {
  'node, nothing': join(scratch, 'empty.mjs'),
  '@acme/identity': join(scratch, 'acme.mjs'),
  'stripe-node': join(HERE, 'stripe-probe.mjs'),
};
writeFileSync(probes['node, nothing'], '');
writeFileSync(
  probes['@acme/identity'],
  `const { AcmeIdentityClient } = await import(${JSON.stringify(join(ROOT, 'dist/index.js'))});
new AcmeIdentityClient({ baseUrl: 'https://api.acme.example/api/v1', clientId: 'c', clientSecret: 's', tenantId: 't' });\n`,
);
writeFileSync(probes['stripe-node'], `const { default: Stripe } = await import('stripe');\nnew Stripe('sk_test_cold_start');\n`);

/** Milliseconds a fresh node took to run `file` to its end. */
function run(file: string): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, [file], { stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`${file} exited with ${result.status}`);
  return performance.now() - started;
}

const names = Object.keys(probes) as (keyof typeof probes)[];
const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<keyof typeof probes, number[]>;
for (const name of names) run(probes[name]); // the file system's caches, warm for all
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(round + k) % names.length]!;
    samples[name].push(run(probes[name]));
  }
}

rmSync(scratch, { recursive: true, force: true });
rmSync(probes['stripe-node'], { force: true });

const bare = median(samples['node, nothing']);
const ours = median(samples['@acme/identity']) - bare;
const stripe = median(samples['stripe-node']) - bare;
const ratio = ours / stripe;
console.log(`cold start: import + construct, in a fresh node ${process.version}, ${ROUNDS} rounds (medians)`);
console.log(`  node doing nothing: ${bare.toFixed(1)} ms`);
console.log(`  @acme/identity: +${ours.toFixed(1)} ms; stripe-node: +${stripe.toFixed(1)} ms`);
console.log(`  ratio ${ratio.toFixed(2)}x stripe-node  goal <= 0.50x: ${ratio <= 0.5 ? 'met' : 'NOT met'}`);
