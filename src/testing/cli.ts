#!/usr/bin/env node
/**
 * `npx acme-identity-sandbox`: the fake service on localhost, for trying an integration by hand.
 *
 *   acme-identity-sandbox [--port 4010] [--host 127.0.0.1] [--webhook-url URL]
 *                         [--redirect-uri URL]... [--journey page|auto] [--reading NAME=VALUE]...
 */
import { parseArgs } from 'node:util';
import { parseReadings, type FakeReadings } from './readings.js';
import { startSandbox, type Sandbox } from './sandbox.js';

const HELP = `acme-identity-sandbox: the acme identity service, faked, on localhost

Options:
  --port, -p N          port to listen on (default 4010; 0 for a free one)
  --host HOST           interface to listen on (default 127.0.0.1)
  --webhook-url URL     where signed webhooks are sent (default: none sent)
  --redirect-uri URL    a redirect URI of your app, for both OIDC clients (repeatable)
  --journey page|auto   the person approves on a page (default), or at once
  --write-env PATH      also write the ACME_* variables to PATH (a .env file; not
                        --env-file, which Node 20 takes for its own wherever it is)
  --reading NAME=VALUE  read a choice the spec leaves open another way (repeatable),
                        e.g. --reading webhookKind=none --reading numbers=string;
                        the names and values are READING_CHOICES in @acme/identity/testing
  --help, -h            this text

Commands to a running sandbox (acme-identity sandbox <command> [--url URL] [--json]):
  trigger [approved|partial|invalid|cancelled]
                                         create a request for a made-up person and settle it
                                         (its delivery is one your inbox never expected)
  approve <code> [approved|partial|invalid|cancelled]
                                         settle a request your application created: the
                                         delivery your inbox expects
  deliveries                             the webhook deliveries and your receiver's answers
  resend <n|code>                        send a delivery again, with a fresh X-Access-Token
  clock advance <30s|15m|2h|1d>          move the service's clock: tokens and requests expire
  rotate-key [--drop-old]                a new signing key in the JWKS
  fault <kind> [--status N] [--path P] [--times N]
                                         the next matching request fails as <kind> says

State lives in memory and goes with the process. Ctrl-C (or SIGTERM, to it or to
whatever launched it) stops it. Its home page lists what it serves and what is happening.`;

function fail(message: string): never {
  process.stderr.write(`acme-identity-sandbox: ${message}\n\n${HELP}\n`);
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      options: {
        port: { type: 'string', short: 'p', default: '4010' },
        host: { type: 'string', default: '127.0.0.1' },
        'webhook-url': { type: 'string' },
        'redirect-uri': { type: 'string', multiple: true, default: [] },
        journey: { type: 'string', default: 'page' },
        reading: { type: 'string', multiple: true, default: [] },
        'write-env': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return fail((error as Error).message);
  }
}

const values = parse();
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--port must be a port number, not ${JSON.stringify(values.port)}`);
if (values.journey !== 'page' && values.journey !== 'auto') fail('--journey must be page or auto');
for (const url of [values['webhook-url'], ...values['redirect-uri']]) {
  if (url !== undefined && !URL.canParse(url)) fail(`not an absolute URL: ${JSON.stringify(url)}`);
}

let readings: FakeReadings;
try {
  readings = parseReadings(values.reading);
} catch (error) {
  fail((error as Error).message);
}

let sandbox: Sandbox;
try {
  sandbox = await startSandbox({
    port,
    hostname: values.host,
    redirectUris: values['redirect-uri'],
    oidcJourney: values.journey,
    fake: { readings },
    // Each request, journey outcome and webhook delivery on the console (ACME_IDENTITY_LOG overrides),
    // one line each: the message says it all, the fields are for structured loggers.
    ...(process.env['ACME_IDENTITY_LOG'] ? {} : { logLevel: 'info' as const }),
    logger: {
      debug: (message: string) => console.debug(message),
      info: (message: string) => console.log(message),
      warn: (message: string) => console.warn(message),
      error: (message: string) => console.error(message),
    },
    ...(values['webhook-url'] ? { webhookUrl: values['webhook-url'] } : {}),
  });
} catch (error) {
  fail((error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? `port ${port} is in use (try --port 0)` : (error as Error).message);
}

// Before the banner: whoever waits for it may send a signal at once.
let stopping = false;
function stop(why: string) {
  if (stopping) return;
  stopping = true;
  sandbox.close().then(
    () => {
      process.stdout.write(`sandbox stopped (${why})\n`);
      process.exit(0);
    },
    () => process.exit(1),
  );
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal));
// Started by a launcher (npx, npm run, tsx) that dies without passing its signal on: this process
// is then given to another parent. Stop with it rather than serve on as an orphan.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop('its launcher exited');
}, 500).unref();

const c = sandbox.credentials;
const rows: [string, string][] = [
  ['base URL', sandbox.baseUrl],
  ['auth URL', sandbox.authUrl],
  ['OpenAPI', sandbox.specUrl],
  ['client id', c.clientId],
  ['client secret', c.clientSecret],
  ['tenant id', c.tenantId],
  ['webhook URL', values['webhook-url'] ?? '(none: --webhook-url)'],
  ['webhook secret', c.webhookSecret],
  ['OIDC client (browser)', `${c.oidcClientId} (public, PKCE)`],
  ['OIDC client (backend)', `${c.oidcBackendClientId} / ${c.oidcBackendClientSecret} (client_secret_basic)`],
  ['redirect URIs', c.redirectUris.join(' ')],
];
const width = Math.max(...rows.map(([name]) => name.length));
// The same, as the variables the README and the examples read: ready to paste, or a .env file.
const variables: [string, string][] = [
  ['ACME_BASE_URL', sandbox.baseUrl],
  ['ACME_AUTH_URL', sandbox.authUrl],
  ['ACME_CLIENT_ID', c.clientId],
  ['ACME_CLIENT_SECRET', c.clientSecret],
  ['ACME_TENANT_ID', c.tenantId],
  ['ACME_WEBHOOK_SECRET', c.webhookSecret],
  ['ACME_OIDC_CLIENT_ID', c.oidcClientId],
  ['ACME_OIDC_BACKEND_CLIENT_ID', c.oidcBackendClientId],
  ['ACME_OIDC_BACKEND_CLIENT_SECRET', c.oidcBackendClientSecret],
  ['ACME_SANDBOX_URL', sandbox.origin],
];
const exports = variables.map(([name, value]) => `export ${name}=${value}`).join('\n');
if (values['write-env']) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(values['write-env'], `${variables.map(([name, value]) => `${name}=${value}`).join('\n')}\n`);
}
process.stdout.write(
  `acme identity sandbox (sandbox credentials: use them nowhere else)\n  home page${' '.repeat(Math.max(0, width - 9))}  ${sandbox.origin}/\n${rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`).join('\n')}\n\nIn your shell (or --write-env .env):\n${exports}\n${values['write-env'] ? `(written to ${values['write-env']})\n` : ''}Ctrl-C to stop.\n`,
);
