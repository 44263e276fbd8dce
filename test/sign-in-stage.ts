/**
 * What the sign-in integrations' end-to-end tests (Auth.js, better-auth, Passport) share: the
 * sandbox on localhost, the application's HTTP server on a free port, and headless Chromium.
 */
import { createServer, type RequestListener } from 'node:http';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../examples/browser-sign-in/chromium.js';
import { freePort, startSandbox, type Sandbox } from '../src/testing/index.js';

export interface SignInStage {
  /** The application's origin, `http://127.0.0.1:<port>`. */
  origin: string;
  sandbox: Sandbox;
  browser: Browser;
  /** Sets the application the server answers with (until then, 503). */
  serve(app: RequestListener): void;
  close(): Promise<void>;
}

/** Starts the stage; `callbackPaths` are the application's redirect URIs, registered with the sandbox. */
export async function signInStage(callbackPaths: string[]): Promise<SignInStage> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const sandbox = await startSandbox({ redirectUris: callbackPaths.map((path) => origin + path) });
  let app: RequestListener = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => app(req, res));
  const stopServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    const browser = await launchChromium();
    return {
      origin,
      sandbox,
      browser,
      serve: (next) => {
        app = next;
      },
      async close() {
        await browser.close();
        server.closeAllConnections();
        await stopServer();
        await sandbox.close();
      },
    };
  } catch (error) {
    // Half a stage would keep the test process alive.
    if (server.listening) await stopServer();
    await sandbox.close();
    throw error;
  }
}
