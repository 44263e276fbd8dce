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
 * Reports: .tmp/mutation/<group>.html (survivors with their diffs) and .json, kept on this machine.
 * What a run found is also written to mutation-summary.json, which is committed: per group the
 * counts, the score, the date and commit, the survivors (file, line, mutator and the replacement)
 * and a SHA-256 of the sources and of the tests it measured, so `--report` on a fresh clone says
 * which groups were measured on the code as it is now. A run exits 1 when a group is under its
 * goal; `--report` exits 1 when a measured group is under its goal or its sources or tests
 * changed since (a group never measured is listed as such). Survivors that cannot change
 * behaviour are listed in stryker.equivalent.md.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface Group {
  name: string;
  mutate: string[];
  tests: string[];
  /** Minimum mutation score, in percent. */
  goal: number;
}

const GROUPS: Group[] = [
  { name: 'webhooks', mutate: ['src/webhooks/**/*.ts'], tests: ['test/webhooks/**/*.test.ts', 'test/errors/factories.test.ts'], goal: 90 },
  {
    name: 'sd-jwt',
    mutate: ['src/sd-jwt/**/*.ts', 'src/internal/jws.ts', 'src/internal/jws-node.ts'],
    tests: ['test/sd-jwt/**/*.test.ts', 'test/internal/**/*.test.ts'],
    goal: 90,
  },
  // The client's decisions (when to retry, replay, renew a token, what the service's clock says, how
  // long a token lives) against the tests that drive them; the transport apart (below): nearly every
  // client test goes through it.
  {
    name: 'client',
    mutate: ['src/client/retry.ts', 'src/client/tokens.ts', 'src/client/clock.ts', 'src/client/lifetime.ts'],
    // clock.ts is taught by answers and tokens: its own tests and the client's clock-skew tests.
    tests: [
      'test/client/lifetime.test.ts',
      'test/client/clock.test.ts',
      'test/client/clock-skew.test.ts',
      'test/client/decide.test.ts',
      'test/client/retries.test.ts',
      'test/client/deadline.test.ts',
      'test/client/tokens.test.ts',
      'test/client/token-manager.test.ts',
      'test/client/token-hedge.test.ts',
      'test/client/network/token-renewal.test.ts',
    ],
    goal: 85,
  },
  // The transport against the client's tests that drive it in process (msw, fake timers, the
  // fake's faults). Left out: network/fault-sequences.test.ts runs the client in a child process,
  // which never sees the mutant under test; network/socket-faults.test.ts holds 144 calls through
  // the runtime's own fetch to tight wall-time bounds over real sockets, which a machine loaded by
  // the run breaks (a mutant it "kills" would be a timing, not a rule), and it alone would make
  // each surviving mutant cost a minute.
  {
    name: 'transport',
    mutate: ['src/client/transport.ts'],
    tests: ['test/client/*.test.ts', 'test/client/network/token-renewal.test.ts', 'test/client/network/redirects.test.ts'],
    goal: 85,
  },
  { name: 'oidc', mutate: ['src/oidc/**/*.ts'], tests: ['test/oidc/**/*.test.ts'], goal: 85 },
  // The inbox's rules (hand over once, retry within the token's life, dead letters, the leases) on
  // its memory store. test/redis/inbox.test.ts holds the Redis stores to the same rules, most of it
  // in worker processes that never see the mutant under test.
  { name: 'inbox', mutate: ['src/inbox/**/*.ts'], tests: ['test/inbox/**/*.test.ts', 'test/redis/inbox.test.ts'], goal: 85 },
  // The boundary's own rules: which path a parameter reaches (identity codes percent-encoded, a
  // credential_ref's dot segments refused), which envelope an answer's record is opened from (and
  // when a 2xx is no success: an answer or a verification that says it failed; where an error's
  // code is read), what a message may carry (control and line-separator characters stripped), and
  // the sealing of a stored token to its entry. The boundary was one group with `options` and
  // `calls` below: about 1,500 mutants, more than three hours on two cores, more than one sitting.
  {
    name: 'boundary',
    mutate: [
      'src/client/paths.ts',
      'src/client/envelope.ts',
      'src/client/verdict.ts',
      'src/client/failure.ts',
      'src/internal/text.ts',
      'src/internal/sealing.ts',
    ],
    // Every in-process client test: client.ts wires the rules into each call (which errors a
    // credential endpoint reads, which token route a renewal takes), and those tests drive it; and
    // token requests under their own deadline (tokenTimeoutMs), on real sockets.
    tests: [
      'test/client/*.test.ts',
      'test/client/network/token-renewal.test.ts',
      'test/internal/text.test.ts',
      'test/internal/sealing.test.ts',
      'test/inbox/rules.test.ts',
    ],
    goal: 85,
  },
  // The options a client is built from (https only, header values that cannot split a header, the
  // retry and timeout bounds) and the webhook-to-identity flow (the access token names the event's
  // request, a cancellation is never an identity).
  {
    name: 'options',
    mutate: ['src/client/options.ts', 'src/client/identity-flow.ts'],
    // The flow's own tests are the webhook flow's (a token naming another request, a cancellation,
    // an expired token), run against the fake.
    tests: ['test/client/*.test.ts', 'test/webhooks/flow.test.ts', 'test/inbox/rules.test.ts'],
    goal: 85,
  },
  // The calls the client makes and what each sends: which errors a credential endpoint reads, which
  // token route a renewal takes, the identity headers, and the request bodies (the claims' forms,
  // what is filled in and what is left out, the file's encoding).
  {
    name: 'calls',
    mutate: ['src/client/client.ts', 'src/client/bodies.ts'],
    tests: ['test/client/*.test.ts', 'test/client/network/token-renewal.test.ts', 'test/inbox/rules.test.ts'],
    goal: 85,
  },
  // The shared rules under every verifier: which hosts may be read over plain http (loopback only),
  // which URLs may be fetched at all, when two issuers are one, and canonical base64 and hex.
  {
    name: 'internal',
    mutate: ['src/internal/loopback.ts', 'src/internal/issuer.ts', 'src/internal/encoding.ts', 'src/internal/guards.ts'],
    tests: ['test/internal/**/*.test.ts', 'test/sd-jwt/jwks.test.ts', 'test/webhooks/verify.test.ts', 'test/webhooks/conventions.test.ts'],
    goal: 85,
  },
  // The error classes: which class an answer becomes, what each carries, and what never reaches a
  // message or an enumerable field.
  { name: 'errors', mutate: ['src/errors/**/*.ts'], tests: ['test/errors/**/*.test.ts', 'test/client/responses.test.ts'], goal: 85 },
  // The Redis stores against a real redis-server (started by the tests), in this process.
  { name: 'redis', mutate: ['src/redis/**/*.ts'], tests: ['test/redis/**/*.test.ts'], goal: 80 },
  // The PostgreSQL inbox store against a real postgres (started by the tests), in this process: the
  // store rules every store keeps, the transaction a handler writes in, LISTEN/NOTIFY.
  { name: 'postgres', mutate: ['src/postgres/**/*.ts'], tests: ['test/postgres/**/*.test.ts'], goal: 80 },
  // The sign-in integrations (Auth.js, Passport, better-auth): what each hands its framework, and the
  // callback's checks it keeps (state, one use per sign-in, the ID token's claims), and the options
  // each refuses (test/errors/missing-options.test.ts holds those for every entry).
  {
    name: 'sign-in',
    mutate: ['src/authjs/**/*.ts', 'src/passport/**/*.ts', 'src/better-auth/**/*.ts'],
    tests: [
      'test/authjs/**/*.test.ts',
      'test/passport/**/*.test.ts',
      'test/better-auth/**/*.test.ts',
      'test/errors/missing-options.test.ts',
    ],
    goal: 80,
  },
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

/** What one run of a group found: committed in mutation-summary.json. */
interface Summary {
  killed: number;
  survived: number;
  noCoverage: number;
  timeout: number;
  /** Detected (killed, timed out) over the mutants that ran or had no test, in percent. */
  score: number;
  /** When the run ended (UTC, minutes). */
  measured: string;
  /** The commit measured (`git rev-parse HEAD`; uncommitted changes are in the hashes, not here). */
  commit?: string;
  /** The files mutated, and a SHA-256 over their paths and contents as measured. */
  files: string[];
  sources: string;
  /** A SHA-256 over the paths and contents of the test files the group ran, as measured. */
  tests?: string;
  /** Each survivor (and mutant no test covers): where, which mutator, and what replaced the code. */
  survivors: string[];
}

const SUMMARY = `${ROOT}mutation-summary.json`;

function readSummaries(): Record<string, Summary> {
  return existsSync(SUMMARY) ? (JSON.parse(readFileSync(SUMMARY, 'utf8')) as Record<string, Summary>) : {};
}

/** SHA-256 over the files (paths and contents, in path order). */
function sourcesHash(files: Record<string, string>): string {
  const hash = createHash('sha256');
  for (const path of Object.keys(files).sort()) hash.update(`${path}\0${files[path]}\0`);
  return hash.digest('hex');
}

/**
 * The files in the repository matching `globs`, with their contents. Each is a `:(glob)` pathspec:
 * a bare one makes `**\/` match only below a subfolder, so `test/inbox/**\/*.test.ts` missed every
 * file directly in `test/inbox/` (the tests of a group went unhashed, a new source file unseen).
 */
function tracked(globs: readonly string[]): Record<string, string> {
  const pathspecs = globs.map((glob) => `:(glob)${glob}`);
  const listed = spawnSync('git', ['ls-files', '--', ...pathspecs], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\n');
  return Object.fromEntries(listed.filter((path) => path.endsWith('.ts')).map((path) => [path, readFileSync(`${ROOT}${path}`, 'utf8')]));
}

interface ReportedMutant {
  status: string;
  mutatorName: string;
  replacement?: string;
  location: { start: { line: number } };
}

/** A survivor as the summary records it: `file:line Mutator → replacement` (the replacement on one line, cut at 80 characters). */
function survivorLine(path: string, m: ReportedMutant): string {
  const replacement = m.replacement === undefined ? '' : ` → ${m.replacement.replace(/\s+/g, ' ').slice(0, 80)}`;
  return `${path}:${m.location.start.line} ${m.mutatorName}${replacement}${m.status === 'NoCoverage' ? ' (no coverage)' : ''}`;
}

/** What a run starts from: the commit and the hash of the group's tests, taken before StrykerJS copies them. */
interface Start {
  commit: string;
  tests: string;
}

/** The commit and the group's tests as they are now. */
function startOf(group: Group): Start {
  return {
    commit: spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim(),
    tests: sourcesHash(tracked(group.tests)),
  };
}

/**
 * The summary of a group's last Stryker report, with the commit and tests it `started` from (a
 * commit made while it ran is not what it measured).
 */
function summaryOf(group: Group, started: Start): Summary {
  const report = JSON.parse(readFileSync(`${OUT}${group.name}.json`, 'utf8')) as {
    files: Record<string, { source: string; mutants: ReportedMutant[] }>;
  };
  const count: Record<string, number> = {};
  const survivors: string[] = [];
  for (const [path, file] of Object.entries(report.files)) {
    for (const m of file.mutants) {
      count[m.status] = (count[m.status] ?? 0) + 1;
      if (m.status === 'Survived' || m.status === 'NoCoverage') survivors.push(survivorLine(path, m));
    }
  }
  const killed = count['Killed'] ?? 0;
  const timeout = count['Timeout'] ?? 0;
  const survived = count['Survived'] ?? 0;
  const noCoverage = count['NoCoverage'] ?? 0;
  const valid = killed + timeout + survived + noCoverage;
  return {
    killed,
    survived,
    noCoverage,
    timeout,
    score: Math.round(valid ? (1000 * (killed + timeout)) / valid : 1000) / 10,
    measured: new Date().toISOString().slice(0, 16).replace('T', ' '),
    commit: started.commit,
    files: Object.keys(report.files).sort(),
    sources: sourcesHash(Object.fromEntries(Object.entries(report.files).map(([path, file]) => [path, file.source]))),
    tests: started.tests,
    survivors: survivors.sort(),
  };
}

/**
 * What changed since a summary was measured, or nothing when it measured the code as it is: every
 * file it mutated reads the same now and the group's globs find no other; the tests it ran hash
 * the same (a summary from before tests were hashed is taken at its sources alone).
 */
function changedSince(summary: Summary, group: Group): string | undefined {
  const files = Object.fromEntries(
    summary.files.map((path) => [path, existsSync(`${ROOT}${path}`) ? readFileSync(`${ROOT}${path}`, 'utf8') : '']),
  );
  // A file the report does not list had nothing to mutate (an index of re-exports) if it reads as
  // it did at the measured commit; any other is new, or changed since.
  const asMeasured = (path: string, text: string) =>
    summary.commit !== undefined &&
    spawnSync('git', ['show', `${summary.commit}:${path}`], { cwd: ROOT, encoding: 'utf8' }).stdout === text;
  const added = Object.entries(tracked(group.mutate)).filter(([path, text]) => !summary.files.includes(path) && !asMeasured(path, text));
  const sources = added.length > 0 || sourcesHash(files) !== summary.sources;
  const tests = summary.tests !== undefined && sourcesHash(tracked(group.tests)) !== summary.tests;
  if (sources && tests) return 'sources and tests changed since';
  if (sources) return 'sources changed since';
  if (tests) return 'tests changed since';
  return undefined;
}

const starts = new Map<string, Start>();
for (const group of reportOnly ? [] : chosen) {
  starts.set(group.name, startOf(group));
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

const summaries = readSummaries();
for (const group of reportOnly ? [] : chosen) summaries[group.name] = summaryOf(group, starts.get(group.name) ?? startOf(group));
if (!reportOnly) writeFileSync(SUMMARY, `${JSON.stringify(summaries, null, 2)}\n`);

const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
console.log(`\n${line(['group', 'killed', 'timed out', 'survived', 'no coverage', 'score', 'goal', '', 'measured (UTC)'])}`);
console.log(line(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---', '---']));
let passed = true;
for (const group of chosen) {
  const r = summaries[group.name];
  if (!r) {
    console.log(line([group.name, '', '', '', '', '', `${group.goal}%`, 'never measured', `npm run mutation -- ${group.name}`]));
    // A run that was asked for and left no summary failed above; a report only lists the gap.
    passed &&= reportOnly;
    continue;
  }
  const changed = changedSince(r, group);
  passed &&= changed === undefined && r.score >= group.goal;
  const when = `${r.measured}${r.commit ? ` (${r.commit.slice(0, 7)})` : ''}${changed ? `, ${changed}: run it again` : ''}`;
  console.log(
    line([
      group.name,
      r.killed,
      r.timeout,
      r.survived,
      r.noCoverage,
      `${r.score.toFixed(1)}%`,
      `${group.goal}%`,
      r.score >= group.goal ? 'met' : 'NOT met',
      when,
    ]),
  );
}
console.log('\nsummaries: mutation-summary.json (committed); reports: .tmp/mutation/<group>.html (this machine)');
process.exit(passed ? 0 : 1);
