/** Test harness: a fresh fake service per test, reached through msw, and a client for it. */
import { setupServer } from 'msw/node';
import { afterAll, afterEach } from 'vitest';
import { AcmeIdentityClient, type ClientOptions, type Logger } from '../src/index.js';
import { createFakeService, DEFAULT_CLIENT, type FakeReadings, type FakeService, type FakeServiceOptions } from '../src/testing/index.js';
import { fakeServiceHandlers } from '../src/testing/msw.js';

/** The one msw server of the test run; `server.use` adds handlers for a test (reset after each). */
export const server = setupServer();
// Anything not answered by the fake fails the test: no test reaches the network.
server.listen({ onUnhandledRequest: 'error' });
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** A logger that keeps every line, as a console would print it. */
export function recorder() {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields: object) =>
    lines.push({ level, message, fields: fields as Record<string, unknown> });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines, text: () => JSON.stringify(lines) };
}

export interface Harness {
  service: FakeService;
  client: AcmeIdentityClient;
  /** A second client on the same fake, with other options. */
  makeClient(options?: Partial<ClientOptions>): AcmeIdentityClient;
}

export async function harness(options: { fake?: FakeServiceOptions; client?: Partial<ClientOptions> } = {}): Promise<Harness> {
  const service = await createFakeService(options.fake);
  server.resetHandlers(...fakeServiceHandlers(service));
  const makeClient = (extra: Partial<ClientOptions> = {}) =>
    new AcmeIdentityClient({
      baseUrl: service.baseUrl,
      clientId: DEFAULT_CLIENT.clientId,
      clientSecret: DEFAULT_CLIENT.clientSecret,
      tenantId: DEFAULT_CLIENT.tenantId,
      ...options.client,
      ...extra,
    });
  return { service, client: makeClient(), makeClient };
}

/** Requests the fake received on a path matching `pattern`. */
export function received(service: FakeService, pattern: RegExp, method?: string) {
  return service.requests.filter((r) => pattern.test(r.path) && (!method || r.method === method));
}

export { credentialInput, JPG, looselyWritten, PDF, person, PNG, rejection } from './fixtures.js';

/** A credential as GET /credentials/verify answers it under the `verifyAnswer` reading: itself, or inside what that reading wraps it in. */
export function asAnswered(verifyAnswer: FakeReadings['verifyAnswer'], credential: Record<string, unknown>): Record<string, unknown> {
  if (verifyAnswer === 'decoded') return { payload: credential };
  if (verifyAnswer === 'wrapped') return { credential };
  return credential;
}
