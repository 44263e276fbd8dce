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
