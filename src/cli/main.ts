#!/usr/bin/env node
/**
 * `acme-identity`: the integrator's command.
 *
 *   acme-identity doctor [--base-url URL] [--auth-url URL] [--client-id ID] [--tenant-id ID] [--timestamp-format F] [--strict] [--json]
 *   acme-identity check-receiver <url> [--secret S] [--scheme prefixed-hex|hex|base64|stripe|standard] [--json]
 *   acme-identity decode <token> [--json]
 *   acme-identity verify <token> [--auth-url URL] [--allow-insecure-requests] [--json]
 *   acme-identity webhook verify [--secret S] [--signature V] < delivery
 *   acme-identity sandbox [options of acme-identity-sandbox]
 *   acme-identity sandbox trigger|approve|deliveries|resend|clock|rotate-key|fault … [--url URL]   (control.ts)
 *
 * Configuration comes from the flags or the ACME_* variables. Secrets (the client secret, the
 * webhook secret) are read from the environment when not given, and never printed. Exit codes: 0
 * all checks passed, 1 a check failed, 2 a usage error, 3 (doctor) checks skipped for missing
 * settings.
 */
import { cac } from 'cac';
import { VERSION } from '../version.js';
import { checkReceiver, type SigningScheme } from './check-receiver.js';
import { CONTROL_VERBS, formatControl, sendControl } from './control.js';
import { decodeToken, formatDecoded } from './decode.js';
import { AcmeIdentityClient } from '../index.js';
import {
  DOCTOR_CLIENT_OPTIONS,
  formatReport,
  reportOf,
  type DoctorClientOptions,
  type DoctorConfig,
  type DoctorOutcome,
} from './doctor.js';
import { runDoctorWithReceiver } from './doctor-webhook.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { createOidcClient } from '../oidc/index.js';
import { postgresInboxMigration } from '../postgres/inbox.js';
import { claimTypesDeclaration, declaredClaimKeys } from './types.js';
import { parseDelivery, verifyDelivery, verifyToken, type VerifyOutcome } from './verify.js';

/** doctor's exit codes: 0 every check passed (warnings too, unless --strict), 1 a check failed, 3 checks skipped for missing settings. */
const DOCTOR_EXIT: Record<DoctorOutcome, number> = { ok: 0, warnings: 0, incomplete: 3, failed: 1 };

const env = (name: string): string | undefined => {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
};
const color = () => Boolean(process.stdout.isTTY) && env('NO_COLOR') === undefined;

function usage(message: string): never {
  process.stderr.write(`acme-identity: ${message}\nRun acme-identity --help for the commands.\n`);
  process.exit(2);
}

const cli = cac('acme-identity');

