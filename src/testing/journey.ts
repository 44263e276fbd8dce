/** The page where a developer plays the person being verified (the fake's `redirect_url`). */
import type { IdentityRecord } from './identity.js';

/** Text made safe inside HTML. */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A small HTML page: who is asked for what, and approve, complete partially (off-ramp) or cancel. */
export function journeyHtml(record: IdentityRecord, open: boolean): string {
  const { input } = record;
  const claims = Array.isArray(input.claims) ? input.claims : Object.keys(input.claims);
  const action = (name: string, label: string) =>
    `<form method="post" action="/journey/${encodeURIComponent(record.accessRequestCode)}/${name}"><button>${label}</button></form>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>acme identity sandbox: verify your identity</title>
<style>body{font:16px system-ui;max-width:40rem;margin:2rem auto}form{display:inline-block;margin-right:.5rem}</style></head>
<body><h1>Sandbox identity journey</h1>
<p>You are playing <strong>${escapeHtml(`${input.first_name} ${input.last_name}`)}</strong>. The relying party asks for:</p>
<ul>${claims.map((c) => `<li><code>${escapeHtml(String(c))}</code></li>`).join('')}</ul>
${
  open
    ? action('approve', 'Approve') + action('partial', 'Complete partially (off-ramp)') + action('cancel', 'Cancel')
    : `<p>This request is ${escapeHtml(record.status)}.</p>`
}
</body></html>`;
}
