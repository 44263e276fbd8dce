/**
 * The SDK's flows as the README writes them, run against one fake reading the spec in some way:
 * token, create, read back, webhook to verified identity (and a redelivery, and a second identity
 * signed later), the same events through the identity inbox, conflict, cancellation, a typed 404,
 * the credential life cycle, status records, and a sign-in with its claims.
 * Each must give the right result or a typed error; a silently different one fails the run.
 */
import { http } from 'msw';
import { expect } from 'vitest';
import {
  ConflictError,
  CredentialExpiredError,
  CredentialRevokedError,
  CredentialVerificationFailedError,
  IdentityFlowError,
  NotFoundError,
  type InvalidResponseError,
  readClaim,
  readClaims,
  type AcmeIdentityClient,
} from '../../src/index.js';
import { createOidcClient, type OidcOptions } from '../../src/oidc/index.js';
import { createIdentityInbox, MemoryInboxStore, type InboxDelivery } from '../../src/inbox/index.js';
import { remoteJwks } from '../../src/sd-jwt/index.js';
import { DEFAULT_CLIENT, DEFAULT_OIDC_CLIENT, openApiDocument, type FakeReadings, type FakeService } from '../../src/testing/index.js';
import {
  WebhookVerificationError,
  createWebhookReceiver,
  createWebhookVerifier,
  type IdentityActionsEvent,
  type WebhookVerifierOptions,
} from '../../src/webhooks/index.js';
import { asAnswered, credentialInput, person, received, rejection, server } from '../helpers.js';

const WEBHOOK_URL = 'https://rp.example/webhooks/acme';

/** Signature conventions that sign a timestamp, which a receiver holds to its clock. */
const TIMESTAMPED = new Set(['stripe', 'standard', 'rotation', 'timestamped', 'slack']);

/**
 * The README's receiver: verify, keep the event, answer 200. `toleranceSeconds` is what the
 * refusal of a delivery signed by a clock far from this one tells the operator to set.
 */
function receiving(service: FakeService) {
  const events: IdentityActionsEvent[] = [];
  const refusals: unknown[] = [];
  const receiverWith = (options: Partial<WebhookVerifierOptions>) => {
    // The secret the fake issued (in hex under the `webhookKey: 'hex'` reading), as the README says to configure it.
    const secret = service.clients[0]?.webhookSecret ?? DEFAULT_CLIENT.webhookSecret;
    const verifier = createWebhookVerifier({ secret, logLevel: 'off', ...options });
    const watched = {
      ...verifier,
      verifyRequest: (request: Request) =>
        verifier.verifyRequest(request).catch((error: unknown) => {
          refusals.push(error);
          throw error;
        }),
    };
    return createWebhookReceiver(watched, (event) => {
      events.push(event);
    });
  };
  let receiver = receiverWith({});
  service.setWebhookUrl(WEBHOOK_URL);
  server.use(http.post(WEBHOOK_URL, ({ request }) => receiver.fetch(request)));
  return {
    events,
    refusals,
    configure(options: Partial<WebhookVerifierOptions>) {
      receiver = receiverWith(options);
    },
  };
}

/** An identity inbox on the memory store, through `client`, verifying with `keys`; what it hands over, kept in order. */
function inboxOn(client: AcmeIdentityClient, keys: ReturnType<typeof remoteJwks>) {
  const handed: InboxDelivery[] = [];
  const inbox = createIdentityInbox({
    client,
    store: new MemoryInboxStore(),
    encryptionKey: new Uint8Array(32).fill(7),
    logLevel: 'off',
    reconcileIntervalMs: false,
    verification: { keys, requireSignature: true },
    onIdentity: (delivery) => {
      handed.push(delivery);
    },
  });
  return Object.assign(inbox, { handed });
}

