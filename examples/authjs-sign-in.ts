/**
 * Signing a person in with Auth.js (`@auth/express`) and `@acme/identity/authjs`: the provider,
 * checked against the live service at startup, and the service's claims decoded into the session.
 * The person's "browser" gets Auth.js's CSRF token, starts the sign-in, approves on the service's
 * page and reads the session (in CI the same flow also runs in headless Chromium:
 * test/authjs/authjs.test.ts).
 *
 * Configuration comes from the environment, as it would in a real backend:
 *   ACME_AUTH_URL, ACME_OIDC_BACKEND_CLIENT_ID, ACME_OIDC_BACKEND_CLIENT_SECRET, RP_PORT
 *   (its http://127.0.0.1:RP_PORT/auth/callback/acme-identity is a registered redirect URI), and
 *   AUTH_SECRET (Auth.js's own; a random one here when unset).
 * `npm run demo` serves the fake service on localhost and sets them.
 */
import express from 'express';
import { ExpressAuth } from '@auth/express';
import { acmeIdentityProfile, acmeIdentityProvider } from '@acme/identity/authjs';
import { personBrowser } from './support/person.js';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const origin = `http://127.0.0.1:${env('RP_PORT')}`;

// Checked at startup against the service's discovery: a claim it does not offer fails here, not on its error page.
const acme = await acmeIdentityProvider({
  authUrl: env('ACME_AUTH_URL'),
  clientId: env('ACME_OIDC_BACKEND_CLIENT_ID'),
  clientSecret: env('ACME_OIDC_BACKEND_CLIENT_SECRET'),
  signIn: { scope: ['openid'], claims: { acme: ['acmeidentity.name', 'sanctionscheck.is_pep'] } },
});

const app = express();
app.set('trust proxy', true);
app.use(
  '/auth',
  ExpressAuth({
    providers: [acme],
    secret: process.env['AUTH_SECRET'] ?? crypto.randomUUID(),
    trustHost: true,
    callbacks: {
      // The decoded claims (name as an object, is_pep as a boolean) travel in the session.
      jwt: ({ token, profile }) => (profile ? { ...token, acme: acmeIdentityProfile(profile).acme } : token),
      session: ({ session, token }) => ({ ...session, acme: token['acme'] }),
    },
  }),
);
app.get('/', (_req, res) => {
  res.type('text/plain').send('home');
});
const server = app.listen(Number(env('RP_PORT')), '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));

try {
  const browse = personBrowser(origin);
  // Auth.js starts a sign-in from a form post carrying its CSRF token.
  const { csrfToken } = (await (await browse(`${origin}/auth/csrf`)).json()) as { csrfToken: string };
  const consent = await browse(`${origin}/auth/signin/acme-identity`, {
    method: 'POST',
    body: new URLSearchParams({ csrfToken, callbackUrl: `${origin}/` }),
  });
  const approve = /action="([^"]+\/approve)"/.exec(await consent.text())?.[1];
  if (!approve) throw new Error('no approve button on the service page');
  console.log('the person approves on the service page');
  await browse(approve, { method: 'POST' });
  const session = (await (await browse(`${origin}/auth/session`)).json()) as {
    user?: { name?: string };
    acme?: Record<string, unknown>;
  } | null;
  if (!session?.user) throw new Error('no session after the sign-in');
  console.log(`signed in as ${session.user.name}; claims ${JSON.stringify(session.acme)}`);
} finally {
  server.close();
}
