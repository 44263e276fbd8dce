/** Verification of 'Identity Actions' webhooks: HMAC over the raw body with Web Crypto, then the payload. */
import { ConfigurationError, InvalidInputError, WebhookVerificationError } from '../errors/index.js';
import { countOption, positiveOption } from '../errors/options.js';
import { concatBytes, fromHex, toBase64Url, utf8 } from '../internal/encoding.js';
import { nodeCrypto, type NodeCrypto } from '../internal/node-crypto.js';
import { liteLog } from '../internal/log-lite.js';
import { isObject } from '../internal/guards.js';
import type { components } from '../../generated/schema.js';
import { secretKeys, signatureSettings, type WebhookVerifierOptions } from './options.js';
import { MemoryReplayStore, type ReplayStore } from './replay.js';
import {
  BASE64,
  NODE_NAMES,
  base64Bytes,
  fail,
  joined,
  learnStampForm,
  mismatchMessage,
  signatureChecks,
  type Check,
  type Hash,
  type SignatureSettings,
} from './signature.js';

/** The body exactly as it arrived: the HMAC covers these bytes, so a parsed object cannot be checked. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** Request headers: a Web `Headers`, or a plain object as Node, Express and Fastify give them. */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** What an 'Identity Actions' webhook says. `accessToken` is a secret: it is not enumerable, so logging the event does not print it. */
export interface IdentityActionsEvent {
  /**
   * What happened, read from the payload (the spec shows no kind field): `event`, `type`,
   * `event_type`, `status`, `action` or `kind`, at the top or in `data`, in any case, plain
   * (`approved`), dotted or prefixed (`identity.request.approved`, `REQUEST_CANCELLED`).
   * `unknown` when no field says, or fields disagree: fetch the identity response to learn
   * (`getVerified` does, and reports a cancelled request as such). Handle every kind.
   */
  readonly kind: WebhookEventKind;
  /** The kind as the payload wrote it, when it wrote one (cut to 64 characters). */
  readonly rawKind?: string;
  /** Equals the `access_request_code` returned when the request was created. */
  readonly accessRequestCode: string;
  /**
   * The request's `identity_session_code`, when the payload carries it beside the documented
   * fields ("the complete payload schema: not shown"): what fetching the identity needs besides
   * the token. Absent when the payload has none (the spec's payload does not list it).
   */
  readonly identitySessionCode?: string;
  /**
   * The JWT to send as `X-Access-Token`, exactly as received. Not enumerable. `''` for a
   * cancellation sent without one (the only event that may lack it: nothing is fetched for it).
   */
  readonly accessToken: string;
  /**
   * Identifies the event this delivery reports: base64url SHA-256 of its `access_request_code` and
   * its kind, never of its bytes. A redelivery has the same id, even one whose sender minted a fresh
   * `access_token` for it, so one approval is processed once.
   */
  readonly deliveryId: string;
  /** Every payload field except `access_token`, unknown ones included. */
  readonly payload: Readonly<Record<string, unknown>>;
}

/** What an 'Identity Actions' event reports. */
export type WebhookEventKind = 'approved' | 'cancelled' | 'unknown';

export interface WebhookVerifier {
  /**
   * Verifies one delivery and returns its event, which is then held as *processing* (for
   * `processingLeaseSeconds`) until you call {@link WebhookVerifier.complete} or
   * {@link WebhookVerifier.release}. `createWebhookReceiver` does both for you.
   * @throws {WebhookVerificationError} with a code per failure; `ERR_WEBHOOK_DUPLICATE` for a
   *   redelivery of a processed delivery, `ERR_WEBHOOK_IN_PROGRESS` while another attempt processes it.
   */
  verify(body: RawBody, headers: HeaderSource): Promise<IdentityActionsEvent>;
  /** {@link WebhookVerifier.verify} for a Web `Request` (Workers, Next.js route handlers, Hono, Deno, Bun). Reads the body. */
  verifyRequest(request: Request): Promise<IdentityActionsEvent>;
  /** The event was processed: its redeliveries are duplicates for `replayTtlSeconds`. */
  complete(event: IdentityActionsEvent): Promise<void>;
  /** Processing the event failed: forgotten, so the service's next attempt is processed. */
  release(event: IdentityActionsEvent): Promise<void>;
}

