/** The claim keys the spec names, and the credentials it says can be obtained during a journey. */

/** Credentials the service can obtain during a journey, so the only ones that may be essential. */
export const OBTAINABLE_CREDENTIALS = ['acicncchc', 'vevortw', 'sanctionscheck', 'courtcheck', 'student', 'phonenumber'] as const;

/**
 * Every claim key the spec names, and no other: what `acme_claims_supported` lists unless a test
 * adds more (`createFakeService({ extraClaims })`), as the service adds claims over time.
 */
export const SUPPORTED_CLAIMS: readonly string[] = [
  'acmeidentity.valid',
  'acmeidentity.credential',
  'acmeidentity.credential_jwt',
  'acmeidentity.name',
  'acmeidentity.given_name',
  'acmeidentity.family_name',
  'acmeidentity.birth_date',
  'acmeidentity.email',
  'acmeidentity.phone',
  'acmeidentity.email_verified',
  'acmeidentity.phone_verified',
  'acmeidentity.names_verified',
  'sanctionscheck.is_sanctioned',
  'sanctionscheck.is_pep',
  'sanctionscheck.matches',
  'document.passport.travel_document_number',
  'document.passport_foreign.passport_number',
  'document.driving_license.licence_number',
  'acicncchc.credential',
];
