// The smoke checks every runtime runs, written once and given the SDK's modules (`sdk`): the ESM
// runs pass what they import, run.cjs what it requires. Nothing here imports the package itself.

/** What every runtime checks: SD-JWT and credential JWT verification against the sandbox's JWKS (found by discovery), and a signed webhook. */
export async function verifyEverywhere(sdk, config) {
  const keys = sdk.remoteJwks(config.authUrl);
  const sdJwt = await sdk.verifySdJwt(config.sdJwt, { keys });
  // A credential JWT is valid until revoked: it has no exp to require.
  const credential = await sdk.verifySdJwt(config.credentialJwt, { keys, requiredClaims: [] });
  const webhooks = sdk.createWebhookVerifier({ secret: config.webhookSecret });
  const event = await webhooks.verify(config.webhookBody, { 'x-webhook-signature': config.webhookSignature });
  let tampered = 'accepted';
  try {
    await webhooks.verify(config.webhookBody.replace('approved', 'cancelled'), { 'x-webhook-signature': config.webhookSignature });
  } catch (error) {
    tampered = error.code;
  }
  return {
    sdJwt: { given_name: sdJwt.claims.given_name, family_name: sdJwt.claims.family_name },
    credential: credential.claims.sub,
    webhook: event.accessRequestCode,
    tamperedWebhook: tampered,
  };
}

/** What a server-side runtime (Node, Bun, Deno, workerd) checks besides: the REST client against the sandbox, and a whole OIDC sign-in as a backend (the sandbox completes the journey at once). */
export async function smoke(sdk, config) {
  const acme = new sdk.AcmeIdentityClient({
    baseUrl: config.baseUrl,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    tenantId: config.tenantId,
  });
  // Another person in each run: the service refuses a second open request to the same one.
  const n = String(Math.floor(Math.random() * 1e8)).padStart(8, '0');
  const { data } = await acme.identityRequests.create({ ...config.person, email: `smoke-${n}@example.com`, phone: `4${n}` });
  const { data: read } = await acme.identityRequests.get({
    accessRequestCode: data.access_request_code,
    identitySessionCode: data.identity_session_code,
  });

  const oidc = sdk.createOidcClient({ authUrl: config.authUrl, clientId: config.oidcClientId, redirectUri: config.redirectUri });
  const { url, transaction } = await oidc.startSignIn({ scope: ['openid', 'profile'] });
  const redirect = await fetch(url, { redirect: 'manual' });
  const { claims } = await oidc.finishSignIn(redirect.headers.get('location'), transaction);

  return {
    client: read.email === `smoke-${n}@example.com` ? 'created and read' : 'wrong record',
    oidc: claims.nonce === transaction.nonce && claims.iss === config.authUrl ? 'signed-in' : 'wrong claims',
    ...(await verifyEverywhere(sdk, config)),
  };
}
