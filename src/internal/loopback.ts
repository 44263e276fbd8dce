/**
 * Where plain `http:` is allowed without asking: a loopback host (`localhost`, `127.0.0.0/8`,
 * `[::1]`), which no network path reaches. Every other URL the SDK sends a secret to or reads keys
 * from is `https:` (the client's `baseUrl`, the sign-in's `authUrl`, the SD-JWT verifiers' key
 * source), unless an option says otherwise. One rule, so that each reads the same hosts as local.
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
