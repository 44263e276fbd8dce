/**
 * The signatures a delivery's headers carry, read into checks: what was signed (a convention's
 * prefix, then the body), the MACs, the hash and the keys to check them with. Every convention the
 * verifier reads may arrive at once: a sender rotating its secret writes two Stripe sets
 * (`t=…,v1=… t=…,v1=…`), or a Standard Webhooks entry beside an HMAC of the body. The delivery
 * verifies when one check matches; a signature of a known form whose content is wrong refuses it.
 */
import { InvalidInputError, WebhookVerificationError, type WebhookErrorCode } from '../errors/index.js';
import { fromBase64, fromHex, utf8 } from '../internal/encoding.js';
import { ISO_ZONED, unixSeconds } from '../internal/times.js';

export const MAC_BYTES = { 'SHA-256': 32, 'SHA-384': 48, 'SHA-512': 64, 'SHA-1': 20 } as const;
/** Each hash as `node:crypto` and the `sha256=` prefix name it. */
export const NODE_NAMES = { 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512', 'SHA-1': 'sha1' } as const;
const HEX = /^[0-9a-fA-F]+$/;
export const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export type Hash = keyof typeof MAC_BYTES;

/**
 * The hashes a plain HMAC's length names when no `algorithm` is set ("HMAC algorithm: not shown"):
 * the SHA-2 family, 32, 48 or 64 bytes, each unforgeable without the secret. SHA-1 is read only
 * when set.
 */
const SHA2: readonly Hash[] = ['SHA-256', 'SHA-384', 'SHA-512'];

/** The signing conventions read: an HMAC of the body, Stripe's `t=…,v1=…`, Standard Webhooks' `v1,<base64>`. */
type Convention = 'hmac' | 'stripe' | 'standard';

export const fail = (code: WebhookErrorCode, message: string, cause?: unknown) =>
  new WebhookVerificationError(code, message, cause === undefined ? undefined : { cause });

/** A signature header of a known form whose content is wrong, naming the forms this verifier reads. */
const malformed = (what: string) =>
  fail(
    'ERR_WEBHOOK_MALFORMED_SIGNATURE',
    `${what} (forms read: an HMAC of the body as hex, sha256=hex (or hmac-sha256=, sha-256=) or base64; Stripe's t=…,v1=…; Standard Webhooks' v1,<base64>; the scheme option picks one)`,
  );

/** One signature check: the signed content (`prefix`, then the body), the MACs that claim it, and the keys and hash to check them with. */
export interface Check {
  prefix: string;
  /** As bytes, or as the text it came as when `node:crypto` hashes it. */
  body: Uint8Array<ArrayBuffer> | string;
  macs: readonly Uint8Array<ArrayBuffer>[];
  hash: Hash;
  secrets: readonly Uint8Array<ArrayBuffer>[];
  /**
   * A plain HMAC's timestamp header found without the `timestamp` option ({@link StampHeader}): its
   * name and text, and whether this check signed it before the body, and joined by what (`join`,
   * only when signed). Read only once this check matched.
   */
  stamp?: { header: string; value: string; signed: false } | { header: string; value: string; signed: true; join: StampJoin };
}

/**
 * Without the `timestamp` option, what the deliveries verified so far showed of a timestamp header
 * a service that signs `<timestamp>.<body>` sends beside the signature ("signed content: not
 * shown"), one of {@link SignatureSettings.stampNames}: `unknown` until one verifies with such a
 * header, then `stamped` (the timestamp in header `name` is signed: held to `toleranceSeconds`, and
 * required) or `body` (sent beside a body signed alone: not read again).
 */
type StampHeader = { signs: 'unknown' } | { signs: 'stamped'; name: string; join: StampJoin } | { signs: 'body' };

/**
 * What joins a timestamp header's value and the body in the signed content ("signed content: not
 * shown"): a dot (`<timestamp>.<body>`, as Stripe joins them), a colon, or nothing (the two
 * concatenated, as Discord and Twitch sign theirs).
 */
export type StampJoin = '.' | ':' | '';
export const STAMP_JOINS: readonly StampJoin[] = ['.', ':', ''];

/** What reading a delivery's signatures needs: the verifier's settings, fixed when it is created. */
export interface SignatureSettings {
  /** The plain HMAC's hash: the one set, or `auto` (a SHA-2 hash, by the MAC's length). */
  algorithm: Hash | 'auto';
  encoding: 'auto' | 'hex' | 'base64';
  signatureHeader: string;
  scheme: 'auto' | Convention;
  maxSignatures: number;
  /** For Stripe's and Standard Webhooks' signed timestamps, in seconds. */
  toleranceSeconds: number;
  /** The `timestamp` option: a timestamp header signed before the body by the plain HMAC, joined to it by `join`. */
  timestamp: { header: string; toleranceSeconds: number; join: StampJoin } | undefined;
  /** Without the `timestamp` option: what the deliveries showed of a timestamp header ({@link StampHeader}). */
  stampHeader: StampHeader | undefined;
  /** Every header a timestamp is looked for in, without the `timestamp` option (its name with Timestamp for Signature, X-Webhook-Timestamp, X-Request-Timestamp, X-Timestamp). */
  stampNames: readonly string[];
  now: () => number;
  /**
   * The keys of the plain HMAC and Stripe's sets (each secret's bytes, and a `whsec_` secret's
   * decoded base64), and those of Standard Webhooks (the base64 after `whsec_`, and the bytes);
   * each narrowed to one form per secret by the first delivery it verifies.
   */
  secrets: readonly Uint8Array<ArrayBuffer>[];
  standardSecrets: readonly Uint8Array<ArrayBuffer>[];
}

/** `prefix` then the body: the signed content of the timestamped conventions (the body itself without one). */
export function joined(prefix: string, bytes: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  if (prefix === '') return bytes;
  const head = utf8(prefix);
  const signed = new Uint8Array(head.length + bytes.length);
  signed.set(head);
  signed.set(bytes, head.length);
  return signed;
}

/**
 * A header's value. One rule for both forms: a header sent several times is its values joined by
 * `, `, as a Web `Headers` object joins them, whether it came as `Headers` or as Node's array.
 */
function header(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object')
    throw new InvalidInputError([{ field: 'headers', message: 'must be a Headers object or a plain object of headers' }]);
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const key in headers) {
    // Names of another length are never the one wanted: no lower-casing for them.
    if (key.length !== wanted.length || !Object.hasOwn(headers, key) || key.toLowerCase() !== wanted) continue;
    const value: unknown = (headers as Record<string, unknown>)[key];
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) values.push(...value.filter((v): v is string => typeof v === 'string'));
  }
  return values.length > 0 ? values.join(', ') : undefined;
}

