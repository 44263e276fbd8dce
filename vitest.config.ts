import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Examples import the package by name, as users do; the tests run them against the sources.
    alias: [
      { find: /^@acme\/identity\/testing\/msw$/, replacement: src('testing/msw.ts') },
      { find: /^@acme\/identity\/oidc\/browser$/, replacement: src('oidc/browser.ts') },
      { find: /^@acme\/identity\/webhooks\/(express|fastify|next|hono)$/, replacement: src('webhooks/frameworks/$1.ts') },
      {
        find: /^@acme\/identity\/(testing|sd-jwt|webhooks|oidc|redis|postgres|return-page|inbox|passport|authjs|better-auth)$/,
        replacement: src('$1/index.ts'),
      },
      { find: /^@acme\/identity$/, replacement: src('index.ts') },
    ],
  },
  test: {
    // `npm run mutation` runs each group against its own tests (scripts/mutation.ts).
    include: process.env['MUTATION_TESTS']?.split(',') ?? ['test/**/*.test.ts'],
    // No ACME_* setting of the machine reaches a test; every fake service a test creates is held to its OpenAPI
    // document; every property runs from a known seed (FUZZ_SEED).
    setupFiles: ['test/setup/environment.ts', 'test/setup/contract.ts', 'test/setup/properties.ts'],
    environment: 'node',
    // Room for a hang to be caught, never a goal (speed lives in npm run bench): a test that runs a
    // compiler, a bundler or a process takes a few seconds alone and three to four times that on two
    // cores shared with a mutation run or a second suite (a CI run there timed out at 20 s in the
    // package's two type checks of the guides' snippets). Hooks (a Redis or PostgreSQL started) alike.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
