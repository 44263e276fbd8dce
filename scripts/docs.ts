/**
 * The API documentation: TypeDoc from the JSDoc of every public entry into `.tmp/docs/` (HTML),
 * failing on any warning (an undocumented export, a broken link, a type not exported). Then the
 * house rule TypeDoc cannot check: every public function and class shows an `@example`
 * (error classes excepted: they are caught, not called; docs/errors.md shows them).
 *
 *   npm run docs
 */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';
import { Application, ReflectionKind, type DeclarationReflection, type ProjectReflection } from 'typedoc';

const app = await Application.bootstrapWithPlugins({ options: 'typedoc.json' });
// openapi-typescript marks single-value fields `@constant`: a tag of the generated types that
// `Schemas` now lists field by field, known to TypeDoc beside its own.
app.options.setValue('modifierTags', [...app.options.getValue('modifierTags'), '@constant']);
const project = (await app.convert()) as ProjectReflection | undefined;
if (!project || app.logger.hasErrors() || app.logger.hasWarnings()) {
  console.error('typedoc: the documentation has errors or warnings (above)');
  process.exit(1);
}

const missing: string[] = [];
for (const reflection of project.getReflectionsByKind(ReflectionKind.Function | ReflectionKind.Class) as DeclarationReflection[]) {
  if (reflection.kind === ReflectionKind.Class && reflection.name.endsWith('Error')) continue;
  const comments = [reflection.comment, ...(reflection.signatures ?? []).map((s) => s.comment)];
  if (!comments.some((c) => c?.getTag('@example'))) missing.push(reflection.getFullName());
}
if (missing.length > 0) {
  console.error(`no @example on: ${missing.join(', ')}`);
  process.exit(1);
}
// Input and result types are browsable field by field (`@interface` on the aliases built from the
// generated schemas), not shown as `Omit<Schemas[…]>` with nothing behind it.
for (const [name, field] of [
  ['IdentityRequestInput', 'first_name'],
  ['Schemas', 'IdentityRequestCreated'],
  ['CredentialSubmitInput', 'file_name'],
  // Each resource of the client on its own page, its methods listed (#27).
  ['AuthResource', 'accessToken'],
  ['IdentityRequestsResource', 'create'],
  ['IdentityResponsesResource', 'getVerified'],
  ['CredentialsResource', 'download'],
  ['StatusResource', 'health'],
] as const) {
  const found = project.getChildByName(['@acme/identity', name]) as DeclarationReflection | undefined;
  if (found?.kind !== ReflectionKind.Interface || !found.getChildByName(field)) {
    console.error(`docs: ${name} is not listed field by field (${field} missing): tag its alias @interface`);
    process.exit(1);
  }
}
await app.generateDocs(project, '.tmp/docs');
// The README's links work in the API docs too (#27): each file it links to is copied beside it.
const unresolved = [...(await readFile('.tmp/docs/index.html', 'utf8')).matchAll(/href="(media\/[^"#]+)/g)]
  .map((m) => m[1]!)
  .filter((href) => !existsSync(`.tmp/docs/${href}`) || !statSync(`.tmp/docs/${href}`).isFile());
if (unresolved.length > 0) {
  console.error(`docs: the README links to what the API docs do not have: ${unresolved.join(', ')}`);
  process.exit(1);
}
// What a person searches for finds its page (#27): a method of a resource, an error code.
const packed = /"([A-Za-z0-9+/=]{100,})"/.exec(await readFile('.tmp/docs/assets/search.js', 'utf8'))?.[1] ?? '';
const index = inflateSync(Buffer.from(packed, 'base64')).toString().toLowerCase();
const unfound = ['getVerified', 'ERR_WEBHOOK_PARSED_BODY', 'acmeWebhookHandler', 'AcmeIdentityStrategy'].filter(
  (term) => !index.includes(term.toLowerCase()),
);
if (unfound.length > 0) {
  console.error(`docs: the search does not find ${unfound.join(', ')}`);
  process.exit(1);
}
console.log(
  `docs: ${project.getReflectionsByKind(ReflectionKind.Function | ReflectionKind.Class).length} functions and classes documented, each with an example; HTML in .tmp/docs`,
);
