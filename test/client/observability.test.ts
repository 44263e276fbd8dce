/** Logging, hooks and the User-Agent (#15): what an operator sees, and that it never holds a secret. */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { VERSION, responseOf, type RequestEvent, type ResponseEvent, type RetryEvent, type TokenRenewalEvent } from '../../src/index.js';
import { DEFAULT_CLIENT } from '../../src/testing/index.js';
import { harness, person, received, recorder, rejection } from '../helpers.js';
import packageJson from '../../package.json' with { type: 'json' };

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('logging', () => {
  test('debug logs each attempt (method, path template, status, ms, attempt, correlation id); info the retry with its reason and wait', async () => {
    const log = recorder();
    const { client, service } = await harness({ client: { logger: log.logger, logLevel: 'debug' } });
    service.injectFault({ kind: 'status', status: 503, path: '/status/health' });
    await client.status.health({ correlationId: 'corr-1' });
    const attempts = log.lines.filter((l) => l.level === 'debug' && l.fields['path'] === '/status/health');
    expect(attempts.map((l) => [l.fields['status'], l.fields['attempt'], l.fields['correlationId']])).toEqual([
      [503, 1, 'corr-1'],
      [200, 2, 'corr-1'],
    ]);
    expect(attempts[0]!.message).toMatch(/^\[acme-identity\] GET \/status\/health 503 in [\d.]+ ms \(attempt 1, correlation id corr-1\)$/);
    const retry = log.lines.find((l) => l.level === 'info' && l.fields['reason'] === 'status');
    expect(retry?.fields).toMatchObject({ status: 503, attempt: 2, waitMs: expect.any(Number), retryAfter: false });
    // A token request is logged too, and the renewal at info.
    await client.identityRequests.create(person());
    expect(log.lines.some((l) => l.fields['path'] === '/auth/api-token' && l.fields['status'] === 200)).toBe(true);
    expect(log.lines.find((l) => l.fields['grant'] === 'key-pair')).toMatchObject({ level: 'info', fields: { outcome: 'ok' } });
  });

  test('paths are templates: no request code or credential reference reaches a log line', async () => {
    const log = recorder();
    const { client, service } = await harness({ client: { logger: log.logger, logLevel: 'debug' } });
    const { data } = await client.identityRequests.create(person());
    await client.identityRequests.get({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });
    const event = await service.approve(data.access_request_code);
    await client.identityResponses.get({
      accessRequestCode: data.access_request_code,
      identitySessionCode: data.identity_session_code,
      accessToken: event.access_token,
    });
    const text = log.text();
    expect(text).toContain('/identity/request/{access_request_code}/{identity_session_code}');
    for (const secret of [
      data.access_request_code,
      data.identity_session_code,
      event.access_token,
      DEFAULT_CLIENT.clientSecret,
      DEFAULT_CLIENT.tenantId,
      'jane',
      'Citizen',
      '412345678',
    ]) {
      expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
    }
  });

  test('the default level is warn: a run with no trouble logs nothing', async () => {
    const log = recorder();
    const { client } = await harness({ client: { logger: log.logger } });
    await client.identityRequests.create(person());
    expect(log.lines).toEqual([]);
  });

  test('a Retry-After longer than maxRetryAfterMs is logged at warn', async () => {
    const log = recorder();
    const { client, service } = await harness({ client: { logger: log.logger, maxRetryAfterMs: 1000 } });
    service.injectFault({ kind: 'status', status: 429, retryAfter: '30', path: '/status/current' });
    await rejection(client.status.current());
    expect(log.lines).toEqual([
      expect.objectContaining({ level: 'warn', message: expect.stringContaining('longer than maxRetryAfterMs') }),
    ]);
    expect(log.lines[0]!.fields).toEqual({
      method: 'GET',
      path: '/status/current',
      attempt: 1,
      correlationId: expect.any(String),
      status: 429,
      waitMs: 30_000,
    });
  });

  test('a wait that fits maxRetryAfterMs but not the deadline is logged at warn as past the deadline', async () => {
    const log = recorder();
    // maxRetryAfterMs is the longest wait allowed, itself included.
    const { client, service } = await harness({ client: { logger: log.logger, maxRetryAfterMs: 30_000 } });
    service.injectFault({ kind: 'status', status: 503, retryAfter: '30', path: '/status/current' });
    await rejection(client.status.current({ timeoutMs: 5_000 }));
    expect(log.lines).toEqual([
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/after 503: the wait of 30000 ms is past the deadline$/) }),
    ]);
  });

  test("the deadline is counted on the client's clock (the now option), an hour behind the machine's too", async () => {
    const log = recorder();
    const behind = () => Date.now() - 3_600_000;
    const { client, service } = await harness({ client: { logger: log.logger, maxRetryAfterMs: 30_000, now: behind } });
    service.injectFault({ kind: 'status', status: 503, retryAfter: '30', path: '/status/current' });
    await rejection(client.status.current({ timeoutMs: 5_000 }));
    expect(log.lines).toEqual([
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/after 503: the wait of 30000 ms is past the deadline$/) }),
    ]);
  });

  test('a retry says why at info: a rate limit, a status, or a connection failure, and whether the service asked for the wait', async () => {
    const log = recorder();
    const retries: RetryEvent[] = [];
    const { client, service } = await harness({
      client: { logger: log.logger, logLevel: 'info', hooks: { onRetry: (event) => void retries.push(event) } },
    });
    service.injectFault({ kind: 'status', status: 429, retryAfter: '0', path: '/status/current' });
    await client.status.current();
    service.injectFault({ kind: 'status', status: 503, path: '/status/current' });
    await client.status.current();
    service.injectFault({ kind: 'network', path: '/status/current' });
    await client.status.current();
    expect(retries.map(({ reason, status, retryAfter }) => ({ reason, status, retryAfter }))).toEqual([
      { reason: 'rate-limit', status: 429, retryAfter: true },
      { reason: 'status', status: 503, retryAfter: false },
      { reason: 'connection', status: undefined, retryAfter: false },
    ]);
    const infos = log.lines
      .filter((l) => l.level === 'info' && l.message.includes('retrying'))
      .map((l) => l.message.replace(/ in \d+ ms/, ''));
    expect(infos).toEqual([
      '[acme-identity] retrying GET /status/current after 429',
      '[acme-identity] retrying GET /status/current after 503',
      '[acme-identity] retrying GET /status/current after a connection failure',
    ]);
  });

  test('without hooks, a token renewal and a retry are logged at info and not at warn: the level alone decides', async () => {
    for (const [logLevel, logged] of [
      ['info', 1],
      ['warn', 0],
    ] as const) {
      const log = recorder();
      const { client, service } = await harness({ client: { logger: log.logger, logLevel } });
      await client.auth.accessToken();
      service.injectFault({ kind: 'status', status: 503, path: '/status/current' });
      await client.status.current();
      const lines = (pattern: RegExp) => log.lines.filter((l) => pattern.test(l.message));
      expect(lines(/access token renewed \(key-pair\) in [\d.]+ ms$/), logLevel).toHaveLength(logged);
      expect(lines(/retrying GET \/status\/current in \d+ ms after 503$/), logLevel).toHaveLength(logged);
    }
  });

  test('at warn, a token renewal that fails is a warn line, one that succeeds writes nothing', async () => {
    const log = recorder();
    const { client, service } = await harness({ client: { logger: log.logger, logLevel: 'warn' } });
    service.injectFault({ kind: 'status', status: 401, path: '/auth/api-token' });
    // A monotonic clock that moves 25.26 ms each time it is read: the renewal's duration is one step, kept to a tenth.
    let mono = 1_000;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => (mono += 25.26));
    await rejection(client.auth.accessToken());
    clock.mockRestore();
    await client.auth.accessToken();
    expect(log.lines.map((l) => `${l.level} ${l.message}`)).toEqual([
      'warn [acme-identity] access token renewal failed (key-pair) in 25.3 ms',
    ]);
    expect(log.lines[0]!.fields).toMatchObject({ grant: 'key-pair', outcome: 'failed', errorCode: 'ERR_AUTHENTICATION', durationMs: 25.3 });
  });

  test('ACME_IDENTITY_LOG switches logging on without a code change; a wrong value is warned about, never fatal', async () => {
    vi.stubEnv('ACME_IDENTITY_LOG', 'debug');
    const log = recorder();
    const { client } = await harness({ client: { logger: log.logger } });
    await client.status.health();
    expect(log.lines.some((l) => l.level === 'debug')).toBe(true);
    vi.stubEnv('ACME_IDENTITY_LOG', 'off');
    const { makeClient } = await harness();
    vi.stubEnv('ACME_IDENTITY_LOG', 'loud');
    const warned = recorder();
    await makeClient({ logger: warned.logger }).status.health();
    expect(warned.lines).toEqual([
      expect.objectContaining({ level: 'warn', message: expect.stringContaining('ACME_IDENTITY_LOG is not one of') }),
    ]);
    // The option wins over the environment.
    vi.stubEnv('ACME_IDENTITY_LOG', 'debug');
    const quiet = recorder();
    await makeClient({ logger: quiet.logger, logLevel: 'off' }).status.health();
    expect(quiet.lines).toEqual([]);
  });

  test('a wrong ACME_IDENTITY_LOG is quoted to its first 16 characters: a value pasted into the wrong variable is not logged whole', async () => {
    const { makeClient } = await harness();
    const pasted = `whsec_${'s3cr3t'.repeat(8)}`;
    vi.stubEnv('ACME_IDENTITY_LOG', pasted);
    const warned = recorder();
    makeClient({ logger: warned.logger });
    expect(warned.lines).toEqual([expect.objectContaining({ level: 'warn', fields: { ACME_IDENTITY_LOG: pasted.slice(0, 16) } })]);
    expect(warned.text()).not.toContain(pasted.slice(0, 17));
  });

  test('a logger without the four methods, or a logLevel that is not a level, is a ConfigurationError', async () => {
    const { makeClient } = await harness();
    expect(() => makeClient({ logger: { info() {} } as never })).toThrow(/logger/);
    // Each of the four is required: a logger without one would throw at the first line of its level.
    const full = { debug() {}, info() {}, warn() {}, error() {} };
    for (const method of ['debug', 'info', 'warn', 'error'] as const) {
      const { [method]: _left, ...rest } = full;
      expect(() => makeClient({ logger: rest as never })).toThrow(new RegExp(`logger.*${method}\\(`));
    }
    expect(() => makeClient({ logger: full })).not.toThrow();
    expect(() => makeClient({ logLevel: 'verbose' as never })).toThrow(/logLevel/);
    // A wrong option is refused even where the environment names a level (the option is read first).
    vi.stubEnv('ACME_IDENTITY_LOG', 'debug');
    expect(() => makeClient({ logLevel: 'verbose' as never })).toThrow(/logLevel/);
  });

  test('a logger that throws does not break a call', async () => {
    const broken = () => {
      throw new Error('disk full');
    };
    const { client } = await harness({
      client: { logger: { debug: broken, info: broken, warn: broken, error: broken }, logLevel: 'debug' },
    });
    await expect(client.status.health()).resolves.toBeDefined();
  });
});

