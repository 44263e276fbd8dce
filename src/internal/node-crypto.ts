/** Node's synchronous hashing, reached without an import so that bundles stay free of `node:`. */

interface NodeHash {
  update(data: string | Uint8Array): NodeHash;
  digest(encoding: 'base64url'): string;
}

export interface NodeCrypto {
  createHash(algorithm: string): NodeHash;
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
