/**
 * A property over random sequences of faults (statuses, resets, truncations, stalls) met by a read
 * and by a create over real sockets. Run as a process of its own by `fault-sequences.test.ts`, so
 * that "no timer or socket is left behind" is checked the plain way: the process exits by itself.
 *
 *   FAULT_RUNS=500 node --import tsx test/client/network/fault-sequences.ts
 *
 * Prints one JSON line: {"runs": N, "failures": [...]} and exits 0 when the property held.
 */
import fc from 'fast-check';
import { AcmeIdentityError } from '../../../src/index.js';
import type { Fault } from '../../../src/testing/index.js';
import { OPERATIONS, attempts, served, settled } from './localhost.js';

const RUNS = Number(process.env['FAULT_RUNS'] ?? 30);
const SEED = process.env['FAULT_SEED'] === undefined ? undefined : Number(process.env['FAULT_SEED']);
const DEADLINE_MS = 900;
const MARGIN_MS = 500;

const unhandled: string[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(String(reason)));

const fault: fc.Arbitrary<Fault> = fc.oneof(
  fc.constantFrom(400, 404, 408, 409, 429, 500, 501, 502, 503, 504).map((status): Fault => ({ kind: 'status', status })),
  fc.constantFrom<Fault>(
    { kind: 'network' },
    { kind: 'reset-after-headers' },
    { kind: 'truncate', framing: 'length' },
    { kind: 'truncate', framing: 'chunked', close: 'reset' },
    { kind: 'stall-body' },
    { kind: 'hang' },
    { kind: 'proxy-502' },
    { kind: 'malformed' },
  ),
  fc.integer({ min: 10, max: 200 }).map((ms): Fault => ({ kind: 'delay', ms })),
);

const s = await served();
const client = s.client({ timeoutMs: DEADLINE_MS, maxRetries: 3 });
await client.auth.accessToken();

let runs = 0;
const failures: string[] = [];
try {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fault, { maxLength: 5 }),
      fc.constantFrom('identityRequests.get', 'identityRequests.create'),
      async (faults, name) => {
        runs += 1;
        const op = await OPERATIONS[name]!(client, s.service);
        const since = s.service.requests.length;
        for (const f of faults) s.service.injectFault({ ...f, method: op.method, path: op.path });
        try {
          const { error, when } = await settled(op.call, 0, DEADLINE_MS + MARGIN_MS);
          // Success, or an error of the SDK's own: never anything raw.
          if (error !== undefined && !(error instanceof AcmeIdentityError)) throw new Error(`not an AcmeIdentityError: ${String(error)}`);
          if (when === 'after-late') throw new Error(`settled after the deadline and its margin (${DEADLINE_MS + MARGIN_MS} ms)`);
          const sent = attempts(s.service, op, since);
          if (op.mode === 'create') {
            // Sent again only after a 429, which the service answers before doing anything.
            const leading429 = faults.findIndex((f) => !(f.kind === 'status' && f.status === 429));
            const allowed = 1 + (leading429 < 0 ? faults.length : leading429);
            if (sent > allowed) throw new Error(`a create was sent ${sent} times after an unknown outcome`);
          }
          if (sent > 4) throw new Error(`${sent} attempts with maxRetries 3`);
        } finally {
          s.service.clearFaults();
        }
      },
    ),
    { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
  );
} catch (error) {
  failures.push(String(error instanceof Error ? error.message : error).slice(0, 2_000));
}
await s.running.close();
// Let rejections that were never handled surface before reporting.
await new Promise((resolve) => setImmediate(resolve));
if (unhandled.length > 0) failures.push(`unhandled rejections: ${unhandled.slice(0, 3).join(' | ')}`);
console.log(JSON.stringify({ runs, failures }));
process.exitCode = failures.length > 0 ? 1 : 0;
