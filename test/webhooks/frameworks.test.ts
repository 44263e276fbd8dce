/**
 * The importable webhook handlers (#30) in their real frameworks over real sockets: what each does
 * beside the receiver contract the recipes test already runs them through.
 */
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { signWebhook } from '../../src/testing/index.js';
import { acmeWebhookHandler } from '../../src/webhooks/frameworks/express.js';
import { acmeWebhookPlugin } from '../../src/webhooks/frameworks/fastify.js';
import { acmeWebhook } from '../../src/webhooks/frameworks/hono.js';
import { createWebhookRoute } from '../../src/webhooks/frameworks/next.js';
import { createWebhookVerifier, type IdentityActionsEvent } from '../../src/webhooks/index.js';

const SECRET = 'whsec_frameworks_0123456789abcdef0123';
const body = JSON.stringify({ event: 'approved', access_request_code: 'arc_fw', access_token: 'eyJhbGciOiJub25lIn0.eyJ4IjoxfQ.' });
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function listen(app: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An Express response as the handler uses it (`status(code).json(body)`), recording what it was answered. */
function recordedResponse() {
  const answered: { status?: number; json?: unknown } = {};
  const response = {
    status(code: number) {
      answered.status = code;
      return response;
    },
    json(value: unknown) {
      answered.json = value;
    },
  };
  return { response, answered };
}

async function post(url: string, contentType = 'application/json', payload = body) {
  const response = await fetch(url, {
    method: 'POST',
    body: payload,
    headers: { 'content-type': contentType, 'x-webhook-signature': await signWebhook(SECRET, body) },
  });
  return { status: response.status, json: await response.json().catch(() => null) };
}

describe('@acme/identity/webhooks/express', () => {
  test('mounted after express.json(), it refuses every delivery clearly (500 ERR_WEBHOOK_PARSED_BODY) and logs how to fix it', async () => {
    const warnings: string[] = [];
    const app = express();
    app.use(express.json());
    const fields: unknown[] = [];
    const logger = {
      info() {},
      warn: (message: string, field: unknown) => {
        warnings.push(message);
        fields.push(field);
      },
    };
    app.post('/webhooks/acme', acmeWebhookHandler({ secret: SECRET, verifierOptions: { logger }, onEvent: () => undefined }));
    const url = await listen(app);
    expect(await post(`${url}/webhooks/acme`)).toEqual({ status: 500, json: { error: 'ERR_WEBHOOK_PARSED_BODY' } });
    expect(warnings.join()).toContain('mount acmeWebhookHandler before any body parser');
    expect(fields).toEqual([{ code: 'ERR_WEBHOOK_PARSED_BODY' }]);
  });

  test('behind express.json(), a delivery of another content type (which the parser left unread) is read and verified', async () => {
    const events: IdentityActionsEvent[] = [];
    const app = express();
    app.use(express.json());
    app.post('/webhooks/acme', acmeWebhookHandler({ secret: SECRET, onEvent: (event) => events.push(event) }));
    const url = await listen(app);
    expect(await post(`${url}/webhooks/acme`, 'application/octet-stream')).toEqual({ status: 200, json: { received: true } });
    expect(events).toHaveLength(1);
  });

  test('behind a middleware that sets req.body to {} without reading the stream (Express 4’s parsers, for a type they skip), the stream is read and verified', async () => {
    const events: IdentityActionsEvent[] = [];
    const app = express();
    app.use((req, _res, next) => {
      req.body ??= {};
      next();
    });
    app.post('/webhooks/acme', acmeWebhookHandler({ secret: SECRET, onEvent: (event) => events.push(event) }));
    const url = await listen(app);
    expect(await post(`${url}/webhooks/acme`)).toEqual({ status: 200, json: { received: true } });
    expect(events).toHaveLength(1);
  });

  test('behind a middleware that consumed the stream without setting req.body, the signed bytes are gone: 500 ERR_WEBHOOK_PARSED_BODY, so the service retries once it is mended', async () => {
    const events: IdentityActionsEvent[] = [];
    const app = express();
    app.use((req, _res, next) => {
      req.on('end', () => next());
      req.resume();
    });
    app.post(
      '/webhooks/acme',
      acmeWebhookHandler({ secret: SECRET, verifierOptions: { logLevel: 'off' }, onEvent: (event) => events.push(event) }),
    );
    const url = await listen(app);
    expect(await post(`${url}/webhooks/acme`)).toEqual({ status: 500, json: { error: 'ERR_WEBHOOK_PARSED_BODY' } });
    expect(events).toEqual([]);
  });

  test('a request that cannot say whether its stream was read (no readableEnded, as a wrapper of a serverless event builds it) with a parsed body: refused as parsed, its stream left unread', async () => {
    const events: IdentityActionsEvent[] = [];
    const handler = acmeWebhookHandler({ secret: SECRET, verifierOptions: { logLevel: 'off' }, onEvent: (event) => events.push(event) });
    let streamRead = false;
    const request = {
      headers: { 'content-type': 'application/json', 'x-webhook-signature': await signWebhook(SECRET, body) },
      body: JSON.parse(body) as unknown,
      async *[Symbol.asyncIterator]() {
        streamRead = true;
        yield new TextEncoder().encode(body);
      },
    };
    const { response, answered } = recordedResponse();
    await handler(request, response);
    expect(answered).toEqual({ status: 500, json: { error: 'ERR_WEBHOOK_PARSED_BODY' } });
    expect({ streamRead, events }).toEqual({ streamRead: false, events: [] });
  });

  test('a stream read as text (a middleware called setEncoding) is encoded back to the signed bytes: verified', async () => {
    const events: IdentityActionsEvent[] = [];
    const handler = acmeWebhookHandler({ secret: SECRET, onEvent: (event) => events.push(event) });
    const request = {
      headers: { 'content-type': 'application/json', 'x-webhook-signature': await signWebhook(SECRET, body) },
      readableEnded: false,
      async *[Symbol.asyncIterator]() {
        // In two pieces, cut inside a field, as a socket delivers them.
        yield body.slice(0, 20);
        yield body.slice(20);
      },
    };
    const { response, answered } = recordedResponse();
    await handler(request, response);
    expect(answered).toEqual({ status: 200, json: { received: true } });
    expect(events.map((event) => event.accessRequestCode)).toEqual(['arc_fw']);
  });

  test('after express.raw or express.text the bytes are still the signed ones: verified; other routes keep their JSON parser', async () => {
    const events: IdentityActionsEvent[] = [];
    const app = express();
    app.post('/raw', express.raw({ type: '*/*' }), acmeWebhookHandler({ secret: SECRET, onEvent: (event) => events.push(event) }));
    app.post('/text', express.text({ type: '*/*' }), acmeWebhookHandler({ secret: SECRET, onEvent: (event) => events.push(event) }));
    app.post('/other', express.json(), (req, res) => {
      res.json({ echoed: (req.body as { x: number }).x });
    });
    const url = await listen(app);
    expect(await post(`${url}/raw`)).toEqual({ status: 200, json: { received: true } });
    expect(await post(`${url}/text`, 'text/plain')).toEqual({ status: 200, json: { received: true } });
    expect(events).toHaveLength(2);
    expect((await post(`${url}/other`, 'application/json', '{"x":7}')).json).toEqual({ echoed: 7 });
  });
});

describe('@acme/identity/webhooks/fastify', () => {
  test("verifies any content type as bytes inside its scope; the app's own routes still parse JSON", async () => {
    const events: IdentityActionsEvent[] = [];
    const app = Fastify();
    await app.register(acmeWebhookPlugin, { path: '/hooks', secret: SECRET, onEvent: (event: IdentityActionsEvent) => events.push(event) });
    app.post('/other', async (request) => ({ echoed: (request.body as { x: number }).x }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    expect(await post(`${url}/hooks`)).toEqual({ status: 200, json: { received: true } });
    expect(await post(`${url}/hooks`, 'text/plain')).toEqual({ status: 200, json: { received: true } });
    expect(events).toHaveLength(1); // the second is a redelivery: answered 200, not handled again
    expect((await post(`${url}/other`, 'application/json', '{"x":3}')).json).toEqual({ echoed: 3 });
    expect((await post(`${url}/hooks`, 'application/json', body.replace('arc_fw', 'arc_x'))).status).toBe(400);
  });
});

describe('@acme/identity/webhooks/fastify without a path', () => {
  test('is mounted at /webhooks/acme, as documented', async () => {
    const events: IdentityActionsEvent[] = [];
    const app = Fastify();
    await app.register(acmeWebhookPlugin, { secret: SECRET, onEvent: (event: IdentityActionsEvent) => events.push(event) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    expect(await post(`${url}/webhooks/acme`)).toEqual({ status: 200, json: { received: true } });
    expect(events).toHaveLength(1);
  });
});

describe('every handler with an identity inbox', () => {
  const handlers: [
    string,
    (inbox: { receive(event: IdentityActionsEvent): Promise<unknown> }) => Promise<(url?: string) => Promise<number>>,
  ][] = [
    [
      'express',
      async (inbox) => {
        const app = express();
        app.post('/w', acmeWebhookHandler({ secret: SECRET, inbox }));
        const url = await listen(app);
        return async () => (await post(`${url}/w`)).status;
      },
    ],
    [
      'next',
      async (inbox) => {
        const { POST } = createWebhookRoute({ secret: SECRET, inbox });
        return async () =>
          (
            await POST(
              new Request('http://x/w', { method: 'POST', body, headers: { 'x-webhook-signature': await signWebhook(SECRET, body) } }),
            )
          ).status;
      },
    ],
    [
      'hono',
      async (inbox) => {
        const app = new Hono();
        app.post('/w', acmeWebhook({ secret: SECRET, inbox }));
        return async () =>
          (await app.request('/w', { method: 'POST', body, headers: { 'x-webhook-signature': await signWebhook(SECRET, body) } })).status;
      },
    ],
  ];

  test.each(handlers)('%s: 200 once the inbox stored the delivery; 500 when it could not (the service retries)', async (_name, make) => {
    const stored: string[] = [];
    let down = true;
    const send = await make({
      async receive(event) {
        if (down) throw new Error('Redis unreachable');
        stored.push(event.accessRequestCode);
        return 'added';
      },
    });
    expect(await send()).toBe(500);
    down = false;
    expect(await send()).toBe(200);
    expect(stored).toEqual(['arc_fw']);
  });
});

describe('the handlers refuse options they cannot work with', () => {
  test.each([
    ['no secret or verifier', {}, 'secret'],
    ['no handler and no inbox', { secret: SECRET }, 'onEvent'],
    ['both a handler and an inbox', { secret: SECRET, onEvent: () => undefined, inbox: { receive: async () => undefined } }, 'onEvent'],
    ['no options at all (null)', null, 'options'],
    ['options that are a string (the secret alone)', SECRET, 'options'],
  ])('%s', (_name, options, option) => {
    for (const make of [acmeWebhookHandler, createWebhookRoute, acmeWebhook] as ((o: unknown) => unknown)[]) {
      expect(() => make(options)).toThrow(ConfigurationError);
      expect(() => make(options)).toThrow(expect.objectContaining({ option }));
    }
  });

  test('a verifier given is used as it is', async () => {
    const verifier = createWebhookVerifier({ secret: SECRET, replayStore: false });
    const events: IdentityActionsEvent[] = [];
    const { POST } = createWebhookRoute({ verifier, onEvent: (event) => events.push(event) });
    const request = async () =>
      POST(new Request('http://x/w', { method: 'POST', body, headers: { 'x-webhook-signature': await signWebhook(SECRET, body) } }));
    expect((await request()).status).toBe(200);
    expect((await request()).status).toBe(200);
    expect(events).toHaveLength(2); // no replay store: each delivery handled
  });

  test('the secret given is the one verified with, whatever verifierOptions carries (a JavaScript caller can pass a secret there)', async () => {
    const { POST } = createWebhookRoute({
      secret: SECRET,
      verifierOptions: { secret: 'whsec_another_one_0123456789abcdef' } as never,
      onEvent: () => undefined,
    });
    const signed = async (secret: string) =>
      (await POST(new Request('http://x/w', { method: 'POST', body, headers: { 'x-webhook-signature': await signWebhook(secret, body) } })))
        .status;
    expect(await signed('whsec_another_one_0123456789abcdef')).toBe(400);
    expect(await signed(SECRET)).toBe(200);
  });
});
