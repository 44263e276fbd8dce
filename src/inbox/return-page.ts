/**
 * The return page's status endpoint: the person comes back to `return_url` (or `off_ramp_url`)
 * before, while or after the webhook is handled, on any instance; the page asks this endpoint
 * where the request stands and shows it. A Web `Request` → `Response` handler, for any framework.
 *
 * It answers only to the sealed reference `returnUrls` put in the URLs (`acme_ref`), never to a
 * request code, and says nothing of a reference forged, altered, expired or unknown: one 404 for
 * all. Three ways to ask:
 * - `GET …?acme_ref=…`: the state now, as JSON;
 * - `GET …?acme_ref=…&wait=25&since=awaiting`: a long poll, answered once the state is not
 *   `since` any more (or is final), or after `wait` seconds;
 * - `GET …?acme_ref=…` with `Accept: text/event-stream`: Server-Sent Events, one `state` event per
 *   change, closed on a final state (or after a minute: the browser reconnects).
 * `awaitIdentity` from `@acme/identity/return-page` is the page's side of it.
 */
import { ConfigurationError } from '../errors/index.js';
import { positiveOption } from '../errors/options.js';
import type { IdentityInbox } from './inbox.js';
import { RETURN_PARAMETER, type OpenedReference, type RequestOutcome, type ServiceView } from './outcomes.js';

export interface ReturnPageOptions {
  /** The inbox the webhooks go to (on every instance, sharing one store). */
  inbox: IdentityInbox;
  /**
   * After the page has waited this long for a webhook, in seconds, the endpoint also asks the
   * service how far the person got (`service`: completed, in progress, not started, expired), at
   * most once every `lateAfterSeconds` per request. @default 10
   */
  lateAfterSeconds?: number;
  /** The longest a Server-Sent Events stream stays open, in seconds (the browser then reconnects). @default 60 */
  streamSeconds?: number;
}

/** What the page is told: the outcome, whether the person came by the off-ramp, and the service's view when the webhook is late. */
export interface ReturnPageState extends RequestOutcome {
  readonly offRamp: boolean;
  readonly service?: ServiceView;
}

export interface ReturnPage {
  /** For Web handlers: Next.js route handlers (`export const GET = page.fetch`), Hono (`page.fetch(c.req.raw)`), Workers, Deno, Bun. */
  fetch(request: Request): Promise<Response>;
  /**
   * For Node's `http` handlers: Express (`app.get(path, page.node)`), Fastify (`reply.hijack()`,
   * then `page.node(request.raw, reply.raw)`), or `http.createServer`. Streams Server-Sent Events
   * as they come, and stops when the page goes away.
   */
  node(request: NodeRequestLike, response: NodeResponseLike): Promise<void>;
}

/** What `node` reads of a Node `IncomingMessage` (Express's request is one). */
export interface NodeRequestLike {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  /** Express's: the URL before a router took its mount path off. */
  readonly originalUrl?: string | undefined;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** What `node` writes of a Node `ServerResponse`. */
export interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: Uint8Array): unknown;
  end(): unknown;
  once(event: 'close', listener: () => void): unknown;
}

const HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };
const NOT_FOUND = JSON.stringify({ error: 'not_found', message: 'no request for this reference' });

/**
 * The status endpoint of a return page.
 * @throws {ConfigurationError} without an inbox, or for an option out of range.
 * @example
 * ```ts
 * const status = createReturnPage({ inbox });
 * app.get('/identity/status', (req, res) => sendWebResponse(res, status.fetch(toWebRequest(req))));
 * ```
 */
export function createReturnPage(options: ReturnPageOptions): ReturnPage {
  const inbox = options?.inbox;
  if (typeof inbox?.openReference !== 'function' || typeof inbox.waitFor !== 'function')
    throw new ConfigurationError('inbox', 'must be an identity inbox (createIdentityInbox)');
  const endpoint: Endpoint = {
    inbox,
    streamMs: positiveOption('streamSeconds', options.streamSeconds, 60) * 1000,
    states: pageStates(inbox, positiveOption('lateAfterSeconds', options.lateAfterSeconds, 10) * 1000),
  };
  const web = (request: Request) => answer(endpoint, request);
  return { fetch: web, node: (request, response) => answerNode(web, request, response) };
}

/** What every answer of one status endpoint shares. */
interface Endpoint {
  inbox: IdentityInbox;
  streamMs: number;
  states: ReturnType<typeof pageStates>;
}

/**
 * The outcome as the page sees it: with the service's view once the page has waited `lateAfterMs`
 * for a webhook. The service is asked at most once per `lateAfterMs` for each request (the last
 * 10,000 requests remembered).
 */
