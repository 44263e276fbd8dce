/**
 * `@acme/identity/sd-jwt`: turns an identity response, a `credential_jwt` or a credential JWT into
 * claims a relying party can rely on, and refuses expired or tampered ones. Web Crypto only (the
 * signature check is `internal/jws.ts`, held to jose's verdicts by its tests), so it runs in Node,
 * browsers, Deno, Bun and edge runtimes.
 *
 * @example
 * ```ts
 * import { remoteJwks, verifyIdentityResponse, readClaim } from '@acme/identity/sd-jwt';
 *
 * const keys = remoteJwks('https://auth.acme.example'); // discovery, cached
 * const verified = await verifyIdentityResponse(response, { requestCode, keys });
 * verified.proof; // 'signature' or 'digests'
 * readClaim(verified.claims, 'acmeidentity.name'); // { first_name, last_name } | undefined
 * ```
 * @see RFC 9901; {@link https://github.com/acme/identity-sdk/blob/main/docs/service-spec.md | the service specification}, "Identity response"
 * @module
 */
export { verifySdJwt } from './verify.js';
export type { KeyBindingOptions, TimeOptions, VerifiedDisclosure, VerifiedSdJwt, VerifySdJwtOptions } from './verify.js';
export { verifyIdentityResponse } from './response.js';
export type { ClaimsProof, VerifiedIdentityResponse, VerifyIdentityResponseOptions } from './response.js';
export { ASYMMETRIC_ALGORITHMS, localJwks, remoteJwks } from './jwks.js';
export type { KeyHeader, KeySource, RemoteJwksOptions, RemoteKeySource } from './jwks.js';
export type { HashAlgorithm } from './hash.js';
export { readClaim, readClaims } from '../claims/decoders.js';
export type { ClaimKey, ClaimValue, KnownClaimTypes, PersonName, ReadClaims } from '../claims/decoders.js';
export { ClaimDecodeError, ConfigurationError, InvalidInputError, JwksError, SdJwtVerificationError } from '../errors/index.js';
export type { SdJwtErrorCode } from '../errors/index.js';
