/**
 * Issue a verifiable credential from a file, verify it, fetch the file back, revoke it, and see
 * that a revoked credential answers 410.
 *
 * Configuration from the environment: ACME_BASE_URL, ACME_CLIENT_ID, ACME_CLIENT_SECRET,
 * ACME_TENANT_ID. `npm run demo` serves the sandbox on localhost and sets them.
 */
import { AcmeIdentityClient, CredentialRevokedError } from '@acme/identity';

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

// A police check certificate, as a PDF (bytes: the SDK does the base64 and checks the type).
const certificate = new TextEncoder().encode('%PDF-1.7\n% a police check certificate\n');
const { data: submitted } = await acme.credentials.submit({
  type: 'acicncchc',
  person_ref: 'customer-42/person-1', // <uid>/<uid>, as the spec shapes it
  file: certificate,
  file_name: 'police-check.pdf',
  issuer_name: 'Relying Party Pty Ltd',
  issuer_url: 'https://rp.example',
  issuer_ref: `check-${Date.now()}`,
});
// Opaque: stored and sent back exactly as returned.
const ref = submitted.credential_ref;
console.log(`issued ${ref}`);

const { data: credential } = await acme.credentials.verify(ref);
console.log(`verified: ${Object.keys(credential).join(', ')}`);

const file = await acme.credentials.download(ref);
if (new TextDecoder().decode(file) !== new TextDecoder().decode(certificate)) throw new Error('the file came back different');
console.log(`the source file came back intact (${file.byteLength} bytes)`);

await acme.credentials.revoke(ref);
try {
  await acme.credentials.verify(ref);
  throw new Error('a revoked credential verified');
} catch (error) {
  if (!(error instanceof CredentialRevokedError)) throw error;
  console.log(`revoked: verify now answers ${error.status} (${error.code})`);
}
