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
} from '../../src/index.js';
import type { IdentityActionsEvent } from '../../src/webhooks/index.js';

describe('public types', () => {
  test('switch (error.code) narrows AnyAcmeIdentityError to the class and its fields', () => {
    const narrow = (error: AnyAcmeIdentityError) => {
      switch (error.code) {
        case 'ERR_CONFLICT':
          expectTypeOf(error).toEqualTypeOf<ConflictError>();
          expectTypeOf(error.existingCode).toEqualTypeOf<string | undefined>();
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

  test('the client needs its four settings; a webhook event kind is one of three', () => {
    expectTypeOf<ClientOptions>().toHaveProperty('baseUrl').toEqualTypeOf<string>();
    // @ts-expect-error tenantId is required
    const missing: ClientOptions = { baseUrl: 'https://x', clientId: 'c', clientSecret: 's' };
    expectTypeOf(missing).not.toBeAny();
    expectTypeOf<IdentityActionsEvent['kind']>().toEqualTypeOf<'approved' | 'cancelled' | 'unknown'>();
  });
});
