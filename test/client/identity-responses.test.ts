import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { http, HttpResponse } from 'msw';
import { compactVerify, decodeJwt, importJWK } from 'jose';
import {
  AuthenticationError,
  NotFoundError,
  PermissionDeniedError,
  SdJwtVerificationError,
  type IdentityRequestInput,
} from '../../src/index.js';
import { verifyIdentityResponse } from '../../src/sd-jwt/index.js';
import type { FakeServiceOptions } from '../../src/testing/index.js';
import { harness, looselyWritten, person, received, rejection, server } from '../helpers.js';

async function approved(
  claims: IdentityRequestInput['claims'] = ['acmeidentity.given_name', 'document.passport.travel_document_number'],
  fake: FakeServiceOptions = {},
) {
  const h = await harness({ fake });
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

  test.each(['compact', 'array'] as const)(
    'disclosures written as RFC 9901 writes them (the disclosureForm reading %s) are returned as the spec shows them, {claim, salt, value}',
    async (disclosureForm) => {
      const { client, codes, event } = await approved(['acmeidentity.given_name', 'acmeidentity.name'], { readings: { disclosureForm } });
      const { data } = await client.identityResponses.get({ ...codes, accessToken: event.access_token });
      expect(data.disclosures).toEqual([
        { claim: 'acmeidentity.given_name', salt: expect.any(String), value: 'Jane' },
        { claim: 'acmeidentity.name', salt: expect.any(String), value: expect.stringContaining('"first_name":"Jane"') },
      ]);
    },
  );

  test('a disclosure string that is not UTF-8 JSON of [salt, claim, value] is an unreadable answer, never a value with replaced characters', async () => {
    const { client, service, codes, event } = await approved(['acmeidentity.given_name']);
    const notUtf8 = Buffer.concat([Buffer.from('["salt-0", "acmeidentity.given_name", "J'), Buffer.from([0xff]), Buffer.from('"]')]);
    for (const written of [
      notUtf8.toString('base64url'),
      Buffer.from('["salt-0", "Jane"]').toString('base64url'),
      [7, 'acmeidentity.given_name', 'Jane'],
    ]) {
      server.use(
        http.get(/\/api\/v1\/identity\/response\//, async ({ request }) => {
          const answer = (await (await service.fetch(request)).json()) as { data: Record<string, unknown> };
          return HttpResponse.json({ ...answer, data: { ...answer.data, disclosures: [written] } });
        }),
      );
      const error = await rejection(client.identityResponses.get({ ...codes, accessToken: event.access_token }));
      expect(error, JSON.stringify(written)).toMatchObject({ code: 'ERR_INVALID_RESPONSE' });
    }
  });

  test('property: getVerified verifies a disclosure string by its own bytes, however its JSON was written; the fields the client returns never stand in for them', async () => {
    const { client, service, codes, event } = await approved(['acmeidentity.given_name', 'acmeidentity.name'], {
      readings: { disclosureForm: 'compact' },
    });
    const flow = { accessRequestCode: codes.accessRequestCode, accessToken: event.access_token };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('', ' ', '\n', '\t', '\r\n'), { minLength: 1 }), async (gaps) => {
        let at = 0;
        const gap = () => gaps[at++ % gaps.length] as string;
        server.use(
          http.get(/\/api\/v1\/identity\/response\//, async ({ request }) => {
            const answer = (await (await service.fetch(request)).json()) as { data: { _sd: string[]; disclosures: string[] } };
            const { _sd, disclosures } = answer.data;
            // Each string written again, loosely, and `_sd` committing to the new bytes in place of the old.
            const rewritten = disclosures.map((d) =>
              Buffer.from(looselyWritten(JSON.parse(Buffer.from(d, 'base64url').toString()), gap)).toString('base64url'),
            );
            const digests = new Map(
              await Promise.all(disclosures.map(async (d, i) => [await sha256url(d), await sha256url(rewritten[i]!)] as const)),
            );
            return HttpResponse.json({
              ...answer,
              data: { ...answer.data, _sd: _sd.map((d) => digests.get(d) ?? d), disclosures: rewritten },
            });
          }),
        );
        const identity = await client.identityResponses.getVerified(flow, { identitySessionCode: codes.identitySessionCode });
        expect(identity.claims['acmeidentity.given_name']).toBe('Jane');
        expect(identity.proof).toBe('digests');
        // The client's {claim, salt, value}, changed: the verifier reads the string they came from, so the change is not verified.
        const { data } = await client.identityResponses.get({ ...codes, accessToken: event.access_token });
        const [given] = data.disclosures!;
        expect({ ...given }).toEqual({ claim: 'acmeidentity.given_name', salt: expect.any(String), value: 'Jane' });
        given!.value = 'Mallory';
        const verified = await verifyIdentityResponse(data, { requestCode: codes.identitySessionCode });
        expect(verified.claims['acmeidentity.given_name']).toBe('Jane');
        server.resetHandlers();
      }),
      { numRuns: 12 },
    );
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

  test('a webhook token that is missing, empty or not text is refused before anything is sent: by get naming accessToken, by getVerified at its token step', async () => {
    const { client, service, codes } = await approved();
    const before = service.requests.length;
    for (const accessToken of ['', undefined, null, 42]) {
      const request = { ...codes, accessToken } as never;
      expect(await rejection(client.identityResponses.get(request))).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'accessToken' });
      const event = { accessRequestCode: codes.accessRequestCode, accessToken } as never;
      expect(
        await rejection(client.identityResponses.getVerified(event, { identitySessionCode: codes.identitySessionCode })),
      ).toMatchObject({
        step: 'token',
      });
    }
    expect(service.requests.length).toBe(before);
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

