/** An OIDC client on a fresh fake service, and the person's browser that follows the redirects. */
import { expect } from 'vitest';
import { createOidcClient, type OidcClientOptions } from '../../src/oidc/index.js';
import { DEFAULT_OIDC_CLIENT, type FakeService, type FakeServiceOptions } from '../../src/testing/index.js';
import { harness } from '../helpers.js';

export const REDIRECT = DEFAULT_OIDC_CLIENT.redirectUris[0]!;

export interface OidcSetup {
  service: FakeService;
  /** Moves the clock shared by the fake and the client. */
  advance(ms: number): void;
  now(): number;
  client(extra?: Partial<OidcClientOptions>): ReturnType<typeof createOidcClient>;
  /** The person's browser: opens the authorization URL and returns where the service sends it back. */
  visit(url: URL): Promise<URL>;
  /** Calls the helper made through the client's `fetch` (or {@link OidcSetup.fetch}), by path. */
  calls(pattern: RegExp): number;
  /** The `fetch` whose calls {@link OidcSetup.calls} counts: for a helper made without {@link OidcSetup.client}. */
  fetch: typeof fetch;
}

export async function oidcSetup(options: { fake?: FakeServiceOptions; client?: Partial<OidcClientOptions> } = {}): Promise<OidcSetup> {
  let clock = Date.now();
  const { service } = await harness({ fake: { now: () => clock, ...options.fake } });
  const seen: string[] = [];
  const recording: typeof fetch = (input, init) => {
    seen.push(new URL(input instanceof Request ? input.url : input).pathname);
    return fetch(input, init);
  };
  const client = (extra: Partial<OidcClientOptions> = {}) =>
    createOidcClient({
      authUrl: service.authUrl,
      clientId: DEFAULT_OIDC_CLIENT.clientId,
      redirectUri: REDIRECT,
      now: () => clock,
      fetch: recording,
      ...options.client,
      ...extra,
    });
  return {
    service,
    advance: (ms) => {
      clock += ms;
    },
    now: () => clock,
    client,
    async visit(url) {
      const response = await service.fetch(new Request(url));
      expect(response.status, await response.clone().text()).toBe(302);
      return new URL(response.headers.get('location')!);
    },
    calls: (pattern) => seen.filter((path) => pattern.test(path)).length,
    fetch: recording,
  };
}

/** A fetch for the client that hands it the issuer's discovery document as `change` makes it. */
export function discovery(change: (metadata: Record<string, unknown>) => Record<string, unknown>): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!String(input instanceof Request ? input.url : input).endsWith('/.well-known/openid-configuration')) return response;
    return Response.json(change((await response.json()) as Record<string, unknown>));
  };
}