type Payload = components['schemas']['IdentityActionsEvent'];

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * The payload's two documented fields, checked by hand: a schema library for two strings would
 * be most of this entry's size in an edge bundle. Unknown fields are kept. Names the fields at fault.
 *
 * A cancellation may come without `access_token` (absent or `null`): the spec lists the token
 * among the payload's fields for the events in general, and a cancelled request has no identity
 * to fetch with one. Only a delivery whose fields say it is a cancellation may lack it: any other
 * could be an approval, which is nothing without its token. Its token is then `''`.
 */
function parsePayload(json: unknown, kind: WebhookEventKind): Payload {
  if (!isObject(json)) throw fail('ERR_WEBHOOK_PAYLOAD', 'the payload is not an Identity Actions event ((body))');
  const code = typeof json['access_request_code'] === 'string' && json['access_request_code'] !== '';
  const sent = json['access_token'];
  const missing = sent === undefined || sent === null;
  const tokenless = missing && kind === 'cancelled';
  const token = tokenless || (typeof sent === 'string' && JWT.test(sent));
  if (code && token) return tokenless ? ({ ...json, access_token: '' } as Payload) : (json as Payload);
  const bad = [code ? '' : 'access_request_code', token ? '' : 'access_token'].filter(Boolean);
  // Without a token and not saying it is a cancellation: it could be an approval that lost its token.
  const why = missing && kind !== 'cancelled' ? ': only a delivery that says it is a cancellation may come without access_token' : '';
  throw fail('ERR_WEBHOOK_PAYLOAD', `the payload is not an Identity Actions event (${bad.join(', ')})${why}`);
}

const KIND_FIELDS = new Set(['event', 'type', 'eventtype', 'status', 'action', 'kind']);
const APPROVED = new Set(['approved', 'approve']);
const CANCELLED = new Set(['cancelled', 'canceled', 'cancel', 'cancellation']);
const NEGATIONS = new Set(['not', 'no', 'non', 'un', 'never']);

/** What a kind field says, as bits a delivery's fields are or-ed into: one bit alone is the kind. */
const SAYS_NOTHING = 0;
const SAYS_APPROVED = 1;
const SAYS_CANCELLED = 2;
/** Names both, or negated ("not approved"): cannot be read. */
const UNREADABLE = 4;
const KIND_SAID: Partial<Record<number, WebhookEventKind>> = { [SAYS_APPROVED]: 'approved', [SAYS_CANCELLED]: 'cancelled' };

/** The body as JSON: a string as it is, bytes decoded as UTF-8 (what is not UTF-8 is refused). */
function parseBody(body: RawBody, bytes: Uint8Array | string): unknown {
  try {
    return JSON.parse(typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(bytes as Uint8Array));
  } catch (cause) {
    throw fail('ERR_WEBHOOK_PAYLOAD', 'the body is not UTF-8 JSON', cause);
  }
}

/**
 * Where enveloping senders put an event's fields ("the complete payload schema: not shown"):
 * Standard Webhooks and Svix in `data`, Stripe's event objects in `data.object`, others in
 * `payload`. Each path is tried only when the fields are not at the top, in this order: a body
 * that holds an event at two of them is read at the first.
 */
const ENVELOPES: readonly (readonly string[])[] = [['data'], ['data', 'object'], ['payload']];

/** The objects along `path` from `json` (`json` itself first); fewer when one on the way is no object. */
function objectsAlong(json: unknown, path: readonly string[]): Record<string, unknown>[] {
  if (!isObject(json)) return [];
  const found = [json];
  let at = json;
  for (const key of path) {
    const next = at[key];
    if (!isObject(next)) break;
    found.push(next);
    at = next;
  }
  return found;
}

/**
 * The path to a delivery's fields: none when they are at the top (or the body is no object); else
 * the first envelope whose object holds `access_request_code`; else `data` when it is an object,
 * which {@link parsePayload} then refuses naming what it lacks.
 */
function fieldsPath(json: unknown): readonly string[] {
  if (!isObject(json) || Object.hasOwn(json, 'access_request_code')) return [];
  const holds = (path: readonly string[]) => {
    const objects = objectsAlong(json, path);
    return objects.length === path.length + 1 && Object.hasOwn(objects[path.length] as object, 'access_request_code');
  };
  return ENVELOPES.find(holds) ?? (isObject(json['data']) ? ['data'] : []);
}

