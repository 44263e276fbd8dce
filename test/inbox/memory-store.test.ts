/** The memory store keeps every rule an inbox store keeps (the same tests run on Redis and PostgreSQL). */
import { describe } from 'vitest';
import { MemoryInboxStore } from '../../src/inbox/index.js';
import { storeRules } from './store-rules.js';

describe('MemoryInboxStore', () => {
  storeRules(async () => new MemoryInboxStore(), {
    windowOnCallersClock: true,
    leasesOnCallersClock: true,
    claimsByTokenExpiry: true,
    leasePerClaim: true,
  });
});
