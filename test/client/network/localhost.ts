/**
 * The fake service on a real localhost socket, and a client for it that uses the runtime's own
 * `fetch`: what the network tests drive. No msw here: faults happen on the wire.
 */
import { AcmeIdentityClient, CredentialRevokedError, NotFoundError, type ClientOptions, type RequestOptions } from '../../../src/index.js';
import {
  createFakeService,
  DEFAULT_CLIENT,
  freePort,
  serveFakeService,
  type FakeService,
  type FakeServiceOptions,
  type RunningFakeService,
} from '../../../src/testing/index.js';
import { credentialInput, person } from '../../fixtures.js';

export interface Served {
  service: FakeService;
  running: RunningFakeService;
  client(options?: Partial<ClientOptions>): AcmeIdentityClient;
}

export async function served(options: FakeServiceOptions = {}): Promise<Served> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const service = await createFakeService({ baseUrl: `${origin}/api/v1`, authUrl: origin, ...options });
  const running = await serveFakeService(service);
  const client = (extra: Partial<ClientOptions> = {}) =>
    new AcmeIdentityClient({
      baseUrl: service.baseUrl,
      clientId: DEFAULT_CLIENT.clientId,
      clientSecret: DEFAULT_CLIENT.clientSecret,
      tenantId: DEFAULT_CLIENT.tenantId,
      ...extra,
    });
  return { service, running, client };
}

/** One operation of the client, made ready to call against fresh state of its own. */
export interface Operation {
  name: string;
  /** `safe` calls are retried after network failures; `create` calls are not (the outcome is unknown). */
  mode: 'safe' | 'create';
  method: string;
  /** The path below the base URL its request goes to. */
  path: string;
  call(options?: RequestOptions): Promise<unknown>;
  /**
   * What a repeat answers once the first attempt took effect (its answer lost on the way): a
   * deleted request is not found, a revoked credential is gone. Reads answer the same again.
   */
  repeated?: new (
    ...args: never[]
  ) => Error;
}

type Prepare = (client: AcmeIdentityClient, service: FakeService) => Promise<Operation>;

let sequence = 0;
/** A person no other request in this fake was made for (the fake refuses a second open request to the same person). */
function someone() {
  sequence += 1;
  return person({ email: `person${sequence}@example.com`, phone: String(400_000_000 + sequence) });
}

async function openRequest(client: AcmeIdentityClient) {
  const { data } = await client.identityRequests.create(someone());
  return { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
}

/** Every operation of the client, each given the state it needs. */
export const OPERATIONS: Record<string, Prepare> = {
  'auth.createToken': async (client) => ({
    name: 'auth.createToken',
    mode: 'safe',
    method: 'POST',
    path: '/auth/api-token',
    call: (o) => client.auth.createToken(o),
  }),
  'identityRequests.create': async (client) => {
    const input = someone();
    return {
      name: 'identityRequests.create',
      mode: 'create',
      method: 'POST',
      path: '/identity/request',
      call: (o) => client.identityRequests.create(input, o),
    };
  },
  'identityRequests.get': async (client) => {
    const codes = await openRequest(client);
    return {
      name: 'identityRequests.get',
      mode: 'safe',
      method: 'GET',
      path: `/identity/request/${codes.accessRequestCode}/${codes.identitySessionCode}`,
      call: (o) => client.identityRequests.get(codes, o),
    };
  },
  'identityRequests.delete': async (client) => {
    const codes = await openRequest(client);
    return {
      name: 'identityRequests.delete',
      mode: 'safe',
      method: 'DELETE',
      path: `/identity/request/${codes.accessRequestCode}/${codes.identitySessionCode}`,
      call: (o) => client.identityRequests.delete(codes, o),
      repeated: NotFoundError,
    };
  },
  'identityResponses.get': async (client, service) => {
    const codes = await openRequest(client);
    const event = await service.approve(codes.accessRequestCode);
    return {
      name: 'identityResponses.get',
      mode: 'safe',
      method: 'GET',
      path: `/identity/response/${codes.accessRequestCode}/${codes.identitySessionCode}`,
      call: (o) => client.identityResponses.get({ ...codes, accessToken: event.access_token }, o),
    };
  },
  'credentials.submit': async (client) => {
    const input = credentialInput();
    return {
      name: 'credentials.submit',
      mode: 'create',
      method: 'POST',
      path: '/credentials/submit',
      call: (o) => client.credentials.submit(input, o),
    };
  },
  'credentials.verify': async (client) => {
    const { data } = await client.credentials.submit(credentialInput());
    return {
      name: 'credentials.verify',
      mode: 'safe',
      method: 'GET',
      path: `/credentials/verify/${data.credential_ref}`,
      call: (o) => client.credentials.verify(data.credential_ref, o),
    };
  },
  'credentials.fileData': async (client) => {
    const { data } = await client.credentials.submit(credentialInput());
    return {
      name: 'credentials.fileData',
      mode: 'safe',
      method: 'GET',
      path: `/credentials/file-data/${data.credential_ref}`,
      call: (o) => client.credentials.fileData(data.credential_ref, o),
    };
  },
  'credentials.revoke': async (client) => {
    const { data } = await client.credentials.submit(credentialInput());
    return {
      name: 'credentials.revoke',
      mode: 'safe',
      method: 'POST',
      path: `/credentials/revoke/${data.credential_ref}`,
      call: (o) => client.credentials.revoke(data.credential_ref, o),
      repeated: CredentialRevokedError,
    };
  },
  'status.current': async (client) => ({
    name: 'status.current',
    mode: 'safe',
    method: 'GET',
    path: '/status/current',
    call: (o) => client.status.current(o),
  }),
  'status.health': async (client) => ({
    name: 'status.health',
    mode: 'safe',
    method: 'GET',
    path: '/status/health',
    call: (o) => client.status.health(o),
  }),
};

/** How many requests for `op` the server saw since `since` (an index into `service.requests`). */
export function attempts(service: FakeService, op: Pick<Operation, 'method' | 'path'>, since: number): number {
  return service.requests.slice(since).filter((r) => r.method === op.method && r.path === op.path).length;
}

/** Where a call settled among two timers of the test's own. */
export type Settled = 'before-early' | 'between' | 'after-late';

/**
 * Runs `call` beside two timers started just before it, of `early` and `late` ms, and says where
 * it settled among them (#45: no assertion on a measured time). Timers fire in the order they fall
 * due and a settled promise is seen before the next timer's callback runs, so on a loaded machine
 * that delays everything alike the order stays: "not before the deadline, and before a margin
 * past it" holds whatever the machine is doing.
 */
export async function settled<T>(
  call: () => Promise<T>,
  early: number,
  late: number,
): Promise<{ value?: T; error?: unknown; when: Settled }> {
  let when: Settled = 'before-early';
  const timers = [
    setTimeout(() => {
      if (when === 'before-early') when = 'between';
    }, early),
    setTimeout(() => {
      when = 'after-late';
    }, late),
  ];
  try {
    const value = await call();
    return { value, when };
  } catch (error) {
    return { error, when };
  } finally {
    for (const timer of timers) clearTimeout(timer);
  }
}
