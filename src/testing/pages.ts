/**
 * The sandbox's HTML pages, one look for all: where a developer plays the person being verified
 * (the journey behind `redirect_url`, the OIDC consent page), the home page listing what the
 * sandbox serves and what is happening in it, and a page for a link that leads nowhere.
 */
import type { IdentityRecord } from './identity.js';
import type { WebhookDelivery } from './webhooks.js';

/** Text made safe inside HTML. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c as keyof typeof ENTITIES]);

/** The five characters HTML text and attributes must not carry as they are. */
const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' } as const;

const STYLE = `
:root{color-scheme:light;--ink:#1d2433;--muted:#5b6474;--line:#dfe3ea;--accent:#2f5bea;--ok:#1a7f4b;--bad:#b42318;--bg:#f6f7f9}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,sans-serif;color:var(--ink);background:var(--bg)}
header{background:var(--ink);color:#fff;padding:.7rem 1.5rem;display:flex;gap:1rem;align-items:baseline}
header a{color:#fff;text-decoration:none;font-weight:600}header span{color:#b8c0cc;font-size:.85rem}
main{max-width:52rem;margin:1.5rem auto;padding:0 1.5rem}
section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:1rem 1.25rem;margin-bottom:1rem}
h1{font-size:1.35rem;margin:0 0 .75rem}h2{font-size:1.05rem;margin:0 0 .5rem}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem .5rem;border-top:1px solid var(--line);vertical-align:top}tr:first-child>*{border-top:0}
th{color:var(--muted);font-weight:500;border-top:0}code{font-size:.9em;background:var(--bg);padding:.05rem .3rem;border-radius:4px}
.muted{color:var(--muted)}.ok{color:var(--ok)}.bad{color:var(--bad)}
form{display:inline-block;margin:.25rem .5rem .25rem 0}
button{font:inherit;padding:.45rem 1rem;border-radius:6px;border:1px solid var(--line);background:#fff;cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff}`;

