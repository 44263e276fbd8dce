/**
 * The webhook verifier's options, each checked when the verifier is created: the secrets (at least
 * `minSecretBytes` long), the signature conventions read, and every bound of a check (a tolerance,
 * a header name), so that a value that would not bound it (NaN, a string, a header name that is
 * none) is a `ConfigurationError` naming the option rather than a check quietly switched off.
 */
import { ConfigurationError } from '../errors/index.js';
import { countOption, nonNegativeOption } from '../errors/options.js';
import { utf8 } from '../internal/encoding.js';
import { isObject } from '../internal/guards.js';
import type { LiteLogOptions } from '../internal/log-lite.js';
import type { ReplayStore } from './replay.js';
import { MAC_BYTES, STAMP_JOINS, type SignatureSettings } from './signature.js';

/**
 * A signing secret: text (its UTF-8 bytes are the key) or the key bytes. A `whsec_` secret whose
 * rest is base64 is also tried as those decoded bytes (Standard Webhooks keys with them first),
 * and a secret of hex digits (at least `minSecretBytes` of them once decoded, after an optional
 * `whsec_`) as the bytes they spell, until a verified delivery shows which form the sender keys with.
 */
export type WebhookSecret = string | Uint8Array;

export interface WebhookVerifierOptions extends LiteLogOptions {
  /** The signing secret, or several during a rotation (any of them verifies). */
  secret: WebhookSecret | readonly WebhookSecret[];
  /**
   * The plain HMAC's hash. The spec does not show it: by default the MAC's length says which of
   * SHA-256, SHA-384 and SHA-512 (Stripe's and Standard Webhooks' conventions are SHA-256 by their
   * definition). Set one to read only it; SHA-1 (20 bytes, as GitHub's `sha1=` had it) is read only
   * when set. @default 'auto'
   */
  algorithm?: 'auto' | 'SHA-256' | 'SHA-384' | 'SHA-512' | 'SHA-1';
  /**
   * How the signature is written. `auto` accepts hex (with or without a `sha256=` prefix, any
   * case) and base64 (or base64url). The spec does not show it. @default 'auto'
   */
  encoding?: 'auto' | 'hex' | 'base64';
  /** @default 'X-Webhook-Signature' */
  signatureHeader?: string;
  /**
   * Which signature convention the service uses; the spec shows only that `X-Webhook-Signature`
   * carries an HMAC. `auto` tells them apart by their headers:
   * - `hmac`: an HMAC of the raw body in `signatureHeader` (hex, `sha256=` hex, or base64);
   * - `stripe`: `t=<unix>,v1=<hex>` in `signatureHeader`, an HMAC-SHA256 of `"<t>.<body>"`; and
   *   Slack's form (Zoom's too), `v0=<hex>` alone, an HMAC-SHA256 of `"v0:<timestamp>:<body>"`, the
   *   timestamp in `X-Webhook-Timestamp`, `X-Request-Timestamp` or `X-Timestamp` (or the `timestamp` option's header);
   * - `standard`: Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature:
   *   v1,<base64>`, or the same with `svix-`), an HMAC-SHA256 of `"<id>.<timestamp>.<body>"` keyed
   *   with the secret's base64 after `whsec_` (its text is tried too, until a verified delivery
   *   shows which of the two the sender keys with: then only that one).
   * The timestamp of `stripe` (Slack's too) and `standard` must be within `toleranceSeconds` of the clock.
   * @default 'auto'
   */
  scheme?: 'auto' | 'hmac' | 'stripe' | 'standard';
  /** How far the timestamp signed by the `stripe` and `standard` schemes may be from the clock, either way. @default 300 */
  toleranceSeconds?: number;
  /**
   * Also require a timestamp header and sign `${timestamp}${join}${body}` (`join` a dot unless
   * set: `'.'`, `':'` or `''`), refusing a timestamp more than `toleranceSeconds` away from the
   * clock in either direction. Not needed to read such a service: without it, a delivery carrying
   * `X-Webhook-Timestamp` (the signature header's name with Timestamp for Signature),
   * `X-Request-Timestamp` or `X-Timestamp` is checked as an HMAC of the body and of the timestamp
   * and the body joined by a dot, a colon or nothing, until a verified delivery shows which one the
   * service signs, and in which header; from then on only that one, a signed timestamp held to
   * `toleranceSeconds` and required. Set it to require the timestamp from the first delivery, or
   * for a header of another name.
   */
  timestamp?: { header: string; toleranceSeconds?: number; join?: '.' | ':' | '' };
  /** Secrets shorter than this many bytes are refused when the verifier is created. @default 16 */
  minSecretBytes?: number;
  /**
   * Larger bodies are refused before any HMAC is computed; `verifyRequest` refuses a larger
   * `Content-Length` before reading and stops reading a body (chunked too) at this size.
   * @default 1048576 (1 MiB)
   */
  maxBodyBytes?: number;
  /**
   * How many signatures one header may carry (a service rotating its secret sends one per
   * secret). More is refused as malformed before any HMAC: each costs a pass over the body.
   * @default 4 per configured secret
   */
  maxSignatures?: number;
  /**
   * Where deliveries are kept, so each is processed once: a redelivery of a processed one is
   * refused as `ERR_WEBHOOK_DUPLICATE` (answer 200), one arriving while another attempt processes
   * it as `ERR_WEBHOOK_IN_PROGRESS` (answer non-200: the service retries later). `false` turns this
   * off. @default a {@link MemoryReplayStore}
   */
  replayStore?: ReplayStore | false;
  /** How long a processed delivery is remembered, in seconds. @default 86400 */
  replayTtlSeconds?: number;
  /**
   * How long a delivery being processed is held, in seconds: if its handler neither completes nor
   * releases it by then (the process died), the next attempt processes it. Keep handlers shorter.
   * @default 60
   */
  processingLeaseSeconds?: number;
  /** The clock, in ms. @default Date.now */
  now?: () => number;
}

