/**
 * The SDK against every reading of what the spec leaves open (#25): one fake per reading, each
 * reading the spec differently in one choice, and one reading it differently in all of them at
 * once. Each runs the SDK's flows configured exactly as the README says (no option set for the
 * reading), and each flow must give the right result or a typed error: never a silently wrong one.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AuthenticationError } from '../../src/index.js';
import { READING_CHOICES, type FakeReadings } from '../../src/testing/index.js';
import { harness, person, rejection } from '../helpers.js';
import { flows } from './flows.js';
import { REFUSED, SET_APART, describeReadings, pairwise, readingsArbitrary } from './space.js';

/**
 * Every reading other than the fake's own, one at a time: those the SDK reads without being told.
 * Those the SDK must be told (the X-Request-Timestamp format, an ID token without the nonce) and
 * those it refuses (a request's expiry written as a duration) are below.
 */
const single: [string, FakeReadings][] = Object.entries(READING_CHOICES)
  .filter(([name]) => !SET_APART.has(name))
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
  envelope: 'nested',
  absent: 'null',
  issuer: 'slash',
  claimPlacement: 'credential',
  expiresForm: 'naive',
  expiresInUnit: 'milliseconds',
  redelivery: 'fresh-token',
  cancelledToken: 'omitted',
  webhookCodes: 'both',
  keyRotation: 'rotated',
  optionalInputs: 'schema',
  timeUnit: 'milliseconds',
  times: 'decimal',
  booleans: 'words',
  digestEncoding: 'hex',
  deleteAnswer: 'no-content',
  neverExpires: 'zero',
  tokenTimes: 'milliseconds',
  webhookTimestamp: 'milliseconds',
  webhookStampHeader: 'x-request-timestamp',
  errorCase: 'lower',
  disclosureHash: 'json',
  disclosureForm: 'compact',
  claimKeys: 'nested',
  signInClaims: 'nested',
  emailFailureDetails: 'codes',
  claimsSupported: 'string',
  webhookHash: 'SHA-512',
  webhookHashName: 'hmac-sha256',
  webhookStampJoin: 'colon',
  webhookKey: 'decoded',
  revokeAnswer: 'no-content',
  verifyAnswer: 'signature',
  conflictDetails: 'codes',
  fileEncoding: 'mime',
  specFormat: 'yaml',
  errorStatus: 'ok',
  returnUrl: 'concatenated',
  signInClaimsAt: 'userinfo',
};

describe('the SDK under every reading of what the spec leaves open', () => {
  test.each(single)('%s', async (_name, readings) => {
    const { client, service } = await harness({ fake: { readings, webhookRetry: { attempts: 1 } } });
    await flows(client, service, readings);
  });

  test.each(['colon', 'none'] as const)(
    'a timestamp header signed before the body, the two joined by %s (webhookStampJoin only shapes the timestamped form)',
    async (webhookStampJoin) => {
      const readings: FakeReadings = { webhookSignature: 'timestamped', webhookStampJoin };
      const { client, service } = await harness({ fake: { readings, webhookRetry: { attempts: 1 } } });
      await flows(client, service, readings);
    },
  );

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

  test('an ID token that leaves the nonce out: every sign-in refused as ERR_OIDC_NONCE naming nonce: false, and fine once it is set', async () => {
    const { client, service, makeClient } = await harness({
      fake: { readings: { idTokenNonce: 'ignored' }, webhookRetry: { attempts: 1 } },
    });
    const error = await rejection(flows(client, service, {}));
    expect(error).toMatchObject({ code: 'ERR_OIDC_NONCE', claim: 'nonce' });
    expect((error as Error).message).toContain('nonce: false');
    await flows(makeClient({}), service, {}, { nonce: false });
  });

  test.each(
    [...REFUSED].flatMap((name) =>
      (READING_CHOICES[name as keyof FakeReadings] as readonly unknown[]).slice(1).flatMap((value): [string, FakeReadings][] => [
        [`${name}=${String(value)}`, { [name]: value }],
        [`${name}=${String(value)} among every choice read otherwise`, { ...ALL_OTHERWISE, [name]: value }],
      ]),
    ),
  )('a reading the SDK refuses, naming what it cannot read (%s); every other flow as before', async (_name, readings) => {
    const { client, service } = await harness({ fake: { readings, webhookRetry: { attempts: 1 } } });
    await flows(client, service, readings);
  });

  test('"every choice read otherwise" names every choice (but those the SDK must be told): a new reading joins it', () => {
    const choices = Object.keys(READING_CHOICES).filter((name) => !SET_APART.has(name));
    expect(Object.keys(ALL_OTHERWISE).sort()).toEqual(choices.sort());
  });

  test('every choice read otherwise at once', async () => {
    const { client, service } = await harness({ fake: { readings: ALL_OTHERWISE, webhookRetry: { attempts: 1 } } });
    await flows(client, service, ALL_OTHERWISE);
  });
});

describe('the SDK under readings in combination (#39): every pair of choices, and the whole space', () => {
  const rows = pairwise();

  test('the combined services cover every pair of values of every two choices, in far fewer services than all combinations', () => {
    const seen = new Set<string>();
    for (const row of rows) {
      const entries = Object.entries(row);
      for (const [i, [a, x]] of entries.entries())
        for (const [b, y] of entries.slice(i + 1)) seen.add(`${a}=${String(x)}|${b}=${String(y)}`);
    }
    let pairs = 0;
    const axes = Object.entries(READING_CHOICES).filter(([name]) => !SET_APART.has(name));
    for (const [i, [a, xs]] of axes.entries()) {
      for (const [b, ys] of axes.slice(i + 1)) {
        for (const x of xs as readonly unknown[]) {
          for (const y of ys as readonly unknown[]) {
            pairs += 1;
            expect(seen.has(`${a}=${String(x)}|${b}=${String(y)}`), `${a}=${String(x)} with ${b}=${String(y)}`).toBe(true);
          }
        }
      }
    }
    expect(pairs).toBeGreaterThan(rows.length * 10);
  });

  test.each(rows.map((readings, i): [string, FakeReadings] => [`service ${i + 1}: ${describeReadings(readings)}`, readings]))(
    '%s',
    async (_name, readings) => {
      const { client, service } = await harness({ fake: { readings, webhookRetry: { attempts: 1 } } });
      await flows(client, service, readings);
    },
  );

  test('property: for any service of the whole space, every flow gives what the service meant', async () => {
    await fc.assert(
      fc.asyncProperty(readingsArbitrary, async (readings) => {
        const { client, service } = await harness({ fake: { readings, webhookRetry: { attempts: 1 } } });
        await flows(client, service, readings);
      }),
      { numRuns: 15 },
    );
  });
});
