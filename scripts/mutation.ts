/**
 * Mutation testing (issue #18) with StrykerJS: each group mutates its own modules and runs them
 * against the tests that exercise them, then one table of the scores against their goals. Message
 * text (string literals) is left out (stryker.config.mjs says why). Not part of `npm test`: a whole
 * run takes hours on two cores. Run it before a release, or a group after changing its modules.
 *
 *   npm run mutation                      every group
 *   npm run mutation -- webhooks sd-jwt   the groups named
 *   npm run mutation -- --incremental     only what changed since the last run (.stryker/<group>.json)
 *   npm run mutation -- --report          no run: the table of each group's last report, with its
 *                                         date and whether its sources changed since
 *
 * Reports: .tmp/mutation/<group>.html (survivors with their diffs) and .json. Exits 1 when a group
 * is under its goal, has no report, or has one that measured sources changed since. Survivors that
 * cannot change behaviour are listed in stryker.equivalent.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface Group {
  name: string;
  mutate: string[];
  tests: string[];
  /** Minimum mutation score, in percent. */
  goal: number;
}

const GROUPS: Group[] = [
  { name: 'webhooks', mutate: ['src/webhooks/**/*.ts'], tests: ['test/webhooks/**/*.test.ts'], goal: 90 },
  {
    name: 'sd-jwt',
    mutate: ['src/sd-jwt/**/*.ts', 'src/internal/jws.ts'],
    tests: ['test/sd-jwt/**/*.test.ts', 'test/internal/**/*.test.ts'],
    goal: 90,
  },
  {
    name: 'client',
    mutate: ['src/client/transport.ts', 'src/client/retry.ts', 'src/client/tokens.ts'],
    tests: ['test/client/**/*.test.ts'],
    goal: 85,
  },
  { name: 'oidc', mutate: ['src/oidc/**/*.ts'], tests: ['test/oidc/**/*.test.ts'], goal: 85 },
  {
    name: 'claims',
    mutate: ['src/claims/**/*.ts'],
    tests: ['test/claims/**/*.test.ts', 'test/client/identity-requests.test.ts', 'test/oidc/flow.test.ts'],
    goal: 85,
  },
];

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = `${ROOT}.tmp/mutation/`;
const args = process.argv.slice(2);
const incremental = args.includes('--incremental');
const reportOnly = args.includes('--report');
const named = args.filter((a) => !a.startsWith('--'));
const unknown = named.filter((n) => !GROUPS.some((g) => g.name === n));
if (unknown.length) {
  console.error(`unknown group ${unknown.join(', ')}: the groups are ${GROUPS.map((g) => g.name).join(', ')}`);
  process.exit(2);
}
const chosen = GROUPS.filter((g) => named.length === 0 || named.includes(g.name));
mkdirSync(OUT, { recursive: true });

interface Row {
  group: string;
  killed: number;
  survived: number;
  noCoverage: number;
  timeout: number;
  score: number;
  goal: number;
  /** When the report was written (UTC). */
  measured: string;
  /** Whether the mutated sources are still the ones the report measured. */
  current: boolean;
}

/** The score as Stryker counts it: detected (killed, timed out) over the mutants that ran or had no test. */
function rowOf(group: Group): Row {
  const report = JSON.parse(readFileSync(`${OUT}${group.name}.json`, 'utf8')) as {
    files: Record<string, { source: string; mutants: { status: string }[] }>;
  };
  const count: Record<string, number> = {};
  for (const file of Object.values(report.files)) for (const m of file.mutants) count[m.status] = (count[m.status] ?? 0) + 1;
  // A report measured other sources than these when a file it mutated reads differently now.
  const current = Object.entries(report.files).every(
    ([path, file]) => existsSync(`${ROOT}${path}`) && readFileSync(`${ROOT}${path}`, 'utf8') === file.source,
  );
  const measured = statSync(`${OUT}${group.name}.json`).mtime.toISOString().slice(0, 16).replace('T', ' ');
  const killed = count['Killed'] ?? 0;
  const timeout = count['Timeout'] ?? 0;
  const survived = count['Survived'] ?? 0;
  const noCoverage = count['NoCoverage'] ?? 0;
  const valid = killed + timeout + survived + noCoverage;
  return {
    group: group.name,
    killed,
    survived,
    noCoverage,
    timeout,
    score: valid ? (100 * (killed + timeout)) / valid : 100,
    goal: group.goal,
    measured,
    current,
  };
}

for (const group of reportOnly ? [] : chosen) {
  const config = `${OUT}${group.name}.config.mjs`;
  writeFileSync(
    config,
    `import base from ${JSON.stringify(`${ROOT}stryker.config.mjs`)};
export default {
  ...base,
  mutate: ${JSON.stringify(group.mutate)},
  htmlReporter: { fileName: ${JSON.stringify(`.tmp/mutation/${group.name}.html`)} },
  jsonReporter: { fileName: ${JSON.stringify(`.tmp/mutation/${group.name}.json`)} },
  incremental: ${incremental},
  incrementalFile: ${JSON.stringify(`.stryker/${group.name}.json`)},
};
`,
  );
  console.log(`\n▶ ${group.name}: mutating ${group.mutate.join(', ')} against ${group.tests.join(', ')}`);
  const run = spawnSync('npx', ['stryker', 'run', config], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, MUTATION_TESTS: group.tests.join(',') },
  });
  if (run.status !== 0 || !existsSync(`${OUT}${group.name}.json`)) {
    console.error(`stryker failed for ${group.name} (exit ${run.status})`);
    process.exit(1);
  }
}

const missing = chosen.filter((g) => !existsSync(`${OUT}${g.name}.json`));
const rows = chosen.filter((g) => !missing.includes(g)).map(rowOf);
const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
console.log(`\n${line(['group', 'killed', 'timed out', 'survived', 'no coverage', 'score', 'goal', '', 'measured (UTC)'])}`);
console.log(line(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---', '---']));
for (const r of rows) {
  const when = r.current ? r.measured : `${r.measured}, sources changed since: run it again`;
  console.log(
    line([
      r.group,
      r.killed,
      r.timeout,
      r.survived,
      r.noCoverage,
      `${r.score.toFixed(1)}%`,
      `${r.goal}%`,
      r.score >= r.goal ? 'met' : 'NOT met',
      when,
    ]),
  );
}
for (const g of missing) console.log(line([g.name, '', '', '', '', '', `${g.goal}%`, 'not run', '']));
console.log(`\nreports: .tmp/mutation/<group>.html`);
process.exit(missing.length === 0 && rows.every((r) => r.score >= r.goal && r.current) ? 0 : 1);
