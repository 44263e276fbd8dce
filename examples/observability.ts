/**
 * See what the SDK does: its logs through pino, its spans through OpenTelemetry, and a metrics
 * hook, with no secret in any of them.
 *
 * Configuration comes from the environment, as it would in a real backend:
 *   ACME_BASE_URL, ACME_CLIENT_ID, ACME_CLIENT_SECRET, ACME_TENANT_ID
 * `npm run demo` serves the fake service on localhost and sets them. In a real deployment,
 * `ACME_IDENTITY_LOG=debug` turns the same logs on without `logLevel` in the code.
 */
import { Writable } from 'node:stream';
import * as otel from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { AcmeIdentityClient, type Logger } from '@acme/identity';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

// pino, writing JSON lines (kept here, to check them below; in production, to your log shipper).
// On the console, each line as a person reads it: its level and message.
const lines: string[] = [];
const LEVELS: Record<number, string> = { 20: 'debug', 30: 'info', 40: 'warn', 50: 'error' };
const destination = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    const { level, msg } = JSON.parse(String(chunk)) as { level: number; msg: string };
    console.log(`log ${(LEVELS[level] ?? String(level)).padEnd(5)} ${msg}`);
    done();
  },
});
const log = pino({ level: 'debug', base: { service: 'rp-backend' } }, destination);
// pino takes the fields first: adapt its four methods.
const logger: Logger = {
  debug: (message, fields) => log.debug(fields, message),
  info: (message, fields) => log.info(fields, message),
  warn: (message, fields) => log.warn(fields, message),
  error: (message, fields) => log.error(fields, message),
};

// OpenTelemetry: your provider (an OTLP exporter in production; in memory here, to print the spans).
const exporter = new InMemorySpanExporter();
otel.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));

const acme = new AcmeIdentityClient({
  baseUrl: env('ACME_BASE_URL'),
  clientId: env('ACME_CLIENT_ID'),
  clientSecret: env('ACME_CLIENT_SECRET'),
  tenantId: env('ACME_TENANT_ID'),
  logger,
  logLevel: 'debug',
  openTelemetry: otel,
  hooks: {
    onResponse: (event) => console.log(`metrics: ${event.method} ${event.path} ${event.status ?? event.errorCode} ${event.durationMs} ms`),
  },
  appInfo: { name: 'observability-example', version: '1.0.0' },
});

const { data } = await acme.identityRequests.create({
  first_name: 'Jane',
  last_name: 'Citizen',
  email: 'jane.observed@example.com',
  phone: '412345999',
  phone_country_code: 61,
  purpose: 'account-opening',
  return_url: 'https://rp.example/verified',
  off_ramp_url: 'https://rp.example/later',
  claims: ['acmeidentity.given_name'],
});
await acme.status.health();
await acme.identityRequests.delete({ accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code });

console.log('\nspans:');
for (const span of exporter.getFinishedSpans()) {
  const kind = span.kind === otel.SpanKind.CLIENT ? 'attempt' : 'call   ';
  console.log(
    `  ${kind} ${span.name.padEnd(70)} ${String(span.attributes['http.response.status_code'] ?? span.attributes['acme.error_code'] ?? '')}`,
  );
}

// What an operator sees holds no secret: checked, as CI runs this example.
const seen = lines.join('') + JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes));
for (const secret of [
  env('ACME_CLIENT_SECRET'),
  env('ACME_TENANT_ID'),
  data.access_request_code,
  data.identity_session_code,
  'jane.observed',
  '412345999',
]) {
  if (seen.includes(secret)) throw new Error('a secret or personal value reached the logs or spans');
}
if (!lines.some((line) => line.includes('"path":"/identity/request"'))) throw new Error('the request was not logged');
if (exporter.getFinishedSpans().length === 0) throw new Error('no span was recorded');
console.log('\nno secret, code or personal value in the logs or spans');