/** `json` with the object at `path` replaced by `fields`. */
function withFields(json: unknown, path: readonly string[], fields: Record<string, unknown>): Record<string, unknown> {
  const [key, ...rest] = path;
  if (key === undefined) return fields;
  const outer = json as Record<string, unknown>;
  return { ...outer, [key]: withFields(outer[key], rest, fields) };
}

/**
 * What a delivery says: its fields at the top, or inside an envelope ({@link ENVELOPES}); the kind
 * its fields say, read at the top and in each object of the envelope down to the fields; the token
 * apart from the payload the event shows (the envelope kept, the token taken out of it).
 */
function readDelivery(json: unknown) {
  const path = fieldsPath(json);
  // The objects from the top down to the fields: the top alone when they are there.
  const along = path.length === 0 ? [json] : objectsAlong(json, path);
  // The kind first: whether the payload may lack a token depends on it.
  const { kind, rawKind } = eventKind(...along);
  const { access_token: accessToken, ...fields } = parsePayload(along[path.length], kind);
  const payload = withFields(json, path, fields);
  const sessionCode = fields['identity_session_code'];
  const identitySessionCode = typeof sessionCode === 'string' && sessionCode !== '' ? sessionCode : undefined;
  return { accessToken, accessRequestCode: fields.access_request_code, identitySessionCode, payload, kind, rawKind };
}

/**
 * A verified delivery's event: its fields its own, its token behind a getter, so printing,
 * spreading or serializing the event leaves the secret out (a class, not a literal with a getter
 * and a defined property: a tenth of a verification at 1 KB, #44).
 */
class VerifiedEvent implements IdentityActionsEvent {
  declare readonly kind: WebhookEventKind;
  declare readonly rawKind?: string;
  declare readonly accessRequestCode: string;
  declare readonly identitySessionCode?: string;
  declare readonly payload: Readonly<Record<string, unknown>>;
  declare readonly deliveryId: string;
  readonly #accessToken: string;

  constructor(
    delivery: Omit<IdentityActionsEvent, 'accessToken' | 'rawKind' | 'identitySessionCode'> & {
      rawKind: string | undefined;
      identitySessionCode: string | undefined;
    },
    accessToken: string,
  ) {
    // Assigned in this order, rawKind and identitySessionCode only when the payload wrote them, as the event prints.
    this.kind = delivery.kind;
    if (delivery.rawKind !== undefined) this.rawKind = delivery.rawKind;
    this.accessRequestCode = delivery.accessRequestCode;
    if (delivery.identitySessionCode !== undefined) this.identitySessionCode = delivery.identitySessionCode;
    this.payload = delivery.payload;
    this.deliveryId = delivery.deliveryId;
    this.#accessToken = accessToken;
  }

  get accessToken(): string {
    return this.#accessToken;
  }
}

/** Takes a delivery in the replay store, or refuses it: processed already, or being processed by another attempt. */
async function claimDelivery(store: ReplayStore, id: string, leaseSeconds: number): Promise<void> {
  const claim = await store.claim(id, leaseSeconds);
  if (claim === 'done') throw fail('ERR_WEBHOOK_DUPLICATE', 'this delivery was already processed; answer 200 and do not process it again');
  if (claim !== 'claimed') {
    throw fail(
      'ERR_WEBHOOK_IN_PROGRESS',
      'this delivery is being processed by another attempt; answer non-200 so the service retries it later',
    );
  }
}

/**
 * The kind an event's fields say, on one rule: every field named like a kind (`event`, `type`,
 * `event_type`, `status`, `action`, `kind`, any case) is read, at the top and in `data`; a value's
 * words (split on `.`, `_`, `:`, `/`, `-` and spaces) name approved or cancelled. Fields that
 * disagree, or none that says, are `unknown`: never a guess.
 */