/** The secrets as key bytes, each checked: a string (its UTF-8) or bytes, at least `minBytes` long. */
export function secretKeys(secrets: readonly unknown[], minBytes: number): Uint8Array<ArrayBuffer>[] {
  if (secrets.length === 0) throw new ConfigurationError('secret', 'at least one secret is required');
  return secrets.map((secret, i) => {
    let bytes: Uint8Array<ArrayBuffer> | undefined;
    if (typeof secret === 'string') bytes = utf8(secret);
    else if (secret instanceof Uint8Array) bytes = new Uint8Array(secret);
    if (!bytes) throw new ConfigurationError('secret', `secret ${i + 1} must be a string or a Uint8Array`);
    if (bytes.length < minBytes) {
      throw new ConfigurationError('secret', `secret ${i + 1} is shorter than ${minBytes} bytes, too short to be safe`);
    }
    return bytes;
  });
}

/** An HTTP header's name (RFC 9110 §5.1: a token), as an option names one. */
function headerName(option: string, name: unknown): string {
  if (typeof name !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new ConfigurationError(option, 'must be the name of an HTTP header');
  }
  return name;
}

/** The `timestamp` option, checked: a header's name, a tolerance of 0 seconds or more (300 when not given), and what joins it to the body (a dot when not given). */
function timestampOption(timestamp: WebhookVerifierOptions['timestamp']): SignatureSettings['timestamp'] {
  if (timestamp === undefined) return undefined;
  if (!isObject(timestamp)) throw new ConfigurationError('timestamp', 'must be { header, toleranceSeconds?, join? }');
  const join = timestamp.join ?? '.';
  if (!STAMP_JOINS.includes(join)) throw new ConfigurationError('timestamp.join', "must be '.', ':' or ''");
  return {
    header: headerName('timestamp.header', timestamp.header),
    toleranceSeconds: nonNegativeOption('timestamp.toleranceSeconds', timestamp.toleranceSeconds, 300),
    join,
  };
}

/**
 * The headers a service signing `<timestamp>.<body>` may send the timestamp in beside
 * `signatureHeader` ("signed content: not shown"): its name with `Timestamp` for `Signature`
 * (`X-Webhook-Timestamp`), `X-Webhook-Timestamp` itself, the spec's own `X-Request-Timestamp` (the
 * header its identity endpoints take) and `X-Timestamp`; each once, whatever its case.
 */
function stampHeadersOf(signatureHeader: string): string[] {
  const derived = /signature/i.test(signatureHeader) ? signatureHeader.replace(/signature/i, 'Timestamp') : 'X-Webhook-Timestamp';
  const names = [derived, 'X-Webhook-Timestamp', 'X-Request-Timestamp', 'X-Timestamp'];
  return names.filter((name, i) => names.findIndex((other) => other.toLowerCase() === name.toLowerCase()) === i);
}

/** How signatures are read and checked, from the options, each checked. */
export function signatureSettings(
  options: WebhookVerifierOptions,
  secrets: Uint8Array<ArrayBuffer>[],
  standardSecrets: Uint8Array<ArrayBuffer>[],
  secretCount: number,
): SignatureSettings {
  const algorithm = options.algorithm ?? 'auto';
  if (algorithm !== 'auto' && !Object.hasOwn(MAC_BYTES, algorithm))
    throw new ConfigurationError('algorithm', "must be 'auto', 'SHA-256', 'SHA-384', 'SHA-512' or 'SHA-1'");
  const maxSignatures = countOption('maxSignatures', options.maxSignatures, 4 * secretCount);
  const scheme = options.scheme ?? 'auto';
  if (!['auto', 'hmac', 'stripe', 'standard'].includes(scheme))
    throw new ConfigurationError('scheme', "must be 'auto', 'hmac', 'stripe' or 'standard'");
  const encoding = options.encoding ?? 'auto';
  if (!['auto', 'hex', 'base64'].includes(encoding)) throw new ConfigurationError('encoding', "must be 'auto', 'hex' or 'base64'");
  const signatureHeader = headerName('signatureHeader', options.signatureHeader ?? 'X-Webhook-Signature');
  return {
    algorithm,
    encoding,
    signatureHeader,
    scheme,
    maxSignatures,
    toleranceSeconds: nonNegativeOption('toleranceSeconds', options.toleranceSeconds, 300),
    timestamp: timestampOption(options.timestamp),
    stampHeader: options.timestamp === undefined ? { signs: 'unknown' } : undefined,
    stampNames: stampHeadersOf(signatureHeader),
    now: options.now ?? Date.now,
    secrets,
    standardSecrets,
  };
}
