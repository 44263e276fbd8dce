/**
 * The person's side of an identity request: the journey page `redirect_url` leads to, and its
 * outcome (approved, partially complete, cancelled), which builds the identity response and sends
 * the 'Identity Actions' webhook.
 */
import { randomId } from '../internal/encoding.js';
import { buildIdentityResponse, isExpired, isOpen, type ApprovalOptions, type IdentityRecord } from './identity.js';
import { signJwt } from './keys.js';
import { journeyPage as journeyHtml, notFoundPage, page } from './pages.js';
import { clientFor, type FakeState, type RouteEntry } from './state.js';
import { IDENTITY_ACTIONS, deliverWebhook, type WebhookPayload } from './webhooks.js';

export interface Journeys {
  /** The person opened the request (sets `opened_at`). */
  open(accessRequestCode: string): void;
  /** The person completed the journey: the response is built and the webhook sent (not awaited). */
  approve(accessRequestCode: string, approval?: ApprovalOptions): Promise<WebhookPayload>;
  /** The request was cancelled: the webhook is sent as for an approval. */
  cancel(accessRequestCode: string, options?: { webhook?: 'send' | 'skip' }): Promise<WebhookPayload>;
  /** A settled request's webhook sent again, with a fresh X-Access-Token (the old one stops working). */
  resend(accessRequestCode: string): Promise<WebhookPayload>;
  /** The journey pages, below the auth URL. */
  readonly routes: RouteEntry[];
}

