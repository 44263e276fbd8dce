/**
 * The fake acme identity service: one Web-standard `(Request) => Promise<Response>` app with
 * in-memory state. The same app backs the msw handlers (`@acme/identity/testing/msw`) and the
 * localhost server ({@link serveFakeService}). This file wires its rooms together: the state
 * (state.ts), API tokens (auth.ts), the REST API (rest.ts), the OIDC authorization server
 * (oidc.ts), the person's journeys and the webhooks they send (journeys.ts), and the front door
 * with its faults, CORS and rate limit (router.ts).
 */
import { json, type ResponseContext } from './http.js';
import { isOpen, defaultValues } from './identity.js';
import { createJourneys } from './journeys.js';
import { DEFAULT_DELEGATIONS, DEFAULT_OIDC_BACKEND_CLIENT, DEFAULT_OIDC_CLIENT, createAuthorizationServer } from './oidc.js';
import type { FakeService, FakeServiceOptions, InboxView } from './options.js';
import { homePage, type HomeState } from './pages.js';
import { restRoutes } from './rest.js';
import { createRouter } from './router.js';
import { clientFor, createState, rotateKeys, type FakeState, type RouteEntry } from './state.js';
import { tokenRoutes } from './auth.js';

const JWKS_PATH = '/oauth/oidc/jwks';

/**
 * Creates a fake service with fresh keys and empty state.
 * @throws {TypeError} when `baseUrl` or `authUrl` is not an absolute URL.
 * @example
 * ```ts
 * const service = await createFakeService({ now: () => clock });
 * const acme = new AcmeIdentityClient({ baseUrl: service.baseUrl, ...DEFAULT_CLIENT, fetch: (r) => service.fetch(r) });
 * ```
 */
export async function createFakeService(options: FakeServiceOptions = {}): Promise<FakeService> {
  const state = await createState(options);
  const journeys = createJourneys(state);
  const handle = createRouter(state, authServerRoutes(state, journeys.routes), [...tokenRoutes(state), ...restRoutes(state)]);
  const { clients, credentials, identity } = state;
  return {
    baseUrl: state.baseUrl,
    authUrl: state.authUrl,
    clients,
    get keys() {
      return state.keys;
    },
    get allKeys() {
      return state.allKeys;
    },
    settings: state.settings,
    requests: state.requests,
    events: state.events,
    deliveries: state.deliveries,
    setWebhookUrl(url, clientId = clients[0]?.clientId) {
      const client = clientFor(clients, clientId);
      if (!client) throw new Error(`fake service: no client ${clientId}`);
      client.webhookUrl = url;
    },
    async webhooksSettled() {
      while (state.pendingDeliveries.size > 0) await Promise.all(state.pendingDeliveries);
    },
    attachInbox(inbox) {
      state.inbox = inbox;
    },
    fetch: handle,
    injectFault(fault) {
      state.faults.push({ ...fault, remaining: fault.times ?? 1 });
    },
    clearFaults() {
      state.faults.length = 0;
    },
    open: journeys.open,
    approve: journeys.approve,
    cancel: journeys.cancel,
    resendWebhook: journeys.resend,
    setCredentialCondition(credentialRef, condition) {
      const found = credentials.get(credentialRef);
      if (!found) throw new Error('fake service: no such credential');
      found.condition = condition;
    },
    revokeAccessTokens() {
      state.tokenGeneration += 1;
    },
    rotateSigningKey(rotation = {}) {
      return rotateKeys(state, rotation.keep !== false);
    },
    identityRequest(accessRequestCode) {
      return identity.get(accessRequestCode);
    },
    credentialJwt(credentialRef) {
      return credentials.get(credentialRef)?.jwt;
    },
  };
}

/** The JWKS; under the `keyRotation: 'rotated'` reading, the key is rotated once it has been read: what is signed from then on names a kid the reader has not seen. */
async function jwks(state: FakeState, ctx: ResponseContext): Promise<Response> {
  const answer = json(ctx, { keys: state.allKeys.map((k) => k.publicJwk) });
  if (state.readings.keyRotation === 'rotated' && !state.keyRotated) {
    state.keyRotated = true;
    await rotateKeys(state);
  }
  return answer;
}

/** Everything below the auth URL: the home page, the OIDC authorization server and the journey pages. */
function authServerRoutes(state: FakeState, journeyRoutes: readonly RouteEntry[]): RouteEntry[] {
  const { options, settings } = state;
  const oidc = createAuthorizationServer({
    issuer: state.issuer,
    now: state.now,
    keys: () => state.keys,
    supportedClaims: state.supportedClaims,
    clients: (options.oidcClients ?? [DEFAULT_OIDC_CLIENT, DEFAULT_OIDC_BACKEND_CLIENT]).map((client) => ({ ...client })),
    delegations: options.delegations ?? DEFAULT_DELEGATIONS,
    journey: options.oidcJourney ?? 'auto',
    errorMode: () => settings.authorizationErrors,
    claimPlacement: () => state.readings.signInClaims,
    claimListForm: () => state.readings.claimsSupported,
    tokenTimes: () => state.readings.tokenTimes,
    idTokenNonce: () => state.readings.idTokenNonce,
    claimsAt: () => state.readings.signInClaimsAt,
    person: (prefill) => ({
      ...defaultValues({
        first_name: 'Jane',
        last_name: 'Citizen',
        email: prefill.email ?? 'jane.citizen@example.com',
        phone: prefill.phone ?? '412345678',
        phone_country_code: Number(prefill.phoneCountryCode ?? 61),
      }),
      given_name: 'Jane',
      family_name: 'Citizen',
      email: prefill.email ?? 'jane.citizen@example.com',
      email_verified: true,
    }),
  });
  /** The home page: what this fake serves, and what is happening in it. */
  const home = async () =>
    homePage({
      baseUrl: state.baseUrl,
      authUrl: state.authUrl,
      jwksUrl: `${state.authUrl}${JWKS_PATH}`,
      journeys: [...state.identity.values()].filter((r) => isOpen(r, state.now())),
      signIns: oidc.waiting(),
      deliveries: state.deliveries,
      inbox: await inboxState(state.inbox),
    });
  return [
    ['GET', /^\/$/, home, false],
    ['GET', /^\/\.well-known\/openid-configuration$/, async (_request, ctx) => json(ctx, oidc.metadata()), false],
    ['GET', new RegExp(`^${JWKS_PATH}$`), (_request, ctx) => jwks(state, ctx), false],
    ['GET', /^\/oauth\/oidc\/authorize$/, (request) => oidc.authorize(request), false],
    ['POST', /^\/oauth\/oidc\/consent\/([^/]+)\/(approve|cancel)$/, (_request, _ctx, [id, action]) => oidc.consent(id, action), false],
    ['POST', /^\/oauth\/oidc\/token$/, (request) => oidc.token(request), false],
    ['GET', /^\/oauth\/oidc\/userinfo$/, (request) => oidc.userinfo(request), false],
    ...journeyRoutes,
  ];
}

/** The attached inbox's figures and dead letters; an inbox that cannot answer is said to be so. */
async function inboxState(inbox: InboxView | undefined): Promise<HomeState['inbox']> {
  if (!inbox) return undefined;
  try {
    return { stats: await inbox.stats(), dead: await inbox.deadLetters(20) };
  } catch {
    return 'unavailable';
  }
}
