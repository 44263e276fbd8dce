/**
 * The rules of the caller's input (client/bodies.ts), held directly: each field's rule against
 * generated values and an oracle written here without the module's regular expressions, and each
 * refusal's exact message (the caller reads it to mend the input). The client-level tests
 * (identity-requests, credentials) show the rules are wired in; these show what each rule is.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  checkCode,
  checkPathCode,
  credentialBody,
  identityRequestBody,
  refusesOnlyUnsetOptionals,
  type CredentialSubmitInput,
  type IdentityRequestInput,
} from '../../src/client/bodies.js';
import { InvalidInputError, type InputIssue } from '../../src/index.js';
import { PDF, credentialInput, person } from '../fixtures.js';

/** The issues an input is refused with, or `[]` when it is accepted. */
function refusal(build: () => unknown): readonly InputIssue[] {
  try {
    build();
    return [];
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return error.issues;
  }
}

const identityIssues = (change: Record<string, unknown>) =>
  refusal(() => identityRequestBody({ ...person(), ...change } as IdentityRequestInput, undefined, false));

/** As `refusal`, for `credentialBody`, which is async (it reads the file's bytes); the identity rules stay synchronous for `fc.property`. */
async function credentialIssues(change: Record<string, unknown>): Promise<readonly InputIssue[]> {
  try {
    await credentialBody({ ...credentialInput(), ...change } as CredentialSubmitInput);
    return [];
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return error.issues;
  }
}