export function eventKind(...sources: unknown[]): { kind: WebhookEventKind; rawKind?: string } {
  let said = SAYS_NOTHING;
  let rawKind: string | undefined;
  for (const source of sources) {
    if (source === null || typeof source !== 'object') continue;
    for (const key in source) {
      if (!Object.hasOwn(source, key)) continue;
      const value: unknown = (source as Record<string, unknown>)[key];
      // `eventtype` is the longest kind name: a key longer than it with six separators is not read.
      if (typeof value !== 'string' || key.length > 15 || !KIND_FIELDS.has(key.toLowerCase().replace(/[_-]/g, ''))) continue;
      rawKind ??= value.slice(0, 64);
      const kind = kindOf(value);
      // A field naming neither says nothing (`type: 'webhook'`).
      if (kind === SAYS_NOTHING) continue;
      rawKind = value.slice(0, 64);
      said |= kind;
    }
  }
  const kind = KIND_SAID[said] ?? 'unknown';
  return rawKind === undefined ? { kind } : { kind, rawKind };
}

/**
 * What a kind field's value says, as {@link eventKind}'s bits: its words (split on `.`, `_`, `:`,
 * `/`, `-` and spaces) name approved or cancelled; naming both, or negated ("not approved"),
 * cannot be read; naming neither says nothing.
 */
function kindOf(value: string): number {
  const words = value.toLowerCase().split(/[\s._:/-]+/);
  const approved = words.some((w) => APPROVED.has(w));
  const cancelled = words.some((w) => CANCELLED.has(w));
  if (!approved && !cancelled) return SAYS_NOTHING;
  if ((approved && cancelled) || words.some((w) => NEGATIONS.has(w))) return UNREADABLE;
  return approved ? SAYS_APPROVED : SAYS_CANCELLED;
}

/** Express's raw body parser as a webhook route needs it (its default `type` reads no JSON body). */
const RAW = "express.raw({ type: 'application/json' })";

/** The body as bytes; or, with `text`, a string body as it is when it is surely within `maxBytes`. */
function bodyBytes(body: unknown, maxBytes: number, text = false): Uint8Array<ArrayBuffer> | string {
  let bytes: Uint8Array<ArrayBuffer>;
  // UTF-8 takes at most three bytes per UTF-16 unit: only a long text needs encoding to be measured.
  if (typeof body === 'string' && text && body !== '' && body.length * 3 <= maxBytes) return body;
  if (typeof body === 'string') bytes = utf8(body);
  // A view, not a copy: Web Crypto reads views (a Node Buffer is one over a shared pool).
  else if (body instanceof Uint8Array) bytes = body as Uint8Array<ArrayBuffer>;
  else if (body instanceof ArrayBuffer) bytes = new Uint8Array(body);
  else if (body !== null && typeof body === 'object') {
    throw fail(
      'ERR_WEBHOOK_PARSED_BODY',
      `the body was already parsed into an object; the signature covers the raw bytes. Pass the raw body: ${RAW} in Express, ` +
        'a raw content-type parser in Fastify, or `await request.text()` (or `verifyRequest(request)`) with Web requests',
    );
  } else {
    throw fail('ERR_WEBHOOK_EMPTY_BODY', `no body; pass the raw request body (${RAW} in Express: its default type leaves JSON unread)`);
  }
  if (bytes.length === 0) throw fail('ERR_WEBHOOK_EMPTY_BODY', 'the body is empty');
  if (bytes.length > maxBytes) throw fail('ERR_WEBHOOK_BODY_TOO_LARGE', `the body is larger than ${maxBytes} bytes`);
  return bytes;
}

/**
 * The body of a Web request, at most `maxBytes`: a larger `Content-Length` is refused before
 * reading, and a body without one (chunked) is read only until it passes the limit, then cancelled.
 */