describe('an expired identity response is not accepted (the spec: "the client must not accept the response once exp has elapsed")', () => {
  /** A request approved on a fake whose clock runs `skewMs` from the client's, with 60 s responses. */
  async function approvedAt(skewMs: number) {
    const clock = { now: Date.UTC(2026, 10, 24, 12) };
    const h = await harness({
      fake: { now: () => clock.now + skewMs, identityResponseTtlSeconds: 60 },
      client: { now: () => clock.now },
    });
    const { data } = await h.client.identityRequests.create(person());
    const event = await h.service.approve(data.access_request_code);
    const request = {
      accessRequestCode: data.access_request_code,
      identitySessionCode: data.identity_session_code,
      accessToken: event.access_token,
    };
    return { ...h, clock, request };
  }

  test('get refuses a response whose exp has elapsed, with ERR_SD_JWT_EXPIRED', async () => {
    const h = await approvedAt(0);
    await expect(h.client.identityResponses.get(h.request)).resolves.toBeDefined();
    h.clock.now += 61_000;
    const error = await rejection(h.client.identityResponses.get(h.request));
    expect(error).toBeInstanceOf(SdJwtVerificationError);
    expect(error).toMatchObject({ code: 'ERR_SD_JWT_EXPIRED' });
  });

  test('the second exp names is already elapsed (as jose judges exp): accepted the millisecond before it, refused at it', async () => {
    const h = await approvedAt(0);
    const { data } = await h.client.identityResponses.get(h.request);
    h.clock.now = (data.exp as number) * 1000 - 1;
    await expect(h.client.identityResponses.get(h.request)).resolves.toBeDefined();
    h.clock.now += 1;
    await expect(h.client.identityResponses.get(h.request)).rejects.toMatchObject({ code: 'ERR_SD_JWT_EXPIRED' });
  });

  test("exp is judged on the service's clock: 10 minutes ahead, the response expires 60 s after it was issued", async () => {
    const h = await approvedAt(600_000);
    h.clock.now += 61_000; // the local clock still thinks exp is 9 minutes away
    await expect(h.client.identityResponses.get(h.request)).rejects.toMatchObject({ code: 'ERR_SD_JWT_EXPIRED' });
  });

  test("exp is judged on the service's clock: 10 minutes behind, a fresh response is accepted", async () => {
    const h = await approvedAt(-600_000);
    h.clock.now += 30_000; // the local clock thinks exp passed 9.5 minutes ago
    await expect(h.client.identityResponses.get(h.request)).resolves.toMatchObject({ data: { request_code: expect.any(String) } });
  });

  test('getVerified refuses an expired response at the verify step, within its clockToleranceSeconds', async () => {
    const h = await approvedAt(0);
    h.clock.now += 70_000;
    const event = { accessRequestCode: h.request.accessRequestCode, accessToken: h.request.accessToken };
    const options = { identitySessionCode: h.request.identitySessionCode };
    await expect(h.client.identityResponses.getVerified(event, options)).rejects.toMatchObject({
      code: 'ERR_IDENTITY_FLOW',
      step: 'verify',
    });
    await expect(h.client.identityResponses.getVerified(event, { ...options, clockToleranceSeconds: 30 })).resolves.toBeDefined();
  });
});