const splitAddresses = (text: string) => (text === '' ? [] : text.split(','));

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('an identity request: each refusal says what the field must be', () => {
  const cases: [string, Record<string, unknown>, InputIssue][] = [
    ['a missing first_name', { first_name: undefined }, { field: 'first_name', message: 'is required and must be a string' }],
    ['an empty last_name', { last_name: '' }, { field: 'last_name', message: 'must not be empty' }],
    ['an email that is a number', { email: 42 }, { field: 'email', message: 'must be a string' }],
    ['an email without @', { email: 'jane' }, { field: 'email', message: 'must be an email address' }],
    ['a phone that is a number', { phone: 412345678 }, { field: 'phone', message: 'must be a string of digits' }],
    [
      'a country code as a string',
      { phone_country_code: '61' },
      { field: 'phone_country_code', message: 'must be an integer country code, such as 61' },
    ],
    ['a country code of 0', { phone_country_code: 0 }, { field: 'phone_country_code', message: 'must be between 1 and 999' }],
    ['a country code of 1000', { phone_country_code: 1000 }, { field: 'phone_country_code', message: 'must be between 1 and 999' }],
    ['a return_url that is a number', { return_url: 1 }, { field: 'return_url', message: 'must be a string' }],
    ['a relative return_url', { return_url: '/return' }, { field: 'return_url', message: 'must be an absolute http(s) URL' }],
    [
      'results_emails that are a number',
      { results_emails: 7 },
      { field: 'results_emails', message: 'must be a string or a list of strings' },
    ],
    [
      'results_emails with a non-email',
      { results_emails: ['a@rp.example', 'nope'] },
      { field: 'results_emails', message: 'must be email addresses' },
    ],
    ['a download_email that is no email', { download_email: 'nope' }, { field: 'download_email', message: 'must be an email address' }],
    // A comma is where the service splits a list of addresses: split there, this one field would
    // name a second address (`mallory@evil.example`), so no address field holds one.
    ['an email with a comma', { email: 'jane,mallory@evil.example' }, { field: 'email', message: 'must be an email address' }],
    [
      'a download_email with a comma',
      { download_email: 'files,mallory@evil.example' },
      { field: 'download_email', message: 'must be an email address' },
    ],
    ['a fractional expiry_hours', { expiry_hours: 1.5 }, { field: 'expiry_hours', message: 'must be a whole number of hours' }],
    ['a negative expiry_hours', { expiry_hours: -1 }, { field: 'expiry_hours', message: 'must be 0 or more (0 disables expiry)' }],
    ['send_email as a string', { send_email: 'yes' }, { field: 'send_email', message: 'must be a boolean' }],
    ['an empty ruleset', { ruleset: '' }, { field: 'ruleset', message: 'must not be empty' }],
  ];
  test.each(cases)('%s', (_name, change, issue) => {
    expect(identityIssues(change)).toEqual([issue]);
  });

  test('the edges that are accepted: expiry_hours 0 (no expiry), country codes 1 and 999, an empty download_email', () => {
    for (const change of [{ expiry_hours: 0 }, { phone_country_code: 1 }, { phone_country_code: 999 }, { download_email: '' }]) {
      expect(identityIssues(change), JSON.stringify(change)).toEqual([]);
    }
  });

  test.each([null, 'jane', 42, ['first_name']])('an input that is no object (%j) is refused as a whole', (input) => {
    expect(refusal(() => identityRequestBody(input as never, undefined, false))).toEqual([
      { field: '(input)', message: 'the identity request must be an object' },
    ]);
  });

  test('property: a phone is 4 to 14 ASCII digits, and a leading + or 00 is named as a country code, alone', () => {
    // A run of digits of any length, with or without something before or after it, and any mix.
    const around = fc.constantFrom('', '', 'a', ' ', '+', '00', '٣', '-', '\n');
    const phone = fc.oneof(
      fc.tuple(around, fc.stringMatching(/^[0-9]{0,18}$/), around).map((parts) => parts.join('')),
      fc.string({ unit: fc.constantFrom('0', '1', '7', '9', '+', ' ', 'a', '٣', '-'), maxLength: 18 }),
    );
    fc.assert(
      fc.property(phone, (value) => {
        const issues = identityIssues({ phone: value });
        if (value.startsWith('+') || value.startsWith('00')) {
          expect(issues).toEqual([{ field: 'phone', message: 'must not include the country code: pass it as phone_country_code' }]);
          return;
        }
        const digits = value.length >= 4 && value.length <= 14 && [...value].every((c) => c >= '0' && c <= '9');
        expect(issues).toEqual(digits ? [] : [{ field: 'phone', message: 'must be 4 to 14 digits, without spaces or country code' }]);
      }),
      // The bounds, each side.
      { examples: [['123'], ['1234'], ['12345678901234'], ['123456789012345']] },
    );
  });

  test('property: return_url and off_ramp_url take an absolute URL whose scheme is http or https, in any case', () => {
    const scheme = fc.oneof(
      fc.constantFrom('http', 'https', 'HTTPS', 'Http', 'xhttp', 'xhttps', 'httpx', 'httpsx', 'ftp', 'javascript', 'data'),
      fc.stringMatching(/^[a-z][a-z0-9+.-]{0,6}$/),
    );
    fc.assert(
      fc.property(scheme, fc.constantFrom('return_url', 'off_ramp_url'), (name, field) => {
        const issues = identityIssues({ [field]: `${name}://rp.example/back` });
        const web = ['http', 'https'].includes(name.toLowerCase());
        expect(issues).toEqual(web ? [] : [{ field, message: 'must be an absolute http(s) URL' }]);
      }),
    );
  });

  test('property: results_emails is a list or one comma-separated string, blanks around each address allowed, empty for none', () => {
    const address = fc.constantFrom('a@rp.example', 'ops.team@example.com', 'nope', 'x@y', '');
    fc.assert(
      fc.property(fc.array(address, { maxLength: 4 }), fc.constantFrom(',', ', ', ' ,'), fc.boolean(), (list, comma, asString) => {
        const given = asString ? list.join(comma) : list;
        const issues = identityIssues({ results_emails: given });
        // One string is split at its commas; '' is no address at all.
        const each = typeof given === 'string' ? splitAddresses(given) : given;
        const valid = each.every((e) => {
          const trimmed = e.trim();
          const at = trimmed.indexOf('@');
          return at > 0 && trimmed.slice(at + 1).includes('.') && !trimmed.slice(at + 1).endsWith('.');
        });
        expect(issues).toEqual(valid ? [] : [{ field: 'results_emails', message: 'must be email addresses' }]);
      }),
    );
  });

  test('an unset optional, left out or given as undefined, leaves no key in the body unless it is filled, and a filled one is the spec default', () => {
    // The types let a caller write it under exactOptionalPropertyTypes too (this project's setting).
    const unset: Partial<IdentityRequestInput> = { results_emails: undefined, download_email: undefined, expiry_hours: undefined };
    for (const input of [person(), person(unset)]) {
      const body = identityRequestBody(input, undefined, false);
      for (const field of Object.keys(unset)) expect(Object.hasOwn(body, field), field).toBe(false);
      expect(identityRequestBody(input, undefined, true)).toMatchObject({ results_emails: '', download_email: '', expiry_hours: 24 });
    }
  });
});

test('every optional field of either input, given as undefined, is unset: it type-checks as written, and leaves no key in the body', async () => {
  const maybe = (): undefined => undefined;
  const identity: IdentityRequestInput = {
    ...person(),
    send_email: maybe(),
    payment_via: maybe(),
    ruleset: maybe(),
    expiry_hours: maybe(),
  };
  const body = identityRequestBody(identity, undefined, false);
  for (const field of ['send_email', 'payment_via', 'ruleset', 'expiry_hours']) expect(Object.hasOwn(body, field), field).toBe(false);
  const credential: CredentialSubmitInput = {
    ...credentialInput(),
    name: maybe(),
    description: maybe(),
    metadata: maybe(),
    time_expires: maybe(),
  };
  const submitted = await credentialBody(credential);
  for (const field of ['name', 'description', 'metadata', 'time_expires']) expect(Object.hasOwn(submitted, field), field).toBe(false);
});

