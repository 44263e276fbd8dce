import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  AcmeIdentityClient,
  ConflictError,
  EmailDeliveryError,
  InvalidInputError,
  NotFoundError,
  ValidationError,
  claimKey,
} from '../../src/index.js';
import { DEFAULT_CLIENT } from '../../src/testing/index.js';
import { harness, person, received, recorder, rejection } from '../helpers.js';

const codesOf = (data: { access_request_code: string; identity_session_code: string }) => ({
  accessRequestCode: data.access_request_code,
  identitySessionCode: data.identity_session_code,
});

describe('identityRequests', () => {
  test('create returns the two codes and the redirect URL', async () => {
    const { client } = await harness();
    const { data, correlationId } = await client.identityRequests.create(person());
    expect(data.access_request_code).toMatch(/\S/);
    expect(data.identity_session_code).toMatch(/\S/);
    expect(new URL(data.redirect_url).protocol).toBe('https:');
    expect(correlationId).toMatch(/\S/);
  });

  test('get returns the details of the request as submitted', async () => {
    const { client } = await harness();
    const created = await client.identityRequests.create(person({ send_email: true }));
    const { data } = await client.identityRequests.get(codesOf(created.data));
    expect(data).toMatchObject({
      first_name: 'Jane',
      last_name: 'Citizen',
      phone: '412345678',
      phone_country_code: 61,
      request_code: created.data.identity_session_code,
      redirect_url: created.data.redirect_url,
      send_email: true,
    });
  });

  test('delete cancels the request, which is then not found, and the person can be asked again', async () => {
    const { client } = await harness();
    const created = await client.identityRequests.create(person());
    await client.identityRequests.delete(codesOf(created.data));
    expect(await rejection(client.identityRequests.get(codesOf(created.data)))).toBeInstanceOf(NotFoundError);
    await expect(client.identityRequests.create(person())).resolves.toBeDefined();
  });

  test('unset results_emails, download_email and expiry_hours are not sent, and the service applies its 24-hour expiry', async () => {
    const now = Date.UTC(2026, 10, 22, 12);
    const { client, service } = await harness({ fake: { now: () => now }, client: { now: () => now } });
    const created = await client.identityRequests.create(person());
    const { data } = await client.identityRequests.get(codesOf(created.data));
    expect(data.time_expires).toBe(now / 1000 + 24 * 3600);
    const sent = service.identityRequest(created.data.access_request_code)?.input ?? {};
    for (const field of ['results_emails', 'download_email', 'expiry_hours']) expect(Object.hasOwn(sent, field), field).toBe(false);
  });

  test('expiry_hours 0 disables expiry: time_expires left out, or 0 as the neverExpires reading writes it', async () => {
    const { client } = await harness();
    const created = await client.identityRequests.create(person({ expiry_hours: 0 }));
    const { data } = await client.identityRequests.get(codesOf(created.data));
    expect(data.time_expires).toBeUndefined();
    const zero = await harness({ fake: { readings: { neverExpires: 'zero' } } });
    const never = await zero.client.identityRequests.create(person({ expiry_hours: 0 }));
    expect((await zero.client.identityRequests.get(codesOf(never.data))).data.time_expires).toBe(0);
    const day = await zero.client.identityRequests.create(person({ email: 'day@example.com', phone: '400000009' }));
    expect((await zero.client.identityRequests.get(codesOf(day.data))).data.time_expires).toBeGreaterThan(0);
  });

  test('results_emails may be given as a list and is sent comma-separated', async () => {
    const { client, service } = await harness();
    const created = await client.identityRequests.create(person({ results_emails: ['a@rp.example', 'b@rp.example'] }));
    expect(service.identityRequest(created.data.access_request_code)?.input.results_emails).toBe('a@rp.example,b@rp.example');
  });

  test('both claims forms are accepted: array, and object of null or {essential: true}', async () => {
    const { client, service } = await harness();
    const array = await client.identityRequests.create(person({ claims: ['acmeidentity.given_name'] }));
    const object = await client.identityRequests.create(
      person({
        email: 'other@example.com',
        phone: '499999999',
        claims: { 'acmeidentity.given_name': null, 'sanctionscheck.is_pep': { essential: true } },
      }),
    );
    expect(service.identityRequest(array.data.access_request_code)?.input.claims).toEqual(['acmeidentity.given_name']);
    expect(service.identityRequest(object.data.access_request_code)?.input.claims).toEqual({
      'acmeidentity.given_name': null,
      'sanctionscheck.is_pep': { essential: true },
    });
  });

  test('a second open request to the same person is a ConflictError carrying existing_code', async () => {
    const { client } = await harness();
    const first = await client.identityRequests.create(person());
    const error = await rejection(client.identityRequests.create(person({ first_name: 'Janet' })));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ code: 'ERR_CONFLICT', status: 409, serviceCode: 'E1006', existingCode: first.data.access_request_code });
  });

  test('E2002 is an EmailDeliveryError carrying the code and redirect URL of the request that exists', async () => {
    const { client, service } = await harness();
    service.settings.emailDelivery = 'fail';
    const error = await rejection(client.identityRequests.create(person({ send_email: true })));
    expect(error).toBeInstanceOf(EmailDeliveryError);
    const e = error as EmailDeliveryError;
    expect(e.code).toBe('ERR_EMAIL_DELIVERY');
    // The code that retrieves the result (the access_request_code comes with the webhook): with
    // the one the person's journey names, it reads the request back.
    const accessRequestCode = new URL(e.redirectUrl!).pathname.split('/').at(-1)!;
    const record = service.identityRequest(accessRequestCode);
    expect(record?.identitySessionCode).toBe(e.requestCode);
    const { data } = await client.identityRequests.get({ accessRequestCode, identitySessionCode: e.requestCode! });
    expect(data.redirect_url).toBe(e.redirectUrl);
  });

  test('E2002 naming both codes (the emailFailureDetails reading): each kept, and together they read the request back', async () => {
    const { client, service } = await harness({ fake: { readings: { emailFailureDetails: 'codes' } } });
    service.settings.emailDelivery = 'fail';
    const e = (await rejection(client.identityRequests.create(person({ send_email: true })))) as EmailDeliveryError;
    expect(e).toBeInstanceOf(EmailDeliveryError);
    const record = service.identityRequest(e.accessRequestCode!);
    expect(record?.identitySessionCode).toBe(e.identitySessionCode);
    expect(e.requestCode).toBe(e.identitySessionCode);
    const { data } = await client.identityRequests.get({
      accessRequestCode: e.accessRequestCode!,
      identitySessionCode: e.identitySessionCode!,
    });
    expect(data.redirect_url).toBe(e.redirectUrl);
  });

  test('a value the service refuses is a ValidationError naming the field', async () => {
    const { client } = await harness({ fake: { purposes: ['kyc'] } });
    const error = await rejection(client.identityRequests.create(person({ purpose: 'marketing' })));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'ERR_VALIDATION', serviceCode: 'E1001', fields: ['purpose'] });
    expect((error as ValidationError).validationErrors['purpose']).toMatch(/purpose/);
  });

  test('get with codes of another request is not found', async () => {
    const { client } = await harness();
    const a = await client.identityRequests.create(person());
    const b = await client.identityRequests.create(person({ email: 'b@example.com', phone: '400000000' }));
    const mixed = { accessRequestCode: a.data.access_request_code, identitySessionCode: b.data.identity_session_code };
    expect(await rejection(client.identityRequests.get(mixed))).toBeInstanceOf(NotFoundError);
  });
});

