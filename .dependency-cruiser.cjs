/**
 * The house's layers (ARCHITECTURE.md), enforced by `npm run lint`, part of `npm run check`.
 * Type-only imports count: a cycle through types is still a cycle.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment:
        'Modules depend one way; a cycle (type-only imports included) means two rooms that should be one, or a third that both need.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-never-imports-testing',
      severity: 'error',
      comment:
        'The fake is not part of the SDK: nothing in src/ outside testing/ may import it (but the CLI, whose sandbox command serves it).',
      from: { path: '^src/', pathNot: ['^src/testing/', '^src/cli/'] },
      to: { path: '^src/testing/' },
    },
    {
      name: 'testing-uses-internal-only',
      severity: 'error',
      comment:
        "The fake uses nothing of the SDK but internal/ (and the generated contract): a fake that shared the SDK's code would agree with its mistakes.",
      from: { path: '^src/testing/' },
      to: { path: '^src/', pathNot: ['^src/testing/', '^src/contract/', '^src/internal/', '^src/version\\.ts$'] },
    },
    {
      name: 'contract-imports-nothing',
      severity: 'error',
      comment:
        'contract/ is the spec written down (the OpenAPI document, patterns, claim keys, the error table): it depends on nothing, and the client, the fake and the errors derive from it.',
      from: { path: '^src/contract/' },
      to: { pathNot: '^src/contract/' },
    },
    {
      name: 'verifiers-never-import-the-client',
      severity: 'error',
      comment: 'The verifiers (SD-JWT, webhooks, OIDC, claims) depend on errors/ and internal/ only, never on the REST client.',
      from: { path: '^src/(sd-jwt|webhooks|oidc|claims)/' },
      to: { path: '^src/(client|redis|postgres)/' },
    },
    {
      name: 'inbox-takes-the-client-it-is-given',
      severity: 'error',
      comment: "The inbox works with the client the application passes in: it may import the client's types, never its code.",
      from: { path: '^src/inbox/' },
      to: { path: '^src/(client|redis|postgres)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'internal-is-the-floor',
      severity: 'error',
      comment: 'internal/ is the floor every room stands on: it imports no room above it.',
      from: { path: '^src/internal/' },
      to: { path: '^src/', pathNot: ['^src/internal/', '^src/version\\.ts$'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Subpath exports (jose/jwt/decode) are resolved as Node resolves them.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