describe('hooks', () => {
  test('onRequest, onResponse, onRetry and onTokenRenewal see every attempt, retry and renewal, with nothing secret', async () => {
    const seen: { name: string; event: RequestEvent | ResponseEvent | RetryEvent | TokenRenewalEvent }[] = [];
    const hook = (name: string) => (event: never) => seen.push({ name, event });
    const { client, service } = await harness({
      client: {
        hooks: { onRequest: hook('request'), onResponse: hook('response'), onRetry: hook('retry'), onTokenRenewal: hook('renewal') },
      },
    });
    service.injectFault({ kind: 'network', path: '/status/current' });
    await client.status.current();
    const { data } = await client.identityRequests.create(person());
    expect(seen.map((s) => s.name)).toEqual([
      'request',
      'response',
      'retry',
      'request',
      'response',
      'request',
      'response',
      'renewal',
      'request',
      'response',
    ]);
    expect(seen[1]!.event).toMatchObject({ method: 'GET', path: '/status/current', attempt: 1, errorCode: 'ERR_CONNECTION' });
    expect(seen[2]!.event).toMatchObject({ reason: 'connection', attempt: 2, retryAfter: false });
    expect(seen[7]!.event).toMatchObject({ grant: 'key-pair', outcome: 'ok', durationMs: expect.any(Number) });
    expect(seen[9]!.event).toMatchObject({ method: 'POST', path: '/identity/request', status: 200, attempt: 1 });
    const text = JSON.stringify(seen);
    for (const secret of [DEFAULT_CLIENT.clientSecret, 'jane.citizen', 'Bearer']) expect(text).not.toContain(secret);
    // A call with path values: both of its events name the template, never the request's codes.
    seen.length = 0;
    await client.identityRequests.get({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });
    expect(seen.map(({ name, event }) => [name, (event as RequestEvent).path])).toEqual([
      ['request', '/identity/request/{access_request_code}/{identity_session_code}'],
      ['response', '/identity/request/{access_request_code}/{identity_session_code}'],
    ]);
    for (const code of [data.access_request_code, data.identity_session_code]) expect(JSON.stringify(seen)).not.toContain(code);
  });

  test('an attempt that got no answer says why: refused (with the system code), past the deadline, or aborted by the caller', async () => {
    const log = recorder();
    const events: ResponseEvent[] = [];
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    });
    const { makeClient } = await harness();
    const client = makeClient({
      logger: log.logger,
      logLevel: 'debug',
      maxRetries: 0,
      hooks: { onResponse: (event) => void events.push(event) },
      // Refuses the health check; never answers anything else until the signal aborts it.
      fetch: (request) =>
        request.url.endsWith('/status/health')
          ? Promise.reject(refused)
          : new Promise((_resolve, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason))),
    });
    expect(await rejection(client.status.health())).toMatchObject({ code: 'ERR_CONNECTION' });
    // A monotonic clock that moves 25.26 ms each time it is read: the attempt's duration is one step.
    let mono = 1_000;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => (mono += 25.26));
    expect(await rejection(client.status.current({ timeoutMs: 50 }))).toMatchObject({ code: 'ERR_TIMEOUT' });
    clock.mockRestore();
    const controller = new AbortController();
    const aborted = client.status.current({ signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect(await rejection(aborted)).toMatchObject({ code: 'ERR_ABORTED' });
    await vi.waitFor(() => expect(events).toHaveLength(3));
    expect(events.map(({ path, errorCode, systemCode, status }) => ({ path, errorCode, systemCode, status }))).toEqual([
      { path: '/status/health', errorCode: 'ERR_CONNECTION', systemCode: 'ECONNREFUSED', status: undefined },
      { path: '/status/current', errorCode: 'ERR_TIMEOUT', systemCode: undefined, status: undefined },
      { path: '/status/current', errorCode: 'ERR_ABORTED', systemCode: undefined, status: undefined },
    ]);
    const lines = log.lines.filter((l) => l.level === 'debug').map((l) => l.message);
    expect(lines[0]).toMatch(
      /^\[acme-identity\] GET \/status\/health ERR_CONNECTION ECONNREFUSED in [\d.]+ ms \(attempt 1, correlation id [\w-]+\)$/,
    );
    expect(lines[1]).toMatch(/^\[acme-identity\] GET \/status\/current ERR_TIMEOUT in [\d.]+ ms /);
    // Durations are milliseconds to a tenth, on the monotonic clock: 25.26 ms shows as 25.3, in the event and the line.
    expect(events[1]!.durationMs).toBe(25.3);
    expect(lines[1]).toContain(' in 25.3 ms ');
  });

  test('a hook that throws is logged at warn and ignored', async () => {
    const log = recorder();
    const { client } = await harness({
      client: {
        logger: log.logger,
        hooks: {
          onResponse() {
            throw new TypeError('oops');
          },
        },
      },
    });
    await expect(client.status.health()).resolves.toBeDefined();
    expect(log.lines[0]).toMatchObject({ level: 'warn', fields: { hook: 'onResponse', error: 'TypeError' } });
  });

  test('hooks that are not functions are a ConfigurationError naming them; hooks that are not an object of them, naming hooks', async () => {
    const { makeClient } = await harness();
    expect(() => makeClient({ hooks: { onRetry: 'yes' } as never })).toThrow(/hooks\.onRetry/);
    // A function or a string given for the whole object: refused as hooks, not read as an object with no hooks (or with hook "0").
    for (const hooks of [() => undefined, 'onRetry', 42, null]) {
      expect(() => makeClient({ hooks: hooks as never })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'hooks' }));
    }
  });

  test('ACME_IDENTITY_LOG is read as an operator writes it: in any case, spaces around it ignored; set but empty, it is not set', async () => {
    const { makeClient } = await harness();
    for (const written of ['DEBUG', ' Debug ', 'debug\n']) {
      vi.stubEnv('ACME_IDENTITY_LOG', written);
      const log = recorder();
      await makeClient({ logger: log.logger }).status.health();
      expect([written, log.lines.some((l) => l.level === 'debug')]).toEqual([written, true]);
      expect(log.lines.filter((l) => l.level === 'warn')).toEqual([]);
    }
    vi.stubEnv('ACME_IDENTITY_LOG', '');
    const unset = recorder();
    await makeClient({ logger: unset.logger }).status.health();
    // The default (warn), and no warning about the variable.
    expect(unset.lines).toEqual([]);
  });

  test('a refused refresh token falling back to the key pair is a warn line and a renewal with fallback', async () => {
    let clock = Date.UTC(2026, 10, 24, 12);
    const log = recorder();
    const renewals: TokenRenewalEvent[] = [];
    const { client, service } = await harness({
      fake: { now: () => clock },
      client: { now: () => clock, logger: log.logger, hooks: { onTokenRenewal: (e) => renewals.push(e) } },
    });
    await client.status.health();
    await client.identityRequests.create(person());
    service.injectFault({ kind: 'status', status: 401, path: '/auth/api-token/refresh' });
    clock += 900_000;
    await client.identityRequests.create(person({ email: 'other@example.com', phone: '400000001' }));
    expect(renewals.map((r) => [r.grant, r.outcome, r.fallback ?? false])).toEqual([
      ['key-pair', 'ok', false],
      ['refresh', 'failed', false],
      ['key-pair', 'ok', true],
    ]);
    expect(log.lines.map((l) => l.level)).toEqual(['warn', 'warn']);
    expect(log.lines[1]!.message).toContain('refresh token was refused (HTTP 401)');
  });
});

