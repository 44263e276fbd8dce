import { describe, expect, test } from 'vitest';
import { compactVerify, decodeJwt, importJWK } from 'jose';
import { AuthenticationError, NotFoundError, PermissionDeniedError, type IdentityRequestInput } from '../../src/index.js';
import { harness, person, received, rejection } from '../helpers.js';

async function approved(claims: IdentityRequestInput['claims'] = ['acmeidentity.given_name', 'document.passport.travel_document_number']) {
  const h = await harness();
  const { data } = await h.client.identityRequests.create(person({ claims }));
  const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
  const event = await h.service.approve(data.access_request_code);
  return { ...h, codes, event };
}

async function sha256url(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Buffer.from(digest).toString('base64url');
}

describe('identityResponses.get', () => {
  test('sends the webhook token as X-Access-Token, exactly as received', async () => {
    const { client, service, codes, event } = await approved();
    await client.identityResponses.get({ ...codes, accessToken: event.access_token });
    const [sent] = received(service, /^\/identity\/response\//);
    expect(sent!.headers['x-access-token']).toBe(event.access_token);
    expect(sent!.headers['x-tenant-id']).toBe('tenant-sandbox');
  });

  test('returns the data the spec describes, with unknown document data listed as missing', async () => {
    const { client, codes, event } = await approved();
    const { data } = await client.identityResponses.get({ ...codes, accessToken: event.access_token });
    expect(data).toMatchObject({
      _sd_alg: 'sha256',
      request_code: codes.identitySessionCode,
      partially_complete: false,
      disclosures_missing: ['document.passport.travel_document_number'],
      disclosures: [{ claim: 'acmeidentity.given_name', value: 'Jane', salt: expect.any(String) }],
    });
    expect(data.exp! - data.iat!).toBeGreaterThan(0);
  });

  test("each disclosure's digest is in _sd (RFC 9901 encoding of [salt, claim, value])", async () => {
    const { client, codes, event } = await approved(['acmeidentity.given_name', 'acmeidentity.valid', 'sanctionscheck.matches']);
    const { data } = await client.identityResponses.get({ ...codes, accessToken: event.access_token });
    for (const d of data.disclosures ?? []) {
      const encoded = Buffer.from(JSON.stringify([d.salt, d.claim, d.value])).toString('base64url');
      expect(data._sd).toContain(await sha256url(encoded));
    }
    expect(data._sd!.length).toBeGreaterThan(data.disclosures!.length); // decoys
  });

  test('acmeidentity.credential_jwt is a signed SD-JWT, present only when the credential was requested', async () => {
    const without = await approved(['acmeidentity.given_name']);
    const plain = await without.client.identityResponses.get({ ...without.codes, accessToken: without.event.access_token });
    expect(plain.data['acmeidentity.credential_jwt']).toBeUndefined();

    const { client, service, codes, event } = await approved(['acmeidentity.given_name', 'acmeidentity.credential']);
    const { data } = await client.identityResponses.get({ ...codes, accessToken: event.access_token });
    const sdJwt = data['acmeidentity.credential_jwt']!;
    expect(sdJwt.endsWith('~')).toBe(true);
    const [jwt, ...disclosures] = sdJwt.split('~');
    await compactVerify(jwt!, await importJWK(service.keys.publicJwk, 'RS256'));
    const payload = decodeJwt(jwt!) as { _sd: string[] };
    for (const disclosure of disclosures.filter(Boolean)) expect(payload._sd).toContain(await sha256url(disclosure));
  });

  test('a token for another request is refused', async () => {
    const h = await harness();
    const a = await h.client.identityRequests.create(person());
    const codes = { accessRequestCode: a.data.access_request_code, identitySessionCode: a.data.identity_session_code };
    await h.service.approve(a.data.access_request_code);
    const b = await h.client.identityRequests.create(person({ email: 'b@example.com', phone: '400000002' }));
    const eventB = await h.service.approve(b.data.access_request_code);
    expect(await rejection(h.client.identityResponses.get({ ...codes, accessToken: eventB.access_token }))).toBeInstanceOf(
      PermissionDeniedError,
    );
  });

  test('a forged X-Access-Token is an AuthenticationError', async () => {
    const { client, codes } = await approved();
    const forged = 'eyJhbGciOiJub25lIn0.eyJhY2Nlc3NfdG9rZW4iOiJ4In0.';
    expect(await rejection(client.identityResponses.get({ ...codes, accessToken: forged }))).toBeInstanceOf(AuthenticationError);
  });

  test('a cancelled request has no response', async () => {
    const h = await harness();
    const { data } = await h.client.identityRequests.create(person());
    const event = await h.service.cancel(data.access_request_code);
    const codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
    expect(await rejection(h.client.identityResponses.get({ ...codes, accessToken: event.access_token }))).toBeInstanceOf(NotFoundError);
    expect(event.event).toBe('cancelled');
  });
});
