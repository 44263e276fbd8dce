/**
 * The package as a user gets it: `npm pack`, installed into a fresh project, imported through every entry with ESM `import` and CommonJS `require`, type-checked from
 * a consumer file, its `bin` run, and smoke-tested in every runtime it claims: Node 20 (this one),
 * 22, 24 and 26 (through ESM import, and CommonJS require without require(esm)), Bun, Deno,
 * workerd (miniflare) and Chromium, against the sandbox on localhost.
 *
 * The runtimes come from `scripts/runtimes/install.sh` and Chromium from
 * `scripts/ensure-chromium.sh`; `npm test` runs both first.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { AcmeIdentityClient } from '../../src/index.js';
import { signWebhook, startSandbox, type Sandbox } from '../../src/testing/index.js';
import { disclose, issueSdJwt } from '../../src/testing/sd-jwt.js';
import { launchChromium } from '../../examples/browser-sign-in/chromium.js';
import { credentialInput, person } from '../fixtures.js';
import { snippetModules } from '../docs/snippets.js';
import { runFiveMinuteServer, writeFiveMinuteServer } from '../docs/five-minutes.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUNTIMES = join(ROOT, 'scripts/runtimes/node_modules');
const ENTRIES = [
  '@acme/identity',
  '@acme/identity/oidc',
  '@acme/identity/oidc/browser',
  '@acme/identity/sd-jwt',
  '@acme/identity/webhooks',
  '@acme/identity/webhooks/express',
  '@acme/identity/webhooks/fastify',
  '@acme/identity/webhooks/next',
  '@acme/identity/webhooks/hono',
  '@acme/identity/inbox',
  '@acme/identity/passport',
  '@acme/identity/authjs',
  '@acme/identity/better-auth',
  '@acme/identity/redis',
  '@acme/identity/postgres',
  '@acme/identity/testing',
  '@acme/identity/testing/msw',
];

let dir: string;
let consumer: string;
let packed: { files: { path: string }[] };
let sandbox: Sandbox;
let config: Record<string, unknown>;

const run = (file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  exec(file, args, { cwd: options.cwd ?? consumer, env: { ...process.env, ...options.env }, maxBuffer: 16 * 1024 * 1024 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'acme-identity-pack-'));
  consumer = join(dir, 'consumer');
  await mkdir(consumer);
  // `prepack` builds dist/ afresh. Its output shares stdout with the JSON report, which follows it on
  // a line of its own; colours (FORCE_COLOR in CI) put '[' inside that output too.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT });
  packed = JSON.parse(stdout.slice(stdout.search(/^\[$/m)))[0];
  const tarball = (await readdir(dir)).find((name) => name.endsWith('.tgz'))!;
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // Installed as npm lays it out, without the network (tests reach nothing beyond localhost): the
  // tarball unpacked into node_modules, and only what its package.json declares (dependencies and
  // peers) linked from this project's install, plus typescript for the type check. An import of
  // anything undeclared fails here as it would for a user.
  const modules = join(consumer, 'node_modules');
  const installed = join(modules, '@acme/identity');
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', join(dir, tarball), '-C', installed, '--strip-components=1']);
  const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  for (const name of [...Object.keys(manifest['dependencies'] ?? {}), ...Object.keys(manifest['peerDependencies'] ?? {}), 'typescript']) {
    await mkdir(dirname(join(modules, name)), { recursive: true });
    await symlink(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
  }
  await mkdir(join(modules, '.bin'));
  for (const [bin, target] of Object.entries(manifest['bin'] ?? {}))
    await symlink(join('..', '@acme/identity', target), join(modules, '.bin', bin));
  for (const file of await readdir(fileURLToPath(new URL('smoke/', import.meta.url)))) {
    await copyFile(fileURLToPath(new URL(`smoke/${file}`, import.meta.url)), join(consumer, file));
  }

  sandbox = await startSandbox({ oidcJourney: 'auto' });
  const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
  const { data } = await acme.credentials.submit(credentialInput());
  const nowMs = Date.now();
  const webhookBody = JSON.stringify({ event: 'approved', access_request_code: 'arc_smoke', access_token: 'x.y.z' });
  config = {
    baseUrl: sandbox.baseUrl,
    authUrl: sandbox.authUrl,
    ...sandbox.credentials,
    redirectUri: sandbox.credentials.redirectUris[0],
    sdJwt: await issueSdJwt(
      sandbox.service.keys,
      { iss: sandbox.authUrl, iat: Math.floor(nowMs / 1000), exp: Math.floor(nowMs / 1000) + 3600 },
      [await disclose('given_name', 'Jane'), await disclose('family_name', 'Citizen')],
      { nowMs },
    ),
    credentialJwt: sandbox.service.credentialJwt(data.credential_ref),
    webhookBody,
    webhookSignature: await signWebhook(sandbox.credentials.webhookSecret, webhookBody),
    person: person(),
  };
}, 240_000);

afterAll(async () => {
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('npm pack', () => {
  test('holds the built files, types, README, CHANGELOG, LICENSE and bin; no sources, tests, examples or fixtures', () => {
    const paths = packed.files.map((f) => f.path);
    for (const needed of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'dist/bin/sandbox.js']) expect(paths).toContain(needed);
    for (const entry of [
      'index',
      'oidc/index',
      'oidc/browser',
      'sd-jwt/index',
      'webhooks/index',
      'webhooks/express',
      'webhooks/fastify',
      'webhooks/next',
      'webhooks/hono',
      'inbox/index',
      'passport/index',
      'authjs/index',
      'better-auth/index',
      'redis/index',
      'postgres/index',
      'testing/index',
      'testing/msw',
    ]) {
      for (const ext of ['js', 'cjs', 'd.ts', 'd.cts']) expect(paths).toContain(`dist/${entry}.${ext}`);
    }
    expect(paths.filter((p) => !p.startsWith('dist/') && !['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE'].includes(p))).toEqual(
      [],
    );
    expect(
      paths.filter((p) => /(^|\/)(src|test|examples|scripts|generated|\.ci)\/|\.env|\.tgz$|\.pem$|\.key$/.test(p.replace(/^dist\//, ''))),
    ).toEqual([]);
  });
});

describe('what a reader on the registry can reach', () => {
  test('the manifest names the repository, its home page and where to report bugs', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Record<string, { url?: string } | string>;
    expect(manifest['repository']).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\//) });
    expect(manifest['homepage']).toMatch(/^https:\/\//);
    expect(manifest['bugs']).toMatchObject({ url: expect.stringMatching(/^https:\/\//) });
  });

  test('each README link into the repository (examples/, test/) names a file that exists', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(((?:examples|test|scripts)\/[^)#\s]*)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(4);
    expect(links.filter((link) => !existsSync(join(ROOT, link)))).toEqual([]);
  });
});

describe('the installed package', () => {
  test('every entry imports with ESM import', async () => {
    const script = `${ENTRIES.map((e, i) => `import * as m${i} from '${e}';`).join('\n')}\nconsole.log(JSON.stringify([${ENTRIES.map((_, i) => `Object.keys(m${i}).length`).join(',')}]));`;
    await writeFile(join(consumer, 'esm-check.mjs'), script);
    const counts = JSON.parse((await run(process.execPath, ['esm-check.mjs'])).stdout) as number[];
    expect(counts.every((n) => n > 0)).toBe(true);
  });

  test('every entry loads with CommonJS require, without require(esm) (but testing/msw), with the same exports', async () => {
    // msw's own CommonJS build requires an ESM-only package (rettime): its entry needs what msw needs.
    const script = `const names = ${JSON.stringify(ENTRIES)}.map((e) => e.endsWith('/msw') && process.argv[2] ? [] : Object.keys(require(e)).sort());\nconsole.log(JSON.stringify(names));`;
    await writeFile(join(consumer, 'cjs-check.cjs'), script);
    const withoutRequireEsm = JSON.parse(
      (await run(process.execPath, ['--no-experimental-require-module', 'cjs-check.cjs', 'skip-msw'])).stdout,
    ) as string[][];
    const cjs = JSON.parse((await run(process.execPath, ['cjs-check.cjs'])).stdout) as string[][];
    expect(withoutRequireEsm).toEqual(cjs.map((names, i) => (ENTRIES[i]!.endsWith('/msw') ? [] : names)));
    await writeFile(
      join(consumer, 'esm-names.mjs'),
      `${ENTRIES.map((e, i) => `import * as m${i} from '${e}';`).join('\n')}\nconsole.log(JSON.stringify([${ENTRIES.map((_, i) => `Object.keys(m${i}).sort()`).join(',')}]));`,
    );
    const esm = JSON.parse((await run(process.execPath, ['esm-names.mjs'])).stdout) as string[][];
    expect(cjs).toEqual(esm);
    expect(cjs[0]).toContain('AcmeIdentityClient');
  });

  test('a consumer type-checks against its types, from ESM and from CommonJS', async () => {
    await writeFile(
      join(consumer, 'consumer.ts'),
      `import { AcmeIdentityClient, OidcError, type ErrorCode } from '@acme/identity';
import { createOidcClient, type OidcTransaction } from '@acme/identity/oidc';
import { createBrowserSignIn } from '@acme/identity/oidc/browser';
import { verifyIdentityResponse, readClaim } from '@acme/identity/sd-jwt';
import { createWebhookVerifier } from '@acme/identity/webhooks';
import { startSandbox } from '@acme/identity/testing';
import { fakeServiceHandlers } from '@acme/identity/testing/msw';
const acme = new AcmeIdentityClient({ baseUrl: 'https://api.acme.example/api/v1', clientId: 'c', clientSecret: 's', tenantId: 't' });
export const created: Promise<string> = acme.identityRequests.create({} as never).then((r) => r.data.access_request_code);
export const oidc = createOidcClient({ authUrl: 'https://auth.acme.example', clientId: 'c', redirectUri: 'https://rp.example/cb' });
export const txn: Promise<OidcTransaction> = oidc.startSignIn({ claims: { acme: { 'sanctionscheck.is_pep': { essential: true } } } }).then((s) => s.transaction);
// @ts-expect-error the browser entry takes no client secret
createBrowserSignIn({ authUrl: 'https://auth.acme.example', clientId: 'c', redirectUri: 'https://rp.example/cb', clientSecret: 'no' });
export const code: ErrorCode = new OidcError('ERR_OIDC_STATE', 'x').code;
export const name = readClaim({}, 'acmeidentity.name')?.first_name;
export const parts = [verifyIdentityResponse, createWebhookVerifier, startSandbox, fakeServiceHandlers];
// A claim key the service added later, declared once on the main entry, typed in every entry (#27).
declare module '@acme/identity' {
  interface KnownClaimTypes {
    'loyalty.tier': number;
  }
}
export const tier: number | undefined = readClaim({}, 'loyalty.tier');
export const declared = oidc.startSignIn({ claims: { acme: ['loyalty.tier', 'acmeidentity.name'] } });
// @ts-expect-error a misspelt claim key is a compile error
oidc.startSignIn({ claims: { acme: ['acmeidentity.nmae'] } });
`,
    );
    await writeFile(
      join(consumer, 'consumer.cts'),
      `import sdk = require('@acme/identity');
import webhooks = require('@acme/identity/webhooks');
export const client: typeof sdk.AcmeIdentityClient = sdk.AcmeIdentityClient;
export const verifier = webhooks.createWebhookVerifier({ secret: 'whsec_0123456789abcdef' });
`,
    );
    await writeFile(join(consumer, 'tsconfig.json'), consumerTsconfig(['consumer.ts', 'consumer.cts'], { skipLibCheck: false, types: [] }));
    expect(await tscOutput('.')).toBe('');
    // And with TypeScript 7, which a consumer's fresh `npm i typescript` now brings (scripts/runtimes).
    expect(await tscOutput('.', binary(join(RUNTIMES, 'typescript7/bin/tsc')))).toBe('');
  });

  test("the README's and the guides' snippets type-check against the packed package: nodenext, strict, exact optional types (#27)", async () => {
    // What a person following them installs beside the SDK: the frameworks and their types.
    for (const name of ['express', '@types/express', '@types/node', '@types/passport', '@auth/express', 'pg', '@types/pg']) {
      const target = join(consumer, 'node_modules', name);
      if (existsSync(target)) continue;
      await mkdir(dirname(target), { recursive: true });
      await symlink(join(ROOT, 'node_modules', name), target, 'dir');
    }
    const dir = join(consumer, 'snippets');
    await mkdir(dir, { recursive: true });
    const modules = snippetModules();
    for (const { name, source } of modules) await writeFile(join(dir, name), source);
    await writeFile(
      join(dir, 'tsconfig.json'),
      consumerTsconfig(
        modules.map((m) => m.name),
        { exactOptionalPropertyTypes: true, skipLibCheck: true, types: ['node'], lib: ['es2023', 'dom'] },
      ),
    );
    expect(await tscOutput('snippets')).toBe('');
    // And with TypeScript 7, which a reader's fresh `npm i typescript` brings (its tsconfig names the node types, as TS 7 no longer loads them unasked).
    expect(await tscOutput('snippets', binary(join(RUNTIMES, 'typescript7/bin/tsc')))).toBe('');
  });

  test('an error class alone bundles without the client or zod: each entry carries what it uses', async () => {
    const bundle = async (contents: string) => {
      const result = await build({
        stdin: { contents, resolveDir: consumer },
        bundle: true,
        minify: true,
        format: 'esm',
        platform: 'neutral',
        write: false,
        logLevel: 'silent',
      });
      return result.outputFiles[0]!.text;
    };
    const errorsOnly = await bundle(`export { ConflictError } from '@acme/identity';`);
    const client = await bundle(`export { AcmeIdentityClient } from '@acme/identity';`);
    // zod's marker ($ZodType) and the client's own (its User-Agent) are in the client's bundle, not the error's.
    for (const marker of ['$ZodType', '@acme/identity/']) {
      expect(client).toContain(marker);
      expect(errorsOnly).not.toContain(marker);
    }
    expect(errorsOnly.length).toBeLessThan(client.length / 10);
  });

  test.each([
    ['Node 20 with tsx', () => [process.execPath, ['--import', 'tsx', 'server.ts']] as const],
    ['Node 26, which runs TypeScript itself', () => [binary(join(RUNTIMES, 'node26/bin/node')), ['server.ts']] as const],
  ])("the README's five-minute integration, from the packed package on %s, ends with a verified identity (#27)", async (_name, command) => {
    for (const name of ['express', 'tsx']) {
      const target = join(consumer, 'node_modules', name);
      if (!existsSync(target)) await symlink(join(ROOT, 'node_modules', name), target, 'dir');
    }
    writeFiveMinuteServer(join(consumer, 'server.ts'));
    const [node, args] = command();
    const output = await runFiveMinuteServer(node, [...args], consumer);
    expect(output).toContain("verified: { first_name: 'Jane', last_name: 'Citizen' }");
  });

  test('the sandbox bin answers --help', async () => {
    const { stdout } = await run(join(consumer, 'node_modules/.bin/acme-identity-sandbox'), ['--help']);
    expect(stdout).toContain('--webhook-url');
  });

  test.each(NODES)('acme-identity --help, and its sandbox command, on %s', async (_name, node) => {
    const bin = join(consumer, 'node_modules/.bin/acme-identity');
    const { stdout } = await run(node(), [bin, '--help']);
    for (const command of ['doctor', 'check-receiver <url>', 'decode <token>', 'sandbox']) expect(stdout).toContain(command);
    // The sandbox command is the sandbox bin (its own help).
    expect((await run(node(), [bin, 'sandbox', '--help'])).stdout).toContain('--webhook-url');
  });
});

const expected = {
  sdJwt: { given_name: 'Jane', family_name: 'Citizen' },
  webhook: 'arc_smoke',
  tamperedWebhook: 'ERR_WEBHOOK_SIGNATURE',
};
const serverExpected = { ...expected, client: 'created and read', oidc: 'signed-in', credential: expect.any(String) };

/** A consumer's tsconfig, as a TypeScript user's project is: nodenext and strict; `options` on top. */
function consumerTsconfig(files: string[], options: Record<string, unknown>): string {
  const compilerOptions = {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    strict: true,
    noEmit: true,
    lib: ['es2022', 'dom'],
  };
  return JSON.stringify({ compilerOptions: { ...compilerOptions, ...options }, files });
}

