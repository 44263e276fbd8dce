/**
 * Vitest setup: every fake service a test creates in this process checks its exchanges against its
 * OpenAPI document (see contract-checker.ts); a test that caused a mismatch fails after it runs.
 */
import { afterEach, expect, vi } from 'vitest';
import type { FakeServiceOptions } from '../../src/testing/index.js';
import { departsFromDocument, resolveReadings } from '../../src/testing/readings.js';
import { contractProblems } from './contract-checker.js';

const pending: Promise<string[]>[] = [];

vi.mock(import('../../src/testing/service.js'), async (importOriginal) => {
  const original = await importOriginal();
  return {
    ...original,
    createFakeService: (options: FakeServiceOptions = {}) => {
      const baseUrl = (options.baseUrl ?? 'https://api.acme.test/api/v1').replace(/\/+$/, '');
      return original.createFakeService({
        ...options,
        onExchange: (exchange) => {
          options.onExchange?.(exchange);
          // Readings that move an envelope or write numbers as strings depart from the document on purpose.
          if (departsFromDocument(resolveReadings(options.readings))) return;
          // Cloned now, before the caller reads the answer.
          const copy = { ...exchange, response: exchange.response.clone() };
          pending.push(contractProblems(baseUrl, copy).catch((error: unknown) => [`contract check failed: ${String(error)}`]));
        },
      });
    },
  };
});

afterEach(async () => {
  const problems = (await Promise.all(pending.splice(0))).flat();
  expect(problems, 'the fake departed from its OpenAPI document').toEqual([]);
});
