/** Digest algorithms of `_sd_alg` and the digests of disclosures (RFC 9901 §4.2.3). */
import { SdJwtVerificationError } from '../errors/index.js';
import { toBase64Url, utf8 } from '../internal/encoding.js';
import { nodeCrypto } from '../internal/node-crypto.js';

/** The IANA hash names the verifier accepts. */
export type HashAlgorithm = 'sha-256' | 'sha-384' | 'sha-512';

/**
 * `_sd_alg` values accepted, mapped to their IANA names. The service writes `sha256` (its own
 * example); RFC 9901 uses the IANA names. Truncated hashes (`sha-256/128`, ...) are refused.
 */
const NAMES: Readonly<Record<string, HashAlgorithm>> = {
  sha256: 'sha-256',
  'sha-256': 'sha-256',
  sha384: 'sha-384',
  'sha-384': 'sha-384',
  sha512: 'sha-512',
  'sha-512': 'sha-512',
};

/** The hash named by `_sd_alg`: sha-256 when absent (RFC 9901 §4.1.1); anything unknown is refused. */
export function hashAlgorithm(sdAlg: unknown): HashAlgorithm {
  if (sdAlg === undefined) return 'sha-256';
  const name = typeof sdAlg === 'string' && Object.hasOwn(NAMES, sdAlg) ? NAMES[sdAlg] : undefined;
  if (!name) throw new SdJwtVerificationError('ERR_SD_JWT_HASH_ALG', '_sd_alg must be sha-256, sha-384 or sha-512');
  return name;
}

/** base64url(hash(ascii(input))) for each input, in order: at once with `node:crypto`, else a promise from Web Crypto. */
export function digests(algorithm: HashAlgorithm, inputs: readonly string[], node = nodeCrypto()): string[] | Promise<string[]> {
  // Node's synchronous hash is about 60 times faster than one `crypto.subtle.digest` per disclosure.
  if (node) {
    const name = algorithm.replace('-', '');
    // One-shot `crypto.hash` (Node >= 20.12) where there is one: no Hash object per disclosure.
    if (node.hash) return inputs.map((input) => node.hash!(name, input, 'base64url'));
    return inputs.map((input) => node.createHash(name).update(input).digest('base64url'));
  }
  const name = algorithm.toUpperCase();
  return Promise.all(inputs.map(async (input) => toBase64Url(new Uint8Array(await crypto.subtle.digest(name, utf8(input))))));
}
