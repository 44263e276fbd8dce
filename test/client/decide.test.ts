/** The retry decision on its own (src/client/retry.ts): one row per rule, the rest of the budget generous. */
import { describe, expect, test } from 'vitest';
import { decide, type Budget, type Decision, type Outcome } from '../../src/client/retry.js';

const budget = (changes: Partial<Budget> = {}): Budget => ({
  attempt: 0,
  replayed: false,
  maxRetries: 2,
  retry: 'safe',
  msLeft: 60_000,
  maxRetryAfterMs: 60_000,
  backoff: () => 700,
  ...changes,
});
const answer = (status: number, retryAfter?: number): Outcome => ({
  kind: 'answer',
  status,
  retryAfter: () => retryAfter,
  token: 'the-token',
});
/** An answer to a call that sent no token (the token endpoint, the status routes). */
const unsent = (status: number): Outcome => ({ kind: 'answer', status, retryAfter: () => undefined, token: undefined });
const none: Outcome = { kind: 'no-answer' };

describe('decide', () => {
  test.each<[string, Outcome, Partial<Budget>, Decision]>([
    ['a 200 is the answer', answer(200), {}, { action: 'accept' }],
    ['a 404 is the answer: not retryable', answer(404), {}, { action: 'accept' }],
    [
      'a 401 on a token believed valid is replayed once, dropping the token it carried',
      answer(401),
      {},
      { action: 'replay', token: 'the-token' },
    ],
    ['a 401 after the replay is the answer', answer(401), { replayed: true }, { action: 'accept' }],
    ['a 401 without a token sent (the token endpoint) is the answer', unsent(401), {}, { action: 'accept' }],
    ['a 503 is retried after the backoff', answer(503), {}, { action: 'retry', waitMs: 700, reason: 'status', asked: false }],
    ['a 408 is retried', answer(408), {}, { action: 'retry', waitMs: 700, reason: 'status', asked: false }],
    ['a 501 is not retried', answer(501), {}, { action: 'accept' }],
    ['a 505 is not retried', answer(505), {}, { action: 'accept' }],
    ['a 429 waits what Retry-After asks', answer(429, 3_000), {}, { action: 'retry', waitMs: 3_000, reason: 'rate-limit', asked: true }],
    [
      'a 429 is retried even for a call that creates something',
      answer(429),
      { retry: 'rate-limit-only' },
      { action: 'retry', waitMs: 700, reason: 'rate-limit', asked: false },
    ],
    [
      'a 503 of a call that creates something is the answer: its outcome is unknown',
      answer(503),
      { retry: 'rate-limit-only' },
      { action: 'accept' },
    ],
    ['no retries left: the answer', answer(503), { attempt: 2 }, { action: 'accept' }],
    [
      'a wait longer than maxRetryAfterMs is not shortened',
      answer(429, 61_000),
      {},
      { action: 'accept', notRetried: { waitMs: 61_000, why: 'too-long' } },
    ],
    [
      'a wait of exactly maxRetryAfterMs is waited',
      answer(429, 60_000),
      { msLeft: 70_000 },
      { action: 'retry', waitMs: 60_000, reason: 'rate-limit', asked: true },
    ],
    [
      'a wait that would end at the deadline is not started',
      answer(503, 5_000),
      { msLeft: 5_000 },
      { action: 'accept', notRetried: { waitMs: 5_000, why: 'past-deadline' } },
    ],
    [
      'a wait that ends before the deadline is',
      answer(503, 4_999),
      { msLeft: 5_000 },
      { action: 'retry', waitMs: 4_999, reason: 'status', asked: true },
    ],
    ['no answer: retried after the backoff', none, {}, { action: 'retry', waitMs: 700, reason: 'connection', asked: false }],
    ['no answer for a call that creates something: a connection error', none, { retry: 'rate-limit-only' }, { action: 'fail' }],
    ['no answer and no retries left: a connection error', none, { attempt: 2 }, { action: 'fail' }],
    ['no answer and the backoff would pass the deadline: a connection error', none, { msLeft: 700 }, { action: 'fail' }],
  ])('%s', (_rule, outcome, changes, decision) => {
    expect(decide(outcome, budget(changes))).toEqual(decision);
  });

  test('Retry-After and the backoff are read only when a retry is weighed', () => {
    let reads = 0;
    const read =
      <T>(value: T) =>
      () => {
        reads += 1;
        return value;
      };
    const lazy: Outcome = { kind: 'answer', status: 200, retryAfter: read(undefined), token: 'the-token' };
    decide(lazy, budget({ backoff: read(700) }));
    decide({ ...lazy, status: 404 }, budget({ backoff: read(700) }));
    decide(none, budget({ retry: 'rate-limit-only', backoff: read(700) }));
    expect(reads).toBe(0);
    decide({ ...lazy, status: 503 }, budget({ backoff: read(700) }));
    expect(reads).toBe(2);
  });
});
