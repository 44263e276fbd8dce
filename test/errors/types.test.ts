/**
 * Type tests (checked by `npm run typecheck`, which compiles the tests): what the public types
 * promise a caller. A broken promise is a compile error, before any test runs.
 */
import { describe, expectTypeOf, test } from 'vitest';
import {
  type AcmeIdentityError,
  type ConflictError,
  type OidcError,
  type RateLimitError,
  type ValidationError,
  readClaim,
  type AnyAcmeIdentityError,
  type ClientOptions,
  type PersonName,
  type ClaimKey,
  type ClaimsRequest,
  claimKey,
} from '../../src/index.js';
import type { IdentityActionsEvent } from '../../src/webhooks/index.js';

// How an application declares a claim key the service added after this SDK, with its decoded type.
declare module '../../src/claims/decoders.js' {
  interface KnownClaimTypes {
    'loyalty.tier': number;
  }
}

describe('public types', () => {
  test('switch (error.code) narrows AnyAcmeIdentityError to the class and its fields', () => {
    const narrow = (error: AnyAcmeIdentityError) => {
      switch (error.code) {
        case 'ERR_CONFLICT':
          expectTypeOf(error).toEqualTypeOf<ConflictError>();
          expectTypeOf(error.existingCode).toEqualTypeOf<string | undefined>();
          expectTypeOf(error.identitySessionCode).toEqualTypeOf<string | undefined>();
          return;
        case 'ERR_RATE_LIMITED':
          expectTypeOf(error).toEqualTypeOf<RateLimitError>();
          expectTypeOf(error.retryAfterMs).toEqualTypeOf<number | undefined>();
          return;
        case 'ERR_VALIDATION':
          expectTypeOf(error).toEqualTypeOf<ValidationError>();
          return;
        case 'ERR_OIDC_STATE':
          expectTypeOf(error).toEqualTypeOf<OidcError>();
          return;
      }
    };
    expectTypeOf(narrow).parameter(0).toExtend<AcmeIdentityError>();
  });

  test('readClaim gives each known claim its decoded type, and unknown claims unknown', () => {
    const claims: Record<string, unknown> = {};
    expectTypeOf(readClaim(claims, 'acmeidentity.name')).toEqualTypeOf<PersonName | undefined>();
    expectTypeOf(readClaim(claims, 'sanctionscheck.is_pep')).toEqualTypeOf<boolean | undefined>();
    expectTypeOf(readClaim(claims, 'vevortw.credential')).toEqualTypeOf<unknown>();
  });

  test('claim keys (#27): a typo is a compile error; a declared key is typed; a run-time key goes through claimKey', () => {
    expectTypeOf<'acmeidentity.name'>().toExtend<ClaimKey>();
    expectTypeOf<'acmeidentity.credential_jwt'>().toExtend<ClaimKey>();
    expectTypeOf<'acmeidentity.nmae'>().not.toExtend<ClaimKey>();
    expectTypeOf<string>().not.toExtend<ClaimKey>();
    // A key the service added later, declared by module augmentation (the top of this file), with its type.
    expectTypeOf<'loyalty.tier'>().toExtend<ClaimKey>();
    expectTypeOf(readClaim({}, 'loyalty.tier')).toEqualTypeOf<number | undefined>();
    expectTypeOf(claimKey('from.configuration')).toExtend<ClaimKey>();
    // What a person writes, without `as const`: both forms of the request.
    const keys: ClaimsRequest = ['acmeidentity.name', claimKey('vevortw.credential')];
    const marked: ClaimsRequest = { 'sanctionscheck.is_pep': { essential: true }, 'acmeidentity.name': null };
    // @ts-expect-error a misspelt key in the object form
    const misspelt: ClaimsRequest = { 'acmeidentity.nmae': null };
    expectTypeOf([keys, marked, misspelt]).not.toBeAny();
  });

  test('the client needs its four settings; a webhook event kind is one of three', () => {
    expectTypeOf<ClientOptions>().toHaveProperty('baseUrl').toEqualTypeOf<string | URL>();
    // @ts-expect-error tenantId is required
    const missing: ClientOptions = { baseUrl: 'https://x', clientId: 'c', clientSecret: 's' };
    expectTypeOf(missing).not.toBeAny();
    expectTypeOf<IdentityActionsEvent['kind']>().toEqualTypeOf<'approved' | 'cancelled' | 'unknown'>();
  });
});
