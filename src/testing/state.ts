/** The fake service's state and settled configuration: one object every area of the fake reads and changes. */
import { SUPPORTED_CLAIMS } from '../contract/claims.js';
import type { CredentialRecord } from './credentials.js';
import type { ResponseContext } from './http.js';
import type { IdentityRecord } from './identity.js';
import { createSigningKeys, type SigningKeys } from './keys.js';
import {
  DEFAULT_CLIENT,
  DEFAULT_HEX_WEBHOOK_SECRET,
  type Fault,
  type FakeClientRegistration,
  type FakeServiceOptions,
  type FakeServiceSettings,
  type InboxView,
  type RecordedRequest,
  type TimestampFormat,
} from './options.js';
import { resolveReadings, type ResolvedReadings } from './readings.js';
import type { DisclosureEncoding } from './sd-jwt.js';
import { hexSecretKey, type WebhookDelivery, type WebhookPayload } from './webhooks.js';

/** What the fake knows: its configuration (read-only) and its state (changed by requests and tests). */
export interface FakeState {
  readonly options: FakeServiceOptions;
  readonly baseUrl: string;
  readonly authUrl: string;
  /** The issuer identifier it writes (discovery's `issuer`, the `iss` of what it signs): the auth URL, with a trailing slash under the `issuer: 'slash'` reading. */
  readonly issuer: string;
  /** The path of `baseUrl`: REST paths are matched below it. */
  readonly basePath: string;
  readonly clients: FakeClientRegistration[];
  readonly readings: ResolvedReadings;
  /** The service clock, in ms: the option's clock, skewed as the `clockSkewSeconds` reading says. */
  readonly now: () => number;
  readonly accessTtl: number;
  readonly refreshTtl: number;
  readonly timestampFormat: TimestampFormat;
  readonly tokenLifetime: NonNullable<FakeServiceOptions['tokenLifetime']>;
  readonly disclosureEncoding: DisclosureEncoding;
  readonly timestampTolerance: number;
  readonly credentialTypes: readonly string[];
  readonly supportedClaims: ReadonlySet<string>;
  /** The key everything is signed with now, and every key the JWKS publishes (newest first). */
  keys: SigningKeys;
  allKeys: SigningKeys[];
  /** Encrypts stored credential files at rest. */
  readonly fileKey: CryptoKey;
  readonly refreshTokens: Map<string, { clientId: string; expiresAt: number }>;
  readonly identity: Map<string, IdentityRecord>;
  readonly credentials: Map<string, CredentialRecord>;
  readonly faults: (Fault & { remaining: number })[];
  readonly requests: RecordedRequest[];
  readonly events: WebhookPayload[];
  readonly deliveries: WebhookDelivery[];
  readonly pendingDeliveries: Set<Promise<boolean>>;
  /** The relying party's inbox the home page shows, when one is attached. */
  inbox: InboxView | undefined;
  readonly settings: FakeServiceSettings;
  /** The rate limit's current fixed window. */
  window: { start: number; count: number };
  /** Access tokens carry the generation they were issued in; older generations are refused. */
  tokenGeneration: number;
  /** Whether the `keyRotation: 'rotated'` reading has rotated the signing key yet. */
  keyRotated: boolean;
}

/**
 * The client registrations: the options', or the default one, whose webhook secret is
 * {@link DEFAULT_HEX_WEBHOOK_SECRET} under the `webhookKey: 'hex'` reading (a service that keys
 * with a secret's hex digits shows its secrets in hex).
 * @throws {TypeError} under that reading, for a registration whose webhook secret is not hex.
 */
function registrations(options: FakeServiceOptions, readings: ResolvedReadings): FakeClientRegistration[] {
  const hex = readings.webhookKey === 'hex';
  const clients = options.clients ?? [hex ? { ...DEFAULT_CLIENT, webhookSecret: DEFAULT_HEX_WEBHOOK_SECRET } : DEFAULT_CLIENT];
  for (const client of clients) {
    if (hex && client.webhookSecret !== undefined) hexSecretKey(client.webhookSecret, `client ${client.clientId}'s webhook secret`);
  }
  return clients.map((client) => ({ ...client }));
}

/** A fresh state: new keys, nothing stored, every option settled to its value. */
export async function createState(options: FakeServiceOptions): Promise<FakeState> {
  const readings = resolveReadings(options.readings);
  const clock = options.now ?? (() => Date.now());
  const keys = await createSigningKeys();
  const baseUrl = (options.baseUrl ?? 'https://api.acme.test/api/v1').replace(/\/+$/, '');
  const authUrl = (options.authUrl ?? 'https://auth.acme.test').replace(/\/+$/, '');
  return {
    options,
    baseUrl,
    authUrl,
    issuer: readings.issuer === 'slash' ? `${authUrl}/` : authUrl,
    basePath: new URL(baseUrl).pathname,
    clients: registrations(options, readings),
    readings,
    now: readings.clockSkewSeconds === 0 ? clock : () => clock() + readings.clockSkewSeconds * 1000,
    accessTtl: options.accessTokenTtlSeconds ?? 900,
    refreshTtl: options.refreshTokenTtlSeconds ?? 86_400,
    // These three are options and readings both; a reading given explicitly wins.
    timestampFormat: options.readings?.timestampFormat ?? options.timestampFormat ?? 'unix-seconds',
    tokenLifetime: options.readings?.tokenLifetime ?? options.tokenLifetime ?? 'both',
    disclosureEncoding: options.readings?.disclosureEncoding ?? options.disclosureEncoding ?? 'compact',
    timestampTolerance: options.timestampToleranceSeconds ?? 300,
    credentialTypes: options.credentialTypes ?? ['acicncchc'],
    supportedClaims: new Set([...SUPPORTED_CLAIMS, ...(options.extraClaims ?? [])]),
    keys,
    allKeys: [keys],
    fileKey: await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']),
    refreshTokens: new Map(),
    identity: new Map(),
    credentials: new Map(),
    faults: [],
    requests: [],
    events: [],
    deliveries: [],
    pendingDeliveries: new Set(),
    inbox: undefined,
    settings: {
      emailDelivery: 'ok',
      rateLimit: undefined,
      status: 'operational',
      database: 'connected',
      maintenanceMode: false,
      authorizationErrors: 'json',
    },
    window: { start: 0, count: 0 },
    tokenGeneration: 0,
    keyRotated: false,
  };
}

/** A new signing key: what is signed from now on names it; the JWKS keeps the old ones unless `keep` is false. */
export async function rotateKeys(state: FakeState, keep = true): Promise<SigningKeys> {
  state.keys = await createSigningKeys();
  state.allKeys = keep ? [state.keys, ...state.allKeys] : [state.keys];
  return state.keys;
}

/** The registration of `clientId`, if there is one. */
export function clientFor(clients: readonly FakeClientRegistration[], clientId: unknown): FakeClientRegistration | undefined {
  return clients.find((c) => c.clientId === clientId);
}

/**
 * The path's captured parts, in order: no route's pattern captures more than two, and a part it
 * does not capture is ''.
 */
export type RouteParams = readonly [first: string, second: string];

/** The parts a pattern's match captured, as a route reads them. */
export const routeParams = (match: RegExpExecArray): RouteParams => [match[1] ?? '', match[2] ?? ''];

/** A route's handler: the request, its context, and the path's captured parts. */
export type Route = (request: Request, ctx: ResponseContext, params: RouteParams) => Promise<Response>;

/** A route: method, path pattern (below the base URL or the auth URL), handler, and whether the rate limit counts it. */
export type RouteEntry = readonly [method: string, pattern: RegExp, route: Route, limited: boolean];
