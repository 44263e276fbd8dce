import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      'oidc/index': 'src/oidc/index.ts',
      'oidc/browser': 'src/oidc/browser.ts',
      'sd-jwt/index': 'src/sd-jwt/index.ts',
      'webhooks/index': 'src/webhooks/index.ts',
      'redis/index': 'src/redis/index.ts',
      'testing/index': 'src/testing/index.ts',
      'testing/msw': 'src/testing/msw.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    // `npm run build` empties dist/ first: the two builds run side by side and must not clean each other's output.
    clean: false,
    target: 'es2022',
    splitting: true,
    treeshake: true,
  },
  {
    // The sandbox command (`bin`): ESM only, it awaits at the top level.
    entry: { 'bin/sandbox': 'src/testing/cli.ts' },
    format: ['esm'],
    dts: false,
    sourcemap: false,
    clean: false,
    target: 'es2022',
    platform: 'node',
  },
]);
