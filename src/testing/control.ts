/**
 * The sandbox's control API, below `/_control/`, served only when the sandbox listens on a
 * loopback address: what `acme-identity sandbox trigger|approve|deliveries|resend|clock|rotate-key|fault`
 * call. It plays the person and the operator: creates and settles a request (its webhook sent as
 * the service sends it), settles a request your application created (`approve`: the delivery your
 * inbox expects, never one it would set aside as unknown), lists deliveries with the receiver's answers, sends one again, moves the
 * service's clock (requests, tokens and X-Access-Tokens expire as they would), rotates the signing
 * key and injects faults. Answers are JSON; nothing in them is a secret (no X-Access-Token).
 */
import { DEFAULT_CLIENT, type Fault, type FakeService } from './options.js';

/** The clock the sandbox's fake runs on: the local one, moved forward by `advance`. */
export interface SandboxClock {
  now(): number;
  advance(ms: number): void;
}

export function sandboxClock(base: () => number = Date.now): SandboxClock {
  let offset = 0;
  return {
    now: () => base() + offset,
    advance(ms) {
      offset += ms;
    },
  };
}

const FAULT_KINDS = ['network', 'status', 'malformed', 'delay', 'hang', 'reset-after-headers', 'truncate', 'stall-body', 'proxy-502'];
let people = 0;

const answer = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'cache-control': 'no-store' } });
const refuse = (message: string, status = 400) => answer({ error: message }, status);

async function jsonBody(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (text === '') return {};
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError('the body must be a JSON object');
  return value as Record<string, unknown>;
}

