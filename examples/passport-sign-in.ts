/**
 * Signing a person in with Passport (`@acme/identity/passport`): an Express app with
 * express-session and the strategy, and a person whose "browser" follows the redirects and
 * approves on the service's page (in CI, the same flow also runs in headless Chromium:
 * test/passport/passport.test.ts).
 *
 * Configuration comes from the environment, as it would in a real backend:
 *   ACME_AUTH_URL, ACME_OIDC_BACKEND_CLIENT_ID, ACME_OIDC_BACKEND_CLIENT_SECRET, RP_PORT
 *   (its http://127.0.0.1:RP_PORT/callback is a registered redirect URI).
 * `npm run demo` serves the fake service on localhost and sets them.
 */
import express from 'express';
import session from 'express-session';
import passport from 'passport';
import { AcmeIdentityStrategy, readClaim } from '@acme/identity/passport';
import { signInAsPerson } from './support/person.js';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const origin = `http://127.0.0.1:${env('RP_PORT')}`;

passport.use(
  new AcmeIdentityStrategy(
    {
      authUrl: env('ACME_AUTH_URL'),
      clientId: env('ACME_OIDC_BACKEND_CLIENT_ID'),
      redirectUri: `${origin}/callback`,
      clientAuthentication: { method: 'client_secret_basic', clientSecret: env('ACME_OIDC_BACKEND_CLIENT_SECRET') },
      signIn: { scope: ['openid'], claims: { acme: ['acmeidentity.name'] } },
    },
    // Your user, from the checked ID token: here its subject and the decoded name.
    ({ claims }) => ({ id: claims.sub, name: readClaim(claims, 'acmeidentity.name') }),
  ),
);
passport.serializeUser((user, done) => done(null, user));
passport.deserializeUser((user: Express.User, done) => done(null, user));

const app = express();
app.use(session({ secret: process.env['SESSION_SECRET'] ?? crypto.randomUUID(), resave: false, saveUninitialized: false }));
app.use(passport.session());
app.get('/login', passport.authenticate('acme-identity'));
app.get('/callback', passport.authenticate('acme-identity', { failureRedirect: '/login-failed' }), (_req, res) => res.redirect('/account'));
app.get('/account', (req, res) => {
  const user = req.user as { id: string; name?: { first_name: string; last_name: string } } | undefined;
  if (!user) return void res.status(401).send('not signed in');
  res.type('text/plain').send(`signed in as ${user.name?.first_name} ${user.name?.last_name} (${user.id})`);
});
const server = app.listen(Number(env('RP_PORT')), '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));

try {
  // The person's browser: the redirects, the service's page, approve.
  const account = await signInAsPerson(origin);
  const text = await account.text();
  if (account.status !== 200) throw new Error(`the sign-in failed: ${account.status} ${text}`);
  console.log(text);
} finally {
  server.close();
}
