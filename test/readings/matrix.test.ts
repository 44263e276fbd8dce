/**
 * The SDK against every reading of what the spec leaves open (#25): one fake per reading, each
 * reading the spec differently in one choice, and one reading it differently in all of them at
 * once. Each runs the SDK's flows configured exactly as the README says (no option set for the
 * reading), and each flow must give the right result or a typed error: never a silently wrong one.
 */
import { http } from 'msw';
import { describe, expect, test } from 'vitest';
import {
  AuthenticationError,
  ConflictError,
  CredentialRevokedError,
  IdentityFlowError,
  NotFoundError,
  readClaim,
  type AcmeIdentityClient,
} from '../../src/index.js';
import { remoteJwks } from '../../src/sd-jwt/index.js';
import { DEFAULT_CLIENT, READING_CHOICES, openApiDocument, type FakeReadings, type FakeService } from '../../src/testing/index.js';
import { createWebhookReceiver, createWebhookVerifier, type IdentityActionsEvent } from '../../src/webhooks/index.js';
import { credentialInput, harness, person, received, rejection, server } from '../helpers.js';

const WEBHOOK_URL = 'https://rp.example/webhooks/acme';

/**
 * Every reading other than the fake's own, one at a time: those the SDK reads without being told.
 * The X-Request-Timestamp format is the one the SDK must be told (below).
 */
const single: [string, FakeReadings][] = Object.entries(READING_CHOICES)
  .filter(([name]) => name !== 'timestampFormat')
  .flatMap(([name, values]) =>
    (values as readonly unknown[]).slice(1).map((value): [string, FakeReadings] => [`${name}=${String(value)}`, { [name]: value }]),
  );

/** Every choice read otherwise at once: the service least like the fake. */
const ALL_OTHERWISE: FakeReadings = {
  webhookKind: 'envelope',
  webhookSignature: 'standard',
  statusEnvelope: 'wrapped',
  tokenEnvelope: 'bare',
  numbers: 'string',
  errorBody: 'bare',
  sdAlg: 'sha-256',
  claimValues: 'strings',
  dateHeader: 'omitted',
  clockSkewSeconds: 120,
  tokenLifetime: 'none',
  disclosureEncoding: 'spaced',
  requestCode: 'access_request_code',
};

/** The README's receiver: verify, keep the event, answer 200. */
function receiving(service: FakeService) {
  const events: IdentityActionsEvent[] = [];
  const verifier = createWebhookVerifier({ secret: DEFAULT_CLIENT.webhookSecret, logLevel: 'off' });
  const receiver = createWebhookReceiver(verifier, (event) => {
    events.push(event);
  });
  service.setWebhookUrl(WEBHOOK_URL);
  server.use(http.post(WEBHOOK_URL, ({ request }) => receiver.fetch(request)));
  return events;
}

