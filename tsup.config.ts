import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'sd-jwt/index': 'src/sd-jwt/index.ts',
    'oidc/index': 'src/oidc/index.ts',
    'oidc/browser': 'src/oidc/browser.ts',
    'webhooks/index': 'src/webhooks/index.ts',
    'testing/index': 'src/testing/index.ts',
    'testing/msw': 'src/testing/msw.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  splitting: true,
  treeshake: true,
});