export function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  return fromBase64(standard.padEnd(Math.ceil(standard.length / 4) * 4, '='));
}

/** The signature header's groups (separated by spaces), sorted by the convention each one's form shows. */
interface Groups {
  /** Entries of a plain HMAC of the body: hex, `sha256=` hex, or base64. */
  hmac: string[];
  /** Stripe's sets, each the `key=value` items of one `t=…,v1=…[,v1=…]`. */
  stripe: string[][];
  /** Standard Webhooks' entries, `version,<base64>`. */
  standard: string[];
}

const STANDARD_ENTRY = /^v\d+[a-z]*,/;
/**
 * Stripe's set of one signature with its separators: `t=` and its timestamp (at most 35
 * characters: an ISO 8601 date with nine digits of fraction and an offset, the longest form read),
 * `,v1=` and 64 hex digits, two separators.
 */
const STRIPE_SET_LENGTH = 2 + 35 + 4 + 64 + 2;
/** A Stripe item (`t=…`, `v1=…`) starting any of a group's comma-separated items (a group holds no whitespace). */
const STRIPE_ITEM = /(?:^|,)(?:t|v\d+)=/;

function conventionOf(group: string): Convention {
  if (STANDARD_ENTRY.test(group)) return 'standard';
  return STRIPE_ITEM.test(group) ? 'stripe' : 'hmac';
}

function groupsOf(value: string): Groups {
  const groups: Groups = { hmac: [], stripe: [], standard: [] };
  for (const group of value.split(/\s+/)) {
    const text = group.replace(/^,+|,+$/g, '');
    if (text === '') continue;
    const convention = conventionOf(text);
    if (convention === 'standard') groups.standard.push(text);
    else if (convention === 'hmac') groups.hmac.push(...text.split(',').filter(Boolean));
    else addStripeItems(groups.stripe, text.split(',').filter(Boolean));
  }
  return groups;
}

/**
 * Stripe's items join the set before them (`t=…, v1=…` written with a space after the comma, in
 * either order) unless both hold a timestamp: then they start the next set, as a sender signing
 * with two secrets writes them.
 */