export function createJourneys(state: FakeState): Journeys {
  const { now } = state;

  function record(accessRequestCode: string): IdentityRecord {
    const found = state.identity.get(accessRequestCode);
    if (!found) throw new Error(`fake service: no identity request ${accessRequestCode}`);
    return found;
  }

  async function approve(accessRequestCode: string, approval: ApprovalOptions = {}): Promise<WebhookPayload> {
    const found = record(accessRequestCode);
    if (!isOpen(found, now())) {
      throw new Error(`fake service: request ${accessRequestCode} is ${isExpired(found, now()) ? 'expired' : found.status}`);
    }
    found.openedAt ??= Math.floor(now() / 1000);
    found.response = await buildIdentityResponse(found, approval, {
      keys: state.keys,
      issuer: state.issuer,
      nowMs: now(),
      ttlSeconds: state.options.identityResponseTtlSeconds ?? 1800,
      encoding: state.disclosureEncoding,
      readings: state.readings,
    });
    found.status = 'approved';
    return finish(found, 'approved', approval.webhook !== 'skip');
  }

  async function cancel(accessRequestCode: string, options: { webhook?: 'send' | 'skip' } = {}): Promise<WebhookPayload> {
    const found = record(accessRequestCode);
    found.status = 'cancelled';
    return finish(found, 'cancelled', options.webhook !== 'skip');
  }

  async function resend(accessRequestCode: string): Promise<WebhookPayload> {
    const found = record(accessRequestCode);
    if (found.status !== 'approved' && found.status !== 'cancelled')
      throw new Error(`fake service: request ${accessRequestCode} is ${found.status}: there is no webhook to send again`);
    return finish(found, found.status, true);
  }

  /** The webhook payload of a settled request, with a fresh X-Access-Token (the one before stops working). */
  async function mint(found: IdentityRecord, event: WebhookPayload['event']): Promise<WebhookPayload> {
    const nowMs = now();
    found.accessToken = `at_${randomId(24)}`;
    const payload: WebhookPayload = {
      event,
      access_request_code: found.accessRequestCode,
      access_token: await signJwt(
        state.keys,
        { access_token: found.accessToken, access_request_code: found.accessRequestCode },
        { nowMs, ttlSeconds: state.options.webhookTokenTtlSeconds ?? 3600, unit: state.readings.tokenTimes },
      ),
      // The request's other code too, where the `webhookCodes` reading sends it.
      ...(state.readings.webhookCodes === 'both' ? { identity_session_code: found.identitySessionCode } : {}),
    };
    state.events.push(payload);
    return payload;
  }

  /** A settled request: a fresh X-Access-Token for its response, and the webhook to the client's URL. */
  async function finish(found: IdentityRecord, event: WebhookPayload['event'], send: boolean): Promise<WebhookPayload> {
    found.completedAt ??= Math.floor(now() / 1000);
    const payload = await mint(found, event);
    const client = clientFor(state.clients, found.clientId);
    if (send && client?.webhookUrl && client.webhookSecret && client.subscriptions?.includes(IDENTITY_ACTIONS)) {
      const target = {
        url: client.webhookUrl,
        secret: client.webhookSecret,
        readings: state.readings,
        now,
        mint: () => mint(found, event),
      };
      const sending = deliverWebhook(target, payload, state.options.webhookRetry ?? {}, (delivery) => {
        state.deliveries.push(delivery);
        state.options.onDelivery?.(delivery);
      });
      state.pendingDeliveries.add(sending);
      void sending.finally(() => state.pendingDeliveries.delete(sending));
    }
    return payload;
  }

  /** The request a journey page is for, unless it was deleted. Pages, for a browser: HTML, errors too. */
  const journeyRecord = (arc: string) => {
    const found = state.identity.get(arc);
    return !found || found.status === 'deleted' ? undefined : found;
  };
  const noJourney = () =>
    notFoundPage(
      'No identity request waits at this address: it was deleted, or never existed. Its redirect_url comes from POST /identity/request.',
    );

  const routes: RouteEntry[] = [
    [
      'GET',
      /^\/journey\/([^/]+)$/,
      async (_request, _ctx, [arc]) => {
        const found = journeyRecord(arc);
        if (!found) return noJourney();
        if (found.status === 'pending') {
          found.status = 'opened';
          found.openedAt ??= Math.floor(now() / 1000);
        }
        return journeyHtml(found, isOpen(found, now()));
      },
      false,
    ],
    [
      'POST',
      /^\/journey\/([^/]+)\/(approve|partial|cancel)$/,
      // The person approves (fully or, via the off-ramp, partially) or cancels; then back to the client's URL.
      async (_request, _ctx, [arc, action]) => {
        const found = journeyRecord(arc);
        if (!found) return noJourney();
        if (!isOpen(found, now())) {
          const condition = isExpired(found, now()) ? 'expired' : found.status;
          return page(
            'Verify your identity',
            `<section><p>This request is ${condition}: there is nothing left to answer.</p></section>`,
            409,
          );
        }
        if (action === 'cancel') await cancel(found.accessRequestCode);
        else await approve(found.accessRequestCode, { partiallyComplete: action === 'partial' });
        const target = action === 'partial' ? found.input.off_ramp_url : found.input.return_url;
        const outcome = { status: action === 'cancel' ? 'cancelled' : 'completed', access_request_code: found.accessRequestCode };
        return new Response(null, { status: 303, headers: { location: returnTarget(state.readings.returnUrl, target, outcome) } });
      },
      false,
    ],
  ];

  return {
    open(accessRequestCode) {
      const found = record(accessRequestCode);
      found.openedAt ??= Math.floor(now() / 1000);
      if (found.status === 'pending') found.status = 'opened';
    },
    approve,
    cancel,
    resend,
    routes,
  };
}

/** Where the person is sent back to, with the journey's outcome as the `returnUrl` reading writes it. */
function returnTarget(reading: FakeState['readings']['returnUrl'], url: string, outcome: Record<string, string>): string {
  const query = new URLSearchParams(outcome).toString();
  switch (reading) {
    case 'as-given':
      return url;
    case 'appended': {
      const target = new URL(url);
      for (const [name, value] of Object.entries(outcome)) target.searchParams.append(name, value);
      return target.href;
    }
    case 'concatenated':
      return `${url}?${query}`;
    case 'unescaped': {
      const decoded = unescaped(url);
      return `${decoded}${decoded.includes('?') ? '&' : '?'}${query}`;
    }
  }
}

/** The URL with its escapes decoded, as a careless sender does; as it is when an escape is no UTF-8 (`%E0`). */
function unescaped(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}
