// The server-side smoke through ESM imports (Node, Bun, Deno, workerd).
import { AcmeIdentityClient } from '@acme/identity';
import { createOidcClient } from '@acme/identity/oidc';
import { remoteJwks, verifySdJwt } from '@acme/identity/sd-jwt';
import { createWebhookVerifier } from '@acme/identity/webhooks';
import * as checks from './checks.mjs';

export const smoke = (config) =>
  checks.smoke({ AcmeIdentityClient, createOidcClient, remoteJwks, verifySdJwt, createWebhookVerifier }, config);