test('a field the SDK does not know (one the service added since) is sent as given, null and falsy values too: only undefined means unset', async () => {
  const extra = { future_option: null, future_count: 0, future_flag: false, future_text: '' };
  const body = identityRequestBody({ ...person(), ...extra } as IdentityRequestInput, undefined, false);
  expect(body).toMatchObject(extra);
  for (const field of Object.keys(extra)) expect(Object.hasOwn(body, field), field).toBe(true);
  const submitted = await credentialBody({ ...credentialInput(), ...extra } as CredentialSubmitInput);
  expect(submitted).toMatchObject(extra);
});

test('the optional fields given are sent as given: a credential keeps its name, description and metadata; a download email that is not one (or not a string) is refused as such', async () => {
  const given = { type: 'vc_other', name: 'Licence', description: 'Driver licence', metadata: { class: 'C' }, time_expires: 1_900_000_000 };
  expect(await credentialBody({ ...credentialInput(), ...given })).toMatchObject(given);
  for (const download_email of ['not an email', 42, ['b@rp.example']]) {
    expect(identityIssues({ download_email }), JSON.stringify(download_email)).toEqual([
      { field: 'download_email', message: 'must be an email address' },
    ]);
  }
});

describe('refusesOnlyUnsetOptionals: whether a refusal names nothing but optionals the caller left unset', () => {
  const OPTIONALS = ['results_emails', 'download_email', 'expiry_hours'] as const;
  const given = { results_emails: 'a@rp.example', download_email: 'b@rp.example', expiry_hours: 48 };

  test('property: true exactly when some field is named and each, by its last path segment, is an unset optional', () => {
    const field = fc.constantFrom(
      ...OPTIONALS,
      'email',
      'claims',
      'body.results_emails',
      'body.expiry_hours',
      'results_emails.0',
      'input.body.download_email',
      'body.results_emails.email',
    );
    fc.assert(
      fc.property(fc.subarray([...OPTIONALS]), fc.array(field, { maxLength: 4 }), (set, fields) => {
        const input = person(Object.fromEntries(set.map((name) => [name, given[name]])));
        const unset = OPTIONALS.filter((name) => !set.includes(name)) as string[];
        const expected = fields.length > 0 && fields.every((f) => unset.includes(f.slice(f.lastIndexOf('.') + 1)));
        expect(refusesOnlyUnsetOptionals(fields, input)).toBe(expected);
      }),
    );
  });
});

