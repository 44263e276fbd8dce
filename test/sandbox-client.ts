/** A client of a sandbox on localhost, as a test's relying party makes it: the sandbox's default credentials, no retries of its own. */
import { AcmeIdentityClient, type ClientOptions } from '../src/index.js';
import { DEFAULT_CLIENT, type Sandbox } from '../src/testing/index.js';

export function sandboxClient(sandbox: Sandbox, extra: Partial<ClientOptions> = {}): AcmeIdentityClient {
  return new AcmeIdentityClient({
    baseUrl: sandbox.baseUrl,
    clientId: DEFAULT_CLIENT.clientId,
    clientSecret: DEFAULT_CLIENT.clientSecret,
    tenantId: DEFAULT_CLIENT.tenantId,
    maxRetries: 0,
    ...extra,
  });
}
