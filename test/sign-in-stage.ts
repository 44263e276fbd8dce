/**
 * What the sign-in integrations' end-to-end tests (Auth.js, better-auth, Passport) share: the
 * sandbox on localhost, the application's HTTP server on a free port, and headless Chromium.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../examples/browser-sign-in/chromium.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../src/testing/index.js';

export interface SignInStage {
  /** The application's origin, `http://127.0.0.1:<port>`. */
  origin: string;
  sandbox: Sandbox;
  browser: Browser;
  /** Sets the application the server answers with (until then, 503). */
  serve(app: RequestListener): void;
  close(): Promise<void>;
}

/**
 * Starts the stage; `callbackPaths` are the application's redirect URIs, registered with the
 * sandbox, and `sandboxOptions` the rest of the sandbox's options (its readings, say).
 */
export async function signInStage(
  callbackPaths: string[],
  sandboxOptions: Omit<SandboxOptions, 'redirectUris'> = {},
): Promise<SignInStage> {
  let app: RequestListener = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => app(req, res));
  const stopServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  // The server takes its port first and keeps it: a port asked for and let go (freePort) can be
  // taken by the sandbox or another test file before this server listens on it.
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let sandbox: Sandbox | undefined;
  try {
    sandbox = await startSandbox({ ...sandboxOptions, redirectUris: callbackPaths.map((path) => origin + path) });
    const browser = await launchChromium();
    const started = sandbox;
    return {
      origin,
      sandbox: started,
      browser,
      serve: (next) => {
        app = next;
      },
      async close() {
        await browser.close();
        server.closeAllConnections();
        await stopServer();
        await started.close();
      },
    };
  } catch (error) {
    // Half a stage would keep the test process alive.
    await stopServer();
    await sandbox?.close();
    throw error;
  }
}