async function flows(client: AcmeIdentityClient, service: FakeService, readings: FakeReadings) {
  const events = receiving(service);
  const keys = remoteJwks(service.authUrl);
  const tokenRequests = received(service, /^\/auth\/api-token/).length;

  // Token and create: one token request serves every call (its lifetime was read, whatever its form).
  const jane = person({
    claims: ['acmeidentity.name', 'acmeidentity.email_verified', 'sanctionscheck.is_pep', 'acmeidentity.valid', 'acmeidentity.credential'],
  });
  const { data } = await client.identityRequests.create(jane);
  const details = await client.identityRequests.get({
    accessRequestCode: data.access_request_code,
    identitySessionCode: data.identity_session_code,
  });
  expect(details.data.first_name).toBe('Jane');
  // UNIX seconds, whatever the service wrote: 24 hours from now (the spec's default expiry).
  expect(details.data.time_expires! - (Date.now() / 1000 + 86_400)).toBeGreaterThan(-3_600);
  expect(details.data.time_expires! - (Date.now() / 1000 + 86_400)).toBeLessThan(3_600);

  // Webhook to verified identity, the README's loop: every event handled, whatever its kind.
  await service.approve(data.access_request_code);
  await service.webhooksSettled();
  expect(events).toHaveLength(1);
  const [approved] = events;
  expect(['approved', 'unknown']).toContain(approved!.kind);
  if (readings.webhookKind !== 'none') expect(approved!.kind).toBe('approved');
  const identity = await client.identityResponses.getVerified(approved!, {
    identitySessionCode: data.identity_session_code,
    keys,
    requireSignature: true,
  });
  expect(identity.proof).toBe('signature');
  expect(readClaim(identity.claims, 'acmeidentity.name')).toEqual({ first_name: 'Jane', last_name: 'Citizen' });
  expect(readClaim(identity.claims, 'acmeidentity.email_verified')).toBe(true);
  expect(readClaim(identity.claims, 'sanctionscheck.is_pep')).toBe(false);
  expect(readClaim(identity.claims, 'acmeidentity.valid')).toBe(true);
  // The response's exp in UNIX seconds, within the hour the fake gives it: never a time that does not come.
  expect(identity.expiresAt - Date.now() / 1000).toBeGreaterThan(0);
  expect(identity.expiresAt - Date.now() / 1000).toBeLessThan(3_600 + 900);

  // Conflict: a second request to a person with an open one names the first.
  const other = await client.identityRequests.create(person({ email: 'other@example.com', phone: '400000001' }));
  const again = await rejection(client.identityRequests.create(person({ email: 'other@example.com', phone: '400000001' })));
  expect(again).toBeInstanceOf(ConflictError);
  expect((again as ConflictError).existingCode).toBe(other.data.access_request_code);

  // Cancelled: never an identity.
  await service.cancel(other.data.access_request_code);
  await service.webhooksSettled();
  const cancelled = events[1]!;
  expect(['cancelled', 'unknown']).toContain(cancelled.kind);
  const refusal = await rejection(
    client.identityResponses.getVerified(cancelled, { identitySessionCode: other.data.identity_session_code, keys }),
  );
  expect(refusal).toBeInstanceOf(IdentityFlowError);
  expect(refusal).toMatchObject({ step: 'cancelled' });

  // Typed errors, whatever the error body's shape.
  const missing = await rejection(client.identityRequests.get({ accessRequestCode: 'arc_none', identitySessionCode: 'isc_none' }));
  expect(missing).toBeInstanceOf(NotFoundError);
  expect(missing).toMatchObject({ status: 404, serviceCode: 'E1005' });

  // Credentials.
  const ref = (await client.credentials.submit(credentialInput())).data.credential_ref;
  expect((await client.credentials.verify(ref)).data).toMatchObject({ sub: 'user-1/person-1' });
  expect((await client.credentials.revoke(ref)).data.revoked).toBe(true);
  expect(await rejection(client.credentials.verify(ref))).toBeInstanceOf(CredentialRevokedError);

  // Status records: their fields, never undefined from a misread envelope.
  const current = await client.status.current();
  expect(current).toMatchObject({
    status: 'operational',
    environment: 'sandbox',
    components: { api: { version: openApiDocument.info.version } },
  });
  expect(typeof current.timestamp).toBe('number');
  const health = await client.status.health();
  expect(health).toMatchObject({ status: 'healthy', database: 'connected' });

  expect(received(service, /^\/auth\/api-token/)).toHaveLength(tokenRequests + 1);
}

describe('the SDK under every reading of what the spec leaves open', () => {
  test.each(single)('%s', async (_name, readings) => {
    const { client, service } = await harness({ fake: { readings, webhookRetry: { attempts: 1 } } });
    await flows(client, service, readings);
  });

  test.each([600, -600])(
    'no Date header and a service clock %i s off: the clock is learnt from the token it issues',
    async (clockSkewSeconds) => {
      const readings: FakeReadings = { dateHeader: 'omitted', clockSkewSeconds };
      const { client, service } = await harness({ fake: { readings, webhookRetry: { attempts: 1 } } });
      await flows(client, service, readings);
    },
  );

  test.each(['expires', 'expires_in'] as const)('token lifetime stated as %s alone, its numbers as strings', async (tokenLifetime) => {
    const readings: FakeReadings = { tokenLifetime, numbers: 'string' };
    const { client, service } = await harness({ fake: { readings, webhookRetry: { attempts: 1 } } });
    await flows(client, service, readings);
  });

  test.each(['unix-ms', 'iso8601'] as const)(
    'an X-Request-Timestamp format of %s: refused with an AuthenticationError naming timestampFormat, and fine once it is set',
    async (timestampFormat) => {
      const { client, service, makeClient } = await harness({ fake: { readings: { timestampFormat }, webhookRetry: { attempts: 1 } } });
      const error = await rejection(client.identityRequests.create(person()));
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as Error).message).toContain('timestampFormat');
      await flows(makeClient({ timestampFormat }), service, {});
    },
  );

  test('every choice read otherwise at once', async () => {
    const { client, service } = await harness({ fake: { readings: ALL_OTHERWISE, webhookRetry: { attempts: 1 } } });
    await flows(client, service, ALL_OTHERWISE);
  });
});
