/**
 * The losses the inbox is for, across processes, as shared rules: each store's test file calls
 * `acrossProcesses` with how to reach its server. Eight processes receive one delivery at once; a
 * worker is killed mid-fetch. Every process is a relying-party instance of its own
 * (test/inbox/worker-process.ts) on the same store.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { AcmeIdentityClient } from '../../src/index.js';
import { DEFAULT_CLIENT, signWebhook, type Sandbox } from '../../src/testing/index.js';
import { ended, lastJsonLine } from '../child.js';
import { person } from '../fixtures.js';

const WORKER = fileURLToPath(new URL('./worker-process.ts', import.meta.url));

export interface ProcessesSetup {
  /** `node-redis`, `ioredis` or `postgres`: the store the processes open. */
  kind: string;
  /** The store's server. */
  url(): string;
  sandbox(): Sandbox;
  /** A fresh prefix (Redis keys) or schema (PostgreSQL, ready with its tables and `people`) for one test. */
  prefix(): Promise<string>;
}

export interface WorkerRun {
  child: ChildProcess;
  result: Promise<{ status: number; handed: number }>;
}

/** Runs the inbox worker in its own process; resolves its JSON line. */
export function worker(setup: ProcessesSetup, prefix: string, args: string[], env: Record<string, string> = {}): WorkerRun {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, args[0]!, setup.kind, setup.url(), ...args.slice(1)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, INBOX_PREFIX: prefix, ...env },
  });
  const result = ended(child).then(({ code, signal, stdout }) => {
    if (code !== 0) throw new Error(`inbox worker ended with ${code ?? signal}: ${stdout}`);
    return lastJsonLine<{ status: number; handed: number }>(stdout);
  });
  return { child, result };
}

let people = 0;
/** A request approved on the sandbox, its delivery signed as the service would send it. */
export async function approvedDelivery(sandbox: Sandbox): Promise<{ arc: string; isc: string; body: string; signature: string }> {
  const acme = new AcmeIdentityClient({
    baseUrl: sandbox.baseUrl,
    clientId: DEFAULT_CLIENT.clientId,
    clientSecret: DEFAULT_CLIENT.clientSecret,
    tenantId: DEFAULT_CLIENT.tenantId,
  });
  people += 1;
  const { data } = await acme.identityRequests.create(
    person({ email: `processes${people}-${process.pid}@example.com`, phone: String(500_000_000 + (process.pid % 1000) * 1000 + people) }),
  );
  const payload = await sandbox.service.approve(data.access_request_code);
  const body = JSON.stringify(payload);
  return {
    arc: data.access_request_code,
    isc: data.identity_session_code,
    body,
    signature: await signWebhook(DEFAULT_CLIENT.webhookSecret, body),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The requests to the sandbox's identity-response endpoint so far. */
export const fetches = (sandbox: Sandbox) => sandbox.service.requests.filter((r) => r.path.startsWith('/identity/response')).length;

export function acrossProcesses(setup: ProcessesSetup): void {
  test('8 processes receive the same delivery at once: each answers 200, or 409 while another stores it and 200 when the service retries; one hands the identity over', async () => {
    const prefix = await setup.prefix();
    const delivery = await approvedDelivery(setup.sandbox());
    const runs = Array.from({ length: 8 }, () =>
      worker(setup, prefix, ['receive', setup.sandbox().baseUrl, delivery.isc, delivery.body, delivery.signature, 'work']),
    );
    const results = await Promise.all(runs.map((run) => run.result));
    // 200 once stored (or a duplicate of a stored one), 409 while another attempt is storing it: never lost, never twice.
    for (const { status } of results) expect([200, 409]).toContain(status);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    expect(results.reduce((sum, r) => sum + r.handed, 0)).toBe(1);
    // The service retries what was answered 409: the retry, after the first store is done, is a duplicate answered 200.
    const retried = worker(setup, prefix, ['receive', setup.sandbox().baseUrl, delivery.isc, delivery.body, delivery.signature]);
    expect(await retried.result).toEqual({ status: 200, handed: 0 });
  }, 120_000);

  test('a worker killed mid-fetch: its entry is taken over after the lease and handed over once, by another process', async () => {
    const prefix = await setup.prefix();
    const sandbox = setup.sandbox();
    const delivery = await approvedDelivery(sandbox);
    const received = await worker(setup, prefix, ['receive', sandbox.baseUrl, delivery.isc, delivery.body, delivery.signature]).result;
    expect(received).toEqual({ status: 200, handed: 0 });
    // The first fetch hangs: the worker is stuck in it when it is killed.
    sandbox.service.injectFault({ kind: 'hang', path: /^\/identity\/response/, times: 1 });
    const before = fetches(sandbox);
    const dying = worker(setup, prefix, ['work', sandbox.baseUrl, delivery.isc, '1500', String(Date.now() + 20_000)]);
    // Killed once its fetch has reached the service (and hangs there).
    for (let i = 0; i < 200 && fetches(sandbox) === before; i++) await sleep(50);
    expect(fetches(sandbox)).toBe(before + 1);
    dying.child.kill('SIGKILL');
    await dying.result.catch(() => undefined);
    const survivor = worker(setup, prefix, ['work', sandbox.baseUrl, delivery.isc, '1500', String(Date.now() + 20_000)]);
    expect(await survivor.result).toEqual({ status: 0, handed: 1 });
  }, 120_000);
}
