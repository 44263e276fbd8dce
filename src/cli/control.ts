/**
 * `acme-identity sandbox <verb>`: commands against a running sandbox, through the control API it
 * serves on loopback (`testing/control.ts`).
 *
 *   trigger approved|partial|invalid|cancelled   creates and settles a request; its webhook is sent
 *   deliveries                            every webhook delivery, with the receiver's answer
 *   resend <delivery number | access_request_code>
 *   clock advance <duration>              30s, 15m, 2h, 1d: the service's clock moves forward
 *   rotate-key [--drop-old]
 *   fault <kind> [--path P] [--status N] [--times N]
 *
 * The sandbox is found at --url, or ACME_SANDBOX_URL, or http://127.0.0.1:4010.
 */
import { parseArgs } from 'node:util';
import { OUTCOMES } from '../testing/control.js';

export const CONTROL_VERBS = ['trigger', 'approve', 'deliveries', 'resend', 'clock', 'rotate-key', 'fault'] as const;

/** A duration like 90s, 15m, 2h, 1d (or plain seconds), in seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)?$/.exec(text.trim());
  if (!match) throw new TypeError(`${JSON.stringify(text)} is not a duration (30s, 15m, 2h, 1d)`);
  return Number(match[1]) * { s: 1, m: 60, h: 3_600, d: 86_400 }[(match[2] ?? 's') as 's'];
}

/** How a request can be settled: the control API's own list, so the command takes what the sandbox takes. */
const SETTLEMENTS: readonly string[] = OUTCOMES;

/** What a control command sends: method, path below /_control, body. */
export function controlRequest(args: readonly string[]): { method: string; path: string; body?: Record<string, unknown> } {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      url: { type: 'string' },
      json: { type: 'boolean' },
      path: { type: 'string' },
      status: { type: 'string' },
      times: { type: 'string' },
      'drop-old': { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  void values;
  const [verb, ...rest] = positionals;
  switch (verb) {
    case 'trigger': {
      const outcome = rest[0] ?? 'approved';
      if (!SETTLEMENTS.includes(outcome)) throw new TypeError(`trigger takes ${SETTLEMENTS.join(', ')}`);
      return { method: 'POST', path: '/trigger', body: { outcome } };
    }
    case 'approve': {
      // A request your application created: its webhook is one your inbox expects.
      const [code, outcome = 'approved'] = rest;
      if (!code) throw new TypeError('approve takes the access_request_code of a request your application created');
      if (!SETTLEMENTS.includes(outcome)) throw new TypeError(`approve <code> [${SETTLEMENTS.join('|')}]`);
      return { method: 'POST', path: '/approve', body: { access_request_code: code, outcome } };
    }
    case 'deliveries':
      return { method: 'GET', path: '/deliveries' };
    case 'resend': {
      const which = rest[0];
      if (!which) throw new TypeError('resend takes a delivery number (from deliveries) or an access_request_code');
      return { method: 'POST', path: '/resend', body: /^\d+$/.test(which) ? { delivery: Number(which) } : { access_request_code: which } };
    }
    case 'clock':
      if (rest[0] !== 'advance' || !rest[1]) throw new TypeError('clock advance <duration>, for example clock advance 2h');
      return { method: 'POST', path: '/clock', body: { advanceSeconds: parseDuration(rest[1]) } };
    case 'rotate-key':
      return { method: 'POST', path: '/rotate-key', body: { keep: !args.includes('--drop-old') } };
    case 'fault': {
      const kind = rest[0];
      if (!kind)
        throw new TypeError('fault <kind>: network, status, malformed, delay, hang, reset-after-headers, truncate, stall-body, proxy-502');
      const number = (name: 'status' | 'times') => (values[name] === undefined ? {} : { [name]: Number(values[name]) });
      return {
        method: 'POST',
        path: '/fault',
        body: { kind, ...(values.path ? { path: values.path } : {}), ...number('status'), ...number('times') },
      };
    }
    default:
      throw new TypeError(`sandbox ${verb ?? ''}: not a command of a running sandbox (${CONTROL_VERBS.join(', ')})`);
  }
}

/** Sends a control command to the sandbox at `url`; resolves its JSON answer. */
export async function sendControl(
  url: string,
  args: readonly string[],
  fetchImpl: typeof fetch = fetch,
): Promise<{ status: number; body: unknown }> {
  const { method, path, body } = controlRequest(args);
  const response = await fetchImpl(`${url.replace(/\/$/, '')}/_control${path}`, {
    method,
    ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** The answer for a person, one line per fact (`--json` gives it whole). */
export function formatControl(body: unknown): string {
  const b = (body ?? {}) as Record<string, unknown>;
  const sent = (delivery: unknown) => {
    const d = delivery as Record<string, unknown> | null | undefined;
    if (!d) return 'no webhook sent (no webhook URL: start the sandbox with --webhook-url)';
    return `webhook ${String(d['event'])} #${String(d['id'])} → ${d['status'] === null ? 'unreachable' : String(d['status'])}${d['delivered'] ? '' : ' (not delivered)'}`;
  };
  if (typeof b['error'] === 'string') return `✗ ${b['error']}`;
  if ('outcome' in b)
    return `${String(b['outcome'])}: access_request_code ${String(b['access_request_code'])}, identity_session_code ${String(b['identity_session_code'])}\n${sent(b['delivery'])}`;
  if ('delivery' in b) return sent(b['delivery']);
  if ('now' in b) return `the service's clock is now ${String(b['now'])}`;
  if ('kid' in b) return `signing with the new key ${String(b['kid'])} (${String(b['keys'])} keys published)`;
  if ('injected' in b) return `fault ${String(b['injected'])} queued for the next matching request`;
  const deliveries = b['deliveries'] as Record<string, unknown>[] | undefined;
  if (!deliveries) return JSON.stringify(body, null, 2);
  if (deliveries.length === 0) return 'no deliveries yet (is a webhook URL set? acme-identity sandbox --webhook-url …)';
  return deliveries
    .map(
      (d) =>
        `${String(d['id']).padStart(3)}  ${String(d['event']).padEnd(10)} ${String(d['access_request_code'])}  attempt ${String(d['attempt'])}  → ${d['status'] === null ? 'unreachable' : String(d['status'])}${d['delivered'] ? '' : ' (not delivered)'}`,
    )
    .join('\n');
}
