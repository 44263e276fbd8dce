/**
 * `@acme/identity/redis`: the SDK's state on Redis, for relying parties that run several
 * instances. Give each store the client you already have, node-redis v5 (`redis`) or ioredis,
 * connected; neither is imported by this entry.
 *
 * - {@link RedisTokenStore}: one token renewal per expiry across every process, tokens encrypted.
 * - {@link RedisReplayStore}: each webhook delivery processed once (and never zero times).
 * - {@link RedisStateStore}: each sign-in callback used once.
 * - {@link RedisInboxStore}: the identity inbox's entries (`@acme/identity/inbox`) on Redis Streams.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { RedisReplayStore, RedisStateStore, RedisTokenStore } from '@acme/identity/redis';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const acme = new AcmeIdentityClient({ ...options, tokenStore: new RedisTokenStore(redis, { encryptionKey: process.env.ACME_TOKEN_KEY }) });
 * const webhooks = createWebhookVerifier({ secret, replayStore: new RedisReplayStore(redis) });
 * const oidc = createOidcClient({ ...oidcOptions, stateStore: new RedisStateStore(redis) });
 * ```
 * @module
 */
export { RedisReplayStore, RedisStateStore, RedisTokenStore } from './stores.js';
export type { RedisStoreOptions, RedisTokenStoreOptions } from './stores.js';
export { RedisInboxStore } from './inbox.js';
export type { RedisInboxStoreOptions } from './inbox.js';
export type { IoRedisLike, NodeRedisLike, RedisClientLike } from './commands.js';
export { ConfigurationError } from '../errors/index.js';
