/** Each framework recipe in examples/webhook-recipes, driven as its framework would drive it. */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { expressApp } from '../../examples/webhook-recipes/express.js';
import { fastifyApp } from '../../examples/webhook-recipes/fastify.js';
import { honoApp } from '../../examples/webhook-recipes/hono.js';
import { nextRouteHandler } from '../../examples/webhook-recipes/nextjs.js';
import { nodeHttpServer } from '../../examples/webhook-recipes/node-http.js';
import { workerHandler } from '../../examples/webhook-recipes/worker.js';
import { signWebhook } from '../../src/testing/index.js';
import type { IdentityActionsEvent } from '../../src/webhooks/index.js';

const SECRET = 'whsec_recipes_0123456789abcdef012345';
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJhY2Nlc3NfcmVxdWVzdF9jb2RlIjoiYXJjXzEifQ.c2ln';

/** Posts one delivery; returns the status. */
type Post = (body: string, headers: Record<string, string>) => Promise<number>;

interface Recipe {
  start(onEvent: (event: IdentityActionsEvent) => Promise<void>): Promise<Post>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

const webRequest = (body: string, headers: Record<string, string>) =>
  new Request('http://localhost/webhooks/acme', { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

/** Posts over real HTTP to a server on localhost. */
const overHttp =
  (port: number): Post =>
  async (body, headers) =>
    (
      await fetch(`http://127.0.0.1:${port}/webhooks/acme`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', ...headers },
      })
    ).status;

/** Listens on a free localhost port; closed after the test. */
async function listening(server: Server): Promise<Post> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return overHttp((server.address() as AddressInfo).port);
}

const recipes: Record<string, Recipe> = {
  'node:http': {
    start: (onEvent) => listening(nodeHttpServer(SECRET, onEvent)),
  },
  'Express (express.raw)': {
    start: (onEvent) => listening(createServer(expressApp(SECRET, onEvent))),
  },
  'Fastify (raw body parser)': {
    async start(onEvent) {
      const app = fastifyApp(SECRET, onEvent);
      await app.listen({ port: 0, host: '127.0.0.1' });
      closers.push(() => app.close());
      return overHttp((app.server.address() as AddressInfo).port);
    },
  },
  'Next.js route handler': {
    async start(onEvent) {
      const { POST } = nextRouteHandler(SECRET, onEvent);
      return async (body, headers) => (await POST(webRequest(body, headers))).status;
    },
  },
  Hono: {
    async start(onEvent) {
      const app = honoApp(SECRET, onEvent);
      return async (body, headers) => (await app.request(webRequest(body, headers))).status;
    },
  },
  'Web Request handler (Workers)': {
    async start(onEvent) {
      const worker = workerHandler(SECRET, onEvent);
      return async (body, headers) => (await worker.fetch(webRequest(body, headers))).status;
    },
  },
};

describe.each(Object.entries(recipes))('%s', (_name, recipe) => {
  const body = JSON.stringify({ event: 'approved', access_request_code: 'arc_1', access_token: TOKEN });

  test('a signed delivery is verified, handled once and answered 200; a redelivery is answered 200 and not handled again', async () => {
    const events: IdentityActionsEvent[] = [];
    const post = await recipe.start(async (event) => {
      events.push(event);
    });
    const headers = { 'x-webhook-signature': await signWebhook(SECRET, body) };
    expect(await post(body, headers)).toBe(200);
    expect(await post(body, headers)).toBe(200);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'approved', accessRequestCode: 'arc_1', accessToken: TOKEN });
  });

  test('a forged delivery is answered 400 and never handled', async () => {
    const events: IdentityActionsEvent[] = [];
    const post = await recipe.start(async (event) => {
      events.push(event);
    });
    const forged = body.replace('arc_1', 'arc_2');
    expect(await post(forged, { 'x-webhook-signature': await signWebhook(SECRET, body) })).toBe(400);
    expect(await post(body, {})).toBe(400);
    expect(events).toHaveLength(0);
  });

  test('a handler that fails answers 500, and the retry is handled', async () => {
    let calls = 0;
    const post = await recipe.start(async () => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
    });
    const headers = { 'x-webhook-signature': await signWebhook(SECRET, body) };
    expect(await post(body, headers)).toBe(500);
    expect(await post(body, headers)).toBe(200);
    expect(calls).toBe(2);
  });
});