async function readBody(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () => fail('ERR_WEBHOOK_BODY_TOO_LARGE', `the body is larger than ${maxBytes} bytes`);
  // Headers strip the whitespace HTTP allows around a value (space, tab); anything else around the
  // digits (a no-break space, a vertical tab, which String#trim would take) makes it no length.
  const declared = request.headers.get('content-length');
  if (declared !== null && /^[0-9]+$/.test(declared) && Number(declared) > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return concatBytes(chunks);
}

/** base64url SHA-256 on `node:crypto`: one-shot for a text where the runtime has `hash` (Node >= 20.12). */
const nodeDigest = (node: NodeCrypto, body: Uint8Array | string) =>
  typeof body === 'string' && node.hash
    ? node.hash('sha256', body, 'base64url')
    : node.createHash('sha256').update(body).digest('base64url');

/** base64url SHA-256 of the body: the delivery id. */
export async function bodyDigest(body: Uint8Array<ArrayBuffer> | string, node = nodeCrypto()): Promise<string> {
  if (node) return nodeDigest(node, body);
  return toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', typeof body === 'string' ? utf8(body) : body)));
}

/**
 * What a delivery means, as the text its id hashes: the request and the event's kind (an unknown
 * kind by its own name). A sender that mints a fresh token for each attempt changes the bytes, never
 * this: one event is processed once, however its redeliveries are written.
 */
function eventMeaning(accessRequestCode: string, kind: WebhookEventKind, rawKind: string | undefined): string {
  return `${accessRequestCode}\n${kind === 'unknown' ? `unknown:${rawKind ?? ''}` : kind}`;
}

/** A secret (as key bytes) that verified a delivery, and the check it verified. */
type Match = { key: Uint8Array<ArrayBuffer>; check: Check };

/** The key bytes a secret may be used as, by each secret: every form is tried until a verified delivery shows which one the sender keys with ({@link learnKeyForm}). */
type KeyForms = Uint8Array<ArrayBuffer>[][];

/** The base64 after a secret's `whsec_` (or all of it, without one), decoded; nothing when it is not base64. */
function decodedKey(secret: unknown): Uint8Array<ArrayBuffer> | undefined {
  if (typeof secret !== 'string') return undefined;
  const text = secret.replace(/^whsec_/, '');
  const decoded = BASE64.test(text) ? base64Bytes(text) : undefined;
  return decoded && decoded.length > 0 ? decoded : undefined;
}

/** Hex digits, an even count of them: the form a secret shown in hex has. */
const HEX_SECRET = /^(?:[0-9a-fA-F]{2})+$/;

/**
 * The bytes a secret's hex digits (after an optional `whsec_`) spell, when it is written in hex
 * and they are at least `minBytes` long: the key of a sender that shows its secrets in hex and
 * signs with the bytes (as Adyen's HMAC keys are used); nothing for any other secret.
 */
function hexKey(secret: unknown, minBytes: number): Uint8Array<ArrayBuffer> | undefined {
  if (typeof secret !== 'string') return undefined;
  const text = secret.replace(/^whsec_/, '');
  return HEX_SECRET.test(text) && text.length / 2 >= minBytes ? fromHex(text) : undefined;
}

/**
 * Each secret's candidate key forms, for the plain HMAC and Stripe's sets (`text`) and for
 * Standard Webhooks (`standard`). The spec shows neither the secret's form nor the key, so a
 * secret is tried in each form it can have, its convention's own first, until a verified delivery
 * shows which one the sender keys with ({@link learnKeyForm}):
 * - Standard Webhooks keys with the base64 after `whsec_`, so that form comes first; the secret's
 *   own bytes are tried too;
 * - the other conventions key with the secret's bytes (Stripe signs with its whole `whsec_…`
 *   text), so those come first; a `whsec_` secret's decoded base64 is tried too, for a sender that
 *   issues Standard Webhooks' secrets and signs another convention with them;
 * - in every convention, last, the bytes a secret written in hex spells ({@link hexKey}).
 */
function keyForms(
  secrets: readonly unknown[],
  secretBytes: readonly Uint8Array<ArrayBuffer>[],
  minBytes: number,
): { text: KeyForms; standard: KeyForms } {
  const decoded = secrets.map(decodedKey);
  const hex = secrets.map((secret) => hexKey(secret, minBytes));
  const present = (...forms: (Uint8Array<ArrayBuffer> | undefined)[]) => forms.filter((form) => form !== undefined);
  return {
    text: secretBytes.map((bytes, i) => {
      const secret = secrets[i];
      const whsec = typeof secret === 'string' && secret.startsWith('whsec_');
      return present(bytes, whsec ? decoded[i] : undefined, hex[i]);
    }),
    standard: secretBytes.map((bytes, i) => present(decoded[i], bytes, hex[i])),
  };
}

/**
 * Web Crypto HMAC keys, imported once per set of secrets and hash: a set narrowed by
 * {@link learnKeyForm} is a new set, imported afresh.
 */
function webCryptoKeys(): (set: readonly Uint8Array<ArrayBuffer>[], hash: Hash) => Promise<CryptoKey[]> {
  const keys = new WeakMap<readonly Uint8Array<ArrayBuffer>[], Map<Hash, Promise<CryptoKey[]>>>();
  return (set, hash) => {
    const byHash = keys.get(set) ?? new Map<Hash, Promise<CryptoKey[]>>();
    keys.set(set, byHash);
    let found = byHash.get(hash);
    if (!found) {
      found = Promise.all(set.map((bytes) => crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash }, false, ['verify'])));
      byHash.set(hash, found);
    }
    return found;
  };
}

