/**
 * Faults at the level of the connection, as proxies, load balancers and overloaded services cause
 * them. The fake describes each on the `Response` it returns; {@link serveFetch} carries it out on a
 * real socket (raw bytes, a reset, a stall), and a Web `fetch` caller (msw, `service.fetch` passed as
 * the client's `fetch`) meets the nearest Web equivalent: a body stream that errors or never ends.
 */

/** What happens to the body of an answer after its status and headers. */
export interface BodyFault {
  /**
   * - `reset-after-headers`: the connection is reset right after the headers, before any body byte;
   * - `truncate`: half the body arrives, then the connection closes (FIN), short of the
   *   `Content-Length` or, with `chunked` framing, without the last chunk;
   * - `stall-body`: half the body arrives, then nothing more until the client gives up.
   */
  readonly kind: 'reset-after-headers' | 'truncate' | 'stall-body';
  /** How the body is framed on the wire: `Content-Length` or `Transfer-Encoding: chunked`. */
  readonly framing: 'length' | 'chunked';
  /**
   * How a `truncate` ends the connection: `fin`, an orderly close; `reset`, a TCP reset. (Node 20's
   * bundled undici takes a chunked body ended by `fin` without its last chunk for a whole one; later
   * undici releases refuse it.)
   */
  readonly close: 'fin' | 'reset';
  /** The whole body the answer should have had. */
  readonly body: Uint8Array;
  /** How many of its bytes are sent. */
  readonly sent: number;
}

const planned = new WeakMap<Response, BodyFault>();

/** The fault a response was made with, for the localhost server to carry out. */
export function bodyFaultOf(response: Response): BodyFault | undefined {
  return planned.get(response);
}

/**
 * `response` with its body cut as `kind` says: for a Web caller a stream that fails (or stalls)
 * after the bytes that would have arrived; for the localhost server, the plan to do it on the socket.
 */
export async function cutBody(
  response: Response,
  kind: BodyFault['kind'],
  framing: BodyFault['framing'] = 'length',
  close: BodyFault['close'] = 'fin',
): Promise<Response> {
  const body = new Uint8Array(await response.arrayBuffer());
  const sent = kind === 'reset-after-headers' ? 0 : Math.floor(body.length / 2);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (sent > 0) controller.enqueue(body.slice(0, sent));
      if (kind === 'stall-body') return; // Never closed: the reader waits until it gives up.
      controller.error(new TypeError(`terminated (injected fault: ${kind})`));
    },
  });
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  if (framing === 'length') headers.set('content-length', String(body.length));
  const cut = new Response(stream, { status: response.status, statusText: response.statusText, headers });
  planned.set(cut, { kind, framing, close, body, sent });
  return cut;
}

const REASONS: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  500: 'Internal Server Error',
};

/** The status line and headers of `response` as raw HTTP/1.1, framed as `fault` says. */
export function rawHead(response: Response, fault: BodyFault): string {
  const lines = [`HTTP/1.1 ${response.status} ${response.statusText || REASONS[response.status] || 'Status'}`];
  for (const [name, value] of response.headers) {
    if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection') lines.push(`${name}: ${value}`);
  }
  // A keep-alive answer, as a service behind a load balancer sends: the close that follows is the fault.
  lines.push(fault.framing === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${fault.body.length}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** An nginx-style HTML 502, as a proxy in front of the service answers when the service is down. */
export function proxyBadGateway(): Response {
  const html =
    '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
  return new Response(html, { status: 502, statusText: 'Bad Gateway', headers: { 'content-type': 'text/html', server: 'nginx' } });
}

/** Never settles, unless `signal` aborts (the client went away): an answer that never comes. */
export function never(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
