/**
 * Where plain `http:` is allowed without asking: a loopback host (`localhost`, `127.0.0.0/8`,
 * `[::1]`), which no network path reaches. Every other URL the SDK sends a secret to or reads keys
 * from is `https:` (the client's `baseUrl`, the sign-in's `authUrl`, the SD-JWT verifiers' key
 * source), unless an option says otherwise. One rule, so that each reads the same hosts as local.
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * Whether a URL the SDK was given (a discovery document's endpoint, a `jwks_uri`) may be fetched:
 * `https:`, or `http:` where plain http is allowed (`insecure`), the scheme in any case (RFC 3986
 * §3.1). Never `javascript:`, `data:` or any other scheme a page could be sent to.
 */
export function isFetchableUrl(url: unknown, insecure: boolean): url is string {
  return typeof url === 'string' && (/^https:/i.test(url) || (insecure && /^http:/i.test(url)));
}
