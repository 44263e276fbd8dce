/** Where the ID token check gets the issuer's keys: `freshKeys` (a browser page) and `cachedKeys` (a backend). */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { OidcError } from '../../src/errors/index.js';
import type { DiscoveredServer } from '../../src/oidc/flow.js';
import { cachedKeys, freshKeys, jwsVerifier, type KeysOf } from '../../src/oidc/jws.js';
import { rejection } from '../helpers.js';

const as: DiscoveredServer = {
  issuer: 'https://auth.acme.test',
  authorization_endpoint: 'https://auth.acme.test/authorize',
  token_endpoint: 'https://auth.acme.test/token',
  jwks_uri: 'https://auth.acme.test/jwks',
};
const key = (kid: string) => ({ kty: 'RSA', kid });
/** Keeps the keys whose kid is `wanted`. */
const fitting = (wanted: string) => (keys: { kid?: string }[]) => keys.filter((k) => k.kid === wanted);

/** A JWKS endpoint the test scripts: each read takes the next answer (a key set, an error, or a promise the test settles). */
function endpoint(...answers: (unknown | Error | Promise<unknown>)[]) {
  const reads: string[] = [];
  const keysOf: KeysOf = async (url) => {
    reads.push(url);
    const answer = answers.shift();
    if (answer instanceof Error) throw answer;
    return (await answer) as { keys?: unknown };
  };
  return { reads, keysOf };
}

/** A promise the test resolves or rejects when it chooses. */
function later<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

describe('freshKeys: a browser page', () => {
  test('reads the JWKS for each check, from the jwks_uri of discovery', async () => {
    const { reads, keysOf } = endpoint({ keys: [key('a')] }, { keys: [key('b')] });
    const source = freshKeys(keysOf);
    expect(await source(as, fitting('a'))).toEqual([key('a')]);
    expect(await source(as, fitting('b'))).toEqual([key('b')]);
    expect(reads).toEqual([as.jwks_uri, as.jwks_uri]);
  });

  // A bare array of keys is not a JWK Set (RFC 7517 §5): its keys are not taken.
  test.each([null, {}, { keys: 'none' }, [key('k1')]])('a document without a keys array (%j) has no keys', async (document) => {
    const { keysOf } = endpoint(document);
    // Every key of the set kept: whatever the source hands over is what it read.
    expect(await freshKeys(keysOf)(as, (keys) => keys)).toEqual([]);
  });
});

describe('cachedKeys: a backend', () => {
  test('keeps the set ten minutes to the millisecond, then reads it again', async () => {
    let clock = 0;
    const { reads, keysOf } = endpoint({ keys: [key('a')] }, { keys: [key('a')] });
    const source = cachedKeys(keysOf, () => clock);
    await source(as, fitting('a'));
    clock = 600_000;
    await source(as, fitting('a'));
    expect(reads).toHaveLength(1);
    clock = 600_001;
    await source(as, fitting('a'));
    expect(reads).toHaveLength(2);
  });

  test('no key fits: the set is read again at once (a key rotated a second ago), such reads once per 30 s', async () => {
    let clock = 0;
    const { reads, keysOf } = endpoint({ keys: [key('old')] }, { keys: [key('new')] }, { keys: [key('newer')] });
    const source = cachedKeys(keysOf, () => clock);
    expect(await source(as, fitting('old'))).toEqual([key('old')]);
    clock = 1_000;
    expect(await source(as, fitting('new'))).toEqual([key('new')]);
    expect(reads).toHaveLength(2);
    clock = 30_999;
    expect(await source(as, fitting('newer'))).toEqual([]);
    expect(reads).toHaveLength(2);
    clock = 31_000;
    expect(await source(as, fitting('newer'))).toEqual([key('newer')]);
    expect(reads).toHaveLength(3);
  });

  test('a set read for this very token, because the kept one was old, is not read again when no key of it fits', async () => {
    let clock = 0;
    const { reads, keysOf } = endpoint({ keys: [key('a')] }, { keys: [key('a')] }, { keys: [key('b')] });
    const source = cachedKeys(keysOf, () => clock);
    await source(as, fitting('a'));
    clock = 600_001;
    expect(await source(as, fitting('b'))).toEqual([]);
    expect(reads).toHaveLength(2);
  });

  test('a read that failed is not kept: the next check reads again at once', async () => {
    const { reads, keysOf } = endpoint(new Error('unavailable'), { keys: [key('a')] });
    const source = cachedKeys(keysOf, () => 0);
    await expect(source(as, fitting('a'))).rejects.toThrow('unavailable');
    expect(await source(as, fitting('a'))).toEqual([key('a')]);
    expect(reads).toHaveLength(2);
  });

  test('an older read failing late does not drop the newer set that took its place', async () => {
    let clock = 0;
    const slow = later<unknown>();
    const { reads, keysOf } = endpoint(slow.promise, { keys: [key('a')] });
    const source = cachedKeys(keysOf, () => clock);
    const first = source(as, fitting('a'));
    // Ten minutes on, the first read still hangs: a second read replaces it and answers.
    clock = 600_001;
    expect(await source(as, fitting('a'))).toEqual([key('a')]);
    slow.reject(new Error('timed out'));
    await expect(first).rejects.toThrow('timed out');
    expect(await source(as, fitting('a'))).toEqual([key('a')]);
    expect(reads).toHaveLength(2);
  });
});

describe('jwsVerifier: the ID token signature check', () => {
  test("property: an alg it refuses reaches the message on one line, cut (the header is the token's text, not ours)", async () => {
    const unprintable = fc.constantFrom('\n', '\r', '\u0000', '\u001b', '\u0085', '\u2028', '\u2029');
    const alg = fc
      .array(fc.oneof(fc.string({ maxLength: 80 }), unprintable), { minLength: 1, maxLength: 12 })
      .map((parts) => parts.join(''))
      .filter((text) => !/^(?:[RPE]S(?:256|384|512)|EdDSA|Ed25519)$/.test(text));
    const noKeys = async () => {
      throw new Error('no key is read for an alg refused');
    };
    await fc.assert(
      fc.asyncProperty(alg, async (written) => {
        const header = Buffer.from(JSON.stringify({ alg: written })).toString('base64url');
        const refused = await rejection(jwsVerifier(noKeys)(as, `${header}.e30.c2ln`));
        expect(refused).toBeInstanceOf(OidcError);
        expect(refused).toMatchObject({ code: 'ERR_OIDC_ID_TOKEN_SIGNATURE' });
        const { message } = refused as OidcError;
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the message must not hold
        expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
        expect(message.length).toBeLessThanOrEqual('ID token: '.length + 65 + ' is not an asymmetric JWS algorithm'.length);
      }),
    );
  });
});
