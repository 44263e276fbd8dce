/**
 * msw handlers that route the fake service's origins to its app. Kept on its own subpath,
 * `@acme/identity/testing/msw`, so the fake itself does not require msw.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { createFakeService } from '@acme/identity/testing';
 * import { fakeServiceHandlers } from '@acme/identity/testing/msw';
 *
 * const service = await createFakeService();
 * const server = setupServer(...fakeServiceHandlers(service));
 * server.listen({ onUnhandledRequest: 'error' });
 * ```
 */
import { HttpResponse, http, type HttpHandler } from 'msw';
import type { FakeService } from './options.js';

/**
 * msw handlers that answer every request to the fake's `baseUrl` and `authUrl` with
 * `service.fetch`, and let everything else through to your other handlers.
 * @example
 * ```ts
 * server.resetHandlers(...fakeServiceHandlers(service));
 * ```
 */
export function fakeServiceHandlers(service: FakeService): HttpHandler[] {
  const origins = new Set([new URL(service.baseUrl).origin, new URL(service.authUrl).origin]);
  return [...origins].map((origin) =>
    http.all(`${origin}/*`, async ({ request }) => {
      try {
        return await service.fetch(request);
      } catch (error) {
        // An injected network fault: msw turns this into a failed fetch on the client side.
        if (error instanceof TypeError) return HttpResponse.error();
        throw error;
      }
    }),
  );
}
