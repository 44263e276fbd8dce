/**
 * Secrets at rest (internal/sealing.ts): a token in a shared store opens only under the key and the
 * name it was sealed with, and anything else is refused as not sealed (#45: the boundary mutation
 * group found these rules held by no test of their own). Every rule runs on both paths, `node:crypto`
 * and Web Crypto (#44 moved Node to the first), and what one seals the other opens.
 */
import fc from 'fast-check';
import { describe, expect, test, vi } from 'vitest';
import { nodeCrypto } from '../../src/internal/node-crypto.js';
import { importAesKey, open, seal } from '../../src/internal/sealing.js';
import { rejection } from '../helpers.js';

const keyBytes = (fill: number) => new Uint8Array(32).fill(fill);
const aesKey = async (fill = 1) => (await importAesKey(keyBytes(fill))) as CryptoKey;

describe('importAesKey', () => {
  test('32 bytes, or their base64, make an AES-GCM key that encrypts and decrypts and cannot be exported', async () => {
    for (const given of [keyBytes(3), Buffer.from(keyBytes(3)).toString('base64')]) {
      const key = (await importAesKey(given)) as CryptoKey;
      expect(key.algorithm.name).toBe('AES-GCM');
      expect(key.extractable).toBe(false);
      expect([...key.usages].sort()).toEqual(['decrypt', 'encrypt']);
    }
  });

  test('an AES-GCM CryptoKey to encrypt and decrypt is taken as it is; another CryptoKey, or not 32 bytes, is what is wrong with it', async () => {
    const given = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    expect(await importAesKey(given)).toBe(given);
    const hmac = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    expect(importAesKey(hmac)).toBe('must be an AES-GCM key');
    // One that could seal but never open (or the reverse) would lose every token it sealed.
    for (const usages of [['encrypt'], ['decrypt']] as const) {
      const half = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, usages);
      expect(importAesKey(half)).toBe('must be a key for both encrypt and decrypt');
    }
    for (const wrong of [new Uint8Array(31), new Uint8Array(33), Buffer.from(new Uint8Array(16)).toString('base64'), 'not base64!']) {
      expect(importAesKey(wrong)).toBe('must be 32 bytes (a Uint8Array, or their base64)');
    }
  });
});

const paths = [
  ['node:crypto', nodeCrypto()],
  ['Web Crypto', null],
] as const;

test('this runtime has node:crypto: both paths below are really taken', () => {
  expect(nodeCrypto()).not.toBeNull();
});