cli
  .command('doctor', 'Check a deployment: URL, health, token, tenant, clock, OIDC, JWKS, the contract (reads only)')
  .option('--base-url <url>', 'the REST base URL, https://…/api/v1 (ACME_BASE_URL)')
  .option('--auth-url <url>', "the OIDC issuer (ACME_AUTH_URL; default: the base URL's origin)")
  .option('--client-id <id>', 'the API client id (ACME_CLIENT_ID); the secret is read from ACME_CLIENT_SECRET')
  .option('--tenant-id <id>', 'the tenant (ACME_TENANT_ID)')
  .option('--timestamp-format <format>', 'X-Request-Timestamp as unix-seconds, unix-ms or iso8601 (ACME_TIMESTAMP_FORMAT)')
  .option(
    '--client-option <name=value>',
    `another client option your application sets, repeatable: ${DOCTOR_CLIENT_OPTIONS.join(', ')} (ACME_CLIENT_OPTIONS, name=value,…)`,
  )
  .option('--types <file>', 'your claim declaration file (acme-identity types): warn only of offered claims it lacks')
  .option('--timeout <ms>', 'per request, in ms', { default: 10_000 })
  .option('--strict', 'exit 1 on warnings too')
  .option('--journey', 'also create an identity request for a made-up person, read it back and delete it (a test tenant)')
  .option('--journey-purpose <purpose>', "the journey request's purpose, one the service allows (ACME_JOURNEY_PURPOSE)")
  .option(
    '--webhook <url>',
    'also check your webhook endpoint as check-receiver does (the secret in ACME_WEBHOOK_SECRET; its deliveries are marked as tests)',
  )
  .option('--webhook-scheme <scheme>', 'how those deliveries are signed: prefixed-hex, hex, base64, stripe or standard', {
    default: 'prefixed-hex',
  })
  .option('--json', 'the report as JSON (schemaVersion 1), for CI')
  .example('ACME_CLIENT_SECRET=… acme-identity doctor --base-url https://identity.example/api/v1 --client-id … --tenant-id …')
  .action(
    async (options: {
      baseUrl?: string;
      authUrl?: string;
      clientId?: string;
      tenantId?: string;
      timestampFormat?: string;
      clientOption?: string | string[];
      types?: string;
      timeout: number;
      strict?: boolean;
      journey?: boolean;
      journeyPurpose?: string;
      webhook?: string;
      webhookScheme: string;
      json?: boolean;
    }) => {
      const baseUrl = options.baseUrl ?? env('ACME_BASE_URL');
      if (!baseUrl) usage('doctor needs --base-url (or ACME_BASE_URL)');
      const timestampFormat = options.timestampFormat ?? env('ACME_TIMESTAMP_FORMAT');
      if (timestampFormat !== undefined && !['unix-seconds', 'unix-ms', 'iso8601'].includes(timestampFormat))
        usage(`--timestamp-format ${timestampFormat} is not one of unix-seconds, unix-ms, iso8601`);
      const webhook = options.webhook === undefined ? undefined : receiverOptions(options.webhook, options.webhookScheme);
      const report = await runDoctorWithReceiver(
        {
          baseUrl,
          authUrl: options.authUrl ?? env('ACME_AUTH_URL'),
          clientId: options.clientId ?? env('ACME_CLIENT_ID'),
          clientSecret: env('ACME_CLIENT_SECRET'),
          tenantId: options.tenantId ?? env('ACME_TENANT_ID'),
          timeoutMs: Number(options.timeout),
          timestampFormat: timestampFormat as DoctorConfig['timestampFormat'],
          journey: options.journey === true,
          journeyPurpose: options.journeyPurpose ?? env('ACME_JOURNEY_PURPOSE'),
          clientOptions: clientOptionsOf(options.clientOption ?? env('ACME_CLIENT_OPTIONS')?.split(',') ?? []),
          declaredClaims: options.types === undefined ? undefined : declaredClaimKeys(readText(options.types)),
        },
        webhook,
      );
      process.stdout.write(`${options.json ? JSON.stringify(report, null, 2) : formatReport(report, color())}\n`);
      process.exitCode = DOCTOR_EXIT[report.outcome] + (options.strict && report.outcome === 'warnings' ? 1 : 0);
    },
  );

/**
 * `name=value` pairs as client options: `true`/`false` as booleans, numbers as numbers, the rest
 * as given. A name doctor does not take, or a value the client refuses, is a usage error naming it.
 */
function clientOptionsOf(pairs: string | string[]): DoctorClientOptions {
  const options: Record<string, unknown> = {};
  for (const pair of [pairs].flat().filter((given) => given.trim() !== '')) {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    const text = pair.slice(at + 1).trim();
    if (at < 1 || !(DOCTOR_CLIENT_OPTIONS as readonly string[]).includes(name))
      usage(`--client-option ${pair}: give name=value, the name one of ${DOCTOR_CLIENT_OPTIONS.join(', ')}`);
    options[name] = optionValue(text);
  }
  try {
    // The client checks the values as it would in your application.
    new AcmeIdentityClient({ baseUrl: 'https://doctor.invalid/api/v1', clientId: 'c', clientSecret: 's', tenantId: 't', ...options });
  } catch (error) {
    usage(`--client-option: ${error instanceof Error ? error.message : String(error)}`);
  }
  return options as DoctorClientOptions;
}

/** A file's text, or a usage error naming it. */
function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    usage(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** A value as written on the command line: `true`, `false`, a number, or the text itself. */
function optionValue(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text !== '' && Number.isFinite(Number(text))) return Number(text);
  return text;
}

/** check-receiver's options from the command line: the URL and scheme checked, the secret from --secret or ACME_WEBHOOK_SECRET. */
function receiverOptions(
  url: string,
  scheme: string,
  secret = env('ACME_WEBHOOK_SECRET'),
): { url: string; secret: string; scheme: SigningScheme } {
  if (!secret) usage('checking a webhook endpoint needs its secret: --secret (check-receiver) or ACME_WEBHOOK_SECRET');
  if (!['prefixed-hex', 'hex', 'base64', 'stripe', 'standard'].includes(scheme))
    usage(`--scheme ${scheme} is not one of prefixed-hex, hex, base64, stripe, standard`);
  try {
    new URL(url);
  } catch {
    usage(`${url} is not a URL`);
  }
  return { url, secret, scheme: scheme as SigningScheme };
}