/** A request created through the REST API, as a relying party would, for a made-up person. */
async function createRequest(
  service: FakeService,
  clock: SandboxClock,
): Promise<{ access_request_code: string; identity_session_code: string }> {
  const call = async (path: string, body: unknown, token?: string) => {
    const response = await service.fetch(
      new Request(`${service.baseUrl}${path}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: {
          'content-type': 'application/json',
          'x-tenant-id': DEFAULT_CLIENT.tenantId,
          'x-request-timestamp': String(Math.floor(clock.now() / 1000)),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      }),
    );
    const parsed = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    return (typeof parsed['data'] === 'object' && parsed['data'] !== null ? parsed['data'] : parsed) as Record<string, unknown>;
  };
  const token = await call('/auth/api-token', { client_id: DEFAULT_CLIENT.clientId, client_secret: DEFAULT_CLIENT.clientSecret });
  people += 1;
  const created = await call(
    '/identity/request',
    {
      first_name: 'Jane',
      last_name: 'Citizen',
      email: `jane.citizen+${people}@example.com`,
      phone: String(412_000_000 + people),
      phone_country_code: 61,
      purpose: 'sandbox trigger',
      return_url: 'https://rp.example/return',
      off_ramp_url: 'https://rp.example/off-ramp',
      claims: ['acmeidentity.name', 'acmeidentity.birth_date', 'acmeidentity.valid', 'acmeidentity.credential'],
    },
    String(token['access_token']),
  );
  return { access_request_code: String(created['access_request_code']), identity_session_code: String(created['identity_session_code']) };
}

/**
 * How the control API settles a request: approved; partially (the person took the off-ramp);
 * invalid (approved, but the service does not vouch for the identity: `acmeidentity.valid` false,
 * seen by a request that asked for that claim); or cancelled.
 */
export const OUTCOMES = ['approved', 'partial', 'invalid', 'cancelled'] as const;
type Outcome = (typeof OUTCOMES)[number];

const isOutcome = (outcome: unknown): outcome is Outcome => (OUTCOMES as readonly unknown[]).includes(outcome);

async function settle(service: FakeService, code: string, outcome: Outcome): Promise<void> {
  if (outcome === 'cancelled') await service.cancel(code);
  else if (outcome === 'invalid') await service.approve(code, { values: { 'acmeidentity.valid': false } });
  else await service.approve(code, { partiallyComplete: outcome === 'partial' });
}

/** The control API's answer to `request`, or undefined when it is not a control path. */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the sandbox's control API: one branch per command, each checking its own arguments
export async function control(request: Request, service: FakeService, clock: SandboxClock): Promise<Response | undefined> {
  const { pathname } = new URL(request.url);
  if (!pathname.startsWith('/_control/')) return undefined;
  const route = `${request.method} ${pathname.slice('/_control'.length)}`;
  try {
    switch (route) {
      case 'POST /trigger': {
        const { outcome = 'approved' } = await jsonBody(request);
        if (!isOutcome(outcome)) return refuse(`outcome must be ${OUTCOMES.join(', ')}`);
        const codes = await createRequest(service, clock);
        await settle(service, codes.access_request_code, outcome);
        await service.webhooksSettled();
        const delivery = service.deliveries.filter((d) => d.payload.access_request_code === codes.access_request_code).at(-1);
        return answer({ outcome, ...codes, delivery: delivery ? deliveryView(delivery, service.deliveries.indexOf(delivery)) : null });
      }
      case 'POST /approve': {
        const { access_request_code: code, outcome = 'approved' } = await jsonBody(request);
        if (!isOutcome(outcome)) return refuse(`outcome must be ${OUTCOMES.join(', ')}`);
        if (typeof code !== 'string' || !service.identityRequest(code))
          return refuse('give the access_request_code of a request your application created on this sandbox', 404);
        await settle(service, code, outcome);
        await service.webhooksSettled();
        const delivery = service.deliveries.filter((d) => d.payload.access_request_code === code).at(-1);
        return answer({
          outcome,
          access_request_code: code,
          delivery: delivery ? deliveryView(delivery, service.deliveries.indexOf(delivery)) : null,
        });
      }
      case 'GET /deliveries':
        return answer({ deliveries: service.deliveries.map(deliveryView) });
      case 'POST /resend': {
        const body = await jsonBody(request);
        // A delivery by its number in the list, or a request by its code.
        const code =
          typeof body['delivery'] === 'number'
            ? service.deliveries[body['delivery'] - 1]?.payload.access_request_code
            : body['access_request_code'];
        if (typeof code !== 'string' || !service.identityRequest(code))
          return refuse('give the number of a delivery, or the access_request_code of a settled request', 404);
        await service.resendWebhook(code);
        await service.webhooksSettled();
        const delivery = service.deliveries.at(-1);
        return answer({ delivery: delivery ? deliveryView(delivery, service.deliveries.length - 1) : null });
      }
      case 'POST /clock': {
        const { advanceSeconds } = await jsonBody(request);
        if (typeof advanceSeconds !== 'number' || !Number.isFinite(advanceSeconds) || advanceSeconds <= 0)
          return refuse('advanceSeconds must be a number above 0');
        clock.advance(advanceSeconds * 1000);
        return answer({ now: new Date(clock.now()).toISOString() });
      }
      case 'POST /rotate-key': {
        const { keep = true } = await jsonBody(request);
        const key = await service.rotateSigningKey({ keep: keep !== false });
        return answer({ kid: key.publicJwk['kid'], keys: service.allKeys.length });
      }
      case 'POST /fault': {
        const body = await jsonBody(request);
        if (!FAULT_KINDS.includes(String(body['kind']))) return refuse(`kind must be one of ${FAULT_KINDS.join(', ')}`);
        if (body['kind'] === 'status' && typeof body['status'] !== 'number') return refuse('a status fault needs status');
        service.injectFault({ ...body, ...(typeof body['path'] === 'string' ? { path: new RegExp(`^${body['path']}`) } : {}) } as Fault);
        return answer({ injected: body['kind'] });
      }
      default:
        return refuse(`no control ${route}`, 404);
    }
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
}

function deliveryView(delivery: FakeService['deliveries'][number], index: number) {
  return {
    id: index + 1,
    event: delivery.payload.event,
    access_request_code: delivery.payload.access_request_code,
    url: delivery.url,
    attempt: delivery.attempt,
    status: delivery.status ?? null,
    delivered: delivery.delivered,
    code: delivery.code ?? null,
  };
}
