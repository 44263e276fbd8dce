/**
 * A 200 from GET /credentials/verify whose body says the credential did not verify (a verdict
 * beside it, or an expiry already past) is refused as the spec's status would be, never returned
 * as a verification. Properties over generated answers (the verdict's field, place and form; the
 * expiry's field, place, form and distance from the service's clock), each answered by a server
 * that replaces the fake's verification with the generated body.
 */
import fc from 'fast-check';
import { http, HttpResponse } from 'msw';
import { describe, expect, test } from 'vitest';
import {
  CredentialExpiredError,
  CredentialPendingAcceptanceError,
  CredentialRevokedError,
  CredentialVerificationFailedError,
  InvalidResponseError,
} from '../../src/index.js';
import { asAnswered, credentialInput, harness, rejection, server } from '../helpers.js';

const NOW_MS = Date.UTC(2026, 11, 1, 12, 0, 0);
const NOW = NOW_MS / 1000;

/** Every form the SDK reads a boolean in (`booleanOf`), for each meaning. */
const BOOLEAN_FORMS = { true: [true, 'true', ' TRUE ', 'Yes', 'yes', 1, '1'], false: [false, 'false', 'No', ' no', 0, '0'] } as const;
const booleanForm = (meaning: boolean) => fc.constantFrom(...BOOLEAN_FORMS[meaning ? 'true' : 'false']);

/** A time `seconds` from now (an expiry, a start), written as a service may: seconds, ms, µs (numbers or digits), or an ISO 8601 date with its zone. */
const timeForm = (seconds: number) =>
  fc.constantFrom<unknown>(
    seconds,
    String(seconds),
    seconds * 1000,
    seconds * 1_000_000,
    String(seconds * 1000),
    new Date(seconds * 1000).toISOString(),
  );

/** A client whose verify is answered by `data` (200, enveloped), on a clock fixed at {@link NOW_MS}, and a credential's ref. */
async function answering() {
  const h = await harness({ fake: { now: () => NOW_MS }, client: { now: () => NOW_MS } });
  const ref = (await h.client.credentials.submit(credentialInput())).data.credential_ref;
  const answer = (data: Record<string, unknown>) =>
    server.use(http.get('*/credentials/verify/*', () => HttpResponse.json({ data, correlation_id: 'corr-1' })));
  return { client: h.client, ref, answer };
}

const CREDENTIAL = { iss: 'https://issuer.example', sub: 'user-1/person-1', vc: { credentialSubject: { name: 'Jane Citizen' } } };

/**
 * Where a verdict or time may be written: `data` itself, its `vc`, or, `data` wrapping the
 * credential (a decoded JWT `{header, payload, signature}`, or `{credential}` beside a verdict),
 * the wrapped credential and its `vc`.
 */
const PLACES = [
  'data',
  'data.vc',
  'data.payload',
  'data.payload.vc',
  'data.credential',
  'data.credential.vc',
  'data.verifiableCredential',
  'data.verifiableCredential.vc',
  'data.verifiable_credential',
  'data.verifiable_credential.vc',
] as const;
type Place = (typeof PLACES)[number];
const anyPlace = () => fc.constantFrom(...PLACES);

/** The credential with `field` set to `value` at `place`. */
function placed(where: Place, field: string, value: unknown): Record<string, unknown> {
  const credential = where.endsWith('vc') ? { ...CREDENTIAL, vc: { ...CREDENTIAL.vc, [field]: value } } : { ...CREDENTIAL, [field]: value };
  const wrapper = where.split('.')[1];
  if (wrapper === undefined || wrapper === 'vc') return credential;
  if (wrapper === 'payload') return { header: { alg: 'RS256', kid: 'k1' }, payload: credential, signature: 'c2ln' };
  return { [wrapper]: credential, verified: true };
}