function addStripeItems(sets: string[][], items: string[]): void {
  const last = sets.at(-1);
  const hasStamp = (set: readonly string[]) => set.some((item) => item.startsWith('t='));
  if (last && !(hasStamp(last) && hasStamp(items))) last.push(...items);
  else sets.push(items);
}

/** The signatures in Stripe's sets: every item but their timestamps (a loop: `flat()` cost a tenth of a check, #44). */
function stripeSignatureCount(sets: readonly string[][]): number {
  let count = 0;
  for (const set of sets) for (const item of set) if (!item.startsWith('t=')) count += 1;
  return count;
}

/**
 * The checks a delivery's headers carry, every convention found (or the one `scheme` names).
 * @throws {WebhookVerificationError} `ERR_WEBHOOK_MISSING_SIGNATURE` when no header carries a
 *   signature; `ERR_WEBHOOK_MALFORMED_SIGNATURE` when one of a known form is wrong, or there are
 *   more than `maxSignatures`; `ERR_WEBHOOK_TIMESTAMP`/`ERR_WEBHOOK_MISSING_TIMESTAMP` for a
 *   signed timestamp outside the tolerance or absent.
 */
export function signatureChecks(body: Uint8Array<ArrayBuffer> | string, headers: unknown, settings: SignatureSettings): Check[] {
  const { signatureHeader, scheme, maxSignatures } = settings;
  const value = header(headers, signatureHeader);
  // Standard Webhooks' own header is not read where another convention is chosen.
  const standardValue =
    scheme === 'auto' || scheme === 'standard' ? (header(headers, 'webhook-signature') ?? header(headers, 'svix-signature')) : undefined;
  if (value === undefined && standardValue === undefined) {
    throw fail('ERR_WEBHOOK_MISSING_SIGNATURE', `no signature: neither ${signatureHeader} nor webhook-signature is present`);
  }
  // A header longer than `maxSignatures` of the longest entries cannot hold that many valid ones: it is not even split.
  const widest = settings.algorithm === 'auto' ? 'SHA-512' : settings.algorithm;
  const longest = Math.max(LONGEST_NAME + MAC_BYTES[widest] * 2 + 2, STRIPE_SET_LENGTH);
  if ((value?.length ?? 0) + (standardValue?.length ?? 0) > maxSignatures * longest) {
    throw malformed(`the signature headers are longer than ${maxSignatures} signatures can be`);
  }
  const groups = groupsOf(value ?? '');
  if (standardValue !== undefined) groups.standard.push(...standardValue.split(/\s+/).filter(Boolean));
  const chosen = (convention: Convention) => scheme === 'auto' || scheme === convention;
  const count =
    (chosen('hmac') ? groups.hmac.length : 0) +
    (chosen('stripe') ? stripeSignatureCount(groups.stripe) : 0) +
    (chosen('standard') ? groups.standard.length : 0);
  if (count > maxSignatures) throw malformed(`the headers carry ${count} signatures; at most ${maxSignatures} are checked`);

  const checks: Check[] = [];
  if (chosen('hmac') && groups.hmac.length > 0) checks.push(...hmacChecks(body, headers, groups.hmac, settings));
  if (chosen('stripe')) for (const set of groups.stripe) checks.push(stripeCheck(body, set, headers, settings));
  if (chosen('standard') && groups.standard.length > 0) checks.push(standardCheck(body, headers, groups.standard, settings));
  if (checks.length > 0) return checks;
  const empty = groups.hmac.length + groups.stripe.length + groups.standard.length === 0;
  if (empty) throw fail('ERR_WEBHOOK_MISSING_SIGNATURE', 'the signature header is empty');
  throw malformed(`the signature header is not in the ${scheme} form`);
}

/** A signed timestamp in digits: UNIX seconds, or a finer unit (up to nanoseconds' 19 digits). */
const STAMP = /^[0-9]{1,19}$/;

/**
 * The UNIX second a signed timestamp names: digits read by the rule every time of the service is
 * read by (`unixSeconds`: seconds, or milliseconds and finer), or an ISO 8601 date-time with its
 * zone, as a sender that stamps with its clock's text may write it ("signed content: not shown");
 * `undefined` for any other text, a date without its zone included (it names no instant).
 */
