import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    // No test may reach beyond localhost: msw errors on any request it does not handle.
    setupFiles: [],
  },
});