describe('a verification answered 200', () => {
  test('a verdict saying the credential did not verify is refused as the status would be; one saying it did is returned as sent', async () => {
    const { client, ref, answer } = await answering();
    const verdict = fc
      .record({
        field: fc.constantFrom('valid', 'verified', 'revoked'),
        place: anyPlace(),
        verified: fc.boolean(),
      })
      .chain((c) => booleanForm(c.field === 'revoked' ? !c.verified : c.verified).map((form) => ({ ...c, form })));
    await fc.assert(
      fc.asyncProperty(verdict, async ({ field, place, verified, form }) => {
        const data = placed(place, field, form);
        answer(data);
        if (verified) {
          expect((await client.credentials.verify(ref)).data).toEqual(data);
          return;
        }
        const error = await rejection(client.credentials.verify(ref));
        expect(error).toBeInstanceOf(field === 'revoked' ? CredentialRevokedError : CredentialVerificationFailedError);
        expect(error).toMatchObject({ status: 200, correlationId: 'corr-1', details: { data } });
        expect((error as Error).message).toContain(`${place}.${field}`);
        // The credential's personal data stays on details, out of the message.
        expect((error as Error).message).not.toContain('Jane');
      }),
      { numRuns: 60 },
    );
  });

  test('a verdict in words (status, verification_status) is the error it names, in any case and spelling; a word saying it verified returns the credential', async () => {
    const { client, ref, answer } = await answering();
    const WORDS = {
      revoked: CredentialRevokedError,
      expired: CredentialExpiredError,
      pending: CredentialPendingAcceptanceError,
      'pending acceptance': CredentialPendingAcceptanceError,
      invalid: CredentialVerificationFailedError,
      'verification failed': CredentialVerificationFailedError,
      failed: CredentialVerificationFailedError,
      unverified: CredentialVerificationFailedError,
      rejected: CredentialVerificationFailedError,
      suspended: CredentialVerificationFailedError,
      valid: undefined,
      verified: undefined,
      active: undefined,
      issued: undefined,
      ok: undefined,
      success: undefined,
    } as const;
    /** A word as a service may write it: its case, and `_`, `-`, spaces or both between its words, with spaces around. */
    const spelt = fc
      .record({
        word: fc.constantFrom(...(Object.keys(WORDS) as (keyof typeof WORDS)[])),
        upper: fc.constantFrom('lower', 'upper', 'title'),
        joint: fc.constantFrom('_', '-', ' ', ' - ', '  '),
        padded: fc.boolean(),
      })
      .map(({ word, upper, joint, padded }) => {
        let text = word.replace(/ /g, joint);
        if (upper === 'upper') text = text.toUpperCase();
        if (upper === 'title')
          text = text.replace(/(^|[_ -])([a-z])/g, (_, before: string, letter: string) => before + letter.toUpperCase());
        return { word, text: padded ? ` ${text} ` : text };
      });
    await fc.assert(
      fc.asyncProperty(spelt, fc.constantFrom('status', 'verification_status'), anyPlace(), async ({ word, text }, field, place) => {
        const data = placed(place, field, text);
        answer(data);
        const Expected = WORDS[word];
        if (Expected === undefined) expect((await client.credentials.verify(ref)).data).toEqual(data);
        else {
          const error = await rejection(client.credentials.verify(ref));
          expect(error).toBeInstanceOf(Expected);
          expect(error).toMatchObject({ status: 200, details: { data } });
        }
      }),
      { numRuns: 120 },
    );
  });

  test('a status that is no text (a status list entry, {status_list: {idx, uri}}) is no verdict: the credential is returned', async () => {
    const { client, ref, answer } = await answering();
    for (const status of [{ status_list: { idx: 7, uri: 'https://issuer.example/status/1' } }, 3, true]) {
      const data = placed('data', 'status', status);
      answer(data);
      expect((await client.credentials.verify(ref)).data).toEqual(data);
    }
  });

  test('an expiry already past on the service clock is CredentialExpiredError; one still ahead is returned', async () => {
    const { client, ref, answer } = await answering();
    const expiry = fc
      .record({
        field: fc.constantFrom('exp', 'expirationDate', 'validUntil'),
        place: anyPlace(),
        // Whole seconds from now: 0 is expired (the service's own rule: now >= time_expires).
        offset: fc.oneof(fc.integer({ min: -10 * 365 * 86_400, max: 0 }), fc.integer({ min: 1, max: 10 * 365 * 86_400 })),
      })
      .chain((c) => timeForm(NOW + c.offset).map((form) => ({ ...c, form })));
    await fc.assert(
      fc.asyncProperty(expiry, async ({ field, place, offset, form }) => {
        const data = placed(place, field, form);
        answer(data);
        if (offset > 0) {
          expect((await client.credentials.verify(ref)).data).toEqual(data);
          return;
        }
        const error = await rejection(client.credentials.verify(ref));
        expect(error).toBeInstanceOf(CredentialExpiredError);
        expect(error).toMatchObject({ status: 200, details: { data } });
        expect((error as Error).message).toContain(`${place}.${field}`);
      }),
      { numRuns: 60 },
    );
  });

  test('a start (nbf, validFrom) not yet come on the service clock is CredentialVerificationFailedError; one come, or within 2 s of it, is returned', async () => {
    const { client, ref, answer } = await answering();
    const start = fc
      .record({
        field: fc.constantFrom('nbf', 'validFrom'),
        place: anyPlace(),
        // Whole seconds from now: up to 2 s ahead is the same second on a clock known to a second.
        offset: fc.oneof(fc.integer({ min: -10 * 365 * 86_400, max: 2 }), fc.integer({ min: 3, max: 10 * 365 * 86_400 })),
      })
      .chain((c) => timeForm(NOW + c.offset).map((form) => ({ ...c, form })));
    await fc.assert(
      fc.asyncProperty(start, async ({ field, place, offset, form }) => {
        const data = placed(place, field, form);
        answer(data);
        if (offset <= 2) {
          expect((await client.credentials.verify(ref)).data).toEqual(data);
          return;
        }
        const error = await rejection(client.credentials.verify(ref));
        expect(error).toBeInstanceOf(CredentialVerificationFailedError);
        expect(error).toMatchObject({ status: 200, details: { data } });
        expect((error as Error).message).toContain(`${place}.${field}`);
      }),
      { numRuns: 60 },
    );
  });

  test('at its second the credential has expired, whatever the millisecond; a second before it has not (the service floors its clock too)', async () => {
    const h = await harness({ fake: { now: () => NOW_MS } });
    const ref = (await h.client.credentials.submit(credentialInput())).data.credential_ref;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 999 }), fc.boolean(), async (ms, atIt) => {
        const client = h.makeClient({ now: () => NOW_MS + ms });
        const data = { ...CREDENTIAL, exp: atIt ? NOW : NOW + 1 };
        server.use(http.get('*/credentials/verify/*', () => HttpResponse.json({ data, correlation_id: 'corr-1' })));
        if (atIt) expect(await rejection(client.credentials.verify(ref))).toBeInstanceOf(CredentialExpiredError);
        else expect((await client.credentials.verify(ref)).data).toEqual(data);
      }),
      { numRuns: 20 },
    );
  });

  test('a verdict that is no boolean, or an expiry that is no time, is an InvalidResponseError naming the field: read as neither', async () => {
    const { client, ref, answer } = await answering();
    const unreadable = fc.oneof(
      fc.record({
        field: fc.constantFrom('valid', 'verified', 'revoked'),
        value: fc.constantFrom<unknown>('maybe', 2, 'y', {}, [], 'not valid'),
      }),
      // A verdict in words this SDK does not know is read as neither.
      fc.record({
        field: fc.constantFrom('status', 'verification_status'),
        value: fc.constantFrom<unknown>('maybe', 'unknown', '', 'valid-ish'),
      }),
      fc.record({
        field: fc.constantFrom('exp', 'expirationDate', 'validUntil', 'nbf', 'validFrom'),
        // A date without its zone names no instant; neither do words or a boolean.
        value: fc.constantFrom<unknown>('2020-01-01T00:00:00', 'soon', true, {}, '12/31/2020'),
      }),
    );
    await fc.assert(
      fc.asyncProperty(unreadable, anyPlace(), async ({ field, value }, place) => {
        answer(placed(place, field, value));
        const error = await rejection(client.credentials.verify(ref));
        expect(error).toBeInstanceOf(InvalidResponseError);
        expect((error as InvalidResponseError).issues).toEqual([`${place}.${field}`]);
      }),
      { numRuns: 40 },
    );
  });

  test('null for a verdict or an expiry is an absent optional: the credential is returned', async () => {
    const { client, ref, answer } = await answering();
    for (const field of ['valid', 'verified', 'revoked', 'exp', 'expirationDate', 'validUntil', 'nbf', 'validFrom']) {
      const data = placed('data', field, null);
      answer(data);
      expect((await client.credentials.verify(ref)).data).toEqual(data);
    }
  });
});