function stampSeconds(stamp: string): number | undefined {
  if (STAMP.test(stamp)) return Math.floor(unixSeconds(Number(stamp)));
  // The ISO form the service's other times are read in (`internal/times.ts`). Unlike those, a day no
  // calendar has (Feb 30) is not refused: the stamp is signed, and the instant Date.parse gives it
  // is still held to the tolerance.
  const ms = ISO_ZONED.test(stamp) ? Date.parse(stamp.trim()) : Number.NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

/**
 * A signed timestamp within `tolerated` seconds of the clock: UNIX seconds, as both conventions
 * write it, milliseconds (13 digits) or a finer unit, or a date with its zone ({@link stampSeconds}).
 * The signed content keeps the text as it came.
 */
function checkStamp(stamp: string | undefined, tolerated: number, name: string, now: () => number): string {
  if (!stamp) throw fail('ERR_WEBHOOK_MISSING_TIMESTAMP', `the ${name} is missing`);
  const seconds = stampSeconds(stamp);
  if (seconds === undefined)
    throw fail('ERR_WEBHOOK_TIMESTAMP', `the ${name} is not a UNIX time in digits nor an ISO 8601 date with its zone`);
  const skew = Math.abs(Math.floor(now() / 1000) - seconds);
  if (skew > tolerated) {
    throw fail(
      'ERR_WEBHOOK_TIMESTAMP',
      `the ${name} is ${skew} s from this machine's clock, outside the tolerance of ${tolerated} s: a replay, or a clock that is off (sync it, or widen toleranceSeconds)`,
    );
  }
  return stamp;
}

/**
 * A `sha256=`, `sha384=`, `sha512=` or `sha1=` prefix, in any case, written with a dash
 * (`sha-256=`) or after `hmac-` or `hmac_` (`hmac-sha256=`, as some senders name the MAC): it
 * names the MAC's hash ("HMAC algorithm: not shown").
 */
const NAMED_HASH = /^(?:hmac[-_]?)?(sha-?(?:1|256|384|512))=/i;
/** The length of the longest prefix {@link NAMED_HASH} reads, for the header's length limit. */
const LONGEST_NAME = 'hmac-sha-512='.length;
/** Each hash by the name its prefix gives it: {@link NODE_NAMES} read the other way. */
const HASH_NAMED: Readonly<Record<string, Hash>> = Object.fromEntries(
  (Object.keys(NODE_NAMES) as Hash[]).map((hash): [string, Hash] => [NODE_NAMES[hash], hash]),
);

/**
 * What to configure when a MAC has the length of a hash not read ("HMAC algorithm: not shown"),
 * written as hex (read first, as the check reads it) or base64; nothing when it has none's.
 */
function otherHash(read: readonly Hash[], text: string): string {
  const bytes = HEX.test(text) && text.length % 2 === 0 ? text.length / 2 : base64Bytes(text)?.length;
  const other = (Object.keys(MAC_BYTES) as Hash[]).find((hash) => MAC_BYTES[hash] === bytes);
  return other && !read.includes(other) ? `; it has an HMAC-${other}'s length: set algorithm: '${other}'` : '';
}

/** A plain HMAC's MAC and the hash its length names. */
interface PlainMac {
  mac: Uint8Array<ArrayBuffer>;
  hash: Hash;
}

/**
 * One entry of a plain HMAC, of a hash `read` (the one its `sha256=`-style prefix names, when it
 * has one): hex, else base64, its length naming the hash. Hex is read first: 64 hex digits are an
 * HMAC-SHA256, never the 48 base64 bytes of an HMAC-SHA384 they could also spell.
 */
function plainMac(entry: string, read: readonly Hash[], encoding: SignatureSettings['encoding']): PlainMac {
  const named = NAMED_HASH.exec(entry);
  const text = named ? entry.slice(named[0].length) : entry;
  const namedHash = named && HASH_NAMED[(named[1] as string).toLowerCase().replace('-', '')];
  if (namedHash && !read.includes(namedHash)) {
    throw malformed(`the signature is named ${named[0]}, an HMAC-${namedHash}: set algorithm: '${namedHash}'`);
  }
  const hashes = namedHash ? [namedHash] : read;
  const hexHash = HEX.test(text) ? hashes.find((hash) => text.length === MAC_BYTES[hash] * 2) : undefined;
  const b64 = hexHash === undefined && BASE64.test(text) ? base64Bytes(text) : undefined;
  const b64Hash = b64 && hashes.find((hash) => b64.length === MAC_BYTES[hash]);
  if (hexHash && encoding !== 'base64') return { mac: fromHex(text), hash: hexHash };
  if (b64 && b64Hash && encoding !== 'hex') return { mac: b64, hash: b64Hash };
  if (hexHash || b64Hash) {
    throw fail('ERR_WEBHOOK_SIGNATURE_ENCODING', `the signature is ${hexHash ? 'hex' : 'base64'}, but ${encoding} is configured`);
  }
  const hmacs = hashes.map((hash) => `HMAC-${hash} (${MAC_BYTES[hash]} bytes)`).join(' or ');
  throw malformed(`the signature is not a hex or base64 ${hmacs}${otherHash(read, text)}`);
}

/**
 * The checks of an HMAC of the body (after the `timestamp` option's header, when set), one for
 * each hash its MACs' lengths name. Without the option, a delivery that carries the
 * {@link StampHeader} is checked both ways until one shows which the service signs.
 */
function hmacChecks(body: Check['body'], headers: unknown, entries: readonly string[], settings: SignatureSettings): Check[] {
  const { algorithm, encoding } = settings;
  const read = algorithm === 'auto' ? SHA2 : [algorithm];
  const macsOf: Partial<Record<Hash, Uint8Array<ArrayBuffer>[]>> = {};
  for (const entry of entries) {
    const { mac, hash } = plainMac(entry, read, encoding);
    const macs = macsOf[hash];
    if (macs) macs.push(mac);
    else macsOf[hash] = [mac];
  }
  // Plain loops, not a Map spread and flatMap: this runs for every delivery (#44).
  const checks: Check[] = [];
  for (const hash of read) {
    const macs = macsOf[hash];
    if (macs) checks.push(...stampedChecks({ prefix: '', body, macs, hash, secrets: settings.secrets }, headers, settings));
  }
  return checks;
}

/**
 * A plain HMAC's check as the timestamp header asks: after the timestamp the `timestamp` option
 * names, or the deliveries showed signed; the body alone; or, undecided, both.
 */
function stampedChecks(plain: Check, headers: unknown, settings: SignatureSettings): Check[] {
  const { stampHeader } = settings;
  // A timestamp the delivery must sign: the option's, or the header the deliveries showed signed.
  const required =
    settings.timestamp ??
    (stampHeader?.signs === 'stamped'
      ? { header: stampHeader.name, toleranceSeconds: settings.toleranceSeconds, join: stampHeader.join }
      : undefined);
  if (required) {
    const stamp = checkStamp(header(headers, required.header), required.toleranceSeconds, `${required.header} header`, settings.now);
    return [{ ...plain, prefix: `${stamp}${required.join}` }];
  }
  if (stampHeader?.signs !== 'unknown') return [plain];
  // Undecided: each header present that names a time (digits, or an ISO 8601 date with its zone)
  // may be what the service signs before the body, joined to it by any of STAMP_JOINS; one that
  // names none cannot be.
  const stamps: { header: string; value: string }[] = [];
  for (const name of settings.stampNames) {
    const value = header(headers, name);
    if (value !== undefined && stampSeconds(value) !== undefined) stamps.push({ header: name, value });
  }
  const [first] = stamps;
  if (!first) return [plain];
  const checks: Check[] = [{ ...plain, stamp: { ...first, signed: false } }];
  for (const stamp of stamps) {
    for (const join of STAMP_JOINS) checks.push({ ...plain, prefix: `${stamp.value}${join}`, stamp: { ...stamp, signed: true, join } });
  }
  return checks;
}

/**
 * After a verified delivery, what it showed of the {@link StampHeader}: a signed timestamp is held
 * to `toleranceSeconds` (every time: deliveries checked at once may all have found it undecided),
 * and an undecided header is decided, signed or sent beside a body signed alone.
 * @throws {WebhookVerificationError} `ERR_WEBHOOK_TIMESTAMP` for a signed timestamp outside the tolerance.
 */
export function learnStampForm({ stamp }: Check, settings: SignatureSettings): void {
  if (!stamp) return;
  if (stamp.signed) checkStamp(stamp.value, settings.toleranceSeconds, `${stamp.header} header`, settings.now);
  if (settings.stampHeader?.signs !== 'unknown') return;
  // Signed: that header joined so, and no other, from now on. Sent beside a body signed alone: none.
  settings.stampHeader = stamp.signed ? { signs: 'stamped', name: stamp.header, join: stamp.join } : { signs: 'body' };
}

/** Why no check matched: the body, and the timestamp header's form too when it was tried. */
export function mismatchMessage(checks: readonly Check[]): string {
  const tried = [...new Set(checks.flatMap((check) => (check.stamp?.signed ? [`${check.stamp.header}'s value`] : [])))];
  return `the signature does not match the body${tried.length > 0 ? ` nor ${tried.join(' or ')} and the body (joined by a dot, a colon or nothing)` : ''}`;
}

/**
 * One of Stripe's sets: `t=<unix>,v1=<hex>[,v1=<hex>…]`, an HMAC-SHA256 of `"<t>.<body>"`; other
 * versions (Stripe's v0) are not ours. A set of `v0=<hex>` alone, without `t=`, is Slack's form
 * ({@link slackCheck}).
 */
function stripeCheck(body: Check['body'], items: readonly string[], headers: unknown, settings: SignatureSettings): Check {
  const stamps: string[] = [];
  const v1: string[] = [];
  const v0: string[] = [];
  for (const item of items) {
    const split = item.indexOf('=');
    const key = item.slice(0, split);
    if (key === 't') stamps.push(item.slice(split + 1));
    else if (key === 'v1') v1.push(item.slice(split + 1));
    else if (key === 'v0') v0.push(item.slice(split + 1));
  }
  if (stamps.length === 0 && v1.length === 0 && v0.length > 0) return slackCheck(body, v0, headers, settings);
  if (stamps.length !== 1 || v1.length === 0 || !v1.every((mac) => HEX.test(mac) && mac.length === 64)) {
    throw malformed(
      `the ${settings.signatureHeader} header has t= but not one timestamp and 1 to ${settings.maxSignatures} hex v1= signatures in each set`,
    );
  }
  const stamp = checkStamp(stamps[0], settings.toleranceSeconds, 'timestamp t=', settings.now);
  return { prefix: `${stamp}.`, body, macs: v1.map(fromHex), hash: 'SHA-256', secrets: settings.secrets };
}

/**
 * Slack's convention (Zoom's too): `v0=<hex>`, an HMAC-SHA256 of `"v0:<timestamp>:<body>"`, the
 * timestamp in a header of its own: the `timestamp` option's, else the first of the headers a
 * timestamp is looked for in ({@link SignatureSettings.stampNames}) that the delivery carries. The
 * timestamp is signed, so it is required and held to `toleranceSeconds` before any MAC.
 */
function slackCheck(body: Check['body'], macs: readonly string[], headers: unknown, settings: SignatureSettings): Check {
  if (!macs.every((mac) => HEX.test(mac) && mac.length === 64)) {
    throw malformed(`the ${settings.signatureHeader} header's v0= signatures are not each 64 hex digits`);
  }
  const names = settings.timestamp ? [settings.timestamp.header] : settings.stampNames;
  const name = names.find((candidate) => header(headers, candidate) !== undefined);
  const tolerance = settings.timestamp?.toleranceSeconds ?? settings.toleranceSeconds;
  const value = name === undefined ? undefined : header(headers, name);
  const stamp = checkStamp(value, tolerance, `${name ?? names.join(' or ')} header`, settings.now);
  return { prefix: `v0:${stamp}:`, body, macs: macs.map(fromHex), hash: 'SHA-256', secrets: settings.secrets };
}

/** Standard Webhooks: `v1,<base64>` entries, an HMAC-SHA256 of `"<webhook-id>.<webhook-timestamp>.<body>"`; other versions (v1a, asymmetric) are not ours. */
function standardCheck(body: Check['body'], headers: unknown, entries: readonly string[], settings: SignatureSettings): Check {
  const id = header(headers, 'webhook-id') ?? header(headers, 'svix-id');
  if (!id || id.length > 256) throw malformed('the webhook-id header is missing or longer than 256 characters');
  const stamp = checkStamp(
    header(headers, 'webhook-timestamp') ?? header(headers, 'svix-timestamp'),
    settings.toleranceSeconds,
    'webhook-timestamp header',
    settings.now,
  );
  const macs = entries
    .map((entry) => entry.split(','))
    .filter(([version]) => version === 'v1')
    .map(([, mac]) => (mac && BASE64.test(mac) ? base64Bytes(mac) : undefined));
  const valid = macs.filter((mac): mac is Uint8Array<ArrayBuffer> => mac?.length === 32);
  if (valid.length === 0 || valid.length !== macs.length) {
    throw malformed(`the signature is not 1 to ${settings.maxSignatures} Standard Webhooks v1,<base64> HMAC-SHA256 signatures`);
  }
  return { prefix: `${id}.${stamp}.`, body, macs: valid, hash: 'SHA-256', secrets: settings.standardSecrets };
}
