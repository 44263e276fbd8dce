/**
 * OpenTelemetry spans for the REST client, through the `@opentelemetry/api` module the application
 * passes in (`openTelemetry: api`). Nothing is imported here: without the option, nothing is
 * loaded and each call pays one `undefined` check.
 *
 * A span per call (`INTERNAL`, named `{method} {path template}`) and, as its children, a span per
 * attempt, to its response headers (`CLIENT`, named the same, HTTP semantic conventions: `http.request.method`, `url.template`,
 * `server.address`, `server.port`, `http.response.status_code`, `http.request.resend_count`,
 * `error.type`), with `acme.correlation_id`, `acme.retry_count` and `acme.error_code`. The trace
 * context is injected into each attempt's headers by the registered propagator. No attribute holds
 * a header, a body, a path value or a secret.
 */
import { VERSION } from '../version.js';

/**
 * The parts of an OpenTelemetry span the client uses. Declared here rather than imported, so the
 * SDK's types need no `@opentelemetry/api` installed (it is an optional peer dependency).
 */
export interface Span {
  updateName(name: string): unknown;
  setAttribute(key: string, value: string | number | boolean): unknown;
  setAttributes(attributes: Record<string, string | number | boolean>): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/**
 * The parts of `@opentelemetry/api` the client uses: pass the module itself. Written with method
 * signatures, whose parameters TypeScript compares both ways, so the real module (whose contexts
 * and carriers are its own types) fits without the SDK naming them.
 */
export interface OpenTelemetryApi {
  trace: {
    getTracer(name: string, version?: string): { startSpan(name: string, options?: object, context?: unknown): Span };
    setSpan(context: unknown, span: Span): unknown;
  };
  context: { active(): unknown };
  propagation: { inject(context: unknown, carrier: Headers, setter: { set(carrier: Headers, key: string, value: string): void }): void };
  SpanKind: { readonly INTERNAL: number; readonly CLIENT: number };
  SpanStatusCode: { readonly ERROR: number };
}

export class Tracing {
  readonly #api: OpenTelemetryApi;
  readonly #server: { address: string; port: number };

  constructor(api: OpenTelemetryApi, baseUrl: string) {
    this.#api = api;
    const url = new URL(baseUrl);
    this.#server = { address: url.hostname, port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) };
  }

  #tracer() {
    // Looked up at each call: a provider registered after the client was made is the one used.
    return this.#api.trace.getTracer('@acme/identity', VERSION);
  }

  /** The span of one logical call; named once its request is known. */
  startCall(correlationId: string): Span {
    return this.#tracer().startSpan('acme-identity call', {
      kind: this.#api.SpanKind.INTERNAL,
      attributes: { 'acme.correlation_id': correlationId },
    });
  }

  /** Names the call's span by its request, once known. */
  describeCall(span: Span, method: string, path: string): void {
    span.updateName(`${method} ${path}`);
    span.setAttributes({
      'http.request.method': method,
      'url.template': path,
      'server.address': this.#server.address,
      'server.port': this.#server.port,
    });
  }

  /** Ends the call's span: ok, or with the SDK error code that ended it. */
  endCall(span: Span, attempts: number, errorCode: string | undefined): void {
    span.setAttribute('acme.retry_count', Math.max(0, attempts - 1));
    if (errorCode !== undefined) {
      span.setAttributes({ 'acme.error_code': errorCode, 'error.type': errorCode });
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: errorCode });
    }
    span.end();
  }

  /** A span for one attempt, a child of the call's, whose context is injected into `headers`. */
  startAttempt(parent: Span, method: string, path: string, attempt: number, headers: Headers): Span {
    const api = this.#api;
    const parentContext = api.trace.setSpan(api.context.active(), parent);
    const span = this.#tracer().startSpan(
      `${method} ${path}`,
      {
        kind: api.SpanKind.CLIENT,
        attributes: {
          'http.request.method': method,
          'url.template': path,
          'server.address': this.#server.address,
          'server.port': this.#server.port,
          ...(attempt > 1 ? { 'http.request.resend_count': attempt - 1 } : {}),
        },
      },
      parentContext,
    );
    api.propagation.inject(api.trace.setSpan(parentContext, span), headers, { set: (carrier, key, value) => carrier.set(key, value) });
    return span;
  }

  /** Ends an attempt's span with its status, or with the failure that ended it. */
  endAttempt(span: Span, status: number | undefined, errorType: string | undefined): void {
    if (status !== undefined) span.setAttribute('http.response.status_code', status);
    const error = errorType ?? (status !== undefined && status >= 400 ? String(status) : undefined);
    if (error !== undefined) {
      span.setAttribute('error.type', error);
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR });
    }
    span.end();
  }
}
