/**
 * The return page (`createReturnPage`, `awaitIdentity`): the person comes back to your
 * `return_url` before the webhook has been handled, and the page shows "checking…" until the
 * result is in, with no reload; the off-ramp likewise, for a person who could not provide every
 * document. The URLs carry a sealed reference (`inbox.returnUrls`), the page's only key to it.
 *
 * Configuration comes from the environment, as it would in a real backend:
 *   ACME_BASE_URL, ACME_AUTH_URL, ACME_CLIENT_ID, ACME_CLIENT_SECRET, ACME_TENANT_ID,
 *   ACME_WEBHOOK_SECRET, WEBHOOK_PORT, RP_PORT, REDIS_URL and ACME_INBOX_KEY.
 * `npm run demo` serves the fake service on localhost and sets them. Here the person is played by
 * plain requests, and the page's script by `awaitIdentity` in Node (it polls where there is no
 * EventSource); test/inbox/return-page-chromium.test.ts runs the same page in Chromium.
 */
import type { Server } from 'node:http';
import express from 'express';
import { createClient } from 'redis';
import { AcmeIdentityClient } from '@acme/identity';
import { createIdentityInbox } from '@acme/identity/inbox';
import { RedisInboxStore } from '@acme/identity/redis';
import { awaitIdentity } from '@acme/identity/return-page';
import { remoteJwks } from '@acme/identity/sd-jwt';
import { acmeWebhookHandler } from '@acme/identity/webhooks/express';
import { startReturnPageApp } from './return-page/app.js';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const redis = await createClient({ url: env('REDIS_URL') }).connect();
const acme = new AcmeIdentityClient({
  baseUrl: env('ACME_BASE_URL'),
  clientId: env('ACME_CLIENT_ID'),
  clientSecret: env('ACME_CLIENT_SECRET'),
  tenantId: env('ACME_TENANT_ID'),
});
const inbox = createIdentityInbox({
  client: acme,
  store: new RedisInboxStore(redis, { prefix: `return-page-example-${Date.now()}:` }),
  encryptionKey: process.env['ACME_INBOX_KEY'] ?? Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'),
  verification: { keys: remoteJwks(env('ACME_AUTH_URL')), requireSignature: true },
  pollIntervalMs: 200,
  onIdentity: () => undefined,
});

// The webhook route stores each delivery before its 200; the inbox's workers fetch the identity.
const webhooks = express();
webhooks.post('/webhooks/acme', acmeWebhookHandler({ secret: env('ACME_WEBHOOK_SECRET'), verifierOptions: { replayStore: false }, inbox }));
const receiver = await new Promise<Server>((resolve) => {
  const listening = webhooks.listen(Number(env('WEBHOOK_PORT')), '127.0.0.1', () => resolve(listening));
});
const { origin, server } = await startReturnPageApp(inbox, Number(env('RP_PORT')));
inbox.start();

/** A request for a person, created with the return URLs that carry its reference. */
async function create(first: string, email: string, phone: string) {
  const urls = await inbox.returnUrls({ returnUrl: `${origin}/return`, offRampUrl: `${origin}/off-ramp` });
  const { data } = await acme.identityRequests.create({
    first_name: first,
    last_name: 'Citizen',
    email,
    phone,
    phone_country_code: 61,
    purpose: 'account-opening',
    return_url: urls.return_url,
    off_ramp_url: urls.off_ramp_url,
    claims: ['acmeidentity.name', 'acmeidentity.credential'],
  });
  await inbox.expect({
    accessRequestCode: data.access_request_code,
    identitySessionCode: data.identity_session_code,
    reference: urls.reference,
  });
  return data.redirect_url;
}

/** The person finishes on the service's page (`approve`, or `partial`: the off-ramp) and is sent back; the page awaits the result. */
async function comeBack(redirectUrl: string, action: 'approve' | 'partial', expected: string): Promise<string> {
  const finished = await fetch(`${redirectUrl}/${action}`, { method: 'POST', redirect: 'manual' });
  const location = finished.headers.get('location');
  if (!location) throw new Error(`the service's page answered ${finished.status} without sending the person back`);
  const landing = new URL(location);
  const reference = landing.searchParams.get('acme_ref');
  if (!reference) throw new Error(`the return URL ${landing.pathname} carries no acme_ref`);
  const page = await fetch(landing);
  const seen: string[] = [];
  const final = await awaitIdentity(`${origin}/identity/status`, {
    reference,
    onUpdate: (update) => seen.push(update.state),
    signal: AbortSignal.timeout(20_000),
  });
  if (final.state !== expected) throw new Error(`the page ended on ${final.state}, not ${expected}`);
  return `${landing.pathname} answered ${page.status}; the page showed ${seen.join(' → ')}${final.offRamp ? ' (by the off-ramp)' : ''}`;
}

try {
  console.log(`Jane: ${await comeBack(await create('Jane', 'jane.citizen@example.com', '412345678'), 'approve', 'verified')}`);
  console.log(`Ola: ${await comeBack(await create('Ola', 'ola.citizen@example.com', '412345679'), 'partial', 'partial')}`);
  // A reference forged or altered: the endpoint says nothing about any request.
  const forged = await fetch(`${origin}/identity/status?acme_ref=v1.forged`);
  if (forged.status !== 404) throw new Error(`a forged reference answered ${forged.status}`);
  console.log(`a forged reference: ${forged.status} ${await forged.text()}`);
} finally {
  await inbox.stop();
  receiver.close();
  server.close();
  await redis.quit();
}
