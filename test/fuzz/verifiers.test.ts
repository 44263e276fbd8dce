/**
 * Mutation fuzzing of the three verifiers (#13). Valid inputs come from issuers this repository
 * did not write (`@sd-jwt/core` for SD-JWTs, `node:crypto` for digests and HMACs); fast-check
 * applies meaning-changing mutations (flip, drop, duplicate, reorder, re-encode, swap a part from
 * another valid input, respell a number, inject reserved names, nest, grow). For every case:
 * - a mutation that changes what was signed is refused with an `AcmeIdentityError` whose code
 *   names a rule of that verifier; nothing else is ever thrown;
 * - what is accepted says nothing the issuer did not sign (a presentation may hide, never change);
 * - the work is bounded by the input: hashes and HMACs counted per call, never more than its parts.
 *
 * About 3,000 cases in CI; `FUZZ_RUNS=20000 npx vitest run test/fuzz` for more.
 */
import { createHmac } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import fc from 'fast-check';
import { SDJwtInstance } from '@sd-jwt/core';
import { digest as sdDigest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { AcmeIdentityError } from '../../src/index.js';
import { verifyIdentityResponse, verifySdJwt } from '../../src/sd-jwt/index.js';
import { createWebhookVerifier } from '../../src/webhooks/index.js';
import { ISSUER, NOW, NOW_MS, at, digest, disclosure, testIssuer, type TestIssuer } from '../sd-jwt/issuer.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 1000);
/** The module object the SDK reaches through `process.getBuiltinModule`: spying on it counts the SDK's work. */
const nodeCrypto = process.getBuiltinModule('node:crypto') as typeof import('node:crypto');

afterEach(() => {
  vi.restoreAllMocks();
});

/** Counts node:crypto hashes and HMACs, and Web Crypto signature checks, while `run` runs. */
async function counted<T>(run: () => Promise<T>) {
  const hashes = vi.spyOn(nodeCrypto, 'createHash');
  const hmacs = vi.spyOn(nodeCrypto, 'createHmac');
  const verifies = vi.spyOn(crypto.subtle, 'verify');
  try {
    const outcome = await run().then(
      (value): { value?: T; error?: unknown } => ({ value }),
      (error: unknown): { value?: T; error?: unknown } => ({ error }),
    );
    return { ...outcome, hashes: hashes.mock.calls.length, hmacs: hmacs.mock.calls.length, verifies: verifies.mock.calls.length };
  } finally {
    hashes.mockRestore();
    hmacs.mockRestore();
    verifies.mockRestore();
  }
}

/** A refusal: the SDK's own error, with a code of the verifier's family. */
function expectRefusal(error: unknown, family: RegExp) {
  expect(error).toBeInstanceOf(AcmeIdentityError);
  expect((error as AcmeIdentityError).code).toMatch(family);
}

/** Whether `seen` only shows what `signed` holds: objects by key, arrays as subsequences, the rest equal. */
function within(seen: unknown, signed: unknown): boolean {
  if (Array.isArray(seen)) {
    if (!Array.isArray(signed)) return false;
    let i = 0;
    return seen.every((element) => {
      while (i < signed.length && !within(element, signed[i])) i++;
      return i++ < signed.length;
    });
  }
  if (seen !== null && typeof seen === 'object') {
    if (signed === null || typeof signed !== 'object' || Array.isArray(signed)) return false;
    return Object.entries(seen).every(
      ([key, value]) => Object.hasOwn(signed, key) && within(value, (signed as Record<string, unknown>)[key]),
    );
  }
  return Object.is(seen, signed);
}

const b64 = (text: string) => Buffer.from(text).toString('base64url');
const unb64 = (segment: string) => Buffer.from(segment, 'base64url');

describe('fuzz: SD-JWTs issued by @sd-jwt/core', () => {
  let issuer: TestIssuer;
  const claims = {
    iss: ISSUER,
    iat: NOW,
    exp: NOW + 3600,
    sub: 'person-1',
    given_name: 'Jane',
    family_name: 'Möbius',
    address: { street_address: '1 Main St', locality: 'Sydney', country: 'AU' },
    nationalities: ['AU', 'FR', 'DE'],
  };
  const frame = {
    _sd: ['given_name', 'family_name', 'address'],
    _sd_decoy: 2,
    address: { _sd: ['street_address', 'locality'] },
    nationalities: { _sd: [0, 2] },
  };
  let valid: string;
  let other: string;

  beforeAll(async () => {
    issuer = await testIssuer();
    const sdjwt = new SDJwtInstance<Record<string, unknown>>({
      hasher: sdDigest,
      hashAlg: 'sha-256',
      saltGenerator: generateSalt,
      signer: async (data) =>
        Buffer.from(await crypto.subtle.sign({ name: 'RSASSA-PKCS1-v1_5' }, issuer.privateKey, new TextEncoder().encode(data))).toString(
          'base64url',
        ),
      signAlg: 'RS256',
    });
    valid = await sdjwt.issue(claims, frame as never, { header: { kid: 'k1', typ: 'dc+sd-jwt' } });
    other = await sdjwt.issue({ ...claims, given_name: 'Mallory', sub: 'person-2' }, frame as never, { header: { kid: 'k1' } });
    expect((await verifySdJwt(valid, at(issuer.keys))).claims).toEqual(claims);
  });

  /** The parts of a compact SD-JWT: the JWT's three segments and the disclosures. */
  const parts = (sdJwt: string) => {
    const [jwt, ...rest] = sdJwt.split('~');
    return { segments: jwt!.split('.'), disclosures: rest.filter(Boolean) };
  };
  const join = (segments: string[], disclosures: string[]) => `${segments.join('.')}~${disclosures.map((d) => `${d}~`).join('')}`;

  type Mutation = { sdJwt: string; signedChanged: boolean };
  /** A mutation that does not apply to what earlier ones left (no disclosure left, say) leaves it unchanged. */
  const guarded =
    (mutate: (sdJwt: string) => Mutation) =>
    (sdJwt: string): Mutation => {
      const { segments, disclosures } = parts(sdJwt);
      if (segments.length !== 3 || disclosures.length === 0) return { sdJwt, signedChanged: false };
      return mutate(sdJwt);
    };
  const mutation: fc.Arbitrary<(sdJwt: string) => Mutation> = fc.oneof(
    // Flip one bit of one byte of the header, payload or signature: what was signed changes.
    fc
      .record({ segment: fc.integer({ min: 0, max: 2 }), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) })
      .map(({ segment, at: position, bit }) => (s: string) => {
        const { segments, disclosures } = parts(s);
        const bytes = unb64(segments[segment]!);
        if (bytes.length === 0) return { sdJwt: s, signedChanged: false };
        bytes[position % bytes.length]! ^= 1 << bit;
        segments[segment] = bytes.toString('base64url');
        return { sdJwt: join(segments, disclosures), signedChanged: true };
      }),
    // Flip a bit of a disclosure: its digest no longer matches.
    fc.record({ which: fc.nat(), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }).map(({ which, at: position, bit }) => (s: string) => {
      const { segments, disclosures } = parts(s);
      const i = which % disclosures.length;
      const bytes = unb64(disclosures[i]!);
      bytes[position % bytes.length]! ^= 1 << bit;
      disclosures[i] = bytes.toString('base64url');
      return { sdJwt: join(segments, disclosures), signedChanged: true };
    }),
    // Drop some disclosures (a presentation hides claims) or reorder them: nothing signed changes.
    fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }).map((keep) => (s: string) => {
      const { segments, disclosures } = parts(s);
      return {
        sdJwt: join(
          segments,
          disclosures.filter((_, i) => keep[i % keep.length]),
        ),
        signedChanged: false,
      };
    }),
    fc.integer({ min: 1, max: 7 }).map((rotate) => (s: string) => {
      const { segments, disclosures } = parts(s);
      const r = rotate % disclosures.length;
      return { sdJwt: join(segments, [...disclosures.slice(r), ...disclosures.slice(0, r)]), signedChanged: false };
    }),
    // Duplicate a disclosure.
    fc.nat().map((which) => (s: string) => {
      const { segments, disclosures } = parts(s);
      return { sdJwt: join(segments, [...disclosures, disclosures[which % disclosures.length]!]), signedChanged: true };
    }),
    // Re-encode a segment: base64 padding, standard alphabet, whitespace.
    fc
      .record({ segment: fc.integer({ min: 0, max: 2 }), how: fc.constantFrom('pad', 'standard', 'space') })
      .map(({ segment, how }) => (s: string) => {
        const { segments, disclosures } = parts(s);
        const bytes = unb64(segments[segment]!);
        const respelt = {
          pad: bytes.toString('base64'),
          standard: bytes.toString('base64').replace(/=+$/, ''),
          space: `${segments[segment]} `,
        };
        segments[segment] = respelt[how];
        const changed = segments[segment] !== parts(s).segments[segment];
        return { sdJwt: join(segments, disclosures), signedChanged: changed };
      }),
    // Swap in a part of another valid SD-JWT of the same issuer.
    fc.constantFrom('header', 'payload', 'signature', 'disclosure').map((part) => (s: string) => {
      const mine = parts(s);
      const theirs = parts(other);
      if (part === 'disclosure')
        return { sdJwt: join(mine.segments, [...mine.disclosures.slice(1), theirs.disclosures[0]!]), signedChanged: true };
      const index = { header: 0, payload: 1, signature: 2 }[part];
      const segments = [...mine.segments];
      segments[index] = theirs.segments[index]!;
      return { sdJwt: join(segments, mine.disclosures), signedChanged: segments[index] !== mine.segments[index] };
    }),
    // Respell a number of the payload (exp as 1.7e9, as a string), inject a reserved name, nest deeply, grow.
    fc.constantFrom('exponent', 'string', 'reserved-disclosure', 'reserved-plain', 'nest', 'grow').map((how) => (s: string) => {
      const { segments, disclosures } = parts(s);
      let payload: Record<string, unknown>;
      try {
        payload = JSON.parse(unb64(segments[1]!).toString('utf8')) as Record<string, unknown>;
        JSON.stringify(payload);
      } catch {
        return { sdJwt: s, signedChanged: false }; // an earlier mutation already broke the payload
      }
      if (how === 'reserved-disclosure') {
        return { sdJwt: join(segments, [...disclosures, b64(JSON.stringify(['salt', '_sd', ['x']]))]), signedChanged: true };
      }
      if (how === 'grow')
        return { sdJwt: join(segments, [...disclosures, ...Array<string>(2000).fill(b64('["s","x","y"]'))]), signedChanged: true };
      let text = JSON.stringify(payload);
      if (how === 'exponent') text = text.replace(`"exp":${payload['exp']}`, `"exp":${Number(payload['exp']) / 1e9}e9`);
      if (how === 'string') text = text.replace(`"exp":${payload['exp']}`, `"exp":"${payload['exp']}"`);
      if (how === 'reserved-plain') text = text.replace('{', '{"...":"x",');
      if (how === 'nest') text = text.replace('{', `{"deep":${'['.repeat(1000)}${']'.repeat(1000)},`);
      segments[1] = b64(text);
      return { sdJwt: join(segments, disclosures), signedChanged: true };
    }),
  );

  test('every mutation that changes what was signed is refused with an ERR_SD_JWT_ code; the rest show only signed claims; work is bounded', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        let current: Mutation = { sdJwt: valid, signedChanged: false };
        for (const mutate of mutations) {
          const next = guarded(mutate)(current.sdJwt);
          current = { sdJwt: next.sdJwt, signedChanged: current.signedChanged || next.signedChanged };
        }
        const { value, error, hashes, verifies } = await counted(() => verifySdJwt(current.sdJwt, at(issuer.keys)));
        // One hash per disclosure (and one for a key binding), one signature check per candidate key.
        expect(hashes).toBeLessThanOrEqual(current.sdJwt.split('~').length + 1);
        expect(verifies).toBeLessThanOrEqual(4);
        if (error !== undefined) return expectRefusal(error, /^ERR_(SD_JWT_|JWKS$)/);
        // Accepted: the same bytes were signed (a change that left them equal is no change), and nothing unsigned shows.
        const accepted = value!.claims;
        expect(within(accepted, claims)).toBe(true);
        if (current.signedChanged)
          expect(parts(current.sdJwt).segments.slice(0, 2).join('.')).toBe(parts(valid).segments.slice(0, 2).join('.'));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('fuzz: identity responses built with node:crypto digests', () => {
  const entries: [string, unknown][] = [
    ['acmeidentity.given_name', 'Jane'],
    ['acmeidentity.valid', true],
    ['acmeidentity.birth_date', '1990-01-01'],
    ['sanctionscheck.matches', '[{"name":"x"}]'],
  ];
  const build = (salts: string[]) => {
    const disclosures = entries.map(([claim, value], i) => ({ claim, salt: salts[i]!, value }));
    return {
      sub: 'person-1',
      exp: NOW + 600,
      request_code: 'isc-1',
      _sd_alg: 'sha256',
      _sd: [...disclosures.map((d) => digest(disclosure(d.salt, d.claim, d.value))), digest('decoy')],
      disclosures,
    };
  };
  const valid = build(['a1', 'a2', 'a3', 'a4']);
  const other = build(['b1', 'b2', 'b3', 'b4']);
  const options = { requestCode: 'isc-1', now: () => NOW_MS };
  type Data = ReturnType<typeof build> & Record<string, unknown>;

  const mutation: fc.Arbitrary<(data: Data) => boolean> = fc.oneof(
    fc
      .record({ i: fc.nat({ max: 3 }), field: fc.constantFrom('claim', 'salt', 'value'), replacement: fc.jsonValue({ maxDepth: 3 }) })
      .map(({ i, field, replacement }) => (data: Data) => {
        const entry = data.disclosures[i % Math.max(1, data.disclosures.length)] as Record<string, unknown> | undefined;
        if (!entry) return false;
        const changed = JSON.stringify(entry[field]) !== JSON.stringify(replacement);
        entry[field] = replacement;
        return changed;
      }),
    fc.record({ i: fc.nat({ max: 4 }), text: fc.string() }).map(({ i, text }) => (data: Data) => {
      const changed = data._sd[i] !== text;
      data._sd[i] = text;
      // A changed decoy changes nothing disclosed.
      return changed && i < 4;
    }),
    fc.nat({ max: 3 }).map((i) => (data: Data) => {
      if (data.disclosures.length === 0) return false;
      data.disclosures.push(structuredClone(data.disclosures[i % data.disclosures.length]!));
      return true;
    }),
    fc.nat({ max: 3 }).map((i) => (data: Data) => {
      data.disclosures.splice(i, 1);
      return false; // hiding a claim is allowed
    }),
    fc.nat({ max: 3 }).map((i) => (data: Data) => {
      data.disclosures[i] = structuredClone(other.disclosures[i]!);
      return true;
    }),
    // A boolean respelt as a number or a string: another value, another digest.
    fc.constantFrom('1', '"true"', '1e0').map((spelling) => (data: Data) => {
      const valid_ = data.disclosures.find((d) => d.claim === 'acmeidentity.valid');
      if (!valid_) return false;
      (valid_ as Record<string, unknown>)['value'] = JSON.parse(spelling);
      return true;
    }),
    fc.constantFrom('_sd', '...', 'sub', 'exp', 'request_code').map((name) => (data: Data) => {
      const salt = 'injected';
      data.disclosures.push({ claim: name, salt, value: 'x' });
      data._sd.push(digest(disclosure(salt, name, 'x')));
      return true;
    }),
    fc.integer({ min: 65, max: 2000 }).map((depth) => (data: Data) => {
      let deep: unknown = 'x';
      for (let i = 0; i < depth; i++) deep = [deep];
      if (data.disclosures.length === 0) return false;
      (data.disclosures[0] as Record<string, unknown>)['value'] = deep;
      return true;
    }),
    fc.constantFrom('sha-1', 'SHA256', 'md5', '').map((alg) => (data: Data) => {
      data._sd_alg = alg;
      return true;
    }),
    fc.integer({ min: 100, max: 3000 }).map((count) => (data: Data) => {
      for (let i = 0; i < count; i++) data._sd.push(digest(`grow-${i}`));
      return false; // more decoys disclose nothing
    }),
  );

  test('every change to a disclosed claim is refused with an ERR_SD_JWT_ code; accepted claims are the signed ones; work is bounded', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        const data = structuredClone(valid) as Data;
        const changed = mutations.map((mutate) => mutate(data)).some(Boolean);
        const { value, error, hashes } = await counted(() => verifyIdentityResponse({ data }, options));
        const disclosed = Array.isArray(data.disclosures) ? data.disclosures.length : 0;
        expect(hashes).toBeLessThanOrEqual(4 * disclosed);
        if (error !== undefined) return expectRefusal(error, /^ERR_SD_JWT_/);
        const { claims: accepted, uncheckedClaims } = value!;
        // A disclosure whose salt was taken away has nothing to hash: it is kept only as stated, and
        // listed as such (the spec gives a salt "when applicable"). Every other claim is as signed.
        const saltless = new Set(data.disclosures.filter((d) => (d as Record<string, unknown>)['salt'] == null).map((d) => d.claim));
        expect(new Set(uncheckedClaims)).toEqual(saltless);
        for (const [key, claim] of Object.entries(accepted)) {
          if (!saltless.has(key)) expect(claim).toEqual(Object.fromEntries(entries)[key]);
        }
        if (changed) {
          // A change was made, yet everything shown is as signed: the change only hid claims.
          expect(Object.keys(accepted).length).toBeLessThanOrEqual(entries.length);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('fuzz: webhook deliveries signed with node:crypto', () => {
  const SECRET = 'whsec_fuzz_0123456789abcdef0123456789';
  const body = JSON.stringify({
    event: 'approved',
    access_request_code: 'arc_1',
    access_token: 'eyJhbGciOiJSUzI1NiJ9.eyJhIjoxfQ.c2ln',
    n: 1,
  });
  const otherBody = JSON.stringify({
    event: 'cancelled',
    access_request_code: 'arc_2',
    access_token: 'eyJhbGciOiJSUzI1NiJ9.eyJhIjoyfQ.c2ln',
    n: 2,
  });
  const mac = (b: string | Buffer) => createHmac('sha256', SECRET).update(b).digest();

  type Delivery = { body: Buffer; signature: string; bodyChanged: boolean };
  const mutation: fc.Arbitrary<(d: Delivery) => Delivery> = fc.oneof(
    fc.record({ at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }).map(({ at: position, bit }) => (d: Delivery) => {
      const copy = Buffer.from(d.body);
      copy[position % copy.length]! ^= 1 << bit;
      return { ...d, body: copy, bodyChanged: true };
    }),
    fc.record({ at: fc.nat(), char: fc.constantFrom(...'0123456789abcdefXZ=+/ ,') }).map(({ at: position, char }) => (d: Delivery) => {
      const i = position % d.signature.length;
      return { ...d, signature: d.signature.slice(0, i) + char + d.signature.slice(i + 1) };
    }),
    // Meaning-preserving re-encodings of the signature: upper case, base64, base64url, no prefix.
    fc.constantFrom('upper', 'base64', 'base64url', 'bare').map((how) => (d: Delivery) => {
      const hex = d.signature.replace(/^sha256=/i, '').split(/[\s,]+/)[0]!;
      if (!/^[0-9a-f]{64}$/i.test(hex)) return d;
      const bytes = Buffer.from(hex, 'hex');
      const respelt = {
        upper: d.signature.toUpperCase(),
        base64: bytes.toString('base64'),
        base64url: bytes.toString('base64url'),
        bare: hex,
      };
      return { ...d, signature: respelt[how] };
    }),
    fc
      .integer({ min: 1, max: 40 })
      .map((copies) => (d: Delivery) => ({ ...d, signature: Array<string>(copies).fill(d.signature).join(', ') })),
    fc.constant((d: Delivery) => ({ ...d, body: Buffer.from(otherBody), bodyChanged: true })),
    fc
      .constantFrom(' ', '\n', '\r\n')
      .map((space) => (d: Delivery) => ({ ...d, body: Buffer.concat([d.body, Buffer.from(space)]), bodyChanged: true })),
    fc.nat().map((cut) => (d: Delivery) => ({ ...d, body: d.body.subarray(0, cut % d.body.length), bodyChanged: true })),
    fc
      .integer({ min: 1, max: 3 })
      .map((mib) => (d: Delivery) => ({ ...d, body: Buffer.concat([d.body, Buffer.alloc(mib * 1024 * 1024, 0x20)]), bodyChanged: true })),
    fc.constant((d: Delivery) => ({ ...d, body: Buffer.from(d.body.toString('utf8').replace('"n":1', '"n":1.0')), bodyChanged: true })),
  );

  test('every change to the signed body is refused with an ERR_WEBHOOK_ code; re-encodings verify; the MACs computed are bounded', async () => {
    const verifier = createWebhookVerifier({ secret: SECRET, replayStore: false });
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        let delivery: Delivery = { body: Buffer.from(body), signature: `sha256=${mac(body).toString('hex')}`, bodyChanged: false };
        for (const mutate of mutations) delivery = mutate(delivery);
        const { value, error, hmacs, verifies } = await counted(() =>
          verifier.verify(delivery.body, { 'x-webhook-signature': delivery.signature }),
        );
        // node:crypto: one HMAC for the one secret; Web Crypto: one check per signature, at most the cap of 4.
        expect(hmacs + verifies).toBeLessThanOrEqual(4);
        if (error !== undefined) return expectRefusal(error, /^ERR_WEBHOOK_/);
        // Accepted: the bytes are the signed ones (a change that restored them is no change).
        if (delivery.bodyChanged) expect(delivery.body.equals(Buffer.from(body))).toBe(true);
        expect(value!.accessRequestCode).toBe('arc_1');
      }),
      { numRuns: RUNS },
    );
  });
});