describe('identityRequests.create input checks (nothing is sent)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['missing first_name', { first_name: undefined }, 'first_name'],
    ['empty last_name', { last_name: '' }, 'last_name'],
    ['email that is not one', { email: 'jane' }, 'email'],
    ['phone with +country code', { phone: '+61412345678' }, 'phone'],
    ['phone with 00 country code', { phone: '0061412345678' }, 'phone'],
    ['phone with spaces', { phone: '412 345 678' }, 'phone'],
    ['country code as a string', { phone_country_code: '61' }, 'phone_country_code'],
    ['country code not an integer', { phone_country_code: 6.1 }, 'phone_country_code'],
    ['relative return_url', { return_url: '/return' }, 'return_url'],
    ['off_ramp_url of another scheme', { off_ramp_url: 'javascript:alert(1)' }, 'off_ramp_url'],
    ['negative expiry_hours', { expiry_hours: -1 }, 'expiry_hours'],
    ['fractional expiry_hours', { expiry_hours: 1.5 }, 'expiry_hours'],
    ['results_emails with a non-email', { results_emails: 'a@rp.example,nope' }, 'results_emails'],
    ['claims of neither form', { claims: 'acmeidentity.given_name' }, 'claims'],
    ['empty claims', { claims: [] }, 'claims'],
    ['a malformed claim key', { claims: ['given_name'] }, 'claims.given_name'],
    [
      'essential on a document claim',
      { claims: { 'document.passport.travel_document_number': { essential: true } } },
      'claims.document.passport.travel_document_number',
    ],
    [
      'essential on a credential that cannot be obtained',
      { claims: { 'acmeidentity.given_name': { essential: true } } },
      'claims.acmeidentity.given_name',
    ],
    ["essential: 'yes'", { claims: { 'sanctionscheck.is_pep': { essential: 'yes' } } }, 'claims.sanctionscheck.is_pep'],
  ];
  test.each(cases)('refuses %s, naming %s', async (_name, change, field) => {
    const { client, service } = await harness();
    const error = await rejection(client.identityRequests.create({ ...person(), ...change } as never));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues.map((i) => i.field)).toContain(field);
    expect(service.requests).toHaveLength(0); // not even a token request
  });

  test('refuses a claim key outside supportedClaims when that list is given', async () => {
    const { client } = await harness();
    const error = await rejection(
      client.identityRequests.create(person({ claims: [claimKey('student.credential')] }), {
        supportedClaims: ['acmeidentity.given_name'],
      }),
    );
    expect(error).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'claims.student.credential' });
  });

  test('a key supportedClaims lists is accepted whatever its form: the live list decides, the key form only stands in without one', async () => {
    const { client } = await harness({ fake: { extraClaims: ['loyalty_tier'] } });
    const created = await client.identityRequests.create(person({ claims: [claimKey('loyalty_tier')] }), {
      supportedClaims: ['loyalty_tier'],
    });
    expect(created.data.access_request_code).toEqual(expect.any(String));
    await expect(client.identityRequests.create(person({ claims: [claimKey('loyalty_tier')] }))).rejects.toMatchObject({
      field: 'claims.loyalty_tier',
    });
  });

  test('an unrecognised but well-formed claim key is refused by the service, never ignored', async () => {
    const { client } = await harness();
    const error = await rejection(client.identityRequests.create(person({ claims: [claimKey('acmeidentity.shoe_size')] })));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).fields).toEqual(['claims']);
  });

  test('the error message names the field but never quotes the value', async () => {
    const { client } = await harness();
    const error = (await rejection(client.identityRequests.create(person({ email: 'secret-person@@example' })))) as Error;
    expect(error.message).toMatch(/^email:/);
    expect(JSON.stringify(error)).not.toContain('secret-person');
  });
});

