/**
 * What reaches the wire for a path parameter, read on a raw socket: the request line's target,
 * byte for byte, for generated `credential_ref`s and identity codes. The threat: a parameter that
 * the URL layer (WHATWG URL, so every `fetch`) resolves into another path, such as
 * `%2e%2e/file-data/<ref>`, which would send the bearer token to another endpoint.
 */
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AcmeIdentityClient, InvalidInputError } from '../../src/index.js';

/** A bare HTTP/1.1 server: records each request line's target and answers every call with one JSON body every operation reads. */
function rawServer() {
  const targets: string[] = [];
  // `revoked: true` is what a revoke answers, and what a verification answer says of a revoked credential: only the revoke gets it.
  const answerTo = (target: string) => {
    const body = JSON.stringify({
      data: {
        access_token: 'token',
        refresh_token: 'refresh',
        expires_in: 3600,
        ...(target.includes('/credentials/revoke/') ? { revoked: true } : {}),
        file_data: 'AA==',
        message: 'ok',
        request_code: 'r',
      },
      correlation_id: 'corr',
    });
    return [
      'HTTP/1.1 200 OK',
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `Date: ${new Date().toUTCString()}`,
      '',
      body,
    ].join('\r\n');
  };
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        const target = head.split('\r\n')[0]!.split(' ')[1]!;
        targets.push(target);
        socket.write(answerTo(target));
      }
    });
  });
  return {
    targets,
    async listen() {
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return (server.address() as AddressInfo).port;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

const wire = rawServer();
let client: AcmeIdentityClient;

beforeAll(async () => {
  const port = await wire.listen();
  client = new AcmeIdentityClient({
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    clientId: 'id',
    clientSecret: 'secret',
    tenantId: 'tenant',
  });
  await client.auth.accessToken();
});
afterAll(() => wire.close());

/** The targets the calls inside `run` put on the wire, the token's own requests left out. */
async function targetsOf(run: () => Promise<unknown>): Promise<{ targets: string[]; error: unknown }> {
  const before = wire.targets.length;
  let error: unknown;
  try {
    await run();
  } catch (caught) {
    error = caught;
  }
  return { targets: wire.targets.slice(before).filter((target) => !target.startsWith('/api/v1/auth/')), error };
}

/** A dot segment in its spellings, percent-encoded once or twice. */
const dotted = ['.', '..', '%2e', '%2E', '.%2e', '%2e.', '%2E%2e', '%2e%2E', '%252e', '%252e%252e', '..%2f', '%2f', '...', '.a', 'a.'];
/** A backslash is a slash to the URL layer in an http(s) path: `a\b` would go out as `a/b`. */
const backslashed = ['\\', 'a\\..'];
/** Segments built to look like paths: dots in every percent-encoded spelling beside ordinary characters. */
const segment = fc.oneof(
  fc.constantFrom(...dotted, ...backslashed),
  fc.string({ unit: fc.constantFrom(..."abcXYZ019-_~.%2eE:@!$&'()*+,;=".split('')), minLength: 0, maxLength: 6 }),
  fc.string({ unit: 'binary-ascii', maxLength: 4 }),
);
const ref = fc.array(segment, { minLength: 1, maxLength: 5 }).map((segments) => segments.join('/'));

/** An oracle independent of the SDK's check: whether the URL layer itself would send this path other than as written. */
const urlLayerRewrites = (path: string) => new URL(`http://h/base/${path}`).pathname !== `/base/${path}`;

describe('the request target on the wire', () => {
  test('a credential_ref is sent byte for byte as given, or refused with nothing sent', async () => {
    await fc.assert(
      fc.asyncProperty(
        ref,
        fc.constantFrom('verify', 'fileData', 'revoke') as fc.Arbitrary<'verify' | 'fileData' | 'revoke'>,
        async (given, method) => {
          const { targets, error } = await targetsOf(() => client.credentials[method](given));
          const path = { verify: 'verify', fileData: 'file-data', revoke: 'revoke' }[method];
          if (error === undefined) {
            expect(targets).toEqual([`/api/v1/credentials/${path}/${given}`]);
          } else {
            expect(error).toBeInstanceOf(InvalidInputError);
            expect(targets).toEqual([]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('every credential_ref the URL layer would rewrite is refused, whatever spelling its dots take', async () => {
    await fc.assert(
      fc.asyncProperty(ref, async (given) => {
        fc.pre(urlLayerRewrites(given));
        const { targets, error } = await targetsOf(() => client.credentials.verify(given));
        expect(error).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'credentialRef' });
        expect(targets).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  test('a refused credential_ref says why: every control character (DEL too), whitespace, ?, # and \\ change the request URL; what the URL layer would percent-encode cannot be sent verbatim', async () => {
    const controls = [...Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)), '\x7f', ' ', '\u00a0', '?', '#', '\\'];
    for (const character of controls) {
      const { targets, error } = await targetsOf(() => client.credentials.verify(`a${character}b`));
      expect(error, JSON.stringify(character)).toMatchObject({
        field: 'credentialRef',
        message: expect.stringMatching(/would change the request URL/),
      });
      expect(targets).toEqual([]);
    }
    for (const character of ['"', '<', '>', '`', '{', '}', 'é', '\u{1f600}']) {
      const { error } = await targetsOf(() => client.credentials.verify(`a${character}b`));
      expect(error, character).toMatchObject({ field: 'credentialRef', message: expect.stringMatching(/cannot be sent verbatim/) });
    }
  });

  test('the spellings of a dot segment a service may decode are refused (regression: %2e%2e reached file-data and identity/request)', async () => {
    for (const given of [
      '%2e%2e/file-data/ref',
      'x/%2e%2e/%2e%2e/%2e%2e/identity/request',
      'a/%2E/b',
      'a/.%2e/b',
      'a/%2e./b',
      'a/%252e%252e/b',
    ]) {
      const { targets, error } = await targetsOf(() => client.credentials.revoke(given));
      expect(error, given).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'credentialRef' });
      expect(targets).toEqual([]);
    }
  });

  test('ordinary refs (letters, digits, - _ ~ and slashes between them) are accepted and sent verbatim', async () => {
    const plain = fc
      .array(fc.string({ unit: fc.constantFrom(...'abcXYZ019-_~'.split('')), minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 })
      .map((segments) => segments.join('/'));
    await fc.assert(
      fc.asyncProperty(plain, async (given) => {
        const { targets, error } = await targetsOf(() => client.credentials.verify(given));
        expect(error).toBeUndefined();
        expect(targets).toEqual([`/api/v1/credentials/verify/${given}`]);
      }),
      { numRuns: 100 },
    );
  });

  test('identity codes are percent-encoded into one segment each, or refused with nothing sent (any text, lone surrogates included)', async () => {
    const code = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), segment, fc.constantFrom('../../status/health', 'a/b', '?x#y'));
    await fc.assert(
      fc.asyncProperty(
        code,
        code,
        fc.constantFrom('get', 'delete') as fc.Arbitrary<'get' | 'delete'>,
        async (accessRequestCode, identitySessionCode, method) => {
          const { targets, error } = await targetsOf(() => client.identityRequests[method]({ accessRequestCode, identitySessionCode }));
          if (error === undefined) {
            expect(targets).toEqual([
              `/api/v1/identity/request/${encodeURIComponent(accessRequestCode)}/${encodeURIComponent(identitySessionCode)}`,
            ]);
          } else {
            expect(error).toBeInstanceOf(InvalidInputError);
            expect(targets).toEqual([]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a code that would climb out of its segments is sent encoded (regression: ../../status/health)', async () => {
    const { targets } = await targetsOf(() =>
      client.identityRequests.delete({ accessRequestCode: '../../status/health', identitySessionCode: 'x' }),
    );
    expect(targets).toEqual(['/api/v1/identity/request/..%2F..%2Fstatus%2Fhealth/x']);
  });
});
