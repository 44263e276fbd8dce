/**
 * What every framework handler takes: a verifier (or the secret to make one) and where events go,
 * your handler or an identity inbox (`inbox.receive` stores the delivery before the 200).
 */
import { ConfigurationError } from '../../errors/index.js';
import { createWebhookReceiver, type WebhookReceiver } from '../receiver.js';
import type { WebhookVerifierOptions } from '../options.js';
import { createWebhookVerifier, type IdentityActionsEvent, type WebhookVerifier } from '../verify.js';

export interface WebhookHandlerOptions {
  /** A verifier from `createWebhookVerifier`; or give `secret` (and any verifier option) and one is made. */
  verifier?: WebhookVerifier;
  /** The webhook secret, when no `verifier` is given. */
  secret?: WebhookVerifierOptions['secret'];
  /** Options of the verifier made from `secret` (scheme, replay store, logging…). */
  verifierOptions?: Omit<WebhookVerifierOptions, 'secret'>;
  /** Your handler: called once per delivery, before the 200 (keep it short). */
  onEvent?: (event: IdentityActionsEvent) => unknown;
  /** An identity inbox (`@acme/identity/inbox`): the delivery is stored before the 200, and the identity fetched afterwards. */
  inbox?: { receive(event: IdentityActionsEvent): Promise<unknown> };
}

/** The receiver the options describe. @throws {ConfigurationError} without a verifier or secret, or without exactly one of onEvent and inbox. */
export function receiverFor(options: WebhookHandlerOptions): WebhookReceiver {
  if (options === null || typeof options !== 'object')
    throw new ConfigurationError('options', 'must be an object with a secret (or verifier) and onEvent (or inbox)');
  const verifier =
    options.verifier ??
    (options.secret !== undefined ? createWebhookVerifier({ ...options.verifierOptions, secret: options.secret }) : undefined);
  if (!verifier) throw new ConfigurationError('secret', 'give the webhook secret, or a verifier from createWebhookVerifier');
  const { inbox, onEvent } = options;
  const handle = onEvent ?? (inbox ? (event: IdentityActionsEvent) => inbox.receive(event) : undefined);
  if (handle === undefined || (onEvent !== undefined && inbox !== undefined))
    throw new ConfigurationError('onEvent', 'give exactly one of onEvent (your handler) and inbox (an identity inbox)');
  return createWebhookReceiver(verifier, handle);
}