cli
  .command('check-receiver <url>', 'Fire signed deliveries at your webhook endpoint (and only there) and check its answers')
  .option('--secret <secret>', 'the webhook secret your endpoint verifies with (ACME_WEBHOOK_SECRET)')
  .option('--scheme <scheme>', 'how deliveries are signed: prefixed-hex, hex, base64, stripe or standard', { default: 'prefixed-hex' })
  .option('--header <name>', 'the signature header', { default: 'X-Webhook-Signature' })
  .option('--handler-failure <code>', 'an access_request_code your test handler throws for: its delivery must be answered 5xx')
  .option('--json', 'the results as JSON, for CI')
  .example('ACME_WEBHOOK_SECRET=whsec_… acme-identity check-receiver http://localhost:3000/webhooks/acme')
  .action(async (url: string, options: { secret?: string; scheme: string; header: string; handlerFailure?: string; json?: boolean }) => {
    const checks = await checkReceiver({
      ...receiverOptions(url, options.scheme, options.secret ?? env('ACME_WEBHOOK_SECRET')),
      header: options.header,
      ...(options.handlerFailure ? { failingCode: options.handlerFailure } : {}),
    });
    const report = reportOf(checks);
    process.stdout.write(`${options.json ? JSON.stringify(report, null, 2) : formatReport(report, color())}\n`);
    process.exitCode = report.outcome === 'failed' ? 1 : 0;
  });

cli
  .command('decode <token>', 'Take a JWT or an SD-JWT apart: header, payload, disclosures and their digests (not verified)')
  .option('--json', 'as JSON')
  .action((token: string, options: { json?: boolean }) => {
    try {
      const decoded = decodeToken(token);
      process.stdout.write(`${options.json ? JSON.stringify(decoded, null, 2) : formatDecoded(decoded)}\n`);
    } catch (error) {
      usage(error instanceof Error ? error.message : String(error));
    }
  });

cli
  .command('verify <token>', "Verify a JWT or an SD-JWT against the issuer's JWKS (found through discovery)")
  .option('--auth-url <url>', 'the OIDC issuer (ACME_AUTH_URL)')
  .option('--allow-insecure-requests', 'read the keys over http: from a host other than localhost (a sandbox in a container network)')
  .option('--json', 'the outcome as JSON')
  .action(async (token: string, options: { authUrl?: string; allowInsecureRequests?: boolean; json?: boolean }) => {
    const authUrl = options.authUrl ?? env('ACME_AUTH_URL');
    if (!authUrl) usage('verify needs --auth-url (or ACME_AUTH_URL)');
    report(await verifyToken(token, authUrl, { allowInsecureRequests: options.allowInsecureRequests === true }), options.json);
  });

cli
  .command('webhook <action>', 'webhook verify: check a saved delivery (headers, a blank line, the raw body) read from stdin')
  .option('--secret <secret>', 'the webhook secret (ACME_WEBHOOK_SECRET)')
  .option('--signature <value>', 'the X-Webhook-Signature value, when stdin holds the raw body alone')
  .option('--scheme <scheme>', 'auto, hmac, stripe or standard', { default: 'auto' })
  .option('--json', 'the outcome as JSON')
  .example('acme-identity webhook verify --secret whsec_… < delivery.http')
  .action(async (action: string, options: { secret?: string; signature?: string; scheme: string; json?: boolean }) => {
    if (action !== 'verify') usage(`webhook ${action}: the action is verify`);
    const secret = options.secret ?? env('ACME_WEBHOOK_SECRET');
    if (!secret) usage('webhook verify needs --secret (or ACME_WEBHOOK_SECRET)');
    if (!['auto', 'hmac', 'stripe', 'standard'].includes(options.scheme)) usage('--scheme is one of auto, hmac, stripe, standard');
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    let delivery: ReturnType<typeof parseDelivery>;
    try {
      delivery = parseDelivery(Buffer.concat(chunks).toString('utf8'), options.signature);
    } catch (error) {
      usage(error instanceof Error ? error.message : String(error));
    }
    report(await verifyDelivery(delivery, secret, { scheme: options.scheme as 'auto' }), options.json);
  });

