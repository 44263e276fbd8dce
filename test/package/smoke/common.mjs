// What every runtime checks with the installed package: SD-JWT and credential JWT verification
// against the sandbox's JWKS (found by discovery), and a signed webhook.
import { remoteJwks, verifySdJwt } from '@acme/identity/sd-jwt';
import { createWebhookVerifier } from '@acme/identity/webhooks';

export async function verifyEverywhere(config) {
  const keys = remoteJwks(config.authUrl);
  const sdJwt = await verifySdJwt(config.sdJwt, { keys });
  // A credential JWT is valid until revoked: it has no exp to require.
  const credential = await verifySdJwt(config.credentialJwt, { keys, requiredClaims: [] });
  const webhooks = createWebhookVerifier({ secret: config.webhookSecret });
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
