/**
 * Create an identity request for a person, read it back, then delete it.
 *
 * Configuration comes from the environment, as it would in a real backend:
 *   ACME_BASE_URL, ACME_CLIENT_ID, ACME_CLIENT_SECRET, ACME_TENANT_ID
 * `npm run demo` serves the fake service on localhost and sets them.
 */
import { AcmeIdentityClient, ConflictError, InvalidInputError } from '@acme/identity';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const acme = new AcmeIdentityClient({
  baseUrl: env('ACME_BASE_URL'),
  clientId: env('ACME_CLIENT_ID'),
  clientSecret: env('ACME_CLIENT_SECRET'),
  tenantId: env('ACME_TENANT_ID'),
});

// The SDK checks input before sending anything, and says which field is wrong.
try {
  await acme.identityRequests.create({
    first_name: 'Jane',
    last_name: 'Citizen',
    email: 'jane.citizen@example.com',
    phone: '+61412345678',
    phone_country_code: 61,
    purpose: 'account-opening',
    return_url: 'https://rp.example/verified',
    off_ramp_url: 'https://rp.example/later',
    claims: ['acmeidentity.given_name'],
  });
} catch (error) {
  if (!(error instanceof InvalidInputError)) throw error;
  console.log(`refused before sending: ${error.message}`);
}

const person = {
  first_name: 'Jane',
  last_name: 'Citizen',
  email: 'jane.citizen@example.com',
  phone: '412345678',
  phone_country_code: 61,
  purpose: 'account-opening',
  return_url: 'https://rp.example/verified',
  off_ramp_url: 'https://rp.example/later',
  claims: {
    'acmeidentity.given_name': null,
    'acmeidentity.family_name': null,
    'sanctionscheck.is_pep': { essential: true },
  },
} as const;

const created = await acme.identityRequests.create(person);
const codes = {
  accessRequestCode: created.data.access_request_code,
  identitySessionCode: created.data.identity_session_code,
};
console.log(`created ${codes.accessRequestCode}; send the person to ${created.data.redirect_url}`);

// A second request to the same person while the first is open is a conflict naming the first.
try {
  await acme.identityRequests.create(person);
} catch (error) {
  if (!(error instanceof ConflictError)) throw error;
  console.log(`conflict: an open request exists (${error.existingCode})`);
}

const { data: details } = await acme.identityRequests.get(codes);
const expires = details.time_expires === undefined ? 'not given' : new Date(details.time_expires * 1000).toISOString();
console.log(`status check: expires at ${expires}, opened: ${details.opened_at !== undefined}`);

const { data: deleted, correlationId } = await acme.identityRequests.delete(codes);
console.log(`deleted: ${deleted.message} (correlation id ${correlationId})`);