/** A page of the sandbox: its header, a title, and what goes under it. */
export function page(title: string, body: string, status = 200): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>acme identity sandbox: ${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><header><a href="/">acme identity sandbox</a><span>a fake of the service, for development only</span></header>
<main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
  return new Response(html, { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
}

/** A button posting to `action`. */
export const button = (action: string, label: string, id: string, primary = false) =>
  `<form method="post" action="${escapeHtml(action)}"><button id="${id}"${primary ? ' class="primary"' : ''}>${label}</button></form>`;

/** The journey: who is asked for what, and approve, complete partially (off-ramp) or cancel. */
export function journeyPage(record: IdentityRecord, open: boolean): Response {
  const { input } = record;
  const claims = Array.isArray(input.claims) ? input.claims : Object.keys(input.claims);
  const action = (name: string) => `/journey/${encodeURIComponent(record.accessRequestCode)}/${name}`;
  return page(
    'Verify your identity',
    `<section><p>You are playing <strong>${escapeHtml(`${input.first_name} ${input.last_name}`)}</strong>. The relying party asks for:</p>
<ul>${claims.map((c) => `<li><code>${escapeHtml(String(c))}</code></li>`).join('')}</ul>
${
  open
    ? button(action('approve'), 'Approve', 'approve', true) +
      button(action('partial'), 'Complete partially (off-ramp)', 'partial') +
      button(action('cancel'), 'Cancel', 'cancel')
    : `<p class="muted">This request is ${escapeHtml(record.status)}.</p>`
}</section>`,
  );
}

/** A link that leads nowhere: what it was, and the way home. */
export function notFoundPage(what: string): Response {
  return page('Nothing here', `<section><p>${escapeHtml(what)}</p><p><a href="/">What this sandbox serves</a></p></section>`, 404);
}

/**
 * What the sandbox's home page shows of a relying party's identity inbox: `createIdentityInbox`'s
 * result fits (the fake imports nothing of the SDK, so the shape is written here).
 */
export interface InboxView {
  stats(): Promise<{ pending: number; inFlight: number; dead: number; oldestAgeMs: number }>;
  deadLetters(
    limit?: number,
  ): Promise<readonly { record: { id: string; attempts: number }; reason: string; errorCode: string; deadAt: number }[]>;
}

/** What the home page shows. */
export interface HomeState {
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly jwksUrl: string;
  readonly journeys: readonly IdentityRecord[];
  readonly signIns: readonly { id: string; clientId: string; claims: readonly string[] }[];
  readonly deliveries: readonly WebhookDelivery[];
  /** The relying party's identity inbox, when one is attached (`service.attachInbox`). */
  readonly inbox?:
    | { stats: Awaited<ReturnType<InboxView['stats']>>; dead: Awaited<ReturnType<InboxView['deadLetters']>> }
    | 'unavailable'
    | undefined;
}

/** The home page: endpoints, discovery, journeys in progress, sign-ins waiting, recent webhook deliveries. */
export function homePage(state: HomeState): Response {
  const row = (cells: string[]) => `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
  const link = (url: string) => `<a href="${escapeHtml(url)}"><code>${escapeHtml(url)}</code></a>`;
  const table = (head: string[], rows: string[], empty: string) =>
    rows.length
      ? `<table>${head.length ? `<tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr>` : ''}${rows.join('')}</table>`
      : `<p class="muted">${empty}</p>`;
  const endpoints = [
    ['REST API (base URL)', `<code>${escapeHtml(state.baseUrl)}</code>`],
    ['OpenAPI document', link(`${state.baseUrl}/docs/spec`)],
    ['OIDC issuer (auth URL)', `<code>${escapeHtml(state.authUrl)}</code>`],
    ['OIDC discovery', link(`${state.authUrl.replace(/\/$/, '')}/.well-known/openid-configuration`)],
    ['JWKS', link(state.jwksUrl)],
  ].map(row);
  const journeys = state.journeys.map((r) =>
    row([
      `<a href="/journey/${encodeURIComponent(r.accessRequestCode)}"><code>${escapeHtml(r.accessRequestCode)}</code></a>`,
      escapeHtml(`${r.input.first_name} ${r.input.last_name}`),
      escapeHtml(r.status),
      new Date(r.createdAt).toISOString().slice(11, 19),
    ]),
  );
  const signIns = state.signIns.map((s) =>
    row([
      `<code>${escapeHtml(s.clientId)}</code>`,
      s.claims.map((c) => `<code>${escapeHtml(c)}</code>`).join(' ') || '<span class="muted">none</span>',
    ]),
  );
  const deliveries = [...state.deliveries]
    .slice(-20)
    .reverse()
    .map((d) =>
      row([
        escapeHtml(String(d.payload.event)),
        `<code>${escapeHtml(String(d.payload.access_request_code))}</code>`,
        `<code>${escapeHtml(d.url)}</code>`,
        String(d.attempt),
        d.delivered
          ? `<span class="ok">${d.status}</span>`
          : `<span class="bad">${d.status ?? 'unreachable'}</span>${d.code === undefined ? '' : ` <code>${escapeHtml(d.code)}</code>`}`,
      ]),
    );
  return page(
    'What this sandbox serves',
    `<section><h2>Endpoints</h2>${table([], endpoints, '')}</section>
<section><h2>Identity requests in progress</h2>${table(['access_request_code', 'person', 'status', 'created (UTC)'], journeys, 'None open. Create one with POST /identity/request; its redirect_url leads to its journey page.')}</section>
<section><h2>Sign-ins waiting for the person</h2>${table(['client', 'claims'], signIns, 'None waiting. A sign-in started at the authorize endpoint waits here until the person answers its consent page.')}</section>
<section><h2>Recent webhook deliveries</h2>${table(['event', 'access_request_code', 'to', 'attempt', 'answer'], deliveries, 'None yet. Webhooks go to the URL given with --webhook-url.')}</section>${inboxSection(state.inbox, row, table)}`,
  );
}

/** The attached inbox: its figures, and its dead letters with their reasons. */
function inboxSection(
  inbox: HomeState['inbox'],
  row: (cells: string[]) => string,
  table: (head: string[], rows: string[], empty: string) => string,
): string {
  if (inbox === undefined) return '';
  if (inbox === 'unavailable')
    return '<section><h2>Identity inbox</h2><p class="bad">The inbox did not answer (is its store reachable?).</p></section>';
  const { pending, inFlight, dead, oldestAgeMs } = inbox.stats;
  const figures = `<p>${pending} pending, ${inFlight} in flight, <span class="${dead > 0 ? 'bad' : 'ok'}">${dead} dead</span>; oldest waiting ${Math.round(oldestAgeMs / 1000)} s</p>`;
  const letters = inbox.dead.map((letter) =>
    row([
      `<code>${escapeHtml(letter.record.id)}</code>`,
      `<code>${escapeHtml(letter.reason)}</code>`,
      `<code>${escapeHtml(letter.errorCode)}</code>`,
      String(letter.record.attempts),
      new Date(letter.deadAt).toISOString().slice(11, 19),
    ]),
  );
  return `<section><h2>Identity inbox</h2>${figures}${table(['access_request_code', 'reason', 'error', 'attempts', 'set aside (UTC)'], letters, 'No dead letters.')}</section>`;
}
