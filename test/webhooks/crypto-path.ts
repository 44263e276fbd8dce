/**
 * The crypto path the webhook verifier takes in a test file: `node:crypto` on Node, Web Crypto
 * where the runtime has no `node:crypto` (browsers, edge runtimes, and `web-crypto.test.ts`, which
 * runs every webhook test file again that way). Tests that count MAC work count it on the path in use.
 */
import { vi } from 'vitest';
import { nodeCrypto } from '../../src/internal/node-crypto.js';

/**
 * A spy on the call that checks one secret's MAC: `createHmac` (once per secret, each MAC then
 * compared with `timingSafeEqual`), or `crypto.subtle.verify` (once per secret and MAC).
 */
export function macWork() {
  const node = nodeCrypto();
  return node ? vi.spyOn(node, 'createHmac') : vi.spyOn(crypto.subtle, 'verify');
}

/** A spy on the constant-time comparison of one secret's MAC with one signature: `timingSafeEqual`, or `crypto.subtle.verify`. */
export function comparisons() {
  const node = nodeCrypto();
  return node ? vi.spyOn(node, 'timingSafeEqual') : vi.spyOn(crypto.subtle, 'verify');
}