cli
  .command('types', "Write a declaration file typing the claim keys the deployment offers beyond the spec's (from its discovery)")
  .option('--auth-url <url>', 'the OIDC issuer (ACME_AUTH_URL)')
  .option('--out <file>', 'where to write it (default: standard output)')
  .example('acme-identity types --auth-url https://auth.acme.example --out src/acme-claims.d.ts')
  .action(async (options: { authUrl?: string; out?: string }) => {
    const authUrl = options.authUrl ?? env('ACME_AUTH_URL');
    if (!authUrl) usage('types needs --auth-url (or ACME_AUTH_URL)');
    let offered: readonly string[];
    try {
      offered = await createOidcClient({
        authUrl,
        clientId: 'acme-identity-types',
        redirectUri: 'https://types.invalid/',
      }).supportedClaims();
    } catch (error) {
      process.stderr.write(
        `acme-identity: the issuer's discovery could not be read: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exitCode = 1;
      return;
    }
    const { text, added } = claimTypesDeclaration(offered, authUrl);
    if (options.out) {
      writeFileSync(options.out, text);
      process.stderr.write(
        `${options.out}: ${added.length} claim key${added.length === 1 ? '' : 's'} beyond the spec's${added.length ? ` (${added.join(', ')})` : ''}\n`,
      );
    } else process.stdout.write(text);
  });

cli
  .command('inbox <action>', "inbox migration: print the SQL of the identity inbox's PostgreSQL tables, for your own migration tool")
  .option('--prefix <prefix>', "prepended to the tables' names: a schema (myschema.) or a start (acme_)", { default: 'acme_identity_' })
  .example('acme-identity inbox migration --prefix identity. > migrations/0007_identity_inbox.sql')
  .action((action: string, options: { prefix: string }) => {
    if (action !== 'migration') usage(`inbox ${action}: the action is migration`);
    try {
      process.stdout.write(postgresInboxMigration(String(options.prefix)));
    } catch (error) {
      usage(error instanceof Error ? error.message : String(error));
    }
  });

/** A verification's outcome: ✓ or ✗ with the code; exit 1 when refused. */
function report(outcome: VerifyOutcome, json?: boolean): void {
  const mark = outcome.ok ? '✓' : '✗';
  process.stdout.write(
    `${json ? JSON.stringify(outcome, null, 2) : `${mark} ${outcome.code ? `${outcome.code}: ` : ''}${outcome.message}`}\n`,
  );
  process.exitCode = outcome.ok ? 0 : 1;
}

cli
  .command(
    'sandbox',
    'The fake service on localhost, with a page where you play the person (same as acme-identity-sandbox; --help for its options)',
  )
  .allowUnknownOptions()
  .action(runSandbox);

/** The sandbox command reads its own options (its --help included) from process.argv: it gets everything after `sandbox`. */
async function runSandbox(): Promise<void> {
  process.argv = [...process.argv.slice(0, 2), ...process.argv.slice(3)];
  await import('../testing/cli.js');
}

cli.help();
cli.version(VERSION);

if (process.argv[2] === 'sandbox' && (CONTROL_VERBS as readonly string[]).includes(process.argv[3] ?? '')) {
  // A command to a running sandbox.
  const args = process.argv.slice(3);
  const at = args.indexOf('--url');
  const url = (at >= 0 ? args[at + 1] : undefined) ?? env('ACME_SANDBOX_URL') ?? 'http://127.0.0.1:4010';
  try {
    const { status, body } = await sendControl(url, args);
    process.stdout.write(`${args.includes('--json') ? JSON.stringify(body, null, 2) : formatControl(body)}\n`);
    process.exitCode = status < 400 ? 0 : 1;
  } catch (error) {
    if (error instanceof TypeError && !(error.cause instanceof Error)) usage(error.message);
    process.stderr.write(`acme-identity: no sandbox answered at ${url} (start one: acme-identity sandbox; or --url)\n`);
    process.exitCode = 1;
  }
} else if (process.argv[2] === 'sandbox') {
  // Before cac, which would answer `sandbox --help` with its own help.
  await runSandbox();
} else {
  try {
    const parsed = cli.parse(process.argv, { run: false });
    if (!cli.matchedCommand && parsed.args.length > 0) usage(`unknown command ${parsed.args[0]}`);
    if (!cli.matchedCommand && !parsed.options['help'] && !parsed.options['version']) cli.outputHelp();
    if (cli.matchedCommand && !parsed.options['help']) await cli.runMatchedCommand();
  } catch (error) {
    usage(error instanceof Error ? error.message : String(error));
  }
}