function pageStates(inbox: IdentityInbox, lateAfterMs: number) {
  /** When each request's service view was last asked for, and what it was. */
  const asked = new Map<string, { at: number; view: ServiceView | undefined }>();

  async function serviceView(code: string): Promise<ServiceView | undefined> {
    const last = asked.get(code);
    if (last && Date.now() - last.at < lateAfterMs) return last.view;
    const view = await inbox.askService(code);
    asked.set(code, { at: Date.now(), view });
    if (asked.size > 10_000) asked.delete(asked.keys().next().value as string);
    return view;
  }

  return async (outcome: RequestOutcome, reference: OpenedReference, waitedMs: number): Promise<ReturnPageState> => {
    const late = outcome.state === 'awaiting' && waitedMs >= lateAfterMs;
    const view = late ? await serviceView(reference.accessRequestCode) : undefined;
    return { ...outcome, offRamp: reference.offRamp, ...(view ? { service: view } : {}) };
  };
}

/** One request to the endpoint: 405 but for GET and HEAD, one 404 for any reference not opened, else the state. */
async function answer(endpoint: Endpoint, request: Request): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response(JSON.stringify({ error: 'method_not_allowed' }), { status: 405, headers: { ...HEADERS, allow: 'GET, HEAD' } });
  }
  const url = new URL(request.url);
  const reference = await endpoint.inbox.openReference(url.searchParams.get(RETURN_PARAMETER) ?? '');
  if (!reference) return new Response(NOT_FOUND, { status: 404, headers: HEADERS });
  // How long the page says it has waited, in seconds: the service is asked once it is long enough.
  const waitedMs = clamp(Number(url.searchParams.get('waited')), 0, 86_400) * 1000;
  if ((request.headers.get('accept') ?? '').includes('text/event-stream')) return stream(endpoint, reference, waitedMs, request.signal);
  return poll(endpoint, reference, waitedMs, url.searchParams, request.signal);
}

/** The state as JSON: now, or once it is not `since` any more (or is final), waiting at most `wait` seconds. */
async function poll(
  endpoint: Endpoint,
  reference: OpenedReference,
  waitedMs: number,
  query: URLSearchParams,
  signal: AbortSignal,
): Promise<Response> {
  const wait = clamp(Number(query.get('wait')), 0, 30);
  const since = query.get('since') ?? undefined;
  const started = Date.now();
  // A wait of 0 answers the state now.
  const outcome = await endpoint.inbox.waitFor(reference.accessRequestCode, {
    timeoutMs: wait * 1000,
    signal,
    ...(since ? { since: since as RequestOutcome['state'] } : {}),
  });
  const body = await endpoint.states(outcome, reference, waitedMs + Date.now() - started);
  return new Response(JSON.stringify(body), { status: 200, headers: HEADERS });
}

/** Server-Sent Events: the state now, then each change, until a final state, the page leaves, or `streamMs`. */
function stream(endpoint: Endpoint, reference: OpenedReference, waitedMs: number, signal: AbortSignal): Response {
  const { inbox, streamMs } = endpoint;
  const encoder = new TextEncoder();
  const started = Date.now();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text));
      let lastState: RequestOutcome['state'] | undefined;
      let lastSent: string | undefined;
      try {
        for (;;) {
          const remaining = streamMs - (Date.now() - started);
          const outcome =
            lastState === undefined
              ? await inbox.outcome(reference.accessRequestCode)
              : await inbox.waitFor(reference.accessRequestCode, {
                  since: lastState,
                  timeoutMs: Math.min(15_000, Math.max(0, remaining)),
                  signal,
                });
          const text = JSON.stringify(await endpoint.states(outcome, reference, waitedMs + Date.now() - started));
          // A change (or the service's view arriving) is an event; nothing new is a comment that keeps the connection open.
          send(text === lastSent ? ': still waiting\n\n' : `event: state\ndata: ${text}\n\n`);
          lastSent = text;
          lastState = outcome.state;
          if (outcome.final || signal.aborted || Date.now() - started >= streamMs) break;
        }
      } catch {
        // The page went away, or the store did: the browser reconnects, or falls back to polling.
      }
      controller.close();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' },
  });
}

/** A Node request answered by the Web handler `web`: its body streamed to `response` as it comes, stopped when the page goes away. */
async function answerNode(
  web: (request: Request) => Promise<Response>,
  request: NodeRequestLike,
  response: NodeResponseLike,
): Promise<void> {
  const stopped = new AbortController();
  response.once('close', () => stopped.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  // Only the path and query matter here: the host is a placeholder, never trusted or echoed.
  const url = new URL(request.originalUrl ?? request.url ?? '/', 'http://return-page.invalid');
  const answered = await web(new Request(url, { method: request.method ?? 'GET', headers, signal: stopped.signal }));
  response.writeHead(answered.status, Object.fromEntries(answered.headers));
  const reader = answered.body?.getReader();
  for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) response.write(read.value);
  response.end();
}

/** `value` within [min, max]; 0 for what is not a number. */
function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : 0;
}
