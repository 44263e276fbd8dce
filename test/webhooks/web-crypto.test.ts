/**
 * Every webhook test file again on the Web Crypto path (#45): the SDK sees no `node:crypto`, as in
 * browsers and edge runtimes, so every MAC is computed and compared by `crypto.subtle`. A rule
 * kept on one path and broken on the other (such as the signed prefix of Stripe's and Standard
 * Webhooks' forms) fails here or in the file's own run. `flow.test.ts` is not run again: its fake
 * service (`test/helpers.ts`: msw, refusing unhandled requests for the whole file) would catch the
 * other files' localhost servers, and it checks the journey after verification, not the MAC.
 */
import { expect, test, vi } from 'vitest';
import { nodeCrypto } from '../../src/internal/node-crypto.js';

vi.mock('../../src/internal/node-crypto.js', () => ({ nodeCrypto: () => null }));

test('the SDK sees no node:crypto in this file', () => {
  expect(nodeCrypto()).toBeNull();
});

await import('./conventions.test.js');
await import('./edges.test.js');
await import('./frameworks.test.js');
await import('./key-form.test.js');
await import('./receiver.test.js');
await import('./recipes.test.js');
await import('./rotation.test.js');
await import('./rules.test.js');
await import('./timestamp-header.test.js');
await import('./verify.test.js');