/** What `tsc -p project` prints in the consumer: nothing when it compiles. The consumer's TypeScript 5.9, or `tsc`, a binary. */
async function tscOutput(project: string, tsc?: string): Promise<string> {
  const [command, args] = tsc
    ? [tsc, ['-p', project]]
    : [process.execPath, [join(consumer, 'node_modules/typescript/bin/tsc'), '-p', project]];
  const result = await run(command, args).catch((e: { stdout: string }) => e);
  return (result as { stdout: string }).stdout;
}

function binary(path: string) {
  if (!existsSync(path)) throw new Error(`${path} is missing: run scripts/runtimes/install.sh (npm test does)`);
  return path;
}

/** Every Node of the matrix: 20 (this one, past its end of life), 22 and 24 (maintenance LTS), 26 (active LTS). */
const NODES: [string, () => string][] = [
  ['Node 20 (this one)', () => process.execPath],
  ['Node 22', () => binary(join(RUNTIMES, 'node22/bin/node'))],
  ['Node 24', () => binary(join(RUNTIMES, 'node24/bin/node'))],
  ['Node 26', () => binary(join(RUNTIMES, 'node26/bin/node'))],
];

describe('runtimes: a smoke test of the installed package in each', () => {
  const runners: [string, () => [string, string[]]][] = [
    ...NODES.map(([name, path]): [string, () => [string, string[]]] => [name, () => [path(), ['run.mjs']]]),
    // CommonJS without require(esm): the CommonJS build carries what is published as ESM only.
    ...NODES.map(([name, path]): [string, () => [string, string[]]] => [
      `${name}, CommonJS without require(esm)`,
      () => [path(), ['--no-experimental-require-module', 'run.cjs']],
    ]),
    ['Node 20 (this one), CommonJS with require(esm)', () => [process.execPath, ['run.cjs']]],
    ['Bun', () => [binary(join(RUNTIMES, '@oven/bun-linux-x64/bin/bun')), ['run.mjs']]],
    ['Deno', () => [binary(join(RUNTIMES, '.bin/deno')), ['run', '--allow-env', '--allow-net=127.0.0.1', '--allow-read', 'run.mjs']]],
  ];
  test.each(runners)('%s', async (_name, command) => {
    const [file, args] = command();
    const { stdout } = await run(file, args, { env: { SMOKE_CONFIG: JSON.stringify(config), DENO_NO_UPDATE_CHECK: '1' } });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject(serverExpected);
  });

  test('workerd (miniflare)', async () => {
    const bundle = await build({
      entryPoints: [join(consumer, 'worker.mjs')],
      absWorkingDir: consumer,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser'],
      define: { __SMOKE_CONFIG__: JSON.stringify(config) },
      write: false,
      logLevel: 'silent',
    });
    // miniflare lives with the other runtimes (scripts/runtimes), not in this project.
    const { Miniflare } = (await import(join(RUNTIMES, 'miniflare/dist/src/index.js'))) as {
      Miniflare: new (options: object) => { dispatchFetch(url: string): Promise<Response>; dispose(): Promise<void> };
    };
    const mf = new Miniflare({ modules: true, script: bundle.outputFiles[0]!.text, compatibilityDate: '2025-01-01' });
    try {
      const response = await mf.dispatchFetch('http://localhost/');
      expect(await response.json()).toMatchObject(serverExpected);
    } finally {
      await mf.dispose();
    }
  });

  test('Chromium: verification and the PKCE redirect, with no node: module in the bundle', async () => {
    const bundle = await build({
      entryPoints: [join(consumer, 'browser.mjs')],
      absWorkingDir: consumer,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      define: { __SMOKE_CONFIG__: JSON.stringify(config) },
      write: false,
      logLevel: 'silent',
    });
    const page = createServer((req, res) => {
      if (req.url === '/smoke.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle.outputFiles[0]!.text);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script type="module" src="/smoke.js"></script>');
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      await tab.goto(`http://127.0.0.1:${(page.address() as AddressInfo).port}/`);
      const result = await tab.waitForFunction(() => (globalThis as { __smoke?: unknown }).__smoke).then((h) => h.jsonValue());
      expect(result).toMatchObject({ ...expected, oidc: 'redirect-ready', credential: expect.any(String) });
    } finally {
      await browser.close();
      page.close();
    }
  });
});
