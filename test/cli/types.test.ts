/**
 * `acme-identity types` (#43): the claim keys a deployment offers beyond the spec's, as a
 * declaration file that types them (compiled here with the SDK's sources: the new key typed, a
 * typo still an error), and doctor --types warning only of the keys the file lacks.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { runDoctor } from '../../src/cli/doctor.js';
import { claimTypesDeclaration, declaredClaimKeys } from '../../src/cli/types.js';
import { SUPPORTED_CLAIMS } from '../../src/contract/claims.js';
import { createFakeService } from '../../src/testing/index.js';
import { soundConfig } from './doctor-config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The diagnostics of `files` (name → source) compiled with the project's settings (the SDK by its paths). */
function compile(files: Record<string, string>): string[] {
  const dir = join(ROOT, '.tmp/claim-types');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const paths = Object.entries(files).map(([name, source]) => {
    writeFileSync(join(dir, name), source);
    return join(dir, name);
  });
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  )!;
  const program = ts.createProgram(paths, { ...config.options, noEmit: true });
  return paths.flatMap((file) =>
    ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
  );
}

describe('acme-identity types', () => {
  test("the keys beyond the spec's, each once, sorted; the spec's own are left to the SDK's types", () => {
    const { added } = claimTypesDeclaration(['zeta.b', SUPPORTED_CLAIMS[0]!, 'alpha.a', 'zeta.b', ''], 'https://auth.example');
    expect(added).toEqual(['alpha.a', 'zeta.b']);
  });

  test('the file it writes types a new key (as unknown) where the SDK takes claim keys, and a typo is still a compile error', () => {
    const { text } = claimTypesDeclaration([...SUPPORTED_CLAIMS, 'loyalty.tier'], 'https://auth.example');
    const problems = compile({
      'acme-claims.d.ts': text,
      'use.ts': `import { readClaim } from '@acme/identity';
import { createOidcClient } from '@acme/identity/oidc';
export const tier: unknown = readClaim({}, 'loyalty.tier');
export const name = readClaim({}, 'acmeidentity.name')?.first_name;
const oidc = createOidcClient({ authUrl: 'https://auth.example', clientId: 'c', redirectUri: 'https://rp.example/cb' });
export const ok = oidc.startSignIn({ claims: { acme: ['loyalty.tier'] } });
// @ts-expect-error a misspelt key is still refused
export const typo = oidc.startSignIn({ claims: { acme: ['loyalty.teir'] } });
`,
    });
    expect(problems).toEqual([]);
  });

  test('what the file declares is read back exactly, whatever the keys (property)', () => {
    const key = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}\.[A-Za-z0-9_"\\-]{1,12}$/);
    fc.assert(
      fc.property(fc.uniqueArray(key, { maxLength: 20 }), (keys) => {
        const { text, added } = claimTypesDeclaration(keys, 'https://auth.example');
        expect(declaredClaimKeys(text)).toEqual(added);
      }),
      { seed: 43, numRuns: 200 },
    );
  });

  test('doctor: without the file, a key the deployment offers beyond the spec is a warning that names the command; with it, the line is clean until the deployment offers another', async () => {
    const service = await createFakeService({ extraClaims: ['loyalty.tier'] });
    const config = soundConfig(service);
    const claimsLine = async (declaredClaims?: string[]) =>
      (await runDoctor({ ...config, declaredClaims })).checks.find((check) => check.name === 'claims');
    expect(await claimsLine()).toMatchObject({ status: 'warn', advice: expect.stringContaining('acme-identity types') });
    const { text } = claimTypesDeclaration([...SUPPORTED_CLAIMS, 'loyalty.tier'], service.authUrl);
    expect(await claimsLine(declaredClaimKeys(text))).toMatchObject({ status: 'ok' });
    expect(await claimsLine([])).toMatchObject({ status: 'warn', detail: expect.stringContaining('loyalty.tier') });
  });
});
