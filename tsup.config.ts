import { defineConfig } from 'tsup';

const entry = {
  index: 'src/index.ts',
  'oidc/index': 'src/oidc/index.ts',
  'oidc/browser': 'src/oidc/browser.ts',
  'sd-jwt/index': 'src/sd-jwt/index.ts',
  'webhooks/index': 'src/webhooks/index.ts',
  'webhooks/express': 'src/webhooks/frameworks/express.ts',
  'webhooks/fastify': 'src/webhooks/frameworks/fastify.ts',
  'webhooks/next': 'src/webhooks/frameworks/next.ts',
  'webhooks/hono': 'src/webhooks/frameworks/hono.ts',
  'inbox/index': 'src/inbox/index.ts',
  'passport/index': 'src/passport/index.ts',
  'authjs/index': 'src/authjs/index.ts',
  'better-auth/index': 'src/better-auth/index.ts',
  'redis/index': 'src/redis/index.ts',
  'postgres/index': 'src/postgres/index.ts',
  'return-page/index': 'src/return-page/index.ts',
  'testing/index': 'src/testing/index.ts',
  'testing/msw': 'src/testing/msw.ts',
  // Not a public entry (the exports map has none): it puts the client in a chunk of its own, so
  // that `import { ConflictError } from '@acme/identity'` leaves the client and zod out of a bundle.
  'internal/client': 'src/client/index.ts',
};

/**
 * Bundled into every build: zod/mini and openapi-fetch, which no public type names. Imported, zod
 * loads its 40-odd locale modules (about 50 ms of a cold start) that its tree-shaken copy here
 * leaves out; see scripts/bench/cold-start.ts. jose and oauth4webapi, whose security fixes users
 * must be able to take without us, stay dependencies of the ESM build.
 */
const bundled = [/^zod(\/|$)/, /^openapi-fetch(\/|$)/];

const common = {
  entry,
  dts: true,
  sourcemap: true,
  // `npm run build` empties dist/ first: the builds run side by side and must not clean each other's output.
  clean: false,
  target: 'es2022',
  splitting: true,
  treeshake: true,
} as const;

export default defineConfig([
  { ...common, format: ['esm'], noExternal: bundled },
  {
    ...common,
    format: ['cjs'],
    // jose and oauth4webapi publish ESM only: a CommonJS `require` of them needs Node's
    // require(esm) (20.19+, 22.12+). Bundled into the CommonJS build, `require('@acme/identity')`
    // works on every Node the package supports, with or without it. The ESM build imports them.
    noExternal: [...bundled, /^jose(\/|$)/, /^oauth4webapi(\/|$)/],
  },
  {
    // The commands (`bin`): ESM only, they await at the top level. `acme-identity sandbox` loads the
    // sandbox's module, a chunk both share.
    entry: { 'bin/sandbox': 'src/testing/cli.ts', 'bin/acme-identity': 'src/cli/main.ts' },
    splitting: true,
    format: ['esm'],
    dts: false,
    sourcemap: false,
    clean: false,
    target: 'es2022',
    platform: 'node',
  },
]);
