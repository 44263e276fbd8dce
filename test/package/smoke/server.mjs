// What a server-side runtime (Node, Bun, Deno, workerd) checks: the REST client against the
// sandbox, and a whole OIDC sign-in as a backend (the sandbox completes the journey at once).
import { AcmeIdentityClient } from '@acme/identity';
import { createOidcClient } from '@acme/identity/oidc';
import { verifyEverywhere } from './common.mjs';

export async function smoke(config) {
  const acme = new AcmeIdentityClient({ baseUrl: config.baseUrl, clientId: config.clientId, clientSecret: config.clientSecret, tenantId: config.tenantId });
  // Another person in each runtime: the service refuses a second open request to the same one.
  const n = String(Math.floor(Math.random() * 1e8)).padStart(8, '0');
  const { data } = await acme.identityRequests.create({ ...config.person, email: `smoke-${n}@example.com`, phone: `4${n}` });
  const { data: read } = await acme.identityRequests.get({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });

  const oidc = createOidcClient({ authUrl: config.authUrl, clientId: config.oidcClientId, redirectUri: config.redirectUri });
  const { url, transaction } = await oidc.startSignIn({ scope: ['openid', 'profile'] });
  const redirect = await fetch(url, { redirect: 'manual' });
  const { claims } = await oidc.finishSignIn(redirect.headers.get('location'), transaction);

  return {
    client: read.email === `smoke-${n}@example.com` ? "created and read" : "wrong record",
    oidc: claims.nonce === transaction.nonce && claims.iss === config.authUrl ? 'signed-in' : 'wrong claims',
    ...(await verifyEverywhere(config)),
  };
}