describe('a credential submission: each refusal says what the field must be', () => {
  test.each([
    ['a person_ref of the wrong shape', { person_ref: 'person-1' }, { field: 'person_ref', message: 'must have the shape <uid>/<uid>' }],
    ['a person_ref that is a number', { person_ref: 1 }, { field: 'person_ref', message: 'is required and must be a string' }],
    ['metadata that is a list', { metadata: ['a'] }, { field: 'metadata', message: 'must be an object' }],
    ['an empty name', { name: '' }, { field: 'name', message: 'must not be empty' }],
    ['an empty description', { description: '' }, { field: 'description', message: 'must not be empty' }],
    [
      'an issuer_url that is not http(s)',
      { issuer_url: 'ftp://rp.example' },
      { field: 'issuer_url', message: 'must be an absolute http(s) URL' },
    ],
    ['a fractional time_expires', { time_expires: 1.5 }, { field: 'time_expires', message: 'must be UNIX seconds (an integer) or a Date' }],
  ] satisfies [string, Record<string, unknown>, InputIssue][])('%s', async (_name, change, issue) => {
    expect(await credentialIssues(change)).toEqual([issue]);
  });

  test.each([null, 'certificate', [PDF]])('an input that is no object (%j) is refused as a whole', async (input) => {
    await expect(credentialBody(input as never)).rejects.toMatchObject({
      issues: [{ field: '(input)', message: 'the credential must be an object' }],
    });
  });

  test('a type other than acicncchc needs name, description and time_expires, and is accepted with all three', async () => {
    const display = { name: 'Working with children check', description: 'NSW', time_expires: 2_000_000_000 };
    expect(await credentialIssues({ type: 'vevortw', ...display })).toEqual([]);
    for (const field of Object.keys(display)) {
      const { [field as keyof typeof display]: _left, ...others } = display;
      expect(await credentialIssues({ type: 'vevortw', ...others })).toEqual([{ field, message: 'is required for type "vevortw"' }]);
    }
  });

  test('every problem at once: an empty type is refused, and the display fields it then lacks are named too', async () => {
    expect(
      (await credentialIssues({ type: '', name: undefined, description: undefined, time_expires: undefined })).map((i) => i.field),
    ).toEqual(['type', 'name', 'description', 'time_expires']);
  });

  test('an optional given as undefined is unset: acicncchc takes it, another type names it as required', async () => {
    const unset = { name: undefined, description: undefined, time_expires: undefined, metadata: undefined };
    expect(await credentialIssues(unset)).toEqual([]);
    expect((await credentialIssues({ ...unset, type: 'vevortw' })).map((issue) => issue.field)).toEqual([
      'name',
      'description',
      'time_expires',
    ]);
  });

  test('a file_name that is no string is one issue, not also an extension mismatch', async () => {
    expect(await credentialIssues({ file_name: 42 })).toEqual([{ field: 'file_name', message: 'is required and must be a string' }]);
  });

  test('property: a file name is a name without path separators, not only dots, then a dot and the extension of its content', async () => {
    const name = fc.string({ unit: fc.constantFrom('a', 'b', '.', '/', '\\', 'p', 'd', 'f', 'P', 'D', 'F'), maxLength: 9 });
    await fc.assert(
      fc.asyncProperty(name, async (fileName) => {
        const dot = fileName.lastIndexOf('.');
        const stem = fileName.slice(0, Math.max(dot, 0));
        const extension = fileName.slice(dot + 1);
        const accepted =
          !fileName.includes('/') &&
          !fileName.includes('\\') &&
          dot >= 0 &&
          [...stem].some((c) => c !== '.') &&
          extension.toLowerCase() === 'pdf';
        const issues = await credentialIssues({ file_name: fileName });
        // An empty name is refused as empty, and, like any name without an extension, as not a .pdf name.
        const empty = fileName === '' ? [{ field: 'file_name', message: 'must not be empty' }] : [];
        expect(issues).toEqual(
          accepted ? [] : [...empty, { field: 'file_name', message: 'must be a file name ending in .pdf for PDF content' }],
        );
      }),
      { examples: [['a.pdf'], ['/a.pdf'], ['a/.pdf'], ['a\\.pdf'], ['a.pdf/x'], ['..pdf'], ['a..pdf'], ['scan.PDF'], ['a.Pdf']] },
    );
  });

  test('the file of a runtime without Blob: bytes are taken, anything else is named, never a raw TypeError', async () => {
    vi.stubGlobal('Blob', undefined);
    expect(await credentialIssues({})).toEqual([]);
    expect(await credentialIssues({ file: 'JVBERi0=' })).toEqual([
      { field: 'file', message: 'must be a Uint8Array, Buffer, ArrayBuffer or Blob' },
    ]);
  });

  test('an unset time_expires leaves no key in the body; a Date is sent as UNIX seconds', async () => {
    expect(Object.hasOwn(await credentialBody(credentialInput()), 'time_expires')).toBe(false);
    const at = new Date(Date.UTC(2030, 0, 1, 0, 0, 0, 999));
    expect((await credentialBody(credentialInput({ time_expires: at }))).time_expires).toBe(Date.UTC(2030, 0, 1) / 1000);
  });
});

describe('codes and tokens', () => {
  const notAString = fc.oneof(fc.constant(''), fc.constant(undefined), fc.constant(null), fc.integer(), fc.boolean(), fc.object());

  test('property: checkCode and checkPathCode refuse anything but a non-empty string, naming the field', () => {
    fc.assert(
      fc.property(notAString, fc.constantFrom(checkCode, checkPathCode), (value, check) => {
        expect(refusal(() => check('accessRequestCode', value))).toEqual([
          { field: 'accessRequestCode', message: 'is required and must be a non-empty string' },
        ]);
      }),
    );
  });

  test('property: checkPathCode returns any well-formed code that is not a dot segment as it is', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, unit: 'grapheme' }), (code) => {
        fc.pre(code !== '.' && code !== '..' && !code.includes('%'));
        expect(checkPathCode('code', code)).toBe(code);
      }),
    );
  });

  test('a lone surrogate and a dot segment are each named for what they are', () => {
    expect(refusal(() => checkPathCode('code', 'ab\uD800'))).toEqual([
      { field: 'code', message: 'is not well-formed text (it holds a lone surrogate)' },
    ]);
    expect(refusal(() => checkPathCode('code', '%2e%2E'))).toEqual([
      { field: 'code', message: 'must not be or decode to "." or ".." (such as %2e%2e): it would name another path' },
    ]);
  });
});
