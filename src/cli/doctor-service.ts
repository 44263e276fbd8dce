/**
 * Doctor's checks through the SDK's own client: the status records, a token with the key pair, the
 * tenant and the timestamp format, and (asked for) an identity request's life. Each reads what the
 * client resolves, so a ✓ is what an application gets; where the client refuses, the check fails
 * and names the setting that would fix it.
 */
import {
  type AcmeIdentityClient,
  AcmeIdentityError,
  ApiError,
  AuthenticationError,
  NotFoundError,
  ServiceUnavailableError,
  ValidationError,
  type StoredToken,
  type TimestampFormat,
  type TokenStore,
} from '../index.js';
import type { ClientMaker, DoctorConfig } from './doctor-config.js';
import { PROBE_CODES } from './doctor-probes.js';
import { refusal, type Check } from './report.js';

/** A token store that keeps what the client's token manager decided: the lifetime it will use. */
function keptToken(): TokenStore & { last: StoredToken | undefined } {
  const store = {
    last: undefined as StoredToken | undefined,
    get: () => store.last,
    set: (_key: string, token: StoredToken) => {
      store.last = token;
    },
  };
  return store;
}

const TIMESTAMP_FORMATS = ['unix-seconds', 'unix-ms', 'iso8601'] as const;

/** What to do when the token endpoint refuses the key pair, by its status. */
const TOKEN_ADVICE: Partial<Record<number, string>> = {
  401: 'the client id or secret is wrong (or revoked): copy them again from the operator portal',
  403: 'the key pair is valid but not allowed: ask the service to enable API access for it',
};

/** The status records, read by the client's own `status` methods: what they resolve is what an application gets. */
export async function checkStatus(client: AcmeIdentityClient, add: (check: Check) => void): Promise<void> {
  try {
    const health = await client.status.health();
    // Every field of the record is optional: a field not stated says nothing is wrong. A status
    // other than healthy, or a database reported as not connected, is a warning of its own.
    const unwell = health.status !== undefined && health.status !== 'healthy';
    const databaseDown = health.database !== undefined && health.database !== 'connected';
    const advice = [
      ...(unwell ? [`the service reports itself ${String(health.status)}`] : []),
      ...(databaseDown ? [`the service reports its database ${String(health.database)}`] : []),
    ];
    add({
      name: 'health',
      status: advice.length > 0 ? 'warn' : 'ok',
      detail: `read by the SDK: status ${health.status ?? 'not stated'}, database ${health.database ?? 'not stated'}`,
      ...(advice.length > 0 ? { advice: advice.join('; ') } : {}),
    });
  } catch (error) {
    if (error instanceof ServiceUnavailableError) {
      add({ name: 'health', status: 'warn', detail: 'the service says it is unavailable (503)', advice: 'try again later' });
    } else {
      add({
        name: 'health',
        status: 'fail',
        detail: `the SDK cannot read GET /status/health: ${refusal(error)}`,
        advice:
          error instanceof NotFoundError
            ? 'check the base URL (it must end in /api/v1)'
            : 'status.health() fails the same way in your application',
      });
    }
  }
  try {
    const current = await client.status.current();
    add({ name: 'version', status: 'ok', detail: `read by the SDK: API version ${current.components?.api?.version ?? 'not stated'}` });
  } catch (error) {
    add({
      name: 'version',
      status: 'fail',
      detail: `the SDK cannot read GET /status/current: ${refusal(error)}`,
      advice: 'status.current() fails the same way in your application',
    });
  }
}