export async function flows(
  client: AcmeIdentityClient,
  service: FakeService,
  readings: FakeReadings,
  signInOptions: Partial<OidcOptions> = {},
) {
  const { events, refusals, configure } = receiving(service);
  const keys = remoteJwks(service.authUrl);
  const tokenRequests = received(service, /^\/auth\/api-token/).length;

  // Token and create: one token request serves every call (its lifetime was read, whatever its form).
  const jane = person({
    claims: ['acmeidentity.name', 'acmeidentity.email_verified', 'sanctionscheck.is_pep', 'acmeidentity.valid', 'acmeidentity.credential'],
  });
  const { data } = await client.identityRequests.create(jane);
  const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
  // time_expires written as a duration (the seconds left, the hours asked for) names no time: refused, naming the field.
  const expiryAsDuration = readings.requestExpiry === 'remaining' || readings.requestExpiry === 'hours';
  if (expiryAsDuration) {
    const refused = await rejection(client.identityRequests.get(codes));
    expect(refused).toMatchObject({ code: 'ERR_INVALID_RESPONSE', message: expect.stringContaining('before 2001') });
    expect((refused as InvalidResponseError).issues.filter((path) => path.endsWith('time_expires'))).toHaveLength(1);
  } else {
    const details = await client.identityRequests.get(codes);
    expect(details.data.first_name).toBe('Jane');
    // UNIX seconds, whatever the service wrote: 24 hours from now (the spec's default expiry).
    expect(details.data.time_expires! - (Date.now() / 1000 + 86_400)).toBeGreaterThan(-3_600);
    expect(details.data.time_expires! - (Date.now() / 1000 + 86_400)).toBeLessThan(3_600);
  }

  // The return page's view of the request, through the identity inbox: not started, never expired or
  // completed in 1970 (none at all where the details are refused).
  const inbox = inboxOn(client, keys);
  await inbox.expect(codes);
  expect(await inbox.askService(data.access_request_code)).toBe(expiryAsDuration ? undefined : 'not-started');

  // Webhook to verified identity, the README's loop: every event handled, whatever its kind.
  await service.approve(data.access_request_code);
  await service.webhooksSettled();
  if (TIMESTAMPED.has(readings.webhookSignature ?? '') && Math.abs(readings.clockSkewSeconds ?? 0) > 300) {
    // Signed by a clock ten minutes from this one: refused, by an error that names what to set.
    expect(events).toHaveLength(0);
    expect(refusals[0]).toBeInstanceOf(WebhookVerificationError);
    expect(refusals[0]).toMatchObject({ code: 'ERR_WEBHOOK_TIMESTAMP', message: expect.stringContaining('toleranceSeconds') });
    configure({ toleranceSeconds: 900 });
    await service.resendWebhook(data.access_request_code);
    await service.webhooksSettled();
  }
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

  // The same event through the identity inbox: kept, fetched, verified and handed over once.
  expect(await inbox.askService(data.access_request_code)).toBe(expiryAsDuration ? undefined : 'completed');
  expect(await inbox.receive(approved!)).toBe('added');
  await inbox.runOnce();
  expect(inbox.handed).toMatchObject([{ kind: 'approved', id: data.access_request_code }]);
  const delivered = inbox.handed[0]!;
  if (delivered.kind !== 'approved') throw new Error('the inbox handed over no identity');
  expect(delivered.identity.proof).toBe('signature');
  expect(readClaim(delivered.identity.claims, 'acmeidentity.name')).toEqual({ first_name: 'Jane', last_name: 'Citizen' });
  expect(await inbox.receive(approved!)).toBe('duplicate');
  // The session code a webhook carries beside the spec's fields is the event's, and fetches a request nobody expected.
  expect(approved!.identitySessionCode).toBe(readings.webhookCodes === 'both' ? data.identity_session_code : undefined);
  const unexpecting = inboxOn(client, keys);
  expect(await unexpecting.receive(approved!)).toBe('added');
  await unexpecting.runOnce();
  if (readings.webhookCodes === 'both') expect(unexpecting.handed).toMatchObject([{ kind: 'approved', id: data.access_request_code }]);
  else expect(unexpecting.handed).toEqual([]);

  // One event, one handover: the service sends the approval again (with a fresh access_token).
  await service.resendWebhook(data.access_request_code);
  await service.webhooksSettled();
  expect(events).toHaveLength(1);

  // Conflict: a second request to a person with an open one names the first.
  const other = await client.identityRequests.create(person({ email: 'other@example.com', phone: '400000001' }));
  const again = await rejection(client.identityRequests.create(person({ email: 'other@example.com', phone: '400000001' })));
  expect(again).toBeInstanceOf(ConflictError);
  expect((again as ConflictError).existingCode).toBe(other.data.access_request_code);
  // Named as the creation's answer names them, both codes are kept: the existing request can be read or deleted.
  if (readings.conflictDetails === 'codes') {
    expect(again).toMatchObject({
      accessRequestCode: other.data.access_request_code,
      identitySessionCode: other.data.identity_session_code,
    });
  }

  // Cancelled: never an identity.
  const refusedBefore = refusals.length;
  await service.cancel(other.data.access_request_code);
  await service.webhooksSettled();
  if (readings.cancelledToken === 'omitted' && readings.webhookKind === 'none') {
    // Neither a token nor a kind: nothing tells this delivery from an approval that lost its
    // token. Refused, saying so (the service sends it again), never taken as either.
    expect(events.some((event) => event.accessRequestCode === other.data.access_request_code)).toBe(false);
    expect(refusals.length).toBeGreaterThan(refusedBefore);
    expect(refusals.at(-1)).toMatchObject({ code: 'ERR_WEBHOOK_PAYLOAD', message: expect.stringContaining('cancellation') });
  } else {
    const cancelled = events.find((event) => event.accessRequestCode === other.data.access_request_code)!;
    expect(['cancelled', 'unknown']).toContain(cancelled.kind);
    const refusal = await rejection(
      client.identityResponses.getVerified(cancelled, { identitySessionCode: other.data.identity_session_code, keys }),
    );
    expect(refusal).toBeInstanceOf(IdentityFlowError);
    expect(refusal).toMatchObject({ step: 'cancelled' });
    // Through the inbox, handed over as cancelled (an event that names no kind too: the service's answer decides).
    await inbox.expect({ accessRequestCode: other.data.access_request_code, identitySessionCode: other.data.identity_session_code });
    expect(await inbox.receive(cancelled)).toBe('added');
    await inbox.runOnce();
    expect(inbox.handed.map((delivery) => [delivery.kind, delivery.id])).toEqual([
      ['approved', data.access_request_code],
      ['cancelled', other.data.access_request_code],
    ]);
  }

  // Deleted, whatever the answer to the DELETE says (or does not): then it is not found.
  const deleted = await client.identityRequests.create(person({ email: 'deleted@example.com', phone: '400000003' }));
  const deletedCodes = { accessRequestCode: deleted.data.access_request_code, identitySessionCode: deleted.data.identity_session_code };
  await client.identityRequests.delete(deletedCodes);
  expect(await rejection(client.identityRequests.get(deletedCodes))).toBeInstanceOf(NotFoundError);

  // Typed errors, whatever the error body's shape.
  const missing = await rejection(client.identityRequests.get({ accessRequestCode: 'arc_none', identitySessionCode: 'isc_none' }));
  expect(missing).toBeInstanceOf(NotFoundError);
  // Its status as sent: 200 from a service that answers every error so (the errorStatus reading), classed by its code.
  expect(missing).toMatchObject({ status: readings.errorStatus === 'ok' ? 200 : 404, code: 'ERR_NOT_FOUND' });
  // The service's code as it wrote it (e1005 under the errorCase reading).
  expect((missing as NotFoundError).serviceCode?.toUpperCase()).toBe('E1005');

  // A second identity, signed after the first was verified (under a key rotation, by a key the cached JWKS does not hold).
  const second = await client.identityRequests.create(
    person({ email: 'second@example.com', phone: '400000002', claims: ['acmeidentity.given_name', 'acmeidentity.credential'] }),
  );
  await service.approve(second.data.access_request_code);
  await service.webhooksSettled();
  const secondEvent = events.at(-1)!;
  expect(secondEvent.accessRequestCode).toBe(second.data.access_request_code);
  const secondIdentity = await client.identityResponses.getVerified(secondEvent, {
    identitySessionCode: second.data.identity_session_code,
    keys,
    requireSignature: true,
  });
  expect(readClaim(secondIdentity.claims, 'acmeidentity.given_name')).toBe('Jane');

  // Credentials.
  // A file of 209 bytes: its base64 is padded and runs past one MIME line.
  const file = new TextEncoder().encode(`%PDF-1.7\n${'x'.repeat(200)}`);
  const ref = (await client.credentials.submit(credentialInput({ file }))).data.credential_ref;
  // The credential as sent: its claims, or (the decoded and wrapped readings) an object holding them.
  const credential = { sub: 'user-1/person-1' };
  expect((await client.credentials.verify(ref)).data).toMatchObject(asAnswered(readings.verifyAnswer, credential));
  // The source file, whatever form of base64 it came back in (each form as the reading writes it).
  const written = (await client.credentials.fileData(ref)).data.file_data;
  const FORMS = { base64: /^[A-Za-z0-9+/]+=$/, base64url: /^[A-Za-z0-9_-]+$/, mime: /^[A-Za-z0-9+/]{76}\r\n/, 'data-url': /^data:/ };
  expect(written).toMatch(FORMS[readings.fileEncoding ?? 'base64']);
  expect(await client.credentials.download(ref)).toEqual(file);
  expect((await client.credentials.revoke(ref)).data.revoked).toBe(true);
  expect(await rejection(client.credentials.verify(ref))).toBeInstanceOf(CredentialRevokedError);
  // A credential that does not verify is never returned as verified, however the service says so
  // (the verifyAnswer reading): a 412, a 200 whose credential has expired, or a 200 with a verdict.
  const lapsed = credentialInput({ file, time_expires: Math.floor(Date.now() / 1000) - 86_400 });
  const expired = await rejection(client.credentials.verify((await client.credentials.submit(lapsed)).data.credential_ref));
  expect(expired).toBeInstanceOf(readings.verifyAnswer === 'verdict' ? CredentialVerificationFailedError : CredentialExpiredError);
  const failing = (await client.credentials.submit(credentialInput({ file }))).data.credential_ref;
  service.setCredentialCondition(failing, 'verification_failed');
  expect(await rejection(client.credentials.verify(failing))).toBeInstanceOf(CredentialVerificationFailedError);

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

  // A sign-in: the ID token verified against the service's keys (rotated or not, its issuer with or
  // without its slash), and its acme claims read wherever the service put them.
  const oidc = createOidcClient({
    authUrl: service.authUrl,
    clientId: DEFAULT_OIDC_CLIENT.clientId,
    redirectUri: DEFAULT_OIDC_CLIENT.redirectUris[0]!,
    ...signInOptions,
  });
  // Two claims of one credential, apart in the list: split between the ID token and userinfo, each
  // of its objects (`acme`, `acmeidentity`) holds a part.
  const asked = ['acmeidentity.name', 'sanctionscheck.is_pep', 'acmeidentity.given_name'] as const;
  const signIn = await oidc.startSignIn({ claims: { acme: [...asked] } });
  const journey = await service.fetch(new Request(signIn.url));
  expect(journey.status).toBe(302);
  // By default, userinfo is read only when the ID token lacks a claim asked for (the signInClaimsAt
  // readings `userinfo` and `split`), and its claims complete the ID token's.
  const userinfoRequests = received(service, /\/userinfo$/).length;
  const signedIn = await oidc.finishSignIn(journey.headers.get('location')!, signIn.transaction);
  const janeClaims = {
    'acmeidentity.name': { first_name: 'Jane', last_name: 'Citizen' },
    'sanctionscheck.is_pep': false,
    'acmeidentity.given_name': 'Jane',
  };
  expect(readClaims(signedIn.claims, [...asked])).toEqual(janeClaims);
  const idTokenLacksClaims = readings.signInClaimsAt === 'userinfo' || readings.signInClaimsAt === 'split';
  expect(received(service, /\/userinfo$/).length - userinfoRequests).toBe(idTokenLacksClaims ? 1 : 0);
  expect(signedIn.userinfo !== undefined).toBe(idTokenLacksClaims);
  if (readings.signInClaimsAt !== 'id-token') expect(readClaims(await oidc.userinfo(signedIn), [...asked])).toEqual(janeClaims);
}
