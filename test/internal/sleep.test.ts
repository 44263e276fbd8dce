import { afterEach, describe, expect, test, vi } from 'vitest';
import { sleep } from '../../src/internal/sleep.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('sleep', () => {
  test('waits the time given, then resolves, leaving no timer behind', async () => {
    vi.useFakeTimers();
    let done = false;
    const waiting = sleep(1_000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  test("a signal aborted before it starts rejects at once with the signal's reason, and sets no timer", async () => {
    vi.useFakeTimers();
    const reason = new Error('caller gave up');
    const waiting = sleep(60_000, AbortSignal.abort(reason));
    expect(vi.getTimerCount()).toBe(0);
    await expect(waiting).rejects.toBe(reason);
  });

  test("a signal aborted while it waits rejects with the signal's reason and clears the timer", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const waiting = sleep(60_000, controller.signal);
    const settled = expect(waiting).rejects.toBe(reason);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(reason);
    await settled;
    expect(vi.getTimerCount()).toBe(0);
  });

  test('once it has resolved, it stops listening to the signal', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const added = vi.spyOn(controller.signal, 'addEventListener');
    const removed = vi.spyOn(controller.signal, 'removeEventListener');
    const waiting = sleep(5, controller.signal);
    await vi.advanceTimersByTimeAsync(5);
    await expect(waiting).resolves.toBeUndefined();
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
    // The listener it added, not another.
    expect(removed.mock.calls[0]?.[1]).toBe(added.mock.calls[0]?.[1]);
  });
});
