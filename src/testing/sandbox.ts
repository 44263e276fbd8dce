/**
 * The sandbox: the fake service served on localhost, as `npx acme-identity-sandbox` runs it and
 * as a test suite can start it on a free port. The same app as the msw handlers (`service.fetch`),
 * not a copy: the REST API under `/api/v1`, `/api/v1/docs/spec`, the OIDC authorization server,
 * the person's journey and consent pages, and signed webhooks to the configured URL.
 */
import { DEFAULT_CLIENT, type FakeService, type FakeServiceOptions } from './options.js';
import { createFakeService } from './service.js';
import { DEFAULT_OIDC_BACKEND_CLIENT, DEFAULT_OIDC_CLIENT } from './oidc.js';
import { serveFetch } from './server.js';
import { control, sandboxClock } from './control.js';
import { templateOf } from '../contract/routes.js';
import { Observer, type LogLevel, type Logger } from '../internal/observe.js';

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
  /**
   * Where the sandbox logs each request (method, path template, status, ms) at `info`, each
   * journey outcome, each webhook delivery (a failed attempt at `warn`). The SDK's own logger
   * type: `console`, winston, or pino adapted. @default console
   */
  logger?: Logger;
  /** @default 'off' (`npx acme-identity-sandbox`: 'info'); `ACME_IDENTITY_LOG` when unset */
  logLevel?: LogLevel;
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
  // Quiet unless asked: by the option, or by ACME_IDENTITY_LOG as for the SDK's clients.
  const level = options.logLevel ?? (hasLogEnvironment() ? undefined : 'off');
  const log = new Observer(
    { ...(options.logger ? { logger: options.logger } : {}), ...(level ? { logLevel: level } : {}) },
    (option, message) => new TypeError(`${option}: ${message}`),
  );
  // Listen first (port 0 picks a free one without a race), then make the fake on that origin.
  // The service's clock, which the control API moves forward (`acme-identity sandbox clock advance`).
  const clock = sandboxClock(options.fake?.now);
  const hostname = options.hostname ?? '127.0.0.1';
  const loopback = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(hostname);
  const running = await serveFetch(
    async (request) => {
      // The server listens before the fake exists (its origin is the fake's): a request in between is asked to come back.
      const fake = service;
      if (!fake) return new Response('the sandbox is starting', { status: 503, headers: { 'retry-after': '1' } });
      // The control API: on a loopback address only (anyone who can reach it can play the service).
      const controlled = loopback ? await control(request, fake, clock) : undefined;
      if (controlled) return controlled;
      if (!log.enabled('info')) return fake.fetch(request);
      const started = performance.now();
      const response = await fake.fetch(request);
      const path = sandboxPath(new URL(request.url).pathname, new URL(fake.baseUrl).pathname);
      log.log('info', `sandbox: ${request.method} ${path} ${response.status} in ${Math.round(performance.now() - started)} ms`, {
        method: request.method,
        path,
        status: response.status,
      });
      const outcome = /^\/(journey|oauth\/oidc\/consent)\/[^/]+\/(approve|partial|cancel)$/.exec(new URL(request.url).pathname);
      if (outcome && response.status < 400) {
        const what = outcome[1] === 'journey' ? 'an identity request' : 'a sign-in';
        const verb = { approve: 'approved', partial: 'completed partially (off-ramp)', cancel: 'cancelled' }[outcome[2] as 'approve'];
        log.log('info', `sandbox: the person ${verb} ${what}`, {
          journey: outcome[1] === 'journey' ? 'identity-request' : 'sign-in',
          outcome: outcome[2],
        });
        // A webhook the integrator waits for and that never comes: say why.
        if (outcome[1] === 'journey' && !fake.clients.some((client) => client.webhookUrl)) {
          log.log('warn', 'sandbox: no webhook sent: no webhook URL is set (start the sandbox with --webhook-url URL)', {
            outcome: outcome[2],
          });
        }
      }
      const redirectUri = new URL(request.url).searchParams.get('redirect_uri');
      if (response.status === 400 && redirectUri && path.endsWith('/oauth/oidc/authorize') && !registered(redirectUri)) {
        log.log(
          'warn',
          `sandbox: a sign-in was refused: its redirect_uri ${redirectUri} is not registered (start the sandbox with --redirect-uri ${redirectUri})`,
          { status: 400 },
        );
      }
      return response;
    },
    { port: options.port ?? 0, hostname },
  );
  const { origin } = running;
  const withRedirects = <T extends { redirectUris: readonly string[] }>(client: T): T => ({
    ...client,
    redirectUris: [...client.redirectUris, ...(options.redirectUris ?? [])],
  });
  const browserClient = withRedirects(DEFAULT_OIDC_CLIENT);
  const oidcClients = [browserClient, withRedirects(DEFAULT_OIDC_BACKEND_CLIENT)];
  const registered = (uri: string) => [...oidcClients, ...(options.fake?.oidcClients ?? [])].some((c) => c.redirectUris.includes(uri));
  try {
    service = await createFakeService({
      oidcClients,
      ...options.fake,
      now: clock.now,
      baseUrl: `${origin}/api/v1`,
      authUrl: origin,
      oidcJourney: options.oidcJourney ?? 'page',
      onDelivery: (delivery) => {
        options.fake?.onDelivery?.(delivery);
        const fields = {
          event: delivery.payload.event,
          url: delivery.url,
          attempt: delivery.attempt,
          status: delivery.status ?? null,
          ...(delivery.code === undefined ? {} : { code: delivery.code }),
        };
        if (delivery.delivered)
          log.log('info', `sandbox: webhook ${delivery.payload.event} delivered to ${delivery.url} (attempt ${delivery.attempt})`, fields);
        else
          log.log(
            'warn',
            `sandbox: webhook ${delivery.payload.event} to ${delivery.url} failed (attempt ${delivery.attempt}, ${delivery.status === undefined ? 'unreachable' : `HTTP ${delivery.status}`}${delivery.code === undefined ? '' : `: the receiver says ${delivery.code}`})`,
            fields,
          );
      },
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
      // The fake's own registration: its webhook secret is in hex under the `webhookKey: 'hex'` reading.
      webhookSecret: service.clients[0]?.webhookSecret ?? DEFAULT_CLIENT.webhookSecret,
      oidcClientId: DEFAULT_OIDC_CLIENT.clientId,
      oidcBackendClientId: DEFAULT_OIDC_BACKEND_CLIENT.clientId,
      oidcBackendClientSecret: DEFAULT_OIDC_BACKEND_CLIENT.clientSecret,
      redirectUris: browserClient.redirectUris,
    },
    close: () => running.close(),
  };
}

function hasLogEnvironment(): boolean {
  return Boolean((globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.['ACME_IDENTITY_LOG']);
}

/** A request's path for the log: API paths as templates, the person's pages without their codes, never a query. */
function sandboxPath(pathname: string, apiPath: string): string {
  if (pathname.startsWith(`${apiPath}/`)) return `${apiPath}${templateOf(pathname.slice(apiPath.length))}`;
  return pathname
    .replace(/^\/journey\/[^/]+/, '/journey/{access_request_code}')
    .replace(/^\/oauth\/oidc\/consent\/[^/]+/, '/oauth/oidc/consent/{transaction}');
}
