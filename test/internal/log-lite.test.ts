/** The verifiers' logging (#15): remoteJwks and the webhook verifier log through the same logger and levels as the clients. */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { remoteJwks, verifySdJwt } from '../../src/sd-jwt/index.js';
import { createWebhookVerifier } from '../../src/webhooks/index.js';
import { rejection } from '../helpers.js';

function recorder() {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields: object) =>
    lines.push({ level, message, fields: fields as Record<string, unknown> });
  return { logger: { info: at('info'), warn: at('warn') }, lines };
}

afterEach(() => vi.unstubAllEnvs());

describe('remoteJwks', () => {
  test('a refetch for a token whose kid is unknown is a warn line naming the kid, never the token', async () => {
    const issuer = 'https://issuer.example';
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'old' };
    const fetch = async (url: string) =>
      Response.json(url.endsWith('openid-configuration') ? { issuer, jwks_uri: `${issuer}/jwks` } : { keys: [jwk] });
    let clock = 0;
    const log = recorder();
    const keys = remoteJwks(issuer, { fetch, now: () => clock, logger: log.logger });
    const token = await new SignJWT({ iss: issuer, exp: 10 }).setProtectedHeader({ alg: 'ES256', kid: 'rotated' }).sign(privateKey);
    await rejection(verifySdJwt(`${token}~`, { keys, now: () => clock }));
    expect(log.lines).toEqual([]); // the first fetch was the one the miss would have made
    clock += 60_000;
    await rejection(verifySdJwt(`${token}~`, { keys, now: () => clock }));
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message: '[acme-identity] no cached key fits a token: fetching the JWKS again',
        fields: { alg: 'ES256', kid: 'rotated' },
      },
    ]);
    expect(JSON.stringify(log.lines)).not.toContain(token.split('.')[1]!);
  });
});

describe('webhook verifier', () => {
  const SECRET = 'whsec_test_0123456789abcdef0123456789';
  const body = JSON.stringify({ event: 'approved', access_request_code: 'arc_1', access_token: 'a.b.c' });

  test('a refusal is a warn line (each is a delivery lost until mended); a redelivery info; codes and reasons only', async () => {
    const log = recorder();
    const verifier = createWebhookVerifier({ secret: SECRET, logger: log.logger, logLevel: 'info' });
    await rejection(verifier.verify(body, { 'x-webhook-signature': `sha256=${'0'.repeat(64)}` }));
    await rejection(verifier.verify(body, {}));
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    await verifier.complete(await verifier.verify(body, { 'x-webhook-signature': signature }));
    await rejection(verifier.verify(body, { 'x-webhook-signature': signature }));
    expect(log.lines.map((l) => [l.level, l.fields['code']])).toEqual([
      ['warn', 'ERR_WEBHOOK_SIGNATURE'],
      ['warn', 'ERR_WEBHOOK_MISSING_SIGNATURE'],
      ['info', 'ERR_WEBHOOK_DUPLICATE'],
    ]);
    expect(JSON.stringify(log.lines)).not.toContain('arc_1');
  });

  test('warn by default; ACME_IDENTITY_LOG=off silences it; a logger that throws changes nothing', async () => {
    const log = recorder();
    const quiet = createWebhookVerifier({ secret: SECRET, logger: log.logger });
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    await quiet.complete(await quiet.verify(body, { 'x-webhook-signature': signature }));
    await rejection(quiet.verify(body, { 'x-webhook-signature': signature }));
    expect(log.lines).toEqual([]);
    await rejection(quiet.verify(body, {}));
    expect(log.lines.map((l) => l.level)).toEqual(['warn']);
    log.lines.length = 0;
    vi.stubEnv('ACME_IDENTITY_LOG', 'off');
    const off = createWebhookVerifier({ secret: SECRET, logger: log.logger });
    await rejection(off.verify(body, { 'x-webhook-signature': `sha256=${'0'.repeat(64)}` }));
    expect(log.lines).toEqual([]);
    const broken = () => {
      throw new Error('disk full');
    };
    const throwing = createWebhookVerifier({ secret: SECRET, logger: { info: broken, warn: broken }, logLevel: 'info' });
    expect(await rejection(throwing.verify(body, {}))).toMatchObject({ code: 'ERR_WEBHOOK_MISSING_SIGNATURE' });
  });

  test('an ACME_IDENTITY_LOG that names no level (an Object.prototype key among them) logs at warn: warnings, no info', async () => {
    for (const value of ['constructor', 'toString', '__proto__', 'verbose']) {
      vi.stubEnv('ACME_IDENTITY_LOG', value);
      const log = recorder();
      const verifier = createWebhookVerifier({ secret: SECRET, logger: log.logger });
      const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      await verifier.complete(await verifier.verify(body, { 'x-webhook-signature': signature }));
      await rejection(verifier.verify(body, { 'x-webhook-signature': signature }));
      await rejection(verifier.verify(body, {}));
      expect(
        log.lines.map((l) => [l.level, l.fields['code']]),
        value,
      ).toEqual([['warn', 'ERR_WEBHOOK_MISSING_SIGNATURE']]);
    }
  });
});