describe('the fake under each verifyAnswer reading', () => {
  const lapsed = () => credentialInput({ time_expires: NOW - 60 });
  test.each([
    ['status', CredentialExpiredError],
    ['signature', CredentialExpiredError],
    ['verdict', CredentialVerificationFailedError],
    ['word', CredentialExpiredError],
    ['decoded', CredentialExpiredError],
    ['wrapped', CredentialExpiredError],
  ] as const)('%s: an expired credential is refused, a pending one too; a valid one is returned', async (verifyAnswer, expected) => {
    const { client, service } = await harness({ fake: { now: () => NOW_MS, readings: { verifyAnswer } }, client: { now: () => NOW_MS } });
    const expired = (await client.credentials.submit(lapsed())).data.credential_ref;
    expect(await rejection(client.credentials.verify(expired))).toBeInstanceOf(expected);
    const valid = (await client.credentials.submit(credentialInput({ time_expires: NOW + 3600 }))).data.credential_ref;
    const credential = { sub: 'user-1/person-1', exp: NOW + 3600 };
    expect((await client.credentials.verify(valid)).data).toMatchObject(asAnswered(verifyAnswer, credential));
    service.setCredentialCondition(valid, 'pending_acceptance');
    expect(await rejection(client.credentials.verify(valid))).toBeInstanceOf(
      verifyAnswer === 'verdict' ? CredentialVerificationFailedError : CredentialPendingAcceptanceError,
    );
  });
});