/** A token with the key pair (its lifetime as the client decides it), then the tenant and the timestamp format through a read. */
export async function checkCredentials(
  config: DoctorConfig,
  clientWith: ClientMaker,
  warnings: string[],
  add: (check: Check) => void,
): Promise<void> {
  const missing = [
    ['ACME_CLIENT_ID', config.clientId],
    ['ACME_CLIENT_SECRET', config.clientSecret],
    ['ACME_TENANT_ID', config.tenantId],
  ].filter(([, value]) => !value);
  if (missing.length > 0) {
    const names = missing.map(([name]) => name).join(', ');
    for (const name of ['API token', 'tenant'])
      add({
        name,
        status: 'skip',
        detail: `not checked: ${names} not set`,
        advice: `set ${names} (or the flags) to check them; a run with checks skipped is incomplete (exit 3)`,
      });
    return;
  }
  const format = config.timestampFormat ?? 'unix-seconds';
  const kept = keptToken();
  const client = clientWith(format, kept);
  const before = warnings.length;
  try {
    await client.auth.accessToken();
    const token = kept.last;
    const lifetime = token ? Math.round((token.expiresAt - token.obtainedAt) / 1000) : undefined;
    const ignored = warnings.slice(before).filter((line) => line.startsWith('token lifetime'));
    add({
      name: 'API token',
      status: ignored.length ? 'warn' : 'ok',
      detail: `issued with the key pair; the SDK uses a lifetime of ${lifetime ?? '?'} s${ignored.length ? ` (${ignored.join('; ')})` : ''}`,
      ...(ignored.length
        ? {
            advice:
              'the service states its token lifetime in a form no reader can trust: tell its operators; the SDK uses the unambiguous source',
            option: 'tokenLifetime',
          }
        : {}),
    });
  } catch (error) {
    add({
      name: 'API token',
      status: 'fail',
      detail: `refused: ${error instanceof AcmeIdentityError ? error.code : 'no answer'}`,
      advice:
        TOKEN_ADVICE[error instanceof ApiError ? error.status : 0] ?? 'see the error code; the token endpoint is POST /auth/api-token',
    });
    return;
  }
  if (!(await checkTenant(client, format, clientWith, config.clientOptions?.correctClockSkew === false, add))) return;
  if (config.journey) await checkJourney(client, config.journeyPurpose ?? 'identity verification', add);
}

/**
 * An identity request's life through the SDK, on the service: created (with the SDK's defaults),
 * read back field by field, deleted. What was created is deleted whatever fails after it.
 */
async function checkJourney(client: AcmeIdentityClient, purpose: string, add: (check: Check) => void): Promise<void> {
  const person = {
    first_name: 'Doctor',
    last_name: 'Probe',
    email: `doctor.probe.${Date.now().toString(36)}@example.com`,
    phone: '400000000',
    phone_country_code: 61,
    purpose,
    return_url: 'https://example.com/acme-identity-doctor/return',
    off_ramp_url: 'https://example.com/acme-identity-doctor/off-ramp',
    send_email: false,
    expiry_hours: 1,
    claims: ['acmeidentity.given_name' as const],
  };
  let codes: { accessRequestCode: string; identitySessionCode: string };
  try {
    const { data } = await client.identityRequests.create(person);
    codes = { accessRequestCode: data.access_request_code, identitySessionCode: data.identity_session_code };
    add({ name: 'journey: create', status: 'ok', detail: 'an identity request created by the SDK (no email sent, expiring in an hour)' });
  } catch (error) {
    const fields = error instanceof ValidationError ? error.fields : [];
    add({
      name: 'journey: create',
      status: 'fail',
      detail: `refused: ${refusal(error)}`,
      advice: fields.includes('purpose')
        ? 'the service refuses the purpose: pass one it allows (--journey-purpose, ACME_JOURNEY_PURPOSE)'
        : 'identityRequests.create fails the same way in your application',
    });
    return;
  }
  try {
    const { data } = await client.identityRequests.get(codes);
    const sent: Record<string, unknown> = person;
    const received: Record<string, unknown> = data;
    const differs = ['first_name', 'last_name', 'email', 'phone', 'phone_country_code', 'purpose'].filter(
      (field) => received[field] !== undefined && received[field] !== sent[field],
    );
    const codeKnown = data.request_code === undefined || [codes.accessRequestCode, codes.identitySessionCode].includes(data.request_code);
    const problems = [...differs.map((field) => `${field} differs`), ...(codeKnown ? [] : ['request_code is neither code'])];
    add(
      problems.length === 0
        ? { name: 'journey: read back', status: 'ok', detail: 'read by the SDK: the fields as sent, request_code one of the two codes' }
        : {
            name: 'journey: read back',
            status: 'fail',
            detail: `read by the SDK, but ${problems.join(', ')}`,
            advice: 'tell the operator: the service does not give back what it was sent',
          },
    );
  } catch (error) {
    add({ name: 'journey: read back', status: 'fail', detail: `the SDK cannot read it back: ${refusal(error)}` });
  } finally {
    try {
      await client.identityRequests.delete(codes);
      add({ name: 'journey: delete', status: 'ok', detail: 'deleted: nothing is left behind on the service' });
    } catch (error) {
      add({
        name: 'journey: delete',
        status: 'fail',
        detail: `could not delete it: ${refusal(error)}`,
        advice: 'the request is left on the service: it expires within the hour, or ask the operator to delete it',
      });
    }
  }
}

