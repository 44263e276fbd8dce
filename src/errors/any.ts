/** The union of every error class the SDK throws, for `switch (error.code)` to narrow on. */
import type * as Classes from './classes.js';
import type { ApiError } from './classes.js';

/**
 * Every error the SDK throws, as a union of its classes: once an error is known to be the SDK's
 * (`error instanceof AcmeIdentityError`), `switch (error.code)` narrows it to its class and the
 * fields that class carries, as jose's `AnyJOSEError` does.
 * @example
 * ```ts
 * catch (caught) {
 *   if (!(caught instanceof AcmeIdentityError)) throw caught;
 *   const error = caught as AnyAcmeIdentityError;
 *   switch (error.code) {
 *     case 'ERR_CONFLICT': return reuse(error.existingCode);       // ConflictError
 *     case 'ERR_RATE_LIMITED': return later(error.retryAfterMs);   // RateLimitError
 *     case 'ERR_OIDC_STATE': return restartSignIn(error.error);   // OidcError
 *   }
 * }
 * ```
 */
export type AnyAcmeIdentityError =
  | (ApiError & { readonly code: 'ERR_API' })
  | { [Name in keyof Thrown]: Thrown[Name] extends abstract new (...args: never[]) => infer Instance ? Instance : never }[keyof Thrown];

/** Every class of classes.ts but the two whose `code` is wide (the root, and ApiError taken above with its own code). */
type Thrown = Omit<typeof Classes, 'AcmeIdentityError' | 'ApiError'>;
