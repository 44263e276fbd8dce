/**
 * `@acme/identity/inbox`: a durable inbox between the webhook and the verified identity. The
 * webhook's X-Access-Token arrives once and expires; the inbox persists each delivery before the
 * receiver answers 200, fetches and verifies the identity with retries inside the token's
 * lifetime, hands it to your handler once, and keeps what it cannot finish in a dead-letter list
 * you can replay. Entries live in memory (one process) or on Redis Streams (`RedisInboxStore`
 * from `@acme/identity/redis`).
 *
 * @example
 * ```ts
 * import { createIdentityInbox } from '@acme/identity/inbox';
 * import { RedisInboxStore } from '@acme/identity/redis';
 *
 * const inbox = createIdentityInbox({
 *   client: acme,
 *   store: new RedisInboxStore(redis),
 *   encryptionKey: process.env.ACME_INBOX_KEY,
 *   onIdentity: async (delivery) => save(delivery.id, delivery),
 * });
 * const receiver = createWebhookReceiver(createWebhookVerifier({ secret, replayStore: false }), inbox.receive);
 * inbox.start();
 * ```
 * @module
 */
export { createIdentityInbox } from './inbox.js';
export type { IdentityInbox, IdentityInboxOptions } from './inbox.js';
export type { InboxClient, InboxDelivery } from './worker.js';
export type { MissingDelivery } from './rules.js';
export { RETURN_PARAMETER } from './outcomes.js';
export type { OpenedReference, RequestOutcome, ReturnUrls, ServiceView, WaitOptions } from './outcomes.js';
export { createReturnPage } from './return-page.js';
export type { NodeRequestLike, NodeResponseLike, ReturnPage, ReturnPageOptions, ReturnPageState } from './return-page.js';
export { MemoryInboxStore } from './store.js';
export type {
  DeadLetter,
  ExpectedRequest,
  InboxClaim,
  InboxOutcome,
  InboxRecord,
  InboxStats,
  InboxStore,
  RequestState,
} from './store.js';
export { ConfigurationError, InboxError } from '../errors/index.js';
export type { InboxErrorCode } from '../errors/index.js';
export type { Hooks, InboxEvent } from '../internal/observe.js';
