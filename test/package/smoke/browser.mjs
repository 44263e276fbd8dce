// Chromium: what a page uses (verification, and the PKCE redirect of the browser entry).
import { createBrowserSignIn } from '@acme/identity/oidc/browser';
import { remoteJwks, verifySdJwt } from '@acme/identity/sd-jwt';
import { createWebhookVerifier } from '@acme/identity/webhooks';
import { verifyEverywhere } from './checks.mjs';

async function smoke(config) {
  const items = new Map();
  const storage = { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => items.set(k, v), removeItem: (k) => items.delete(k) };
  const signIn = createBrowserSignIn({ authUrl: config.authUrl, clientId: config.oidcClientId, redirectUri: config.redirectUri, storage });
  const url = await signIn.authorizationUrl({ scope: ['openid'] });
  return {
    oidc: url.searchParams.get('code_challenge_method') === 'S256' && items.size === 1 ? 'redirect-ready' : 'wrong request',
    ...(await verifyEverywhere({ remoteJwks, verifySdJwt, createWebhookVerifier }, config)),
  };
}

smoke(__SMOKE_CONFIG__).then(
  (result) => (globalThis.__smoke = result),
  (error) => (globalThis.__smoke = { error: `${error.code ?? error.name}: ${error.message}` }),
);
