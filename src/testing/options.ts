/** The fake service's public shapes: its options, registrations, faults, settings and the service itself. */
import type { SUPPORTED_CLAIMS } from '../contract/claims.js';
import type { CredentialCondition } from './credentials.js';
import type { ApprovalOptions, IdentityRecord } from './identity.js';
import type { SigningKeys } from './keys.js';
import type { AuthorizationErrorMode, OidcClientRegistration } from './oidc.js';
import type { DEFAULT_READINGS, FakeReadings } from './readings.js';
import type { DisclosureEncoding } from './sd-jwt.js';
import type { InboxView } from './pages.js';
import { IDENTITY_ACTIONS, type WebhookDelivery, type WebhookPayload, type WebhookRetryOptions } from './webhooks.js';

/** A client registration: an API key pair, its tenant, and where its webhooks go. */
export interface FakeClientRegistration {
  clientId: string;
  clientSecret: string;
  tenantId: string;
  /** Where 'Identity Actions' webhooks are posted; none are sent without one (set it later with {@link FakeService.setWebhookUrl}). */
  webhookUrl?: string | undefined;
  /** The HMAC secret webhooks are signed with. */
  webhookSecret?: string;
  /** Webhook subscriptions; webhooks need `'Identity Actions'`. */
  subscriptions?: readonly string[];
}

/** The registration every fake service has unless told otherwise. Test-only values, not secrets. */
export const DEFAULT_CLIENT: Readonly<FakeClientRegistration> & { webhookSecret: string } = Object.freeze({
  clientId: 'sandbox-client',
  clientSecret: 'sandbox-secret-0123456789abcdef',
  tenantId: 'tenant-sandbox',
  webhookSecret: 'whsec_sandbox_0123456789abcdef0123456789abcdef',
  subscriptions: [IDENTITY_ACTIONS],
});

/**
 * The default registration's webhook secret under the `webhookKey: 'hex'` reading, where the
 * service shows its secrets in hex and signs with the 32 bytes they spell. A test-only value.
 */
export const DEFAULT_HEX_WEBHOOK_SECRET = '5ca1ab1e0123456789abcdef0123456789abcdeffedcba9876543210fedcba98';

/** Formats the fake accepts for `X-Request-Timestamp`; the spec does not show one. */
export type TimestampFormat = 'unix-seconds' | 'unix-ms' | 'iso8601';

