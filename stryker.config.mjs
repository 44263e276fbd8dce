// StrykerJS: what every mutation group shares. `npm run mutation` (scripts/mutation.ts) runs the
// groups, each mutating its own modules against its own tests, and prints the table.
// @ts-check
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.config.ts', related: false },
  checkers: ['typescript'],
  // The sources only: a mutant that breaks them is a compile error; the tests' types are not rechecked.
  tsconfigFile: 'tsconfig.mutation.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  // Message text is for people: a changed word in an error message is not a broken rule (the
  // tests assert codes, not messages, as the house rules say). Left out of the score.
  mutator: { excludedMutations: ['StringLiteral'] },
  coverageAnalysis: 'perTest',
  // Three processes on two cores: the checkers, light with the sources only, are done early and
  // hand their places to test runners.
  concurrency: 3,
  timeoutMS: 20000,
  reporters: ['html', 'json', 'clear-text', 'progress'],
  incremental: false,
  tempDirName: '.tmp/stryker-tmp',
  // What the sandboxes need not copy: outputs, reports, screenshots, the smoke-test runtimes.
  ignorePatterns: ['.tmp', 'dist', 'docs', 'coverage', 'scripts/runtimes', 'scripts/bench/cold-start', '*.tgz'],
  cleanTempDir: 'always',
};
