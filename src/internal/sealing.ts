/**
 * Secrets at rest (tokens in a shared store): AES-GCM with a 96-bit random IV, bound to the name
 * they are stored under, so a value moved to another key does not open. On `node:crypto` where the
 * runtime has it (Node, Bun, Deno), at once: Web Crypto's `encrypt` and `decrypt` cost a job on
 * Node's thread pool per call, a fifth of the inbox's CPU (#44). Both paths write and read the same
 * form, the ciphertext then its 16-byte tag, as Web Crypto does.
 */
import { concatBytes, fromBase64, toBase64, utf8 } from './encoding.js';
import { nodeCrypto, type NodeCrypto } from './node-crypto.js';

/** What an `encryptionKey` option takes: 32 random bytes (or their base64), or an AES-GCM `CryptoKey`. */
export type AesKeyInput = Uint8Array | string | CryptoKey;

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * IVs are drawn from the runtime's random source `IV_BATCH` at a time and each is handed out once:
 * a call to `getRandomValues` costs about as much for 12 bytes as for 1.5 KB (3.5 µs on Node 20,
 * about a twentieth of a delivery's work in the inbox; #44). The batch lives in this module only.
 */
const IV_BATCH = 128;
let ivBatch = new Uint8Array(0);
let ivTaken = 0;

/** A fresh 96-bit IV, never handed out before. */
function freshIv(): Uint8Array<ArrayBuffer> {
  if (ivTaken === ivBatch.length) {
    ivBatch = crypto.getRandomValues(new Uint8Array(IV_BYTES * IV_BATCH));
    ivTaken = 0;
  }
  const iv = ivBatch.slice(ivTaken, ivTaken + IV_BYTES);
  ivTaken += IV_BYTES;
  return iv;
}

/** The key, or what is wrong with the input (for the caller's `ConfigurationError`). */
export function importAesKey(given: AesKeyInput): Promise<CryptoKey> | string {
  if (typeof CryptoKey !== 'undefined' && given instanceof CryptoKey) {
    if (given.algorithm.name !== 'AES-GCM') return 'must be an AES-GCM key';
    if (!given.usages.includes('encrypt') || !given.usages.includes('decrypt')) return 'must be a key for both encrypt and decrypt';
    return Promise.resolve(given);
  }
  let bytes: Uint8Array | undefined;
  if (typeof given === 'string') bytes = fromBase64(given);
  else if (given instanceof Uint8Array) bytes = given;
  if (bytes?.length !== 32) return 'must be 32 bytes (a Uint8Array, or their base64)';
  return crypto.subtle.importKey('raw', new Uint8Array(bytes), 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/** `v1.` + base64(iv ‖ AES-GCM(text) ‖ tag), with `name` as additional data. */
export async function seal(key: CryptoKey, text: string, name: string, node = nodeCrypto()): Promise<string> {
  const iv = freshIv();
  const sealed = node
    ? nodeSeal(node, key, iv, text, name)
    : new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: utf8(name) }, key, utf8(text)));
  return `v1.${toBase64(concatBytes([iv, sealed]))}`;
}

/** The text `seal` sealed under `name`; rejects for anything else (another key, another name, not sealed). */
export async function open(key: CryptoKey, value: string, name: string, node = nodeCrypto()): Promise<string> {
  if (!value.startsWith('v1.')) throw new TypeError('not sealed');
  const bytes = fromBase64(value.slice(3));
  if (!bytes || bytes.length < IV_BYTES + TAG_BYTES) throw new TypeError('not sealed');
  const iv = bytes.subarray(0, IV_BYTES);
  const sealed = bytes.subarray(IV_BYTES);
  const plain = node
    ? nodeOpen(node, key, iv, sealed, name)
    : await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: utf8(name) }, key, sealed);
  return new TextDecoder('utf-8', { fatal: true }).decode(plain);
}

const keyObjects = new WeakMap<CryptoKey, unknown>();

/**
 * Node's cipher name and key object for `key`, made once per key, held to what Web Crypto would
 * allow it: an AES-GCM key imported for `usage`, else a TypeError.
 */
function nodeKey(node: NodeCrypto, key: CryptoKey, usage: 'encrypt' | 'decrypt'): { cipher: string; keyObject: unknown } {
  const { name, length } = key.algorithm as AesKeyAlgorithm;
  if (name !== 'AES-GCM' || !key.usages.includes(usage)) throw new TypeError(`the key is not an AES-GCM key to ${usage}`);
  let keyObject = keyObjects.get(key);
  if (keyObject === undefined) {
    keyObject = node.KeyObject.from(key);
    keyObjects.set(key, keyObject);
  }
  return { cipher: `aes-${length}-gcm`, keyObject };
}

function nodeSeal(node: NodeCrypto, key: CryptoKey, iv: Uint8Array, text: string, name: string): Uint8Array {
  const { cipher, keyObject } = nodeKey(node, key, 'encrypt');
  const gcm = node.createCipheriv(cipher, keyObject, iv);
  gcm.setAAD(utf8(name));
  return concatBytes([gcm.update(utf8(text)), gcm.final(), gcm.getAuthTag()]);
}

/** The plain bytes; throws when the tag does not verify (another key, another name, altered). */
function nodeOpen(node: NodeCrypto, key: CryptoKey, iv: Uint8Array, sealed: Uint8Array, name: string): Uint8Array {
  const { cipher, keyObject } = nodeKey(node, key, 'decrypt');
  const gcm = node.createDecipheriv(cipher, keyObject, iv);
  gcm.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  gcm.setAAD(utf8(name));
  return concatBytes([gcm.update(sealed.subarray(0, sealed.length - TAG_BYTES)), gcm.final()]);
}
