/** Node's synchronous hashing, HMAC and signature checks, reached without an import so that bundles stay free of `node:`. */

interface NodeHash {
  update(data: string | Uint8Array): NodeHash;
  digest(encoding: 'base64url'): string;
}

/** An AES-GCM cipher or decipher (`createCipheriv`, `createDecipheriv`). */
interface NodeGcm {
  setAAD(data: Uint8Array): unknown;
  update(data: string | Uint8Array): Uint8Array;
  final(): Uint8Array;
}

interface NodeHmac {
  update(data: string | Uint8Array): NodeHmac;
  digest(): Uint8Array;
}

/** A public key as `crypto.verify` takes it, with the options of its algorithm. */
export interface NodeVerifyKey {
  key: unknown;
  padding?: number;
  saltLength?: number;
  dsaEncoding?: 'ieee-p1363';
}

export interface NodeCrypto {
  createHash(algorithm: string): NodeHash;
  /** One-shot hashing (Node >= 20.12, 21.7). */
  hash?(algorithm: string, data: string, encoding: 'base64url'): string;
  createHmac(algorithm: string, key: Uint8Array): NodeHmac;
  /** Compares two equal-length byte arrays in constant time. */
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
  /** A signature check, synchronous: `algorithm` is the hash (`null` for Ed25519). */
  verify(algorithm: string | null, data: Uint8Array, key: NodeVerifyKey, signature: Uint8Array): boolean;
  createCipheriv(algorithm: string, key: unknown, iv: Uint8Array): NodeGcm & { getAuthTag(): Uint8Array };
  createDecipheriv(algorithm: string, key: unknown, iv: Uint8Array): NodeGcm & { setAuthTag(tag: Uint8Array): unknown };
  /** Node's own key object of a Web Crypto key (no copy of its material leaves Node). */
  KeyObject: { from(key: CryptoKey): unknown };
  constants: { RSA_PKCS1_PSS_PADDING: number };
}

let cached: NodeCrypto | null | undefined;

/**
 * `node:crypto` when the runtime offers it through `process.getBuiltinModule` (Node >= 20.16,
 * Bun, Deno), else null (browsers, edge runtimes), which then use Web Crypto. For many small
 * inputs it is far faster than one asynchronous `crypto.subtle.digest` each.
 */
export function nodeCrypto(): NodeCrypto | null {
  if (cached === undefined) {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    cached = (proc?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined) ?? null;
  }
  return cached;
}
