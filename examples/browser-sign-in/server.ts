/**
 * Serves the browser sign-in page on localhost: `/` (the button), `/callback` (the redirect URI)
 * and `/app.js` (`page.ts`, bundled for the browser by esbuild, as an app's build would).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { bundleForBrowser } from '../support/bundle.js';

export interface SignInPage {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** `${origin}/callback`: register it as the client's redirect URI. */
  readonly redirectUri: string;
  close(): Promise<void>;
}

const escapeJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export async function serveSignInPage(options: { authUrl: string; clientId: string; port?: number }): Promise<SignInPage> {
  const script = await bundleForBrowser(fileURLToPath(new URL('page.ts', import.meta.url)));
  let origin = '';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
      return;
    }
    const config = { authUrl: options.authUrl, clientId: options.clientId, redirectUri: `${origin}/callback` };
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'referrer-policy': 'no-referrer' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Relying party</title>
<script type="application/json" id="config">${escapeJson(config)}</script>
<script type="module" src="/app.js"></script></head>
<body><h1>Relying party</h1><button id="sign-in">Sign in with acme</button><pre id="out"></pre></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    redirectUri: `${origin}/callback`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