/**
 * The secret (as key bytes) whose HMAC of the signed content is one of the check's MACs, if any,
 * with Web Crypto's `verify`, which compares in constant time (browsers, edge runtimes). Every
 * pair is compared, match or not.
 */
async function webCryptoMatch(
  checks: readonly Check[],
  keysFor: (set: readonly Uint8Array<ArrayBuffer>[], hash: Hash) => Promise<CryptoKey[]>,
): Promise<Match | undefined> {
  const results = await Promise.all(
    checks.map(async (check) => {
      const signed = joined(check.prefix, check.body as Uint8Array<ArrayBuffer>);
      const keys = await keysFor(check.secrets, check.hash);
      const verified = await Promise.all(
        keys.map(async (key) =>
          (await Promise.all(check.macs.map((mac) => crypto.subtle.verify('HMAC', key, mac, signed)))).includes(true),
        ),
      );
      return check.secrets.filter((_, i) => verified[i]).map((key) => ({ key, check }));
    }),
  );
  return results.flat()[0];
}

/**
 * {@link webCryptoMatch} with `node:crypto`'s `createHmac` and `timingSafeEqual`: synchronous, no
 * promise per delivery, and far cheaper per call for small bodies. Every pair is compared.
 */
function nodeMatch(node: NodeCrypto, checks: readonly Check[]): Match | undefined {
  let found: Match | undefined;
  for (const check of checks) {
    const name = NODE_NAMES[check.hash];
    for (const secret of check.secrets) {
      const hmac = node.createHmac(name, secret);
      // The plain scheme signs the body alone: no update for an empty prefix (each costs a call into C++).
      if (check.prefix !== '') hmac.update(check.prefix);
      const expected = hmac.update(check.body).digest();
      for (const mac of check.macs) if (node.timingSafeEqual(expected, mac)) found ??= { key: secret, check };
    }
  }
  return found;
}

/**
 * After a verified delivery: a secret whose key form was undecided for the convention that
 * verified keeps only the form that verified, so each later delivery costs one HMAC per secret,
 * not two (#44). Standard Webhooks and the other conventions learn apart, as their senders may key
 * differently.
 */
function learnKeyForm({ key, check }: Match, signing: SignatureSettings, forms: { text: KeyForms; standard: KeyForms }): void {
  const standard = check.secrets === signing.standardSecrets;
  // A check made before another delivery narrowed the forms (verified at the same time, on Web
  // Crypto) holds neither current set: taken for the other convention's, it would narrow the wrong forms.
  if (!standard && check.secrets !== signing.secrets) return;
  const undecided = standard ? forms.standard : forms.text;
  const i = undecided.findIndex((candidates) => candidates.length > 1 && candidates.includes(key));
  if (i < 0) return;
  undecided[i] = [key];
  if (standard) signing.standardSecrets = undecided.flat();
  else signing.secrets = undecided.flat();
}

/**
 * What a refused delivery logs, by its code and reason (never a value of the delivery), before the
 * refusal goes on to the caller. Each is a delivery lost until it is mended (a wrong secret, a
 * parsed body, an unknown signature form): `warn`, once per kind a minute, since a wrong secret
 * refuses every delivery and one line says it. A redelivery, and one another attempt is
 * processing, are normal: `info`.
 */
function refusalLog(options: WebhookVerifierOptions): (error: unknown) => never {
  const log = liteLog(options);
  // Read at each refusal, as the clock is then (a test's fake timers included).
  const now = () => (options.now ?? Date.now)();
  /** When each kind of refusal was last warned about. */
  const warned: Record<string, number> = {};
  return (error) => {
    if (error instanceof WebhookVerificationError) {
      const { code } = error;
      const at = now();
      if (code === 'ERR_WEBHOOK_DUPLICATE' || code === 'ERR_WEBHOOK_IN_PROGRESS')
        log('info', `webhook delivery refused: ${code}`, { code });
      else if (!(at - (warned[code] ?? Number.NEGATIVE_INFINITY) < 60_000)) {
        warned[code] = at;
        log('warn', `webhook delivery refused: ${code}: ${error.message}`, { code });
      }
    }
    throw error;
  };
}