describe('identityResponses: what the spec leaves to the client', () => {
  test('get refuses a response without exp (it cannot be judged), with ERR_SD_JWT_MISSING_CLAIM; getVerified at its verify step', async () => {
    const { client, service, codes, event } = await approved();
    const record = service.identityRequest(codes.accessRequestCode)!;
    delete (record.response as Record<string, unknown>)['exp'];
    const request = { ...codes, accessToken: event.access_token };
    await expect(client.identityResponses.get(request)).rejects.toMatchObject({ code: 'ERR_SD_JWT_MISSING_CLAIM' });
    const flow = { accessRequestCode: codes.accessRequestCode, accessToken: event.access_token };
    await expect(client.identityResponses.getVerified(flow, { identitySessionCode: codes.identitySessionCode })).rejects.toMatchObject({
      step: 'verify',
      cause: { code: 'ERR_SD_JWT_MISSING_CLAIM' },
    });
  });

  test('get refuses _sd or disclosures_missing holding anything but strings as an InvalidResponseError naming the entry, before anything is verified', async () => {
    const { client, service, codes, event } = await approved();
    const request = { ...codes, accessToken: event.access_token };
    /** The service's answer, its data changed by `change` (past the fake, which keeps to its document). */
    const answering = (change: (data: Record<string, unknown>) => void) =>
      server.use(
        http.get(`${service.baseUrl}/identity/response/*`, async ({ request: sent }) => {
          const body = (await (await service.fetch(sent)).json()) as { data: Record<string, unknown> };
          change(body.data);
          return HttpResponse.json(body);
        }),
      );
    answering((data) => {
      data['_sd'] = [(data['_sd'] as unknown[])[0], 7];
    });
    await expect(client.identityResponses.get(request)).rejects.toMatchObject({ code: 'ERR_INVALID_RESPONSE', issues: ['data._sd.1'] });
    answering((data) => {
      data['disclosures_missing'] = [{ claim: 'document.passport.travel_document_number' }];
    });
    await expect(client.identityResponses.get(request)).rejects.toMatchObject({
      code: 'ERR_INVALID_RESPONSE',
      issues: ['data.disclosures_missing.0'],
    });
  });

  test('a disclosed value is kept as sent, null and the nulls inside it too: through the client it verifies to what the raw body verifies to', async () => {
    const { client, service, codes, event } = await approved(['acmeidentity.given_name']);
    const request = { ...codes, accessToken: event.access_token };
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (generated) => {
        const value = JSON.parse(JSON.stringify(generated)) as unknown;
        let raw: unknown;
        server.use(
          http.get(`${service.baseUrl}/identity/response/*`, async ({ request: sent }) => {
            const body = (await (await service.fetch(sent)).json()) as { data: { disclosures: Record<string, unknown>[]; _sd: string[] } };
            const [disclosure] = body.data.disclosures;
            disclosure!['value'] = value;
            const encoded = Buffer.from(JSON.stringify([disclosure!['salt'], disclosure!['claim'], value])).toString('base64url');
            body.data._sd = [await sha256url(encoded)];
            raw = structuredClone(body);
            return HttpResponse.json(body);
          }),
        );
        const result = await client.identityResponses.get(request);
        expect(result.data.disclosures![0]).toHaveProperty('value', value);
        const throughClient = await verifyIdentityResponse(result, { requestCode: codes.identitySessionCode });
        const asSent = await verifyIdentityResponse(raw, { requestCode: codes.identitySessionCode });
        expect(throughClient.claims).toStrictEqual(asSent.claims);
        expect(asSent.claims['acmeidentity.given_name']).toStrictEqual(value);
      }),
      { numRuns: 40, examples: [[null], [{ first: null, nested: [null, { deeper: null }] }]] },
    );
  });

  test('exp, nbf and iat written as strings of digits (the numbers reading) are read as the numbers they are: an elapsed one is still refused', async () => {
    const { client, service, codes, event } = await approved(undefined, { readings: { numbers: 'string' } });
    const request = { ...codes, accessToken: event.access_token };
    const { data } = await client.identityResponses.get(request);
    expect(typeof data.exp).toBe('number');
    expect(typeof data.iat).toBe('number');
    const response = service.identityRequest(codes.accessRequestCode)!.response!;
    response['exp'] = Math.floor(Date.now() / 1000) - 5;
    await expect(client.identityResponses.get(request)).rejects.toMatchObject({ code: 'ERR_SD_JWT_EXPIRED' });
    // A date with its zone names one instant, and is read as it (an elapsed one refused); a date without one is not guessed at.
    response['exp'] = new Date(Date.now() - 5_000).toISOString();
    await expect(client.identityResponses.get(request)).rejects.toMatchObject({ code: 'ERR_SD_JWT_EXPIRED' });
    response['exp'] = '2026-12-01T00:00:00';
    await expect(client.identityResponses.get(request)).rejects.toMatchObject({ code: 'ERR_INVALID_RESPONSE', issues: ['data.exp'] });
  });

  test.each(['milliseconds', 'microseconds'] as const)(
    'times written in %s (the timeUnit reading) are read as the instants they name: an elapsed exp is still refused',
    async (timeUnit) => {
      const { client, service, codes, event } = await approved(undefined, { readings: { timeUnit } });
      const request = { ...codes, accessToken: event.access_token };
      const { data } = await client.identityResponses.get(request);
      expect(data.exp! - Date.now() / 1000).toBeLessThan(3_600 + 60);
      service.identityRequest(codes.accessRequestCode)!.response!['exp'] = Math.floor(Date.now() / 1000) - 5;
      await expect(client.identityResponses.get(request)).rejects.toMatchObject({ code: 'ERR_SD_JWT_EXPIRED' });
    },
  );

  test('a code that is "." or ".." is refused before anything is sent: it would resolve to another path', async () => {
    const { client, service, codes, event } = await approved();
    const before = service.requests.length;
    for (const bad of ['.', '..']) {
      for (const request of [
        { ...codes, accessRequestCode: bad },
        { ...codes, identitySessionCode: bad },
      ]) {
        await expect(client.identityRequests.get(request)).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT' });
        await expect(client.identityRequests.delete(request)).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT' });
        await expect(client.identityResponses.get({ ...request, accessToken: event.access_token })).rejects.toMatchObject({
          code: 'ERR_INVALID_INPUT',
        });
      }
    }
    expect(service.requests.length).toBe(before);
    // Dots inside a code are ordinary characters.
    await expect(client.identityRequests.get({ ...codes, accessRequestCode: '.x.' })).rejects.toBeInstanceOf(NotFoundError);
  });
});
