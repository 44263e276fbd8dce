/** Test harness: a fresh fake service per test, reached through msw, and a client for it. */
import { setupServer } from 'msw/node';
import { afterAll, afterEach } from 'vitest';
import { AcmeIdentityClient, type ClientOptions, type CredentialSubmitInput, type IdentityRequestInput } from '../src/index.js';
import { createFakeService, DEFAULT_CLIENT, type FakeService, type FakeServiceOptions } from '../src/testing/index.js';
import { fakeServiceHandlers } from '../src/testing/msw.js';

/** The one msw server of the test run; `server.use` adds handlers for a test (reset after each). */
export const server = setupServer();
// Anything not answered by the fake fails the test: no test reaches the network.
server.listen({ onUnhandledRequest: 'error' });
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

export interface Harness {
  service: FakeService;
  client: AcmeIdentityClient;
  /** A second client on the same fake, with other options. */
  makeClient(options?: Partial<ClientOptions>): AcmeIdentityClient;
}

export async function harness(
  options: { fake?: FakeServiceOptions; client?: Partial<ClientOptions> } = {},
): Promise<Harness> {
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

/** A valid identity request for a made-up person. */
export function person(overrides: Partial<IdentityRequestInput> = {}): IdentityRequestInput {
  return {
    first_name: 'Jane',
    last_name: 'Citizen',
    email: 'jane.citizen@example.com',
    phone: '412345678',
    phone_country_code: 61,
    purpose: 'account-opening',
    return_url: 'https://rp.example/return',
    off_ramp_url: 'https://rp.example/off-ramp',
    claims: ['acmeidentity.given_name', 'acmeidentity.family_name'],
    ...overrides,
  };
}

/** Requests the fake received on a path matching `pattern`. */
export function received(service: FakeService, pattern: RegExp, method?: string) {
  return service.requests.filter((r) => pattern.test(r.path) && (!method || r.method === method));
}

/** The rejection of `promise`, failing the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}

export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
export const JPG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70]);
export const PDF = new TextEncoder().encode('%PDF-1.7\n%test\n');

/** A valid credential submission (an acicncchc check as a PDF), with a fresh `issuer_ref`. */
export function credentialInput(overrides: Partial<CredentialSubmitInput> = {}): CredentialSubmitInput {
  return {
    type: 'acicncchc',
    person_ref: 'user-1/person-1',
    file: PDF,
    file_name: 'certificate.pdf',
    issuer_name: 'Relying Party Pty Ltd',
    issuer_url: 'https://rp.example',
    issuer_ref: `check-${Math.random().toString(36).slice(2)}`,
    ...overrides,
  };
}
