import { describe, expect, test } from 'vitest';
import {
  ConflictError,
  CredentialExpiredError,
  CredentialPendingAcceptanceError,
  CredentialRevokedError,
  CredentialVerificationFailedError,
  InvalidInputError,
  MAX_FILE_BYTES,
  NotFoundError,
  type CredentialSubmitInput,
} from '../../src/index.js';
import { DEFAULT_CLIENT } from '../../src/testing/index.js';
import { JPG, PDF, PNG, credentialInput, harness, received, rejection } from '../helpers.js';

const check = credentialInput;

describe('credentials', () => {
  test('submit, verify, download and revoke; a revoked credential answers 410', async () => {
    const { client } = await harness();
    const { data } = await client.credentials.submit(check());
    const ref = data.credential_ref;
    const verified = await client.credentials.verify(ref);
    expect(verified.data).toMatchObject({ sub: 'user-1/person-1' });
    expect(await client.credentials.download(ref)).toEqual(PDF);
    expect((await client.credentials.revoke(ref)).data.revoked).toBe(true);
    for (const call of [client.credentials.verify, client.credentials.fileData, client.credentials.revoke]) {
      const error = await rejection(call(ref));
      expect(error).toBeInstanceOf(CredentialRevokedError);
      expect(error).toMatchObject({ status: 410, code: 'ERR_CREDENTIAL_REVOKED' });
    }
  });

  test('the file may be a Uint8Array, a Buffer, an ArrayBuffer or a Blob', async () => {
    const { client } = await harness();
    const files = [PNG, Buffer.from(PNG), PNG.slice().buffer, new Blob([PNG])];
    for (const file of files) {
      const { data } = await client.credentials.submit(check({ file, file_name: 'scan.png' }));
      expect(await client.credentials.download(data.credential_ref)).toEqual(PNG);
    }
  });

  test('the file goes as base64 in file_data, and a Date expiry as UNIX seconds', async () => {
    const { client, service } = await harness();
    const expires = new Date(Date.now() + 86_400_000);
    const { data } = await client.credentials.submit(
      check({ type: 'acicncchc', file: JPG, file_name: 'scan.jpeg', time_expires: expires }),
    );
    const verified = await client.credentials.verify(data.credential_ref);
    expect(verified.data['exp']).toBe(Math.floor(expires.getTime() / 1000));
    expect(received(service, /^\/credentials\/submit$/)).toHaveLength(1);
  });

  test('credential_ref goes into the path verbatim, never percent-encoded', async () => {
    const { client, service } = await harness();
    const { data } = await client.credentials.submit(check());
    expect(data.credential_ref).toMatch(/[:/]/); // the fake's refs hold characters encodeURIComponent would change
    await client.credentials.verify(data.credential_ref);
    const [sent] = received(service, /^\/credentials\/verify\//);
    expect(sent!.path).toBe(`/credentials/verify/${data.credential_ref}`);
  });

  test("a credential_ref holding $& or $' still goes verbatim: no replacement patterns are applied", async () => {
    const { client, service } = await harness();
    const ref = "cred$&/$'x$1";
    expect(await rejection(client.credentials.verify(ref))).toBeInstanceOf(NotFoundError);
    const [sent] = received(service, /^\/credentials\/verify\//);
    expect(sent!.path).toBe(`/credentials/verify/${ref}`);
  });

  test('a credential_ref the URL layer would percent-encode is refused before sending: it cannot go verbatim', async () => {
    const { client, service } = await harness();
    const before = service.requests.length;
    for (const ref of ['a"b', 'a<b', 'a>b', 'a`b', 'a{b', 'a}b', 'café', 'a\u00a0b', 'ref/日本']) {
      const error = await rejection(client.credentials.verify(ref));
      expect(error).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'credentialRef' });
    }
    expect(service.requests.length).toBe(before);
    // What the URL layer leaves alone still goes verbatim.
    const ref = "a|b^c~d!e*f'g(h)i%41";
    expect(await rejection(client.credentials.verify(ref))).toBeInstanceOf(NotFoundError);
    expect(received(service, /^\/credentials\/verify\//)[0]!.path).toBe(`/credentials/verify/${ref}`);
  });

  test('a second submission of the same credential is a ConflictError', async () => {
    const { client } = await harness();
    const input = check();
    await client.credentials.submit(input);
    const error = await rejection(client.credentials.submit(input));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ status: 409, serviceCode: 'E1006' });
  });

  test('the 412 family is told apart: pending acceptance, verification failed, expired', async () => {
    const now = { ms: Date.now() };
    const { client, service } = await harness({ fake: { now: () => now.ms } });
    const pending = (await client.credentials.submit(check())).data.credential_ref;
    const failed = (await client.credentials.submit(check())).data.credential_ref;
    const expiring = (await client.credentials.submit(check({ time_expires: Math.floor(now.ms / 1000) + 60 }))).data.credential_ref;
    service.setCredentialCondition(pending, 'pending_acceptance');
    service.setCredentialCondition(failed, 'verification_failed');
    now.ms += 61_000;
    expect(await rejection(client.credentials.verify(pending))).toBeInstanceOf(CredentialPendingAcceptanceError);
    expect(await rejection(client.credentials.verify(failed))).toBeInstanceOf(CredentialVerificationFailedError);
    const expired = await rejection(client.credentials.verify(expiring));
    expect(expired).toBeInstanceOf(CredentialExpiredError);
    expect(expired).toMatchObject({ status: 412, serviceCode: 'E1009', code: 'ERR_CREDENTIAL_EXPIRED' });
  });

  test("another client's credential is not found, without revealing that it exists", async () => {
    const other = { clientId: 'other-client', clientSecret: 'other-secret-0123456789', tenantId: 'tenant-other' };
    const { client, makeClient } = await harness({ fake: { clients: [{ ...DEFAULT_CLIENT }, other] } });
    const { data } = await client.credentials.submit(check());
    const stranger = makeClient(other);
    expect(await rejection(stranger.credentials.verify(data.credential_ref))).toBeInstanceOf(NotFoundError);
    expect(await rejection(stranger.credentials.revoke(data.credential_ref))).toBeInstanceOf(NotFoundError);
  });

  test('the issued credential is an RSA-signed JWT naming the issuer', async () => {
    const { client, service } = await harness();
    const { data } = await client.credentials.submit(check({ metadata: { result: 'no disclosable outcomes' } }));
    const vc = (await client.credentials.verify(data.credential_ref)).data as { vc?: { issuer?: unknown; credentialSubject?: unknown } };
    expect(vc.vc?.issuer).toMatchObject({ name: 'Relying Party Pty Ltd', url: 'https://rp.example' });
    expect(vc.vc?.credentialSubject).toMatchObject({ metadata: { result: 'no disclosable outcomes' } });
    expect(vc).toMatchObject({ iss: service.authUrl, jti: expect.any(String) });
  });
});

