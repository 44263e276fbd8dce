/**
 * Secrets at rest (tokens in a shared store): AES-GCM with a 96-bit random IV, bound to the name
 * they are stored under, so a value moved to another key does not open.
 */
import { fromBase64, toBase64, utf8 } from './encoding.js';

/** What an `encryptionKey` option takes: 32 random bytes (or their base64), or an AES-GCM `CryptoKey`. */
export type AesKeyInput = Uint8Array | string | CryptoKey;

/** The key, or what is wrong with the input (for the caller's `ConfigurationError`). */
export function importAesKey(given: AesKeyInput): Promise<CryptoKey> | string {
  if (typeof CryptoKey !== 'undefined' && given instanceof CryptoKey) {
    return given.algorithm.name === 'AES-GCM' ? Promise.resolve(given) : 'must be an AES-GCM key';
  }
  let bytes: Uint8Array | undefined;
  if (typeof given === 'string') bytes = fromBase64(given);
  else if (given instanceof Uint8Array) bytes = given;
  if (bytes?.length !== 32) return 'must be 32 bytes (a Uint8Array, or their base64)';
  return crypto.subtle.importKey('raw', new Uint8Array(bytes), 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/** `v1.` + base64(iv ‖ AES-GCM(text)), with `name` as additional data. */
export async function seal(key: CryptoKey, text: string, name: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: utf8(name) }, key, utf8(text)));
  const out = new Uint8Array(12 + sealed.length);
  out.set(iv);
  out.set(sealed, 12);
  return `v1.${toBase64(out)}`;
}

/** The text `seal` sealed under `name`; rejects for anything else (another key, another name, not sealed). */
export async function open(key: CryptoKey, value: string, name: string): Promise<string> {
  if (!value.startsWith('v1.')) throw new TypeError('not sealed');
  const bytes = fromBase64(value.slice(3));
  if (!bytes || bytes.length < 28) throw new TypeError('not sealed');
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: bytes.subarray(0, 12), additionalData: utf8(name) },
    key,
    bytes.subarray(12),
  );
  return new TextDecoder('utf-8', { fatal: true }).decode(plain);
}
