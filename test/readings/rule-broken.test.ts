/**
 * The property over the space of readings can fail (#39): here the rule "a result is never
 * emptier than the answer" is broken on purpose, as it was before (the identity's claims read from
 * the envelope's disclosures alone, those inside the signed credential ignored). The same
 * property that holds for the SDK as it is finds a service on which this SDK is silently wrong,
 * and it is one that leaves the envelope's disclosures empty (the claims only in the signed
 * credential, or there and as plain fields of `data`).
 */
import fc from 'fast-check';
import { expect, test, vi } from 'vitest';
import type { FakeReadings } from '../../src/testing/index.js';
import { harness } from '../helpers.js';
import { flows } from './flows.js';
import { readingsArbitrary } from './space.js';

vi.mock('../../src/sd-jwt/response.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/sd-jwt/response.js')>();
  /** The envelope's disclosures as claims, and nothing else: the broken rule. */
  const envelopeOnly = (response: unknown): Record<string, unknown> => {
    const data = (response as { data?: { disclosures?: { claim: string; value: unknown }[] } }).data;
    return Object.fromEntries((data?.disclosures ?? []).map(({ claim, value }) => [claim, value]));
  };
  return {
    ...real,
    verifyIdentityResponse: async (...args: Parameters<typeof real.verifyIdentityResponse>) => {
      const verified = await real.verifyIdentityResponse(...args);
      return { ...verified, claims: envelopeOnly(args[0]) };
    },
  };
});

test('with the claims read from the envelope alone, the property finds a service on which the SDK is silently wrong', async () => {
  const result = await fc.check(
    fc.asyncProperty(readingsArbitrary, async (readings) => {
      const { client, service } = await harness({ fake: { readings, webhookRetry: { attempts: 1 } } });
      await flows(client, service, readings);
    }),
    // Seeded: the same twenty services each run; the first failure ends it (no shrinking).
    { numRuns: 20, seed: 39, endOnFailure: true },
  );
  expect(result.failed).toBe(true);
  const [readings] = result.counterexample as [FakeReadings];
  // The placements that leave the envelope's disclosures empty: the claims only in the signed credential (and, flat, in data).
  expect(['credential', 'flat']).toContain(readings.claimPlacement);
  // Not a typed refusal: a verified identity whose claims are missing.
  expect(String(result.errorInstance)).toMatch(/expected undefined to/);
});