describe.each(paths)('seal and open on %s', (_, node) => {
  test('property: any text opens as it was, under its key and name, and under no other key or name', async () => {
    const key = await aesKey(1);
    const other = await aesKey(2);
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string({ minLength: 1 }), async (text, name) => {
        const sealed = await seal(key, text, name, node);
        expect(sealed.startsWith('v1.')).toBe(true);
        expect(await open(key, sealed, name, node)).toBe(text);
        await expect(open(key, sealed, `${name}x`, node)).rejects.toBeDefined();
        await expect(open(other, sealed, name, node)).rejects.toBeDefined();
      }),
      { numRuns: 40 },
    );
  });

  test('each seal draws a fresh IV: one text sealed again and again under one key and name never repeats its IV (AES-GCM must never reuse one), across the batches IVs are drawn in', async () => {
    const key = await aesKey();
    // 300 seals: more than two batches of 128 IVs, and a batch left part-used.
    const sealed = await Promise.all(Array.from({ length: 300 }, () => seal(key, 'the same token', 'entry', node)));
    const ivs = sealed.map((value) => Buffer.from(value.slice(3), 'base64').subarray(0, 12).toString('hex'));
    expect(new Set(ivs).size).toBe(300);
    expect(new Set(sealed).size).toBe(300);
    for (const value of sealed) expect(await open(key, value, 'entry', node)).toBe('the same token');
  });

  test('the empty text seals to the shortest sealed value (IV and tag, 28 bytes), and opens', async () => {
    const key = await aesKey();
    const sealed = await seal(key, '', 'entry', node);
    expect(Buffer.from(sealed.slice(3), 'base64')).toHaveLength(28);
    expect(await open(key, sealed, 'entry', node)).toBe('');
  });

  test("what is not sealed (no v1., not base64, shorter than an IV and a tag) is a TypeError, not the cipher's error", async () => {
    const key = await aesKey();
    const sealed = await seal(key, 'token', 'entry', node);
    for (const value of [sealed.slice(3), `v2.${sealed.slice(3)}`, 'v1.!!!!', `v1.${Buffer.alloc(27, 5).toString('base64')}`]) {
      const error = await rejection(open(key, value, 'entry', node));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe('not sealed');
    }
  });

  test('bytes sealed under the right key and name that are not UTF-8 are refused, not read with replacement characters', async () => {
    const key = await aesKey();
    const iv = new Uint8Array(12).fill(4);
    const cipher = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: new TextEncoder().encode('entry') },
        key,
        new Uint8Array([0x61, 0xff, 0x62]),
      ),
    );
    const value = `v1.${Buffer.concat([iv, cipher]).toString('base64')}`;
    expect(await rejection(open(key, value, 'entry', node))).toBeInstanceOf(TypeError);
  });

  test('property: any one bit changed anywhere in a sealed value (its IV, its ciphertext, its tag) and it does not open', async () => {
    const key = await aesKey();
    const sealed = await seal(key, 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln', 'entry', node);
    const bytes = Buffer.from(sealed.slice(3), 'base64');
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: bytes.length * 8 - 1 }), async (bit) => {
        const changed = Buffer.from(bytes);
        changed[bit >> 3]! ^= 1 << (bit & 7);
        await expect(open(key, `v1.${changed.toString('base64')}`, 'entry', node)).rejects.toBeDefined();
      }),
      { numRuns: 60 },
    );
  });

  test('a CryptoKey of another AES length seals and opens; a key made for one use only does only that', async () => {
    for (const length of [128, 192]) {
      const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length }, false, ['encrypt', 'decrypt']);
      expect(await open(key, await seal(key, 'token', 'entry', node), 'entry', node)).toBe('token');
    }
    const both = await aesKey();
    const bytes = new Uint8Array(32).fill(1);
    const encryptOnly = await crypto.subtle.importKey('raw', bytes, 'AES-GCM', false, ['encrypt']);
    const decryptOnly = await crypto.subtle.importKey('raw', bytes, 'AES-GCM', false, ['decrypt']);
    const sealed = await seal(encryptOnly, 'token', 'entry', node);
    expect(await open(both, sealed, 'entry', node)).toBe('token');
    expect(await open(decryptOnly, sealed, 'entry', node)).toBe('token');
    await expect(open(encryptOnly, sealed, 'entry', node)).rejects.toBeDefined();
    await expect(seal(decryptOnly, 'token', 'entry', node)).rejects.toBeDefined();
  });
});

test('property: what one path seals the other opens, and under another name neither does', async () => {
  const key = await aesKey(9);
  const [onNode, onWeb] = [paths[0][1], paths[1][1]];
  await fc.assert(
    fc.asyncProperty(fc.string(), fc.string({ minLength: 1 }), async (text, name) => {
      for (const [from, to] of [
        [onNode, onWeb],
        [onWeb, onNode],
      ]) {
        const sealed = await seal(key, text, name, from);
        expect(await open(key, sealed, name, to)).toBe(text);
        await expect(open(key, sealed, `${name}.`, to)).rejects.toBeDefined();
      }
    }),
    { numRuns: 40 },
  );
});

test('a runtime without a global CryptoKey (an older one) still takes 32 bytes, and never throws a raw TypeError', async () => {
  const bytes = new Uint8Array(32).fill(5);
  vi.stubGlobal('CryptoKey', undefined);
  try {
    const key = await importAesKey(bytes);
    expect((key as CryptoKey).algorithm.name).toBe('AES-GCM');
    expect(importAesKey(new Uint8Array(3))).toBe('must be 32 bytes (a Uint8Array, or their base64)');
  } finally {
    vi.unstubAllGlobals();
  }
});