export interface FakeServiceOptions {
  /** @default 'https://api.acme.test/api/v1' */
  baseUrl?: string;
  /** @default 'https://auth.acme.test' */
  authUrl?: string;
  /** @default [DEFAULT_CLIENT] */
  clients?: FakeClientRegistration[];
  /** The service clock in milliseconds. @default Date.now */
  now?: () => number;
  /** @default 900 */
  accessTokenTtlSeconds?: number;
  /** @default 86400 */
  refreshTokenTtlSeconds?: number;
  /**
   * Which lifetime fields the token response carries (all four are optional in the spec): both
   * `expires_in` and `expires`, one of them, or `none` (the client must read the JWT's `exp`).
   * @default 'both'
   */
  tokenLifetime?: 'both' | 'expires_in' | 'expires' | 'none';
  /** Validity of the X-Access-Token JWT sent by the approval webhook. @default 3600 */
  webhookTokenTtlSeconds?: number;
  /**
   * Seconds between an identity response's `iat` and its `exp`: shorter than the X-Access-Token's,
   * as a service plausibly sets them, so that both expiries can be met (`ERR_SD_JWT_EXPIRED` after
   * half an hour, the token's refusal after an hour). @default 1800
   */
  identityResponseTtlSeconds?: number;
  /** The `X-Request-Timestamp` format accepted. @default 'unix-seconds' */
  timestampFormat?: TimestampFormat;
  /** How far `X-Request-Timestamp` may be from the service clock, either way. @default 300 */
  timestampToleranceSeconds?: number;
  /** Allowed `purpose` values; any non-empty string when unset (the spec does not list them). */
  purposes?: readonly string[];
  /** Credential types the service issues. @default ['acicncchc'] */
  credentialTypes?: readonly string[];
  /**
   * Claim keys the service supports beyond the ones the spec names ({@link SUPPORTED_CLAIMS}):
   * added to `acme_claims_supported` and accepted by the identity endpoints, as the service adds
   * claims over time (for example `vevortw.credential`).
   */
  extraClaims?: readonly string[];
  /**
   * How disclosure JSON is written before it is hashed (the spec does not show it): `compact`
   * (`JSON.stringify`) or `spaced` (Python's `json.dumps` default, as in RFC 9901's examples).
   * @default 'compact'
   */
  disclosureEncoding?: DisclosureEncoding;
  /** How a webhook the receiver does not answer with 200 is retried. @default { attempts: 5, baseDelayMs: 500 } */
  webhookRetry?: WebhookRetryOptions;
  /** OIDC client registrations. @default [DEFAULT_OIDC_CLIENT, DEFAULT_OIDC_BACKEND_CLIENT] */
  oidcClients?: OidcClientRegistration[];
  /** Delegations `aobo` may name, UID to scopes. @default DEFAULT_DELEGATIONS */
  delegations?: Record<string, readonly string[]>;
  /**
   * The person's part of the OIDC flow: `auto` completes it at once (tests); `page` shows a consent
   * page with approve and cancel (the sandbox). @default 'auto'
   */
  oidcJourney?: 'auto' | 'page';
  /**
   * Called with every request the service answers and its answer (unread: clone before reading),
   * and the kind of fault injected, if any. Tests use it to hold the fake to its OpenAPI document.
   */
  onExchange?: (exchange: FakeExchange) => void;
  /** Called with each webhook delivery attempt as it finishes (also recorded in `deliveries`). */
  onDelivery?: (delivery: WebhookDelivery) => void;
  /**
   * How the fake reads each choice the spec leaves open (webhook kind field and signature,
   * envelopes, number types, error bodies, `_sd_alg`, claim value types, `Date`, clock skew): the
   * ways the real service might. Unset, the fake's own reading ({@link DEFAULT_READINGS}).
   * @throws {TypeError} (from `createFakeService`) for a reading or value it does not know.
   */
  readings?: FakeReadings;
}

/** One request and the answer the fake gave it, for {@link FakeServiceOptions.onExchange}. */
export interface FakeExchange {
  /** A copy of the request, its body unread. */
  readonly request: Request;
  readonly response: Response;
  /** The fault that shaped the answer, when one was injected. */
  readonly fault?: Fault['kind'];
}

/**
 * A fault the next matching requests meet. Served on localhost ({@link serveFakeService}), each is
 * carried out on the real socket; through msw or `service.fetch`, as its nearest Web equivalent.
 * - `network`: the connection is reset before any answer (a `fetch` that rejects);
 * - `status`: an error answer of the spec's form with that status (and `Retry-After`);
 * - `malformed`: a 200 whose body is cut JSON, delivered whole;
 * - `delay`: the answer comes `ms` late (slow headers);
 * - `hang`: no answer ever comes; the connection stays open until the client gives up;
 * - `reset-after-headers`: the real answer's status and headers, then a reset before the body;
 * - `truncate`: the real answer with half its body, then the connection closes (`framing`:
 *   short of its `Content-Length`, or `chunked` without the last chunk; `close`: an orderly
 *   `fin`, the default, or a TCP `reset`);
 * - `stall-body`: the real answer with half its body, then nothing until the client gives up;
 * - `proxy-502`: a proxy's HTML 502 page, without the service's headers.
 */
export type Fault = (
  | { kind: 'network' }
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'malformed' }
  | { kind: 'delay'; ms: number }
  | { kind: 'hang' }
  | { kind: 'reset-after-headers' }
  | { kind: 'truncate'; framing?: 'length' | 'chunked'; close?: 'fin' | 'reset' }
  | { kind: 'stall-body' }
  | { kind: 'proxy-502' }
) & {
  /** How many requests it applies to. @default 1 */
  times?: number;
  method?: string;
  /** Matched against the path below the base URL (for example `/identity/request`). */
  path?: string | RegExp;
};

/** A request as it arrived, for tests that check what went over the wire. */
export interface RecordedRequest {
  method: string;
  url: string;
  /** The path below the base URL, exactly as sent (not decoded). */
  path: string;
  headers: Record<string, string>;
  /** When the request arrived, in ms on the fake's clock (its `now` option, and a clock-skew reading's offset). */
  at: number;
}

