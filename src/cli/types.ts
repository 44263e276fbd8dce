/**
 * `acme-identity types`: the claim keys a deployment offers (its discovery's
 * `acme_claims_supported`) as a declaration file that augments `KnownClaimTypes`, so that a key
 * the service added after this SDK was built is typed (as `unknown`: its value's form is not
 * known here) and a misspelt one is still a compile error. The spec's keys keep the types the SDK
 * gives them.
 */
import { SUPPORTED_CLAIMS } from '../contract/claims.js';

/** The declaration file for the keys `offered`, and the keys it adds to the spec's. */
export function claimTypesDeclaration(offered: readonly string[], source: string): { text: string; added: string[] } {
  const known = new Set(SUPPORTED_CLAIMS);
  const added = [...new Set(offered.filter((key) => typeof key === 'string' && key !== '' && !known.has(key)))].sort();
  const lines = [
    `// Written by \`acme-identity types\` from ${source.replace(/[\r\n]/g, '')}: the claim keys this deployment offers beyond the spec's.`,
    '// Write it again when the deployment offers more (doctor --types <this file> says when).',
    "import '@acme/identity';",
    '',
    "declare module '@acme/identity' {",
    '  interface KnownClaimTypes {',
    ...added.map((key) => `    ${JSON.stringify(key)}: unknown;`),
    '  }',
    '}',
    '',
  ];
  return { text: lines.join('\n'), added };
}

/** The claim keys a declaration file written by `claimTypesDeclaration` declares. */
export function declaredClaimKeys(text: string): string[] {
  return [...text.matchAll(/^\s*("(?:[^"\\]|\\.)*"): unknown;$/gm)].flatMap(([, key]) =>
    key === undefined ? [] : [JSON.parse(key) as string],
  );
}