describe('User-Agent', () => {
  test('names the SDK, its version and the runtime, then appInfo', async () => {
    expect(VERSION).toBe(packageJson.version);
    const { makeClient, service } = await harness();
    await makeClient({ appInfo: { name: 'my-app', version: '1.2.3', url: 'https://my-app.example' } }).status.health();
    const [request] = received(service, /status\/health/);
    expect(request!.headers['user-agent']).toBe(
      `@acme/identity/${VERSION} node/${process.versions.node} my-app/1.2.3 (+https://my-app.example)`,
    );
  });

  test('in a browser page (a document), none is set: the browser sends its own, and a header of ours would cost a CORS preflight', async () => {
    const { makeClient, service } = await harness();
    vi.stubGlobal('document', {});
    try {
      await makeClient({ appInfo: { name: 'my-app' } }).status.health();
    } finally {
      vi.unstubAllGlobals();
    }
    // None at all from the SDK (not even an empty or "undefined" one): what arrives is what a bare fetch sends.
    await (await service.fetch(new Request(`${service.baseUrl}/status/health`))).body?.cancel();
    const [request, bare] = received(service, /status\/health/);
    expect(bare).toBeDefined();
    expect(request!.headers['user-agent']).toBe(bare!.headers['user-agent']);
    expect(request!.headers['user-agent'] ?? '').not.toContain('@acme/identity');
    expect(request!.headers['user-agent'] ?? '').not.toContain('my-app');
  });

  test('without a fetch option, the global fetch is looked up at each call: one patched after the client was made (msw, a test) is used', async () => {
    const { client } = await harness();
    const current = globalThis.fetch;
    const seen: string[] = [];
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return current(input, init);
    });
    try {
      await client.status.health();
    } finally {
      vi.unstubAllGlobals();
    }
    expect(seen).toEqual([expect.stringMatching(/\/status\/health$/)]);
  });

  test('an appInfo with spaces or without a name is a ConfigurationError', async () => {
    const { makeClient } = await harness();
    expect(() => makeClient({ appInfo: { name: 'my app' } })).toThrow(/appInfo/);
    expect(() => makeClient({ appInfo: {} as never })).toThrow(/appInfo/);
    // Its version and url go into the same header: held to the same rule.
    expect(() => makeClient({ appInfo: { name: 'my-app', version: '1.0 beta' } })).toThrow(/appInfo\.version/);
    expect(() => makeClient({ appInfo: { name: 'my-app', url: 'https://my-app.example/a b' } })).toThrow(/appInfo\.url/);
    expect(() => makeClient({ appInfo: { name: 'my-app', version: 2 as never } })).toThrow(/appInfo\.version/);
    // Not an object, or a name that is no text: the option named, never a TypeError from reading into it.
    // (A function has a name of its own: it is still no appInfo.)
    for (const appInfo of [null, 'my-app', { name: 7 }, function myApp() {}]) {
      expect(() => makeClient({ appInfo: appInfo as never }), JSON.stringify(appInfo)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'appInfo' }),
      );
    }
  });

  test('the runtime is named by what it has: Cloudflare Workers by its navigator, and one it cannot tell as unknown-runtime', async () => {
    const { makeClient, service } = await harness();
    for (const [navigator, runtime] of [
      [{ userAgent: 'Cloudflare-Workers' }, 'workerd'],
      [{ userAgent: 'Mozilla/5.0' }, 'unknown-runtime'],
      [undefined, 'unknown-runtime'],
    ] as const) {
      // Only while the client is made: that is when the header is written.
      vi.stubGlobal('process', { env: {} });
      vi.stubGlobal('navigator', navigator);
      let client: ReturnType<typeof makeClient>;
      try {
        client = makeClient();
      } finally {
        vi.unstubAllGlobals();
      }
      await client.status.health();
      expect(received(service, /status\/health/).at(-1)!.headers['user-agent']).toBe(`@acme/identity/${VERSION} ${runtime}`);
    }
  });

  test('a fetch option that is not a function is a ConfigurationError naming it', async () => {
    const { makeClient } = await harness();
    expect(() => makeClient({ fetch: 'https://proxy.example' as never })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_CONFIG', option: 'fetch' }),
    );
  });
});

describe('the raw response on success', () => {
  test('every result carries its status, headers and attempts, without changing what it compares or serialises to', async () => {
    const { client, service } = await harness();
    service.injectFault({ kind: 'status', status: 503, path: /^\/identity\/request\//, method: 'GET' });
    const created = await client.identityRequests.create(person(), { correlationId: 'corr-r' });
    expect(created.response).toMatchObject({ status: 200, attempts: 1 });
    expect(created.response!.headers.get('x-correlation-id')).toBe('corr-r');
    expect(Object.keys(created)).toEqual(['data', 'correlationId']);
    expect(JSON.parse(JSON.stringify(created))).toEqual({ data: created.data, correlationId: created.correlationId });
    const read = await client.identityRequests.get({
      accessRequestCode: created.data.access_request_code,
      identitySessionCode: created.data.identity_session_code,
    });
    expect(responseOf(read)).toMatchObject({ status: 200, attempts: 2 });
    const health = await client.status.health();
    expect(responseOf(health)?.status).toBe(200);
    expect(Object.keys(health)).not.toContain('response');
    expect(responseOf({})).toBeUndefined();
    expect((await client.auth.createToken()).response?.status).toBe(200);
  });
});
