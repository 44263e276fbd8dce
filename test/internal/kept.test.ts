/** The rule for a value read from the network and kept (discovery, key sets): shared while read, a failed read forgotten (#46). */
import { describe, expect, test } from 'vitest';
import { kept } from '../../src/internal/kept.js';

/** A read the test settles by hand, counting how often it was started. */
function reads() {
  const pending: { resolve(value: string): void; reject(error: Error): void }[] = [];
  const read = () =>
    new Promise<string>((resolve, reject) => {
      pending.push({ resolve, reject });
    });
  return { read, pending };
}

describe('kept', () => {
  test('callers while a read runs share it; the value is kept, and read again only when asked', async () => {
    let clock = 1_000;
    const value = kept<string>(() => clock);
    const { read, pending } = reads();
    expect(value.age()).toBe(Number.POSITIVE_INFINITY);
    const first = value.get(false, read);
    const second = value.get(false, read);
    expect(pending).toHaveLength(1);
    pending[0]!.resolve('v1');
    expect(await Promise.all([first, second])).toEqual(['v1', 'v1']);
    clock += 500;
    expect(value.age()).toBe(500);
    expect(await value.get(false, read)).toBe('v1');
    const again = value.get(true, read);
    expect(pending).toHaveLength(2);
    expect(value.age()).toBe(0);
    pending[1]!.resolve('v2');
    expect(await again).toBe('v2');
  });

  test('a read that failed is forgotten: the next caller reads again rather than getting the failure', async () => {
    const value = kept<string>(() => 0);
    const { read, pending } = reads();
    const failing = value.get(false, read);
    pending[0]!.reject(new Error('down'));
    await expect(failing).rejects.toThrow('down');
    expect(value.age()).toBe(Number.POSITIVE_INFINITY);
    const next = value.get(false, read);
    expect(pending).toHaveLength(2);
    pending[1]!.resolve('back');
    expect(await next).toBe('back');
  });

  test('an old read that fails after a newer one took its place forgets nothing', async () => {
    const value = kept<string>(() => 0);
    const { read, pending } = reads();
    const old = value.get(false, read);
    const newer = value.get(true, read);
    pending[1]!.resolve('new');
    await newer;
    pending[0]!.reject(new Error('late failure'));
    await expect(old).rejects.toThrow('late failure');
    expect(await value.get(false, read)).toBe('new');
    expect(pending).toHaveLength(2);
  });
});
