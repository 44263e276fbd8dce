/**
 * The relying party's side of the return page, as an Express app: `/return` and `/off-ramp` (the
 * page the person comes back to, its script bundled from `page.ts`) and `/identity/status` (the
 * status endpoint, `createReturnPage`). Any instance can serve it: the state is in the inbox's
 * shared store, whichever instance handled the webhook.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { bundleForBrowser } from '../support/bundle.js';
import express from 'express';
import { createReturnPage, type IdentityInbox } from '@acme/identity/inbox';

const PAGE = (title: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="referrer" content="no-referrer">
<script type="module" src="/return-page.js"></script></head>
<body><h1>${title}</h1><p id="state" data-state="awaiting">Checking…</p></body></html>`;

export async function startReturnPageApp(inbox: IdentityInbox, port = 0): Promise<{ origin: string; server: Server }> {
  const script = await bundleForBrowser(fileURLToPath(new URL('page.ts', import.meta.url)));
  const status = createReturnPage({ inbox });
  const app = express();
  // The reference in the URL is the person's only key to their result: no referrer carries it elsewhere.
  app.use((_request, response, next) => {
    response.set('referrer-policy', 'no-referrer');
    next();
  });
  app.get('/return', (_request, response) => void response.type('html').send(PAGE('Thank you')));
  app.get('/off-ramp', (_request, response) => void response.type('html').send(PAGE('Almost there')));
  app.get('/return-page.js', (_request, response) => void response.type('text/javascript').send(script));
  app.get('/identity/status', status.node);
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
  });
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
