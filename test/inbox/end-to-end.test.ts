/**
 * The end-to-end rules of test/inbox/end-to-end.ts on the memory store, against a sandbox on
 * localhost (Redis and PostgreSQL run them in their own files, on their servers).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { MemoryInboxStore } from '../../src/inbox/index.js';
import { startSandbox, type Sandbox } from '../../src/testing/index.js';
import { endToEnd } from './end-to-end.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

describe('the inbox end to end on the memory store', () => {
  endToEnd({ sandbox: () => sandbox, store: async () => new MemoryInboxStore() });
});
