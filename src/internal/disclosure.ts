/**
 * A disclosure as RFC 9901 writes one (§4.2.1), which an identity response may carry in place of
 * the spec's `{claim, salt, value}`: its base64url string, or the array that string encodes,
 * `[salt, claim, value]`. One reading for the client's answer shapes and for the SD-JWT verifier.
 */
import { base64urlBytes } from './jws.js';

/** A disclosure's fields. */
export interface DisclosureFields {
  readonly salt: string;
  readonly claim: string;
  readonly value: unknown;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Where the client keeps a disclosure string it returns as `{claim, salt, value}`: the string
 * itself, whose exact bytes are what `_sd` commits to and what the SD-JWT verifier then hashes
 * (decoding loses them: any whitespace, key order or number form the issuer wrote). A registered
 * symbol, so the client and the verifier find it when each is bundled apart; a non-enumerable
 * property, so the object compares, spreads and logs as the spec's three fields.
 */
const DISCLOSURE_STRING: unique symbol = Symbol.for('@acme/identity.disclosure-string');

/** `fields` as `{claim, salt, value}`, carrying `encoded` (the string they were read from) under {@link DISCLOSURE_STRING}. */
export function withDisclosureString<T extends object>(fields: T, encoded: string | undefined): T {
  if (encoded !== undefined) Object.defineProperty(fields, DISCLOSURE_STRING, { value: encoded });
  return fields;
}

/** The disclosure string an entry the client read carries (see {@link DISCLOSURE_STRING}), if any. */
export function disclosureString(entry: object): string | undefined {
  const encoded: unknown = (entry as { [DISCLOSURE_STRING]?: unknown })[DISCLOSURE_STRING];
  return typeof encoded === 'string' ? encoded : undefined;
}

/** The JSON a disclosure string encodes (the base64url of its UTF-8), or `undefined` when it encodes none. */
export function decodedDisclosure(encoded: string): unknown {
  try {
    return encoded === '' ? undefined : JSON.parse(decoder.decode(base64urlBytes(encoded)));
  } catch {
    return undefined;
  }
}

/**
 * `[salt, claim, value]` as its fields; `undefined` for anything else: another length (an array
 * element's `[salt, value]` names no claim), or a salt or a claim that is not text.
 */
export function disclosureArray(array: unknown): DisclosureFields | undefined {
  if (!Array.isArray(array) || array.length !== 3) return undefined;
  const [salt, claim, value] = array as unknown[];
  return typeof salt === 'string' && typeof claim === 'string' ? { salt, claim, value } : undefined;
}
