/**
 * The sandbox: the fake service served on localhost, as `npx acme-identity-sandbox` runs it and
 * as a test suite can start it on a free port. The same app as the msw handlers (`service.fetch`),
 * not a copy: the REST API under `/api/v1`, `/api/v1/docs/spec`, the OIDC authorization server,
 * the person's journey and consent pages, and signed webhooks to the configured URL.
 */
import { DEFAULT_CLIENT, createFakeService, type FakeService, type FakeServiceOptions } from './service.js';
import { DEFAULT_OIDC_BACKEND_CLIENT, DEFAULT_OIDC_CLIENT } from './oidc.js';
import { serveFetch } from './server.js';

export interface SandboxOptions {
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  hostname?: string;
  /** Where the signed webhooks go (the operator portal's setting). @default none: no webhooks are sent */
  webhookUrl?: string;
  /** Redirect URIs of your app, registered for both sandbox OIDC clients beside the defaults. */
  redirectUris?: readonly string[];
  /** `page`: the person approves or cancels on a page; `auto`: at once. @default 'page' */
  oidcJourney?: 'auto' | 'page';
  /** Anything else the fake takes (`now`, `clients`, `purposes`, …); the URLs are the sandbox's. */
  fake?: Omit<FakeServiceOptions, 'baseUrl' | 'authUrl' | 'oidcJourney'>;
}

/** What to configure an app with to talk to the sandbox. Sandbox values: not secrets anywhere else. */
export interface SandboxCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly tenantId: string;
  readonly webhookSecret: string;
  /** The public OIDC client (browser pages). */
  readonly oidcClientId: string;
  /** The confidential OIDC client (backends), `client_secret_basic`. */
  readonly oidcBackendClientId: string;
  readonly oidcBackendClientSecret: string;
  readonly redirectUris: readonly string[];
}

export interface Sandbox {
  readonly service: FakeService;
  /** `http://127.0.0.1:PORT`: also the OIDC issuer (`authUrl`). */
  readonly origin: string;
  /** `{origin}/api/v1` */
  readonly baseUrl: string;
  readonly authUrl: string;
  /** The OpenAPI document: `{baseUrl}/docs/spec`. */
  readonly specUrl: string;
  readonly credentials: SandboxCredentials;
  /** Stops serving; in-memory state is dropped with it. */
  close(): Promise<void>;
}

/**
 * Serves a fresh fake service on localhost.
 * @example
 * ```ts
 * import { startSandbox } from '@acme/identity/testing';
 *
 * const sandbox = await startSandbox({ webhookUrl: 'http://127.0.0.1:3000/webhooks/acme' });
 * const acme = new AcmeIdentityClient({ baseUrl: sandbox.baseUrl, ...sandbox.credentials });
 * // …
 * await sandbox.close();
 * ```
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  let service: FakeService | undefined;
  // Listen first (port 0 picks a free one without a race), then make the fake on that origin.
  const running = await serveFetch((request) => service!.fetch(request), {
    port: options.port ?? 0,
    hostname: options.hostname ?? '127.0.0.1',
  });
  const { origin } = running;
  const withRedirects = <T extends { redirectUris: readonly string[] }>(client: T): T => ({
    ...client,
    redirectUris: [...client.redirectUris, ...(options.redirectUris ?? [])],
  });
  const oidcClients = [withRedirects(DEFAULT_OIDC_CLIENT), withRedirects(DEFAULT_OIDC_BACKEND_CLIENT)];
  try {
    service = await createFakeService({
      oidcClients,
      ...options.fake,
      baseUrl: `${origin}/api/v1`,
      authUrl: origin,
      oidcJourney: options.oidcJourney ?? 'page',
    });
  } catch (error) {
    await running.close();
    throw error;
  }
  if (options.webhookUrl) service.setWebhookUrl(options.webhookUrl);
  return {
    service,
    origin,
    baseUrl: service.baseUrl,
    authUrl: service.authUrl,
    specUrl: `${service.baseUrl}/docs/spec`,
    credentials: {
      clientId: DEFAULT_CLIENT.clientId,
      clientSecret: DEFAULT_CLIENT.clientSecret,
      tenantId: DEFAULT_CLIENT.tenantId,
      webhookSecret: DEFAULT_CLIENT.webhookSecret,
      oidcClientId: DEFAULT_OIDC_CLIENT.clientId,
      oidcBackendClientId: DEFAULT_OIDC_BACKEND_CLIENT.clientId,
      oidcBackendClientSecret: DEFAULT_OIDC_BACKEND_CLIENT.clientSecret!,
      redirectUris: oidcClients[0]!.redirectUris,
    },
    close: () => running.close(),
  };
}
