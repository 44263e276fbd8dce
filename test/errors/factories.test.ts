/** Every factory of the SDK refuses missing or unusable options with a ConfigurationError naming the option, never a raw TypeError (#31). */
import { describe, expect, test } from 'vitest';
import { AcmeIdentityClient, ConfigurationError, createClient } from '../../src/index.js';
import { createBrowserSignIn } from '../../src/oidc/browser.js';
import { createOidcClient } from '../../src/oidc/index.js';
import { RedisReplayStore, RedisStateStore, RedisTokenStore } from '../../src/redis/index.js';
import { remoteJwks } from '../../src/sd-jwt/index.js';
import { createWebhookReceiver, createWebhookVerifier } from '../../src/webhooks/index.js';

// biome-ignore lint/suspicious/noExplicitAny: each factory is called as JavaScript would call it, with nothing
const untyped = (f: unknown) => f as (...args: any[]) => unknown;
const verifier = () => createWebhookVerifier({ secret: 'whsec_0123456789abcdef0123' });

describe('factories refuse missing options', () => {
  test.each<[string, () => unknown, string]>([
    ['new AcmeIdentityClient()', () => new (AcmeIdentityClient as unknown as new () => unknown)(), 'options'],
    ['createClient()', () => untyped(createClient)(), 'options'],
    ['createOidcClient()', () => untyped(createOidcClient)(), 'authUrl'],
    ['createBrowserSignIn()', () => untyped(createBrowserSignIn)(), 'authUrl'],
    ['createWebhookVerifier()', () => untyped(createWebhookVerifier)(), 'options'],
    ['createWebhookVerifier(null)', () => untyped(createWebhookVerifier)(null), 'options'],
    ['createWebhookReceiver()', () => untyped(createWebhookReceiver)(), 'verifier'],
    ['createWebhookReceiver(verifier)', () => untyped(createWebhookReceiver)(verifier()), 'onEvent'],
    ['remoteJwks()', () => untyped(remoteJwks)(), 'authUrl'],
    ['new RedisTokenStore()', () => new (RedisTokenStore as unknown as new () => unknown)(), 'client'],
    ['new RedisReplayStore()', () => new (RedisReplayStore as unknown as new () => unknown)(), 'client'],
    ['new RedisStateStore()', () => new (RedisStateStore as unknown as new () => unknown)(), 'client'],
  ])('%s is a ConfigurationError naming %s', (_name, make, option) => {
    let thrown: unknown;
    try {
      make();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect(thrown).toMatchObject({ code: 'ERR_INVALID_CONFIG', option });
  });
});
