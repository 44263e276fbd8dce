/**
 * A redirect from the service is an answer, never followed (#45): on real sockets, with the
 * runtime's own fetch (which follows redirects unless told not to), nothing of a request reaches
 * where a `Location` points: not the token request's client secret (a 307 or 308 repeats the
 * body), not `X-Access-Token` or `X-Tenant-Id` (fetch drops only `Authorization` across origins).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AcmeIdentityClient, InvalidResponseError } from '../../../src/index.js';
import { DEFAULT_CLIENT } from '../../../src/testing/index.js';
import { rejection } from '../../fixtures.js';

/** Any 3xx status, the ones fetch follows (301, 302, 303, 307, 308) and the range's ends always among them. */
const STATUS = fc.integer({ min: 300, max: 399 });
const EXAMPLES: [number][] = [[300], [301], [302], [303], [307], [308], [399]];

/** What reached a server: each request's method, path, headers and body. */
interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

async function listen(
  handle: (request: IncomingMessage, body: string, response: ServerResponse) => void,
): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, Buffer.concat(chunks).toString('utf8'), response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The server a redirect points to: it answers as the service would, and records all it is sent. */
let elsewhere: { server: Server; origin: string };
const reached: Seen[] = [];
/** The service's address: it redirects what `redirecting` says, with the status `status` says. */
let front: { server: Server; origin: string };
let status: number = 307;
/** The paths the service was asked for. */
const asked: string[] = [];
let redirecting: (path: string) => boolean = () => true;

const TOKEN_ANSWER = JSON.stringify({
  data: { access_token: 'at_redirect_test', token_type: 'Bearer', expires_in: 900, refresh_token: 'rt_redirect_test' },
  correlation_id: 'cor_token',
});

beforeAll(async () => {
  elsewhere = await listen((request, body, response) => {
    reached.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
    response.writeHead(200, { 'content-type': 'application/json' }).end(TOKEN_ANSWER);
  });
  front = await listen((request, _body, response) => {
    const path = request.url ?? '/';
    asked.push(path);
    if (!redirecting(path)) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(TOKEN_ANSWER);
      return;
    }
    response.writeHead(status, { location: `${elsewhere.origin}${path}`, 'x-correlation-id': 'cor_redirect' }).end();
  });
});

afterAll(async () => {
  for (const { server } of [elsewhere, front]) await new Promise((resolve) => server.close(resolve));
});

const client = () =>
  new AcmeIdentityClient({
    baseUrl: `${front.origin}/api/v1`,
    clientId: DEFAULT_CLIENT.clientId,
    clientSecret: DEFAULT_CLIENT.clientSecret,
    tenantId: DEFAULT_CLIENT.tenantId,
    maxRetries: 2,
  });

describe('a redirect from the service', () => {
  test('property: of the token request, whatever its 3xx status, is an InvalidResponseError naming the status and baseUrl; the client secret goes nowhere else', async () => {
    await fc.assert(
      fc.asyncProperty(STATUS, async (given) => {
        status = given;
        redirecting = () => true;
        reached.length = 0;
        const error = await rejection(client().auth.createToken());
        expect(error).toBeInstanceOf(InvalidResponseError);
        expect(error).toMatchObject({ status: given, correlationId: 'cor_redirect' });
        expect((error as Error).message).toContain(`redirect to ${elsewhere.origin}`);
        expect((error as Error).message).toContain('baseUrl');
        expect((error as Error).message).not.toContain(DEFAULT_CLIENT.clientSecret);
        expect(reached).toEqual([]);
      }),
      { numRuns: 20, examples: EXAMPLES },
    );
  });

  test('property: of an identity call, is refused the same way, once (never retried), and neither its token nor its identity headers reach the Location', async () => {
    await fc.assert(
      fc.asyncProperty(STATUS, async (given) => {
        status = given;
        redirecting = (path) => path.includes('/identity/');
        reached.length = 0;
        asked.length = 0;
        const acme = client();
        const calls: [string, () => Promise<unknown>][] = [
          ['get', () => acme.identityRequests.get({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_1' })],
          ['delete', () => acme.identityRequests.delete({ accessRequestCode: 'arc_1', identitySessionCode: 'isc_1' })],
          [
            'response',
            () =>
              acme.identityResponses.get({
                accessRequestCode: 'arc_1',
                identitySessionCode: 'isc_1',
                accessToken: 'eyJ.x-access-token.sig',
              }),
          ],
        ];
        for (const [name, call] of calls) {
          const error = await rejection(call());
          expect(error, name).toBeInstanceOf(InvalidResponseError);
          expect(error, name).toMatchObject({ status: given });
          // Where it pointed, by its origin only: the Location's path holds the request's codes.
          expect((error as Error).message, name).toContain(`redirect to ${elsewhere.origin},`);
          expect((error as Error).message, name).not.toMatch(/arc_1|isc_1/);
        }
        expect(asked.filter((path) => path.includes('/identity/'))).toHaveLength(calls.length);
        expect(reached).toEqual([]);
      }),
      { numRuns: 20, examples: EXAMPLES },
    );
  });

  test('a redirect whose Location is no URL (or none at all) is refused the same way, naming no target, never a raw TypeError', async () => {
    for (const location of ['http://[', 'https://exa mple.example/', 'http://:80/', null]) {
      const acme = new AcmeIdentityClient({
        baseUrl: 'https://api.acme.example/api/v1',
        clientId: DEFAULT_CLIENT.clientId,
        clientSecret: DEFAULT_CLIENT.clientSecret,
        tenantId: DEFAULT_CLIENT.tenantId,
        fetch: async () => new Response(null, { status: 302, headers: location === null ? {} : { location } }),
      });
      const error = await rejection(acme.auth.createToken());
      expect(error, String(location)).toBeInstanceOf(InvalidResponseError);
      expect(error, String(location)).toMatchObject({ status: 302 });
      expect((error as Error).message, String(location)).toMatch(/: a redirect, which the SDK does not follow/);
    }
  });

  test("a browser's fetch shows a redirect it did not follow as an opaqueredirect: refused the same way", async () => {
    const seen: RequestRedirect[] = [];
    const acme = new AcmeIdentityClient({
      baseUrl: 'https://api.acme.example/api/v1',
      clientId: DEFAULT_CLIENT.clientId,
      clientSecret: DEFAULT_CLIENT.clientSecret,
      tenantId: DEFAULT_CLIENT.tenantId,
      fetch: async (request: Request) => {
        seen.push(request.redirect);
        return Object.defineProperty(new Response(null, { status: 200 }), 'type', { value: 'opaqueredirect' });
      },
    });
    const error = await rejection(acme.auth.createToken());
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toMatch(/a redirect, which the SDK does not follow/);
    expect(seen).toEqual(['manual']);
  });
});
