/**
 * Signing a person in with better-auth (its Generic OAuth plugin) and `@acme/identity/better-auth`:
 * the provider, checked against the live service at startup; better-auth verifies the ID token
 * against the service's keys and keeps the user; the service's claims are decoded from that ID
 * token. The person's "browser" starts the sign-in, approves on the service's page and reads the
 * session (in CI the same flow also runs in headless Chromium: test/better-auth/better-auth.test.ts).
 *
 * Configuration comes from the environment, as it would in a real backend:
 *   ACME_AUTH_URL, ACME_OIDC_BACKEND_CLIENT_ID, ACME_OIDC_BACKEND_CLIENT_SECRET, RP_PORT
 *   (its http://127.0.0.1:RP_PORT/api/auth/callback/acme-identity is a registered redirect URI), and
 *   BETTER_AUTH_SECRET (better-auth's own; a random one here when unset).
 * `npm run demo` serves the fake service on localhost and sets them.
 */
import { betterAuth } from 'better-auth';
import { memoryAdapter } from 'better-auth/adapters/memory';
import { toNodeHandler } from 'better-auth/node';
import { genericOAuth } from 'better-auth/plugins/generic-oauth';
import express from 'express';
import { decodeJwt } from 'jose';
import { acmeIdentityProfile, acmeIdentityProvider } from '@acme/identity/better-auth';
import { personBrowser } from './support/person.js';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const origin = `http://127.0.0.1:${env('RP_PORT')}`;

// Checked at startup against the service's discovery. The provider asks for the email too:
// better-auth keeps one for every user.
const acme = await acmeIdentityProvider({
  authUrl: env('ACME_AUTH_URL'),
  clientId: env('ACME_OIDC_BACKEND_CLIENT_ID'),
  clientSecret: env('ACME_OIDC_BACKEND_CLIENT_SECRET'),
  signIn: { claims: { acme: ['acmeidentity.name', 'sanctionscheck.is_pep'] } },
});

// In memory for the example; a real application passes its database (Kysely, Prisma, Drizzle…).
const database: Record<string, Record<string, unknown>[]> = { user: [], session: [], account: [], verification: [] };
const auth = betterAuth({
  baseURL: origin,
  secret: process.env['BETTER_AUTH_SECRET'] ?? `${crypto.randomUUID()}${crypto.randomUUID()}`,
  database: memoryAdapter(database),
  logger: { disabled: true },
  plugins: [genericOAuth({ config: [acme] })],
});

const app = express();
app.all('/api/auth/*splat', toNodeHandler(auth));
app.get('/', (_req, res) => {
  res.type('text/plain').send('home');
});
const server = app.listen(Number(env('RP_PORT')), '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));

try {
  const browse = personBrowser(origin);
  // The page's sign-in button (authClient.signIn.social): better-auth answers with the service's
  // authorization URL, as JSON for a script and in a Location header, which this "browser" follows.
  const consent = await browse(`${origin}/api/auth/sign-in/social`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ provider: 'acme-identity', callbackURL: '/' }),
  });
  const approve = /action="([^"]+\/approve)"/.exec(await consent.text())?.[1];
  if (!approve) throw new Error('no approve button on the service page');
  console.log('the person approves on the service page');
  await browse(approve, { method: 'POST' });
  const session = (await (await browse(`${origin}/api/auth/get-session`)).json()) as { user?: { id: string; name?: string } } | null;
  if (!session?.user) throw new Error('no session after the sign-in');
  // Every claim, decoded, from the ID token better-auth verified and kept with the account.
  const account = database['account']?.find((row) => row['userId'] === session.user?.id);
  const claims = acmeIdentityProfile(decodeJwt(String(account?.['idToken']))).acme;
  console.log(`signed in as ${session.user.name}; claims ${JSON.stringify(claims)}`);
} finally {
  server.close();
}
