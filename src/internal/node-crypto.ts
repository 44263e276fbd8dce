/** Node's synchronous hashing and HMAC, reached without an import so that bundles stay free of `node:`. */

interface NodeHash {
  update(data: string | Uint8Array): NodeHash;
  digest(encoding: 'base64url'): string;
}

interface NodeHmac {
  update(data: Uint8Array): NodeHmac;
  digest(): Uint8Array;
}

export interface NodeCrypto {
  createHash(algorithm: string): NodeHash;
  createHmac(algorithm: string, key: Uint8Array): NodeHmac;
  /** Compares two equal-length byte arrays in constant time. */
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
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