/** Switches tests flip on the running service. */
export interface FakeServiceSettings {
  /** `fail` makes identity requests with send_email answer E2002 (the request is still created). */
  emailDelivery: 'ok' | 'fail';
  /** Fixed-window rate limit over the REST API; none when undefined. */
  rateLimit: { limit: number; windowSeconds: number } | undefined;
  status: 'operational' | 'degraded';
  database: 'connected' | 'error';
  maintenanceMode: boolean;
  /**
   * How the OIDC authorize endpoint answers an error in the authorization request: as the spec's
   * 400 JSON page the person sees (`json`, the default: rule 5, "400 returns JSON {error,
   * error_description}"), or sent back to the client's `redirect_uri` (`redirect`, as RFC 6749
   * §4.1.2.1 allows). The person cancelling on the consent page always goes back to the client.
   */
  authorizationErrors: AuthorizationErrorMode;
}

export type { InboxView };

export interface FakeService {
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly clients: readonly FakeClientRegistration[];
  /** The key everything is signed with now. */
  readonly keys: SigningKeys;
  /** Every signing key, newest first: what the JWKS endpoint serves. */
  readonly allKeys: readonly SigningKeys[];
  readonly settings: FakeServiceSettings;
  /** Requests received, oldest first (the last 10,000). */
  readonly requests: RecordedRequest[];
  /** Webhook payloads produced by approvals and cancellations, oldest first. */
  readonly events: WebhookPayload[];
  /** Every webhook delivery attempt, oldest first. */
  readonly deliveries: WebhookDelivery[];
  /** Sets (or, with undefined, removes) where a client's webhooks go. @param clientId @default the first client */
  setWebhookUrl(url: string | undefined, clientId?: string): void;
  /** Resolves when every webhook sent so far has been delivered or has run out of attempts. */
  webhooksSettled(): Promise<void>;
  /** Shows an identity inbox's pending and dead entries on the home page (undefined: none). */
  attachInbox(inbox: InboxView | undefined): void;
  /** Handles one request: the whole service as a Web `fetch`. May reject with a `TypeError` for an injected network fault. */
  fetch(request: Request): Promise<Response>;
  /** Queues a fault for the next matching requests. */
  injectFault(fault: Fault): void;
  /** Drops every queued fault. */
  clearFaults(): void;
  /** The person opened the request (sets `opened_at`). */
  open(accessRequestCode: string): void;
  /**
   * The person completed the journey: the identity response becomes available and the client's
   * webhook is sent (not awaited: see {@link FakeService.webhooksSettled}). Returns its payload.
   */
  approve(accessRequestCode: string, options?: ApprovalOptions): Promise<WebhookPayload>;
  /** The request was cancelled: the webhook is sent as for {@link FakeService.approve} (`webhook: 'skip'`: never sent). */
  cancel(accessRequestCode: string, options?: { webhook?: 'send' | 'skip' }): Promise<WebhookPayload>;
  /**
   * Sends a settled request's webhook again, as an operator asks the real service to: a new
   * X-Access-Token (the previous one stops working), the same `completed_at`. Returns its payload.
   */
  resendWebhook(accessRequestCode: string): Promise<WebhookPayload>;
  /** Puts a credential in a condition (`pending_acceptance`, `verification_failed`, or back to `issued`) so verify answers its 412. An expired credential is one whose `time_expires` has passed on the service clock. */
  setCredentialCondition(credentialRef: string, condition: CredentialCondition): void;
  /** Makes every access token issued so far invalid (as a key rotation or a server-side revocation would). */
  revokeAccessTokens(): void;
  /**
   * Signs from now on with a new key, published in the JWKS beside the old ones (`keep: false`
   * drops the old ones, as an emergency rotation would). Returns the new key.
   */
  rotateSigningKey(options?: { keep?: boolean }): Promise<SigningKeys>;
  /** The fake's record of an identity request (its status, input and codes), for assertions. */
  identityRequest(accessRequestCode: string): Readonly<IdentityRecord> | undefined;
  /** The signed JWT behind a credential (the REST API returns it decoded), for tests of credential verification. */
  credentialJwt(credentialRef: string): string | undefined;
}