describe('identityRequests.create: the inputs the schema requires and the prose calls optional (#39, nothing invented on the wire)', () => {
  const OPTIONALS = ['results_emails', 'download_email', 'expiry_hours'] as const;
  const given = { results_emails: 'results@example.com', download_email: 'files@example.com', expiry_hours: 48 };

  test('auto, against a service that requires them: refused once, sent again filled, and filled at once from then on', async () => {
    const { logger, lines } = recorder();
    const { client, service } = await harness({ fake: { readings: { optionalInputs: 'schema' } }, client: { logger, logLevel: 'info' } });
    const first = await client.identityRequests.create(person());
    // Said once, at info, with the fields the service refused.
    const said = lines.filter((line) => line.message.includes('unset ones are sent filled'));
    expect(said).toEqual([{ level: 'info', message: expect.any(String), fields: { fields: expect.any(String) } }]);
    expect(String(said[0]?.fields['fields']).split(',').sort()).toEqual([...OPTIONALS].sort());
    expect(service.identityRequest(first.data.access_request_code)?.input).toMatchObject({
      results_emails: '',
      download_email: '',
      expiry_hours: 24,
    });
    const creates = () => received(service, /^\/identity\/request$/, 'POST').length;
    expect(creates()).toBe(2);
    await client.identityRequests.create(person({ email: 'other@example.com', phone: '400000001' }));
    expect(creates()).toBe(3);
  });

  test('auto does not send again a create refused for anything else, even beside an unset optional', async () => {
    const { client, service } = await harness({ fake: { readings: { optionalInputs: 'schema' } } });
    const error = await rejection(client.identityRequests.create(person({ return_url: 'ftp://rp.example/back' })));
    expect(error).toBeInstanceOf(InvalidInputError);
    const refused = await rejection(client.identityRequests.create(person({ purpose: ' ' })));
    expect(refused).toBeInstanceOf(ValidationError);
    expect(received(service, /^\/identity\/request$/, 'POST')).toHaveLength(1);
  });

  test('property: every option against both readings, any of the three given or not: the outcome the option promises, never more or less sent', async () => {
    // One fake per reading and one client per option, made once (a fake a run took a third of the
    // property's time, which a loaded machine stretched past the test's timeout); each run another
    // person, so no create finds an open request of an earlier run's.
    let run = 0;
    for (const optionalInputs of ['prose', 'schema'] as const) {
      const { service, makeClient } = await harness({ fake: { readings: { optionalInputs } } });
      const clients = {
        auto: makeClient({ unsetOptionals: 'auto' }),
        omit: makeClient({ unsetOptionals: 'omit' }),
        fill: makeClient({ unsetOptionals: 'fill' }),
      };
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('auto' as const, 'omit' as const, 'fill' as const),
          fc.subarray([...OPTIONALS]),
          async (unsetOptionals, set) => {
            run += 1;
            const client = clients[unsetOptionals];
            const someone = { email: `person-${run}@example.com`, phone: `4${String(run).padStart(8, '0')}` };
            const input = person({ ...someone, ...Object.fromEntries(set.map((field) => [field, given[field]])) });
            const outcome = await client.identityRequests.create(input).then(
              (created) => created,
              (error: unknown) => error,
            );
            const unset = OPTIONALS.filter((field) => !set.includes(field));
            // What each option promises: omit is refused by a service that requires what it leaves out; fill
            // sends empty addresses, which a service reading them as optional refuses; auto succeeds on both.
            let refusedFor: readonly string[] = [];
            if (unsetOptionals === 'omit' && optionalInputs === 'schema') refusedFor = unset;
            if (unsetOptionals === 'fill' && optionalInputs === 'prose') refusedFor = unset.filter((field) => field !== 'expiry_hours');
            if (refusedFor.length > 0) {
              expect(outcome).toBeInstanceOf(ValidationError);
              expect([...(outcome as ValidationError).fields].sort()).toEqual([...refusedFor].sort());
              return;
            }
            expect(outcome).not.toBeInstanceOf(Error);
            const { data } = outcome as Awaited<ReturnType<typeof client.identityRequests.create>>;
            const sent: Record<string, unknown> = { ...service.identityRequest(data.access_request_code)?.input };
            for (const field of set) expect(sent[field]).toBe(given[field]);
            // Left unset: absent from the body, unless the option fills it or the service required it.
            const filled = unsetOptionals === 'fill' || (unsetOptionals === 'auto' && optionalInputs === 'schema');
            for (const field of unset) expect(Object.hasOwn(sent, field), field).toBe(filled);
          },
        ),
        { numRuns: 24 },
      );
    }
  });

  test('unsetOptionals that is not auto, omit or fill is a ConfigurationError naming it', () => {
    expect(
      () => new AcmeIdentityClient({ ...DEFAULT_CLIENT, baseUrl: 'https://api.acme.test/api/v1', unsetOptionals: 'always' as never }),
    ).toThrow(/unsetOptionals/);
  });
});