/**
 * Creates a webhook verifier. It checks `X-Webhook-Signature` as an HMAC (SHA-256 by default) of
 * the **exact raw body** with Web Crypto, whose `verify` compares in constant time; then parses
 * the payload; then refuses a delivery it has seen before. Runs in Node, browsers' workers, Deno,
 * Bun and edge runtimes.
 *
 * @throws {ConfigurationError} when a secret is missing or shorter than `minSecretBytes`.
 * @example
 * ```ts
 * const webhooks = createWebhookVerifier({ secret: process.env.ACME_WEBHOOK_SECRET! });
 * app.post('/webhooks/acme', express.raw({ type: 'application/json' }), async (req, res) => {
 *   const event = await webhooks.verify(req.body, req.headers);
 *   res.sendStatus(200);
 * });
 * ```
 * @see {@link https://github.com/acme/identity-sdk/blob/main/docs/service-spec.md | the service specification}, "Events" and "Authentication"
 */
export function createWebhookVerifier(options: WebhookVerifierOptions): WebhookVerifier {
  if (!isObject(options)) throw new ConfigurationError('options', 'must be an object with at least secret');
  const maxBodyBytes = countOption('maxBodyBytes', options.maxBodyBytes, 1_048_576);
  const ttl = positiveOption('replayTtlSeconds', options.replayTtlSeconds, 86_400);
  const lease = positiveOption('processingLeaseSeconds', options.processingLeaseSeconds, 60);
  const node = nodeCrypto();
  const store = options.replayStore === false ? undefined : (options.replayStore ?? new MemoryReplayStore());
  const secrets = (Array.isArray(options.secret) ? options.secret : [options.secret]) as readonly unknown[];
  const minSecretBytes = countOption('minSecretBytes', options.minSecretBytes, 16);
  const secretBytes = secretKeys(secrets, minSecretBytes);
  const forms = keyForms(secrets, secretBytes, minSecretBytes);
  const signing = signatureSettings(options, forms.text.flat(), forms.standard.flat(), secretBytes.length);
  const keysFor = webCryptoKeys();

  const refused = refusalLog(options);

  /** One delivery, in one promise: a refusal is logged on its way out, a success adds nothing. */
  async function verify(body: RawBody, headers: HeaderSource): Promise<IdentityActionsEvent> {
    try {
      // With node:crypto a string body is hashed as it is, never copied into bytes first.
      const bytes = bodyBytes(body, maxBodyBytes, node !== null);
      const checks = signatureChecks(bytes, headers, signing);
      const matched = node ? nodeMatch(node, checks) : await webCryptoMatch(checks, keysFor);
      if (!matched) throw fail('ERR_WEBHOOK_SIGNATURE', mismatchMessage(checks));
      learnStampForm(matched.check, signing);
      learnKeyForm(matched, signing, forms);

      const { accessToken, accessRequestCode, identitySessionCode, payload, kind, rawKind } = readDelivery(parseBody(body, bytes));
      const meaning = eventMeaning(accessRequestCode, kind, rawKind);
      // Hashed at once on node:crypto; elsewhere Web Crypto's digest is awaited.
      const deliveryId = node ? nodeDigest(node, meaning) : await bodyDigest(meaning, null);
      if (store) await claimDelivery(store, deliveryId, lease);
      return new VerifiedEvent({ kind, rawKind, accessRequestCode, identitySessionCode, payload, deliveryId }, accessToken);
    } catch (error) {
      return refused(error);
    }
  }

  return {
    verify,
    verifyRequest(request) {
      if (!(request instanceof Request))
        return Promise.reject(new InvalidInputError([{ field: 'request', message: 'must be a Web Request' }]));
      return readBody(request, maxBodyBytes).then((bytes) => verify(bytes, request.headers), refused);
    },
    async complete(event) {
      await store?.complete(event.deliveryId, ttl);
    },
    async release(event) {
      await store?.release(event.deliveryId);
    },
  };
}
