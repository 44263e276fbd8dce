/**
 * The schemas of the service's OpenAPI document (its `components.schemas`): every request body,
 * result and error the spec describes, written from the service's interface specification. The
 * operations that use them are in openapi.ts.
 */
import { FILE_NAME, PERSON_REF } from './patterns.js';

/** A reference to one of these schemas. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Base64 of a 5 MB file: 4 * ceil(5 * 2^20 / 3) characters. */
const MAX_FILE_DATA_LENGTH = 4 * Math.ceil((5 * 1024 * 1024) / 3);

export const schemas = {
  ErrorObject: {
    type: 'object',
    description:
      'Clients match on type or code, never on message. Every error carries type and code; some responses (401, 403, 429, 500) carry only those two.',
    required: ['type', 'code'],
    properties: {
      message: { type: 'string' },
      type: { type: 'string' },
      code: { type: 'string' },
      timestamp: { type: 'string' },
      correlation_id: { type: 'string' },
      details: ref('ErrorDetails'),
    },
  },
  ErrorDetails: {
    type: 'object',
    additionalProperties: true,
    properties: {
      validation_errors: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'Field name to message.',
      },
      existing_code: { type: 'string', description: 'On 409 for an identity request.' },
      code: { type: 'string', description: 'On E2002: the request exists.' },
      redirect_url: { type: 'string', description: 'On E2002: the person can still finish here.' },
    },
  },
  ErrorResponse: {
    type: 'object',
    description: 'The error of a 401, 403, 429 or 500, which may carry only type and code.',
    required: ['error'],
    properties: { error: ref('ErrorObject') },
  },
  FullErrorObject: {
    description:
      'The error of every other status: message, type, code, timestamp and correlation_id, and details where the spec gives them.',
    allOf: [ref('ErrorObject'), { type: 'object', required: ['message', 'type', 'code', 'timestamp', 'correlation_id'] }],
  },
  FullErrorResponse: {
    type: 'object',
    required: ['error'],
    properties: { error: ref('FullErrorObject') },
  },
  ApiTokenRequest: {
    type: 'object',
    required: ['client_id', 'client_secret'],
    properties: { client_id: { type: 'string' }, client_secret: { type: 'string' } },
  },
  RefreshTokenRequest: {
    type: 'object',
    required: ['refresh_token'],
    properties: { refresh_token: { type: 'string' } },
  },
  TokenResponse: {
    type: 'object',
    properties: {
      access_token: { type: 'string', description: 'JWT for API authentication.' },
      refresh_token: { type: 'string' },
      expires_in: { type: 'integer', description: 'Seconds until the token expires.' },
      expires: { type: 'string', description: 'RFC 2822 date of expiry.' },
    },
  },
  Claims: {
    description:
      'A flat array of claim keys (all optional), or an object whose keys are claim keys and whose values are null (optional) or {essential: true} (mandatory credential). Unrecognised keys are rejected.',
    oneOf: [
      { type: 'array', items: { type: 'string' } },
      {
        type: 'object',
        additionalProperties: {
          oneOf: [
            { type: 'null' },
            {
              type: 'object',
              required: ['essential'],
              properties: { essential: { type: 'boolean', const: true } },
            },
          ],
        },
      },
    ],
  },
  IdentityRequestInput: {
    type: 'object',
    required: [
      'first_name',
      'last_name',
      'email',
      'phone',
      'phone_country_code',
      'purpose',
      'return_url',
      'off_ramp_url',
      'results_emails',
      'download_email',
      'expiry_hours',
      'claims',
    ],
    properties: {
      first_name: { type: 'string' },
      last_name: { type: 'string' },
      email: { type: 'string', description: "The person's personal email address." },
      phone: {
        type: 'string',
        description: 'Personal mobile number, without country code.',
      },
      phone_country_code: { type: 'integer', description: 'Country code of the phone number.' },
      purpose: { type: 'string', description: 'Enumerated; allowed values not shown by the spec.' },
      return_url: { type: 'string' },
      off_ramp_url: { type: 'string' },
      results_emails: {
        type: 'string',
        description: 'Comma-separated emails notified of results; described as optional.',
      },
      download_email: {
        type: 'string',
        description: 'Email that gets a download link for source files; described as optional.',
      },
      expiry_hours: {
        type: 'integer',
        minimum: 0,
        description: 'Hours the request stays valid; described as optional; unset means 24; 0 disables expiry.',
      },
      send_email: { type: 'boolean' },
      payment_via: { type: 'string', description: 'Enumerated; needs prior enablement.' },
      ruleset: { type: 'string', description: 'Enumerated; omission selects a default.' },
      claims: ref('Claims'),
    },
  },
  IdentityRequestCreated: {
    type: 'object',
    required: ['access_request_code', 'identity_session_code', 'redirect_url'],
    properties: {
      access_request_code: { type: 'string', description: 'Appears in the webhook.' },
      identity_session_code: { type: 'string', description: 'Needed to retrieve results.' },
      redirect_url: { type: 'string', description: 'Where to send the person.' },
    },
  },
  IdentityRequestDetails: {
    type: 'object',
    description: 'All fields are optional.',
    properties: {
      first_name: { type: 'string' },
      last_name: { type: 'string' },
      email: { type: 'string' },
      phone: { type: 'string' },
      phone_country_code: { type: 'integer' },
      purpose: { type: 'string' },
      time_expires: { type: 'integer' },
      opened_at: { type: 'integer' },
      completed_at: { type: 'integer' },
      request_code: { type: 'string' },
      redirect_url: { type: 'string' },
      send_email: { type: 'boolean' },
    },
  },
  Disclosure: {
    type: 'object',
    required: ['claim'],
    properties: {
      claim: { type: 'string' },
      salt: { type: 'string' },
      value: {
        description:
          'string, object or array; "claim value types are not uniform": boolean claims such as acmeidentity.valid may disclose a boolean, and a number or null is accepted too.',
        oneOf: [
          { type: 'string' },
          { type: 'object', additionalProperties: true },
          { type: 'array' },
          { type: 'boolean' },
          { type: 'number' },
          { type: 'null' },
        ],
      },
    },
  },
  IdentityResponseData: {
    type: 'object',
    description: 'Further `{credential}.credential_jwt` fields are returned the same way as acmeidentity.credential_jwt.',
    additionalProperties: true,
    properties: {
      ref: { type: 'string' },
      iss: { type: 'string' },
      sub: { type: 'string' },
      nbf: { type: 'integer' },
      exp: { type: 'integer' },
      iat: { type: 'integer' },
      jti: { type: 'string' },
      _sd: { type: 'array', items: { type: 'string' } },
      _sd_alg: { type: 'string' },
      disclosures: { type: 'array', items: ref('Disclosure') },
      disclosures_missing: { type: 'array', items: { type: 'string' } },
      'acmeidentity.credential_jwt': { type: 'string' },
      request_code: { type: 'string' },
      partially_complete: { type: 'boolean' },
    },
  },
  CredentialInput: {
    type: 'object',
    required: ['type', 'person_ref', 'file_data', 'file_name', 'issuer_name', 'issuer_url', 'issuer_ref'],
    description: 'name, description and time_expires are required except for type acicncchc.',
    properties: {
      type: { type: 'string', description: 'Credential type; only acicncchc is named, more will be added.' },
      person_ref: { type: 'string', pattern: PERSON_REF.source, description: 'Shape <uid>/<uid>: two parts without / or whitespace.' },
      name: { type: 'string' },
      description: { type: 'string' },
      metadata: {
        type: 'object',
        additionalProperties: true,
        description: 'Raw credential data specific to the type; its structure for acicncchc follows an external result specification.',
      },
      file_data: {
        type: 'string',
        contentEncoding: 'base64',
        maxLength: MAX_FILE_DATA_LENGTH,
        description: 'Base64 of a PNG, JPG or PDF of at most 5 MB.',
      },
      file_name: {
        type: 'string',
        pattern: FILE_NAME.source,
        description: 'The source file name, with the extension of its content (png, jpg or jpeg, pdf; any case) and no path.',
      },
      issuer_name: { type: 'string' },
      issuer_url: {
        type: 'string',
        format: 'uri',
        pattern: '^[hH][tT][tT][pP][sS]?://',
        description: 'URL of the issuer (http or https).',
      },
      issuer_ref: { type: 'string' },
      time_expires: { type: 'integer' },
    },
    if: { properties: { type: { not: { const: 'acicncchc' } } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable
    then: { required: ['name', 'description', 'time_expires'] },
  },
  CredentialSubmitted: {
    type: 'object',
    required: ['credential_ref'],
    properties: { credential_ref: { type: 'string', description: 'Opaque; never parsed or built.' } },
  },
  VerifiableCredential: {
    type: 'object',
    additionalProperties: true,
    description: 'The decoded raw verifiable credential JSON.',
  },
  CredentialFileData: {
    type: 'object',
    required: ['file_data'],
    properties: { file_data: { type: 'string', contentEncoding: 'base64' } },
  },
  CredentialRevoked: {
    type: 'object',
    required: ['revoked'],
    properties: { revoked: { type: 'boolean' } },
  },
  MessageData: {
    type: 'object',
    properties: { message: { type: 'string' } },
  },
  StatusCurrent: {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['operational', 'degraded'] },
      timestamp: { type: 'integer' },
      environment: { type: 'string' },
      components: {
        type: 'object',
        properties: {
          api: {
            type: 'object',
            properties: { status: { type: 'string' }, version: { type: 'string' } },
          },
          database: {
            type: 'object',
            properties: { status: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
      maintenance_mode: { type: 'boolean' },
    },
  },
  StatusHealth: {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['healthy', 'degraded'] },
      timestamp: { type: 'integer' },
      database: { type: 'string', enum: ['connected', 'error'] },
    },
  },
  IdentityActionsEvent: {
    type: 'object',
    additionalProperties: true,
    required: ['access_request_code', 'access_token'],
    properties: {
      access_request_code: { type: 'string', description: 'Equals the code returned at creation.' },
      access_token: {
        type: 'string',
        description: 'JWT with the claims access_token and access_request_code; sent as X-Access-Token.',
      },
    },
  },
} as const;
