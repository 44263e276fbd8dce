/**
 * The asynchronous identity flow end to end: create a request, let the person approve it, receive
 * the signed webhook, answer 200, fetch the identity response with the webhook's token, verify it
 * (expiry, digests, request code, the issuer's signature) and read the typed claims.
 *
 * Configuration comes from the environment, as it would in a real backend:
 *   ACME_BASE_URL, ACME_AUTH_URL, ACME_CLIENT_ID, ACME_CLIENT_SECRET, ACME_TENANT_ID,
 *   ACME_WEBHOOK_SECRET, and WEBHOOK_PORT (where the portal's webhook URL points).
 * `npm run demo` serves the fake service on localhost, points its webhooks here and sets them.
 */
import type { AddressInfo } from 'node:net';
import { AcmeIdentityClient, IdentityFlowError } from '@acme/identity';
import { readClaim, remoteJwks } from '@acme/identity/sd-jwt';
import type { IdentityActionsEvent } from '@acme/identity/webhooks';
import { nodeHttpServer } from './webhook-recipes/node-http.js';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const acme = new AcmeIdentityClient({
  baseUrl: env('ACME_BASE_URL'),
  clientId: env('ACME_CLIENT_ID'),
  clientSecret: env('ACME_CLIENT_SECRET'),
  tenantId: env('ACME_TENANT_ID'),
});
// The service's signing keys, found through discovery and cached.
const keys = remoteJwks(env('ACME_AUTH_URL'));

// 1. The webhook receiver: verify, keep the event, answer 200. The identity is fetched afterwards.
const received = new Map<string, (event: IdentityActionsEvent) => void>();
const receiver = nodeHttpServer(env('ACME_WEBHOOK_SECRET'), async (event) => {
  received.get(event.accessRequestCode)?.(event);
});
await new Promise<void>((resolve) => receiver.listen(Number(env('WEBHOOK_PORT')), '127.0.0.1', resolve));
console.log(`webhook receiver on port ${(receiver.address() as AddressInfo).port}`);

const nextEvent = (accessRequestCode: string) =>
  new Promise<IdentityActionsEvent>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no webhook within 10 s')), 10_000);
    received.set(accessRequestCode, (event) => {
      clearTimeout(timer);
      resolve(event);
    });
  });

try {
  // 2. Create the request; keep identity_session_code (your database would, keyed by access_request_code).
  const { data } = await acme.identityRequests.create({
    first_name: 'Jane',
    last_name: 'Citizen',
    email: 'jane.citizen@example.com',
    phone: '412345678',
    phone_country_code: 61,
    purpose: 'account-opening',
    return_url: 'https://rp.example/verified',
    off_ramp_url: 'https://rp.example/later',
    claims: ['acmeidentity.name', 'acmeidentity.birth_date', 'sanctionscheck.is_pep', 'acmeidentity.credential'],
  });
  console.log(`created ${data.access_request_code}; the person goes to ${data.redirect_url}`);
  const webhook = nextEvent(data.access_request_code);

  // 3. The person approves (in the sandbox, the journey page's "Approve" button does this).
  await fetch(`${data.redirect_url}/approve`, { method: 'POST', redirect: 'manual' });

  // 4. The webhook arrives, signed; the receiver verified it and answered 200.
  const event = await webhook;
  console.log(`webhook: ${event.kind} for ${event.accessRequestCode}`);

  // 5. Every event goes on, whatever its kind ('approved', 'cancelled', or 'unknown' when the payload
  //    does not say): getVerified fetches the identity with the webhook's token and verifies it, and
  //    reports a cancelled request (said by the event, or by the service) as step 'cancelled'.
  let identity: Awaited<ReturnType<typeof acme.identityResponses.getVerified>>;
  try {
    identity = await acme.identityResponses.getVerified(event, {
      identitySessionCode: data.identity_session_code,
      keys,
      requireSignature: true,
    });
  } catch (error) {
    // In your job: mark the request cancelled. Here the person approved, so this is a failure.
    if (error instanceof IdentityFlowError && error.step === 'cancelled') console.log('the request was cancelled: no identity');
    throw error;
  }
  const name = readClaim(identity.claims, 'acmeidentity.name');
  console.log(`verified by ${identity.proof}; expires ${new Date(identity.expiresAt * 1000).toISOString()}`);
  console.log(`name: ${name?.first_name} ${name?.last_name}`);
  console.log(`born: ${readClaim(identity.claims, 'acmeidentity.birth_date')}`);
  console.log(`politically exposed: ${readClaim(identity.claims, 'sanctionscheck.is_pep') ? 'yes' : 'no'}`);
  console.log(`missing: ${identity.disclosuresMissing.join(', ') || 'none'}; partial: ${identity.partiallyComplete}`);
} finally {
  receiver.close();
}
