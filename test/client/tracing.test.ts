/** OpenTelemetry spans (#15): a span per call and per attempt, HTTP semantic conventions, trace context propagated, nothing secret. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as api from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConfigurationError } from '../../src/index.js';
import { DEFAULT_CLIENT } from '../../src/testing/index.js';
import { Tracing } from '../../src/internal/tracing.js';
import { harness, person, received, rejection } from '../helpers.js';

const exporter = new InMemorySpanExporter();
beforeAll(() => {
  api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(() => {
  api.trace.disable();
  api.propagation.disable();
});
beforeEach(() => exporter.reset());

const spans = () => exporter.getFinishedSpans();

describe('tracing', () => {
  test('a call span with its attempts as children: method, url.template, server, status, resend count, retry count', async () => {
    const { client, service } = await harness({ client: { openTelemetry: api } });
    service.injectFault({ kind: 'status', status: 503, path: '/status/health' });
    await client.status.health({ correlationId: 'corr-t' });
    const [first, second, call] = spans();
    expect(call).toMatchObject({ name: 'GET /status/health', kind: api.SpanKind.INTERNAL });
    expect(call!.attributes).toMatchObject({
      'acme.correlation_id': 'corr-t',
      'acme.retry_count': 1,
      'http.request.method': 'GET',
      'url.template': '/status/health',
      'server.address': 'api.acme.test',
      'server.port': 443,
    });
    for (const attempt of [first!, second!]) {
      expect(attempt).toMatchObject({ name: 'GET /status/health', kind: api.SpanKind.CLIENT });
      expect(attempt.parentSpanContext?.spanId).toBe(call!.spanContext().spanId);
      expect(attempt.spanContext().traceId).toBe(call!.spanContext().traceId);
    }
    expect(first!.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' });
    // The first attempt is no resend: it carries no resend count at all (the conventions' rule).
    expect(first!.attributes).not.toHaveProperty('http.request.resend_count');
    expect(first!.status.code).toBe(api.SpanStatusCode.ERROR);
    expect(second!.attributes).toMatchObject({ 'http.response.status_code': 200, 'http.request.resend_count': 1 });
    expect(call!.status.code).toBe(api.SpanStatusCode.UNSET);
    // The attempt's trace context went to the service.
    const sent = received(service, /status\/health/);
    expect(sent[1]!.headers['traceparent']).toBe(`00-${second!.spanContext().traceId}-${second!.spanContext().spanId}-01`);
  });

  test("server.port is the base URL's port, or its scheme's default: 443 for https:, 80 for http:", () => {
    for (const [baseUrl, address, port] of [
      ['https://api.acme.test/api/v1', 'api.acme.test', 443],
      ['http://localhost/api/v1', 'localhost', 80],
      ['http://127.0.0.1:8080/api/v1', '127.0.0.1', 8080],
      ['https://api.acme.test:8443/api/v1', 'api.acme.test', 8443],
    ] as const) {
      exporter.reset();
      const tracing = new Tracing(api, baseUrl);
      const span = tracing.startCall('corr');
      tracing.describeCall(span, 'GET', '/status/health');
      tracing.endCall(span, 1, undefined);
      expect([baseUrl, spans()[0]?.attributes]).toEqual([
        baseUrl,
        expect.objectContaining({ 'server.address': address, 'server.port': port }),
      ]);
    }
  });

  test('a failed call ends its span with the SDK error code; no attribute holds a secret, a code or a personal value', async () => {
    const { client } = await harness({ client: { openTelemetry: api } });
    const { data } = await client.identityRequests.create(person());
    await rejection(client.identityRequests.create(person()));
    const failed = spans()
      .filter((s) => s.name === 'POST /identity/request' && s.kind === api.SpanKind.INTERNAL)
      .at(-1)!;
    expect(failed.attributes).toMatchObject({ 'acme.error_code': 'ERR_CONFLICT', 'error.type': 'ERR_CONFLICT' });
    expect(failed.status).toMatchObject({ code: api.SpanStatusCode.ERROR, message: 'ERR_CONFLICT' });
    await client.identityRequests.get({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });
    const text = JSON.stringify(spans().map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })));
    expect(text).toContain('/identity/request/{access_request_code}/{identity_session_code}');
    for (const secret of [
      data.access_request_code,
      data.identity_session_code,
      DEFAULT_CLIENT.clientSecret,
      DEFAULT_CLIENT.tenantId,
      'jane',
    ]) {
      expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
    }
  });

  test('an attempt answered with any status from 400 up is an error span, named by its status; below 400 it is not', async () => {
    const { client, service } = await harness({ client: { openTelemetry: api } });
    for (const status of [400, 404, 399]) {
      exporter.reset();
      service.injectFault({ kind: 'status', status, path: '/status/health' });
      await client.status.health().catch(() => undefined);
      const attempt = spans().find((s) => s.kind === api.SpanKind.CLIENT)!;
      expect(attempt.attributes['http.response.status_code']).toBe(status);
      if (status >= 400) {
        expect(attempt.attributes['error.type']).toBe(String(status));
        expect(attempt.status.code).toBe(api.SpanStatusCode.ERROR);
      } else {
        expect(attempt.attributes).not.toHaveProperty('error.type');
        expect(attempt.status.code).toBe(api.SpanStatusCode.UNSET);
      }
    }
  });

  test('a call that times out ends its span with ERR_TIMEOUT at the deadline', async () => {
    const { client, service } = await harness({ client: { openTelemetry: api } });
    service.injectFault({ kind: 'hang', path: '/status/current' });
    await rejection(client.status.current({ timeoutMs: 200 }));
    const call = spans().find((s) => s.name === 'GET /status/current' && s.kind === api.SpanKind.INTERNAL)!;
    expect(call.attributes['acme.error_code']).toBe('ERR_TIMEOUT');
    // Its attempt, cut by the same deadline, says the same (it said ERR_ABORTED, while its onResponse event said ERR_TIMEOUT).
    await expect
      .poll(() => spans().find((s) => s.name === 'GET /status/current' && s.kind === api.SpanKind.CLIENT)?.attributes['error.type'])
      .toBe('ERR_TIMEOUT');
  });

  test('a call its caller aborts ends its span with ERR_ABORTED, not ERR_TIMEOUT', async () => {
    const { client, service } = await harness({ client: { openTelemetry: api } });
    service.injectFault({ kind: 'hang', path: '/status/current' });
    const controller = new AbortController();
    const call = client.status.current({ signal: controller.signal, timeoutMs: 60_000 });
    setTimeout(() => controller.abort(new Error('the person left the page')), 50);
    expect(await rejection(call)).toMatchObject({ code: 'ERR_ABORTED' });
    await expect.poll(() => spans().find((s) => s.kind === api.SpanKind.INTERNAL)?.attributes['acme.error_code']).toBe('ERR_ABORTED');
  });

  test("an error the SDK did not make ends the span as ERR_UNKNOWN, whatever code it carries: a span's code is one of the SDK's", async () => {
    const { makeClient } = await harness({ client: { openTelemetry: api } });
    // A fetch of the caller's that answers something whose headers throw an error of its own, with a code of its own.
    const foreign = Object.assign(new Error('headers unreadable'), { code: 'EHEADERS' });
    const answer = {
      status: 200,
      ok: true,
      type: 'basic',
      headers: {
        get: () => {
          throw foreign;
        },
      },
    };
    const client = makeClient({ fetch: async () => answer as never });
    const error = await rejection(client.status.health());
    expect(error).toBe(foreign);
    await expect
      .poll(() => spans().find((s) => s.name === 'GET /status/health' && s.kind === api.SpanKind.INTERNAL)?.attributes['acme.error_code'])
      .toBe('ERR_UNKNOWN');
  });

  test('without openTelemetry, no span is made; something that is not the API is a ConfigurationError', async () => {
    const { client, makeClient } = await harness();
    await client.status.health();
    expect(spans()).toEqual([]);
    // Each part it needs, missing in turn: never a TypeError from reading into it.
    const fn = () => undefined;
    for (const given of [
      {},
      null,
      'api',
      { trace: { getTracer: fn } },
      { propagation: { inject: fn } },
      { trace: {}, propagation: { inject: fn } },
    ]) {
      let thrown: unknown;
      try {
        makeClient({ openTelemetry: given as never });
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(given)).toBeInstanceOf(ConfigurationError);
      expect(thrown).toMatchObject({ option: 'openTelemetry' });
    }
  });
});