/** `head` followed by spaces, `size` bytes in all. */
function padded(head: Uint8Array, size: number): Uint8Array {
  const bytes = new Uint8Array(size).fill(0x20);
  bytes.set(head);
  return bytes;
}

describe('credentials.submit input checks (nothing is uploaded)', () => {
  const cases: [string, Partial<CredentialSubmitInput>, string][] = [
    // A PDF one byte over: refused for its size alone (#45: a file that was also no PDF hid a size bound off by one).
    ['a file over 5 MB', { file: padded(PDF, MAX_FILE_BYTES + 1), file_name: 'certificate.pdf' }, 'file'],
    ['a file that is not PNG, JPG or PDF', { file: new TextEncoder().encode('GIF89a....'), file_name: 'x.gif' }, 'file'],
    // The whole signature of its kind, not its first bytes: each of these starts like one and is none.
    ['a file with half a PNG signature', { file: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 0x20]), file_name: 'x.png' }, 'file'],
    ['a file with two of JPG’s three signature bytes', { file: new Uint8Array([0xff, 0xd8, 0x00, 0x20]), file_name: 'x.jpg' }, 'file'],
    ['a file that starts %PDF without its dash', { file: new TextEncoder().encode('%PDF1.7 ...'), file_name: 'x.pdf' }, 'file'],
    ['a PDF named .png', { file: PDF, file_name: 'certificate.png' }, 'file_name'],
    ['a file name without extension', { file: PDF, file_name: 'certificate' }, 'file_name'],
    ['a file name that is only an extension', { file: PDF, file_name: '.pdf' }, 'file_name'],
    ['a path instead of a file name', { file: PDF, file_name: 'scans/certificate.pdf' }, 'file_name'],
    ['a file that is not bytes', { file: 'JVBERi0=' as never }, 'file'],
    ['a person_ref of the wrong shape', { person_ref: 'person-1' }, 'person_ref'],
    ['a relative issuer_url', { issuer_url: 'rp.example' }, 'issuer_url'],
    ['a missing issuer_ref', { issuer_ref: undefined as never }, 'issuer_ref'],
    ['another type without a name', { type: 'vevortw', description: 'd', time_expires: 2_000_000_000 }, 'name'],
    ['another type without time_expires', { type: 'vevortw', name: 'n', description: 'd' }, 'time_expires'],
    ['a fractional time_expires', { time_expires: 1.5 }, 'time_expires'],
  ];
  // Named by fields, never by the case's object: one holds a 5 MB file, which would make a 20 MB title.
  test.each(cases.map(([name, change, field]) => ({ name, change, field })))('refuses $name, naming $field', async ({ change, field }) => {
    const { client, service } = await harness();
    const error = await rejection(client.credentials.submit({ ...check(), ...change }));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues.map((i) => i.field)).toContain(field);
    expect(service.requests).toHaveLength(0); // not even a token request
  });

  test('"5 MB" is 5 MiB: a file of exactly MAX_FILE_BYTES (more than 5,000,000 bytes) is sent and stored', async () => {
    const { client } = await harness();
    const file = new Uint8Array(MAX_FILE_BYTES).fill(0x20);
    file.set(PDF.subarray(0, 8));
    expect(MAX_FILE_BYTES).toBe(5 * 1024 * 1024);
    const { data } = await client.credentials.submit({ ...check(), file });
    expect((await client.credentials.fileData(data.credential_ref)).data.file_data.length).toBe(Math.ceil(MAX_FILE_BYTES / 3) * 4);
  });

  test('acicncchc needs no name, description or time_expires', async () => {
    const { client } = await harness();
    await expect(client.credentials.submit(check())).resolves.toBeDefined();
  });

  test.each([['../x'], ['a/../b'], ['a\\..\\b'], ['ref?x=1'], ['ref#frag'], ['has space'], ['']])(
    'refuses a credential_ref that would change the request target: %j',
    async (ref) => {
      const { client, service } = await harness();
      expect(await rejection(client.credentials.verify(ref))).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'credentialRef' });
      expect(service.requests).toHaveLength(0); // not even a token request
    },
  );
});