/** A read of codes that cannot exist: a 404 proves the tenant and the timestamp format; a 401 is told apart by trying the other formats. */
async function checkTenant(
  client: AcmeIdentityClient,
  format: TimestampFormat,
  clientWith: ClientMaker,
  skewCorrectionOff: boolean,
  add: (check: Check) => void,
): Promise<boolean> {
  const probe = (c: AcmeIdentityClient) =>
    c.identityRequests.get(PROBE_CODES).then(
      () => undefined,
      (error: unknown) => error,
    );
  const error = await probe(client);
  if (error instanceof NotFoundError) {
    add({
      name: 'tenant',
      status: 'ok',
      detail: `accepted with X-Request-Timestamp as ${String(format)} (a read of made-up codes answered ${error.status === 404 ? '404, as it should' : `${error.status} with the service's NOT_FOUND`})`,
    });
    return true;
  }
  if (error === undefined) {
    add({
      name: 'tenant',
      status: 'warn',
      detail: 'a request that cannot exist was found',
      advice: 'unexpected: the service answered 200 for made-up codes',
    });
    return true;
  }
  if (error instanceof AuthenticationError) {
    for (const other of TIMESTAMP_FORMATS.filter((f) => f !== format)) {
      if ((await probe(clientWith(other))) instanceof NotFoundError) {
        add({
          name: 'tenant',
          status: 'fail',
          detail: `refused with X-Request-Timestamp as ${String(format)}; accepted as ${other}`,
          advice: `set timestampFormat: '${other}' (ACME_TIMESTAMP_FORMAT=${other}, --timestamp-format ${other})`,
          option: `timestampFormat: '${other}'`,
        });
        return false;
      }
    }
  }
  if (error instanceof AuthenticationError && skewCorrectionOff) {
    // The X-Request-Timestamp on this machine's clock, refused; on the service's, accepted?
    if ((await probe(clientWith(format, undefined, { correctClockSkew: true }))) instanceof NotFoundError) {
      add({
        name: 'tenant',
        status: 'fail',
        detail: "refused with X-Request-Timestamp on this machine's clock; accepted on the service's",
        advice: 'leave correctClockSkew on (its default): this machine and the service disagree on the time',
        option: 'correctClockSkew: true',
      });
      return false;
    }
  }
  add({
    name: 'tenant',
    status: 'fail',
    detail: `a read answered ${error instanceof AcmeIdentityError ? error.code : 'nothing'}`,
    advice:
      error instanceof ApiError && (error.status === 401 || error.status === 403)
        ? "the tenant id is wrong or not this key pair's (X-Tenant-Id): no X-Request-Timestamp format was accepted either"
        : 'see the error code',
    ...(error instanceof ApiError && error.status === 401 ? { option: 'tenantId, timestampFormat' } : {}),
  });
  return false;
}
