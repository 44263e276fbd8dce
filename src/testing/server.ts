/** Serves the fake service's app on localhost with node:http (loaded only when called). */
import type { Socket } from 'node:net';
import { bodyFaultOf, rawHead, type BodyFault } from './faults.js';
import type { FakeService } from './options.js';

export interface ServeOptions {
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  hostname?: string;
}

export interface RunningFakeService {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly port: number;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * Starts an HTTP server whose every request is answered by `handler`, typically a fake service's
 * `fetch`. The service must have been created with `baseUrl`/`authUrl` on the origin it is served
 * at; {@link freePort} finds a free port first.
 * @throws the listen error (`EADDRINUSE`, say) when the port cannot be had.
 * @example
 * ```ts
 * const running = await serveFetch((request) => service.fetch(request), { port: 4010 });
 * await running.close();
 * ```
 */
export async function serveFetch(
  handler: (request: Request) => Promise<Response>,
  options: ServeOptions = {},
): Promise<RunningFakeService> {
  const { createServer } = await import('node:http');
  const hostname = options.hostname ?? '127.0.0.1';
  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the bridge from node:http to the fake's fetch handler: body, headers, streaming and the pages, in the order a request meets them
  const server = createServer(async (req, res) => {
    // Aborted when the client goes away, so a fault that waits (a hang, a delay) stops waiting.
    const gone = new AbortController();
    res.once('close', () => gone.abort(new Error('the client closed the connection')));
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
        else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      }
      const request = new Request(`http://${req.headers.host ?? hostname}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers,
        signal: gone.signal,
        ...(body && req.method !== 'GET' && req.method !== 'HEAD' ? { body } : {}),
      });
      const response = await handler(request);
      const fault = bodyFaultOf(response);
      if (fault) return breakBody(res.socket, response, fault);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch {
      // An injected network fault: reset the connection, as a dead server would.
      if (res.socket && !res.socket.destroyed) res.socket.resetAndDestroy();
      res.destroy();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, hostname, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    origin: `http://${hostname}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * Carries out a body fault on the socket itself, bypassing node:http's response: the head as raw
 * HTTP/1.1, the bytes that arrive, then a reset, a close or nothing at all.
 */
function breakBody(socket: Socket | null, response: Response, fault: BodyFault): void {
  if (!socket) return;
  void response.body?.cancel().catch(() => undefined);
  const part = Buffer.from(fault.body.subarray(0, fault.sent));
  const framed =
    fault.framing === 'chunked' && part.length > 0
      ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')])
      : part;
  const bytes = Buffer.concat([Buffer.from(rawHead(response, fault)), framed]);
  socket.write(bytes, () => {
    if (fault.kind === 'reset-after-headers' || (fault.kind === 'truncate' && fault.close === 'reset')) socket.resetAndDestroy();
    else if (fault.kind === 'truncate') socket.end();
    // stall-body: nothing more; the socket is closed by the client, or by close().
  });
}

/**
 * Ports `freePort` picks from: below the ephemeral ranges of Linux (32768–60999), macOS and
 * Windows (49152–65535), so no outgoing connection and no `listen(0)` is given the port between
 * the moment it is found free and the moment its caller listens on it.
 */
const FREE_PORT_RANGE = { from: 20_000, to: 32_767 } as const;

/** How many ports `freePort` tries before it lets the system choose. */
const FREE_PORT_TRIES = 50;

/**
 * A free TCP port on the loopback interface (free when asked: another process may still take it).
 * The port is drawn at random below the system's ephemeral range (20000–32767), where the system
 * hands out no port by itself, so the sockets of the same process do not take it before it is
 * used; after 50 ports in use it falls back to one the system chooses.
 * @example
 * ```ts
 * const port = await freePort();
 * ```
 */
export async function freePort(hostname = '127.0.0.1'): Promise<number> {
  const { createServer } = await import('node:net');
  const listenOn = (port: number) =>
    new Promise<number | undefined>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', (error: NodeJS.ErrnoException) =>
        error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(undefined) : reject(error),
      );
      probe.listen(port, hostname, () => {
        const address = probe.address();
        const bound = typeof address === 'object' && address ? address.port : undefined;
        probe.close(() => resolve(bound));
      });
    });
  const span = FREE_PORT_RANGE.to - FREE_PORT_RANGE.from + 1;
  for (let tries = 0; tries < FREE_PORT_TRIES; tries++) {
    const port = await listenOn(FREE_PORT_RANGE.from + Math.floor(Math.random() * span));
    if (port !== undefined) return port;
  }
  const chosen = await listenOn(0);
  if (chosen === undefined) throw new Error(`freePort: no free port on ${hostname}`);
  return chosen;
}

/**
 * Creates nothing: serves an existing fake on the port its `baseUrl` names.
 *
 * @example
 * ```ts
 * const port = await freePort();
 * const service = await createFakeService({ baseUrl: `http://127.0.0.1:${port}/api/v1`, authUrl: `http://127.0.0.1:${port}` });
 * const running = await serveFakeService(service);
 * ```
 */
export async function serveFakeService(service: FakeService): Promise<RunningFakeService> {
  const url = new URL(service.baseUrl);
  return serveFetch((request) => service.fetch(request), {
    hostname: url.hostname,
    port: Number(url.port),
  });
}
