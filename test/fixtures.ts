/**
 * Test data and small helpers with no side effects: safe to import from tests that talk to a
 * real server on localhost (the sandbox, the package test), where msw must not be listening.
 */
import type { CredentialSubmitInput, IdentityRequestInput } from '../src/index.js';

/** A valid identity request for a made-up person. */
export function person(overrides: Partial<IdentityRequestInput> = {}): IdentityRequestInput {
  return {
    first_name: 'Jane',
    last_name: 'Citizen',
    email: 'jane.citizen@example.com',
    phone: '412345678',
    phone_country_code: 61,
    purpose: 'account-opening',
    return_url: 'https://rp.example/return',
    off_ramp_url: 'https://rp.example/off-ramp',
    claims: ['acmeidentity.given_name', 'acmeidentity.family_name'],
    ...overrides,
  };
}

/** The rejection of `promise`, failing the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}

export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
export const JPG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70]);
export const PDF = new TextEncoder().encode('%PDF-1.7\n%test\n');

/** A valid credential submission (an acicncchc check as a PDF), with a fresh `issuer_ref`. */
export function credentialInput(overrides: Partial<CredentialSubmitInput> = {}): CredentialSubmitInput {
  return {
    type: 'acicncchc',
    person_ref: 'user-1/person-1',
    file: PDF,
    file_name: 'certificate.pdf',
    issuer_name: 'Relying Party Pty Ltd',
    issuer_url: 'https://rp.example',
    issuer_ref: `check-${Math.random().toString(36).slice(2)}`,
    ...overrides,
  };
}

/** JSON of `value` with `gap()` between its tokens: a writing no serializer the SD-JWT verifier knows makes. */
export function looselyWritten(value: unknown, gap: () => string): string {
  if (Array.isArray(value)) return `[${gap()}${value.map((v) => looselyWritten(v, gap)).join(`${gap()},${gap()}`)}${gap()}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}${gap()}:${gap()}${looselyWritten(v, gap)}`);
    return `{${gap()}${fields.join(`${gap()},${gap()}`)}${gap()}}`;
  }
  return JSON.stringify(value);
}
