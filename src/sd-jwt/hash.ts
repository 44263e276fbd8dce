/** Digest algorithms of `_sd_alg` and the digests of disclosures (RFC 9901 §4.2.3). */
import { SdJwtVerificationError } from '../errors/index.js';
import { fromHex, toBase64Url, utf8 } from '../internal/encoding.js';
import { nodeCrypto } from '../internal/node-crypto.js';

/** The IANA hash names the verifier accepts. */
export type HashAlgorithm = 'sha-256' | 'sha-384' | 'sha-512';

/**
 * `_sd_alg` names, as standards and platforms write them, mapped to the IANA names: the service's
 * own example writes `sha256` (Node, Python), RFC 9901 the IANA `sha-256`, Web Crypto and Java
 * `SHA-256`, some `SHA256` or `sha_256`. A name is read in any case, with or without a `-` or `_`
 * before its length. Truncated hashes (`sha-256/128`, ...) and anything else are refused.
 */
const NAMES: Readonly<Record<string, HashAlgorithm>> = {
  sha256: 'sha-256',
  sha384: 'sha-384',
  sha512: 'sha-512',
};

/** A hash name without its case or the separator before its length: `SHA-256`, `sha_256` and `sha256` are one name. */
const canonicalName = (name: string) => name.toLowerCase().replace(/^sha[-_]?/, 'sha');

/** The hash named by `_sd_alg`: sha-256 when absent (RFC 9901 §4.1.1); anything unknown is refused. */
export function hashAlgorithm(sdAlg: unknown): HashAlgorithm {
  if (sdAlg === undefined) return 'sha-256';
  const canonical = typeof sdAlg === 'string' ? canonicalName(sdAlg) : undefined;
  const name = canonical !== undefined && Object.hasOwn(NAMES, canonical) ? NAMES[canonical] : undefined;
  if (!name)
    throw new SdJwtVerificationError(
      'ERR_SD_JWT_HASH_ALG',
      '_sd_alg must be sha-256, sha-384 or sha-512 (in any spelling: sha256, SHA-256)',
    );
  return name;
}

const DIGEST_BYTES: Readonly<Record<HashAlgorithm, number>> = { 'sha-256': 32, 'sha-384': 48, 'sha-512': 64 };
const HEX_DIGEST = /^[0-9a-fA-F]+$/;
const BASE64_DIGEST = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * A digest of `_sd` as RFC 9901 writes it (base64url, no padding), from any encoding an issuer may
 * have chosen ("the exact input of the hash: not shown", and neither is its output): base64url,
 * base64 with or without padding, or hex (a `hexdigest()`), told apart by the hash's length. A
 * string that is none of these is kept as it is, and matches nothing.
 */
export function canonicalDigest(algorithm: HashAlgorithm, text: string): string {
  const bytes = DIGEST_BYTES[algorithm];
  if (text.length === bytes * 2 && HEX_DIGEST.test(text)) return toBase64Url(fromHex(text));
  if (!BASE64_DIGEST.test(text)) return text;
  const unpadded = text.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return unpadded.length === Math.ceil((bytes * 4) / 3) ? unpadded : text;
}

/** base64url(hash(ascii(input))) for each input, in order: at once with `node:crypto`, else a promise from Web Crypto. */
export function digests(algorithm: HashAlgorithm, inputs: readonly string[], node = nodeCrypto()): string[] | Promise<string[]> {
  // Node's synchronous hash is about 60 times faster than one `crypto.subtle.digest` per disclosure.
  if (node) {
    const name = algorithm.replace('-', '');
    // One-shot `crypto.hash` (Node >= 20.12) where there is one: no Hash object per disclosure.
    const { hash } = node;
    if (hash) return inputs.map((input) => hash(name, input, 'base64url'));
    return inputs.map((input) => node.createHash(name).update(input).digest('base64url'));
  }
  const name = algorithm.toUpperCase();
  return Promise.all(inputs.map(async (input) => toBase64Url(new Uint8Array(await crypto.subtle.digest(name, utf8(input))))));
}
