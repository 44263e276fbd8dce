/**
 * `acme-identity verify <token>` (a JWT or an SD-JWT, against the issuer's JWKS from discovery)
 * and `acme-identity webhook verify` (a saved delivery). Both use the SDK's verifiers and report
 * their error codes; neither prints a token or a secret.
 */
import { AcmeIdentityError } from '../errors/index.js';
import { unixTimeOf } from '../internal/times.js';
import { remoteJwks, verifySdJwt } from '../sd-jwt/index.js';
import { createWebhookVerifier, type WebhookVerifierOptions } from '../webhooks/index.js';

export interface VerifyOutcome {
  readonly ok: boolean;
  /** The verifier's error code when refused. */
  readonly code?: string;
  readonly message: string;
  readonly details?: Record<string, unknown>;
}

const refused = (error: unknown): VerifyOutcome => ({
  ok: false,
  code: error instanceof AcmeIdentityError ? error.code : 'ERR_UNKNOWN',
  message: error instanceof Error ? error.message : String(error),
});

/**
 * Verifies a JWT or SD-JWT against the keys of the issuer at `authUrl` (discovery, then its JWKS).
 * `allowInsecureRequests` reads them over http: from a host other than localhost (a sandbox in a
 * container network), as the SDK's own option does.
 */
export async function verifyToken(
  token: string,
  authUrl: string,
  options: { fetch?: typeof fetch; allowInsecureRequests?: boolean } = {},
): Promise<VerifyOutcome> {
  try {
    const keys = remoteJwks(authUrl, {
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.allowInsecureRequests ? { allowInsecureRequests: true } : {}),
    });
    const verified = await verifySdJwt(token.trim(), { keys });
    const exp = unixTimeOf(verified.claims['exp']);
    return {
      ok: true,
      message: `verified: signed by ${String(verified.header['kid'] ?? 'a key')} (${String(verified.header['alg'])}) of ${String(verified.claims['iss'])}${exp !== undefined ? `, expires ${new Date(exp * 1000).toISOString()}` : ''}`,
      details: { header: verified.header, claims: verified.claims, disclosures: verified.disclosures.length },
    };
  } catch (error) {
    return refused(error);
  }
}

/**
 * A saved delivery, as an HTTP message (`POST /path HTTP/1.1`, optional; headers; a blank line; the
 * body exactly as received), or the raw body alone when `signature` is given.
 */
export function parseDelivery(text: string, signature?: string): { body: string; headers: Record<string, string> } {
  if (signature !== undefined) return { body: text, headers: { 'x-webhook-signature': signature } };
  const split = /\r?\n\r?\n/.exec(text);
  if (!split) throw new TypeError('give the delivery as its headers, a blank line and its body (or the body alone with --signature)');
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, split.index).split(/\r?\n/)) {
    if (/^[A-Z]+ \S+ HTTP\/\d/.test(line)) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new TypeError(`not a header line: ${JSON.stringify(line.slice(0, 40))}`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { body: text.slice(split.index + split[0].length), headers };
}

/** Verifies a saved delivery with the webhook verifier (no replay store: a saved delivery is checked, not processed). */
export async function verifyDelivery(
  delivery: { body: string; headers: Record<string, string> },
  secret: string,
  options: Pick<WebhookVerifierOptions, 'scheme' | 'toleranceSeconds'> = {},
): Promise<VerifyOutcome> {
  try {
    const verifier = createWebhookVerifier({ secret, replayStore: false, logLevel: 'off', ...options });
    const event = await verifier.verify(delivery.body, delivery.headers);
    return {
      ok: true,
      message: `verified: ${event.kind} for ${event.accessRequestCode} (delivery ${event.deliveryId.slice(0, 16)}…)`,
      details: { kind: event.kind, rawKind: event.rawKind, accessRequestCode: event.accessRequestCode, deliveryId: event.deliveryId },
    };
  } catch (error) {
    return refused(error);
  }
}
