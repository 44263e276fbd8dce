// Node through CommonJS `require`: `node [--no-experimental-require-module] run.cjs`, with the
// configuration in SMOKE_CONFIG; prints JSON. The checks are loaded with import(), which CommonJS
// always has; the package itself only with require.
const { AcmeIdentityClient } = require('@acme/identity');
const { createOidcClient } = require('@acme/identity/oidc');
const { remoteJwks, verifySdJwt } = require('@acme/identity/sd-jwt');
const { createWebhookVerifier } = require('@acme/identity/webhooks');

import('./checks.mjs')
  .then((checks) =>
    checks.smoke(
      { AcmeIdentityClient, createOidcClient, remoteJwks, verifySdJwt, createWebhookVerifier },
      JSON.parse(process.env.SMOKE_CONFIG),
    ),
  )
  .then((result) => console.log(JSON.stringify(result)))
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
