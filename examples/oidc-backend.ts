/**
 * Sign a person in from a Node backend: server-side Authorization Code + PKCE with a session,
 * as a confidential client (client_secret_basic). `/login` starts the sign-in and keeps the
 * transaction in the session; `/callback` finishes it and signs the person in.
 *
 * Configuration from the environment: ACME_AUTH_URL, ACME_OIDC_BACKEND_CLIENT_ID,
 * ACME_OIDC_BACKEND_CLIENT_SECRET, RP_PORT (`http://127.0.0.1:${RP_PORT}/callback` must be a
 * registered redirect URI). `npm run demo` sets them. At the end, the example plays the person's
 * browser itself: it follows the redirects and approves on the service's page.
 */
import { createServer, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createOidcClient, OidcError, readClaim, type OidcTransaction, type PersonName } from '@acme/identity/oidc';
import { signInAsPerson } from './support/person.js';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const origin = `http://127.0.0.1:${env('RP_PORT')}`;
const oidc = createOidcClient({
  authUrl: env('ACME_AUTH_URL'),
  clientId: env('ACME_OIDC_BACKEND_CLIENT_ID'),
  redirectUri: `${origin}/callback`,
  clientAuthentication: { method: 'client_secret_basic', clientSecret: env('ACME_OIDC_BACKEND_CLIENT_SECRET') },
});

// --- The backend ---------------------------------------------------------------------------
/** A session store: in memory here; yours is Redis, a database or an encrypted cookie. */
const sessions = new Map<string, { signIn?: OidcTransaction; user?: { sub: string; name: PersonName | undefined } }>();

const redirect = (res: ServerResponse, location: string, cookie?: string) =>
  res.writeHead(302, { location, ...(cookie ? { 'set-cookie': cookie } : {}) }).end();

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', origin);
  const sid = /(?:^|; )sid=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
  const session = (sid && sessions.get(sid)) || undefined;
  try {
    if (url.pathname === '/login') {
      const { url: authorize, transaction } = await oidc.startSignIn({
        scope: ['openid', 'profile'],
        claims: { profile: ['given_name', 'family_name'], acme: ['acmeidentity.name', 'acmeidentity.valid'] },
      });
      const id = randomUUID();
      sessions.set(id, { signIn: transaction });
      return redirect(res, authorize.href, `sid=${id}; HttpOnly; SameSite=Lax; Path=/`);
    }
    if (url.pathname === '/callback') {
      if (!session?.signIn) return res.writeHead(400).end('no sign-in in progress');
      const transaction = session.signIn;
      delete session.signIn; // used once, whatever happens next
      const { claims } = await oidc.finishSignIn(url, transaction);
      // acmeidentity.name is a JSON string: readClaim decodes it (and refuses a malformed one).
      session.user = { sub: claims.sub, name: readClaim(claims, 'acmeidentity.name') };
      return redirect(res, '/account');
    }
    if (url.pathname === '/account' && session?.user) {
      return res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`signed in as ${session.user.name?.first_name} ${session.user.name?.last_name} (${session.user.sub})`);
    }
    res.writeHead(404).end();
  } catch (error) {
    // OidcError says which check failed, never a token or a code.
    res.writeHead(error instanceof OidcError && error.code === 'ERR_OIDC_AUTHORIZATION' ? 403 : 400).end(String(error));
  }
});
await new Promise<void>((resolve) => server.listen(Number(env('RP_PORT')), '127.0.0.1', resolve));

try {
  // The person's browser: the redirects, the service's page, approve.
  const account = await signInAsPerson(origin);
  const text = await account.text();
  if (account.status !== 200) throw new Error(`the sign-in failed: ${account.status} ${text}`);
  console.log(text);
} finally {
  server.close();
}
