/**
 * The TypeScript snippets of the README and of the guides in docs/, each as a module of its own:
 * the names a snippet leaves to its reader (`acme`, the client made in the first; `app`, your
 * framework's; `session`, `req`…) declared with their types, but only those its text names (#43):
 * in backticks in the prose of its section before it, or in a comment of its own. A snippet that
 * uses a name its text does not give fails to compile ("Cannot find name"), as it would for a
 * reader who copies it. Compiled against the sources (snippets.test.ts) and against the packed
 * package (test/package).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a snippet may use without making it: each name, and its declaration. */
export const GIVEN: Record<string, string> = {
  acme: "declare const acme: import('@acme/identity').AcmeIdentityClient;",
  person: "declare const person: import('@acme/identity').IdentityRequestInput;",
  certificate: 'declare const certificate: Uint8Array;',
  inbox: "declare const inbox: import('@acme/identity/inbox').IdentityInbox;",
  id: 'declare const id: string;',
  secret: 'declare const secret: string;',
  data: 'declare const data: { access_request_code: string; identity_session_code: string };',
  event: "declare const event: import('@acme/identity/webhooks').IdentityActionsEvent;",
  session: 'declare const session: Record<string, any>;',
  req: 'declare const req: { url: string };',
  redirect: 'declare function redirect(url: URL): void;',
  authUrl: 'declare const authUrl: string;',
  clientId: 'declare const clientId: string;',
  clientSecret: 'declare const clientSecret: string;',
  passport: "declare const passport: import('passport').PassportStatic;",
  markCancelled: 'declare function markCancelled(id: string): Promise<void>;',
  markNotVerified: 'declare function markNotVerified(id: string): Promise<void>;',
  saveIdentity: 'declare function saveIdentity(id: string, identity: unknown): Promise<void>;',
  credentialJwt: 'declare const credentialJwt: string;',
  options: "declare const options: import('@acme/identity').ClientOptions;",
  oidcOptions: "declare const oidcOptions: import('@acme/identity/oidc').OidcClientOptions;",
  webhookUrl: 'declare const webhookUrl: string;',
  metrics: 'declare const metrics: { timing(name: string, ms: number, tags: object): void; increment(name: string, tags: object): void };',
};

/** `app`: an Express app, but where one snippet shows several frameworks (`register` is Fastify's). */
const appOf = (code: string) => (code.includes('.register(') ? 'declare const app: any;' : "declare const app: import('express').Express;");

/** Whether the snippet declares `name` itself (a binding, a parameter list aside, or an import specifier). */
function declares(code: string, name: string): boolean {
  const n = `\\b${name}\\b`;
  return [
    `\\b(const|let|var|function|class)\\s+${name}\\b`,
    `\\b(const|let)\\s*\\{[^}=]*${n}[^}=]*\\}\\s*=`,
    `import\\s*(type\\s*)?\\{[^}]*${n}[^}]*\\}\\s*from`,
    `import\\s+${name}\\s+from`,
  ].some((pattern) => new RegExp(pattern).test(code));
}

/**
 * Each ts block of the README and of the guides in docs/, with the file it comes from and the prose
 * of its section before it (from the last heading, or the last block, whichever is nearer).
 */
function snippets(): { from: string; code: string; prose: string }[] {
  const guides = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md') && name !== 'service-spec.md');
  return ['README.md', ...guides.map((name) => `docs/${name}`)].flatMap((from) => {
    const text = readFileSync(join(ROOT, from), 'utf8');
    let end = 0;
    return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => {
      const before = text.slice(end, match.index);
      end = match.index + match[0].length;
      return { from, code: match[1]!, prose: before.slice(Math.max(0, before.lastIndexOf('\n#'))) };
    });
  });
}

/** Whether the text around a snippet names `name`: in backticks in its prose, or in a comment of the snippet. */
function named(prose: string, code: string, name: string): boolean {
  return new RegExp(`\`${name}\\b`).test(prose) || new RegExp(`//.*\\b${name}\\b`).test(code);
}

/** Each snippet as a file: a name for it, and its source with what it leaves to its reader, and names, declared. */
export function snippetModules(): { name: string; source: string }[] {
  return snippets().map(({ from, code, prose }, index) => {
    // A name the snippet declares itself is not given.
    const given = Object.entries({ ...GIVEN, app: appOf(code) })
      .filter(([name]) => new RegExp(`\\b${name}\\b`).test(code) && !declares(code, name) && named(prose, code, name))
      .map(([, declaration]) => declaration);
    return { name: `${from.replace(/\W+/g, '-')}-${index + 1}.ts`, source: `${given.join('\n')}\n${code}\nexport {};\n` };
  });
}
