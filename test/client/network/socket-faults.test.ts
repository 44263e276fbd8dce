/**
 * Every operation through every connection fault, over real sockets (the fake served on localhost,
 * the runtime's own fetch): the error class, how many attempts the server saw, and when the error
 * came, as an order of events against timers of the test's own (never a measured time).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AcmeIdentityError,
  ConnectionError,
  ExternalServiceError,
  TimeoutError,
  type AcmeIdentityClient,
} from '../../../src/index.js';
import type { Fault } from '../../../src/testing/index.js';
import { OPERATIONS, attempts, served, settled, type Served } from './localhost.js';

/** The deadline of the calls that meet a stall: short, so the suite does not wait long. */
const SHORT_DEADLINE_MS = 400;
/** The deadline of the other calls: room for one backoff (at most 500 ms) and a retry. */
const DEADLINE_MS = 4_000;
/** What a loaded machine may add to a deadline before the caller has its error: the test's own timer of deadline + margin fires after it. */
const MARGIN_MS = 400;

type FaultSpec = Fault & { kind: Fault['kind'] };

/** The faults that end an attempt with no usable answer, and what each becomes when it is the last. */
const CUT: { name: string; fault: FaultSpec; error: new (...args: never[]) => AcmeIdentityError; phase?: 'send' | 'body' }[] = [
  { name: 'a reset before the headers', fault: { kind: 'network' }, error: ConnectionError, phase: 'send' },
  { name: 'a reset after the headers', fault: { kind: 'reset-after-headers' }, error: ConnectionError, phase: 'body' },
  { name: 'a body shorter than its Content-Length', fault: { kind: 'truncate', framing: 'length' }, error: ConnectionError, phase: 'body' },
  {
    name: 'a chunked body reset before its last chunk',
    fault: { kind: 'truncate', framing: 'chunked', close: 'reset' },
    error: ConnectionError,
    phase: 'body',
  },
  { name: "a proxy's HTML 502", fault: { kind: 'proxy-502' }, error: ExternalServiceError },
];

/** The faults that hold an attempt past the deadline. */
const WAITS: { name: string; fault: FaultSpec }[] = [
  { name: 'a body that stalls half-way', fault: { kind: 'stall-body' } },
  { name: 'an answer that never comes', fault: { kind: 'hang' } },
  { name: 'headers slower than the deadline', fault: { kind: 'delay', ms: SHORT_DEADLINE_MS * 4 } },
];

let s: Served;
let client: AcmeIdentityClient;
beforeAll(async () => {
  s = await served();
  client = s.client({ timeoutMs: DEADLINE_MS, maxRetries: 1 });
  await client.auth.accessToken();
});
afterAll(() => s.running.close());

const names = Object.keys(OPERATIONS);
const safe = names.filter((name) => !['identityRequests.create', 'credentials.submit'].includes(name));
const creates = names.filter((name) => !safe.includes(name));

async function prepare(name: string) {
  const op = await OPERATIONS[name]!(client, s.service);
  return { op, since: s.service.requests.length };
}

describe.each(safe)('%s (safe to repeat)', (name) => {
  test.each(CUT)('$name once: retried, and the retry answers', async ({ fault, phase }) => {
    const { op, since } = await prepare(name);
    s.service.injectFault({ ...fault, method: op.method, path: op.path });
    const { error, when } = await settled(op.call, 0, DEADLINE_MS + MARGIN_MS);
    // A body cut short means the service did the work: a delete or a revoke repeated then finds it done.
    if (phase === 'body' && op.repeated) expect(error).toBeInstanceOf(op.repeated);
    else expect(error).toBeUndefined();
    if (error) expect(error).toMatchObject({ attempts: 2 });
    expect(attempts(s.service, op, since)).toBe(2);
    expect(when).not.toBe('after-late');
  });

  test.each(CUT)('$name every time: the typed error after maxRetries', async ({ fault, error: Class, phase }) => {
    const { op, since } = await prepare(name);
    s.service.injectFault({ ...fault, method: op.method, path: op.path, times: 5 });
    const { error, when } = await settled(op.call, 0, DEADLINE_MS + MARGIN_MS);
    expect(error).toBeInstanceOf(Class);
    // The failure of the last attempt stays reachable: the reset, or the read that broke off.
    if (phase) expect(error).toMatchObject({ phase, cause: expect.any(Error) });
    expect(attempts(s.service, op, since)).toBe(2);
    expect(when).not.toBe('after-late');
    s.service.clearFaults();
  });

  test.each(WAITS)('$name: TimeoutError at the deadline, one attempt', async ({ fault }) => {
    await waitsOutTheDeadline(name, fault);
  });

  test('slow headers within the deadline: the answer is used, one attempt', async () => {
    await slowButInTime(name);
  });
});

describe.each(creates)('%s (creates: not repeated)', (name) => {
  test.each(CUT)('$name: the typed error at once, one attempt', async ({ fault, error: Class, phase }) => {
    const { op, since } = await prepare(name);
    s.service.injectFault({ ...fault, method: op.method, path: op.path });
    const { error, when } = await settled(op.call, 0, DEADLINE_MS + MARGIN_MS);
    expect(error).toBeInstanceOf(Class);
    // The failure of the last attempt stays reachable: the reset, or the read that broke off.
    if (phase) expect(error).toMatchObject({ phase, cause: expect.any(Error) });
    expect(attempts(s.service, op, since)).toBe(1);
    expect(when).not.toBe('after-late');
  });

  test.each(WAITS)('$name: TimeoutError at the deadline, one attempt', async ({ fault }) => {
    await waitsOutTheDeadline(name, fault);
  });

  test('slow headers within the deadline: the answer is used, one attempt', async () => {
    await slowButInTime(name);
  });
});

/** A fault that holds the call past its deadline: the caller has a TimeoutError when the deadline passes, not later. */
async function waitsOutTheDeadline(name: string, fault: FaultSpec) {
  const { op, since } = await prepare(name);
  s.service.injectFault({ ...fault, method: op.method, path: op.path });
  // Not before the deadline (a timer of the test's set 5 ms sooner fires first), and before a margin past it.
  const { error, when } = await settled(
    () => op.call({ timeoutMs: SHORT_DEADLINE_MS }),
    SHORT_DEADLINE_MS - 5,
    SHORT_DEADLINE_MS + MARGIN_MS,
  );
  expect(error).toBeInstanceOf(TimeoutError);
  expect(error).toMatchObject({ code: 'ERR_TIMEOUT', timeoutMs: SHORT_DEADLINE_MS });
  expect(attempts(s.service, op, since)).toBe(1);
  expect(when).toBe('between');
}

async function slowButInTime(name: string) {
  const { op, since } = await prepare(name);
  s.service.injectFault({ kind: 'delay', ms: 150, method: op.method, path: op.path });
  const { error } = await settled(() => op.call({ timeoutMs: DEADLINE_MS }), 0, DEADLINE_MS);
  expect(error).toBeUndefined();
  expect(attempts(s.service, op, since)).toBe(1);
}
