/**
 * The service's OpenAPI 3.1 document, written from the service's interface specification.
 *
 * The fake service serves it at `{base_url}/docs/spec`; `scripts/generate.ts` fetches it from there
 * and regenerates `generated/`. It describes the service as the spec does (optional fields optional,
 * every documented error status), not as the SDK happens to call it. Where it adds to the spec (429
 * on the credential operations, which the service rate-limits as every REST operation; the
 * patterns of `person_ref`, `file_name` and `issuer_url`), docs/spec-choices.md says so.
 */
import { ref, schemas } from './openapi-schemas.js';

/** `{data, correlation_id, meta?}`: the wrapper around every successful REST result. */
const envelope = (data: object, description: string) => ({
  description,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['data', 'correlation_id'],
        properties: { data, correlation_id: { type: 'string' }, meta: { type: 'object', additionalProperties: true } },
      },
    },
  },
});

/** The statuses whose errors may carry only `type` and `code` (spec, "Errors"); every other error carries all five fields. */
const MINIMAL_ERROR_STATUSES = new Set(['401', '403', '429', '500']);

const errorResponse = (status: string, description: string, extraHeaders: Record<string, object> = {}) => ({
  description,
  ...(Object.keys(extraHeaders).length > 0 ? { headers: extraHeaders } : {}),
  content: { 'application/json': { schema: ref(MINIMAL_ERROR_STATUSES.has(status) ? 'ErrorResponse' : 'FullErrorResponse') } },
});

const retryAfter = {
  'Retry-After': {
    description: 'Seconds (or an HTTP date) to wait before trying again.',
    schema: { type: 'string' },
  },
};

/** The error statuses each operation documents, by HTTP status. */
const errorDescriptions: Record<string, string> = {
  '400': 'Invalid parameters (E1001 VALIDATION_ERROR with details.validation_errors, or E1002 INVALID_REQUEST).',
  '401': 'Missing or invalid authentication (E1003 AUTHENTICATION_FAILED); may carry only type and code.',
  '403': 'Insufficient permission (E1004 UNAUTHORIZED); may carry only type and code.',
  '404': 'Not found (E1005 NOT_FOUND).',
  '409': 'Conflict (E1006 CONFLICT).',
  '410': 'Credential revoked; the error code is not part of the contract.',
  '412':
    'Precondition failed: E1008, or the credential family E1009 expired, E1010 revoked, E1011 pending acceptance, E1012 verification failed.',
  '413': 'File larger than 5 MB; the error code is not part of the contract.',
  '422': 'Validation error; the error code is not part of the contract.',
  '429': 'Too many requests (E1007 RATE_LIMIT_EXCEEDED); may carry only type and code.',
  '500': 'Internal error (E2001, E2002 email delivery, E2003 database); may carry only type and code.',
  '502': 'External service error (E2004).',
  '503': 'Service unavailable (E2005).',
};

const errors = (...statuses: string[]) =>
  Object.fromEntries(
    statuses.map((status) => [status, errorResponse(status, errorDescriptions[status] ?? status, status === '429' ? retryAfter : {})]),
  );

const header = (name: string, required: boolean, description: string) => ({
  name,
  in: 'header',
  required,
  description,
  schema: { type: 'string' },
});

const identityHeaders = [
  header('X-Tenant-Id', true, 'Tenant ID issued by the operator. Format not shown by the spec.'),
  header('X-Request-Timestamp', true, 'Time the request was made. Format not shown by the spec; the SDK sends UNIX seconds by default.'),
  header('X-Correlation-Id', false, 'Caller-chosen ID for tracking; should be logged.'),
];

const pathCode = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});

const identityCodes = [
  pathCode('access_request_code', 'Code returned at creation; appears in the webhook.'),
  pathCode('identity_session_code', 'The original request code, returned at creation.'),
];

const credentialRef = {
  name: 'credential_ref',
  in: 'path',
  required: true,
  description:
    'Opaque reference returned by submit, appended exactly as returned, without percent-encoding. Never parsed or constructed by the client.',
  schema: { type: 'string' },
};

const bearer = [{ bearerAuth: [] }];
const json = (schema: object) => ({ required: true, content: { 'application/json': { schema } } });

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'acme Identity Verification and Credential Service',
    version: '1.0.0',
    description: 'REST API of the identity verification and credential service. `{base_url}` includes the version segment `/api/v1`.',
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  },
  servers: [{ url: '/api/v1', description: 'The REST root; {base_url}.' }],
  security: [],
  tags: [
    { name: 'auth', description: 'API token issuance and refresh.' },
    { name: 'identity', description: 'Identity requests and responses.' },
    { name: 'credentials', description: 'Credential issuance, verification and revocation.' },
    { name: 'status', description: 'Service health.' },
  ],
  paths: {
    '/auth/api-token': {
      post: {
        operationId: 'createApiToken',
        tags: ['auth'],
        summary: 'Exchange an API key pair for an access token and a refresh token.',
        requestBody: json(ref('ApiTokenRequest')),
        responses: {
          '200': envelope(ref('TokenResponse'), 'Token response.'),
          ...errors('400', '401', '403', '429', '500'),
        },
      },
    },
    '/auth/api-token/refresh': {
      post: {
        operationId: 'refreshApiToken',
        tags: ['auth'],
        summary: 'Exchange a refresh token for a new token response.',
        requestBody: json(ref('RefreshTokenRequest')),
        responses: {
          '200': envelope(ref('TokenResponse'), 'Token response.'),
          ...errors('400', '401', '403', '429', '500'),
        },
      },
    },
    '/identity/request': {
      post: {
        operationId: 'createIdentityRequest',
        tags: ['identity'],
        summary: 'Create an identity request for a person.',
        description:
          'A webhook follows approval or cancellation (requires a configured webhook URL and the Identity Actions subscription). E2002 means the request was created but the email failed: details.code and details.redirect_url are supplied.',
        security: bearer,
        parameters: identityHeaders,
        requestBody: json(ref('IdentityRequestInput')),
        responses: {
          '200': envelope(ref('IdentityRequestCreated'), 'Request created.'),
          ...errors('400', '401', '403', '409', '429', '500'),
        },
      },
    },
    '/identity/request/{access_request_code}/{identity_session_code}': {
      get: {
        operationId: 'getIdentityRequest',
        tags: ['identity'],
        summary: 'Identity request details (status check and redirect URL retrieval).',
        security: bearer,
        parameters: [...identityHeaders, ...identityCodes],
        responses: {
          '200': envelope(ref('IdentityRequestDetails'), 'Identity request details.'),
          ...errors('400', '401', '403', '404', '429', '500'),
        },
      },
      delete: {
        operationId: 'deleteIdentityRequest',
        tags: ['identity'],
        summary: 'Cancel and delete the request.',
        security: bearer,
        parameters: [...identityHeaders, ...identityCodes],
        responses: {
          '200': envelope(ref('MessageData'), 'Deleted.'),
          ...errors('400', '401', '403', '404', '429', '500'),
        },
      },
    },
    '/identity/response/{access_request_code}/{identity_session_code}': {
      get: {
        operationId: 'getIdentityResponse',
        tags: ['identity'],
        summary: 'The identity response, after a successful webhook.',
        description:
          'Verify each disclosure: recompute the hash with `_sd_alg` and the disclosure salt; it must equal an entry of `_sd`. The client must not accept the response once `exp` has elapsed.',
        security: bearer,
        parameters: [
          ...identityHeaders,
          header('X-Access-Token', true, 'JWT containing the claims access_token and access_request_code, exactly as sent by the webhook.'),
          pathCode('access_request_code', 'Code from the approval webhook.'),
          pathCode('identity_session_code', 'The original request code.'),
        ],
        responses: {
          '200': envelope(ref('IdentityResponseData'), 'Identity response.'),
          ...errors('400', '401', '403', '404', '429', '500'),
        },
      },
    },
    '/credentials/submit': {
      post: {
        operationId: 'submitCredential',
        tags: ['credentials'],
        summary: 'Submit a source document; the service issues a signed verifiable credential.',
        security: bearer,
        requestBody: json(ref('CredentialInput')),
        responses: {
          '200': envelope(ref('CredentialSubmitted'), 'Credential issued.'),
          ...errors('400', '401', '409', '413', '422', '429'),
        },
      },
    },
    '/credentials/verify/{credential_ref}': {
      get: {
        operationId: 'verifyCredential',
        tags: ['credentials'],
        summary: 'Verify a credential previously issued by the caller.',
        security: bearer,
        parameters: [credentialRef],
        responses: {
          '200': envelope(ref('VerifiableCredential'), 'The decoded raw verifiable credential JSON.'),
          ...errors('400', '401', '404', '410', '412', '429'),
        },
      },
    },
    '/credentials/file-data/{credential_ref}': {
      get: {
        operationId: 'getCredentialFileData',
        tags: ['credentials'],
        summary: 'The source file of a credential.',
        security: bearer,
        parameters: [credentialRef],
        responses: {
          '200': envelope(ref('CredentialFileData'), 'The source file, base64.'),
          ...errors('400', '401', '404', '410', '412', '429'),
        },
      },
    },
    '/credentials/revoke/{credential_ref}': {
      post: {
        operationId: 'revokeCredential',
        tags: ['credentials'],
        summary: 'Revoke a credential issued by the caller.',
        security: bearer,
        parameters: [credentialRef],
        responses: {
          '200': envelope(ref('CredentialRevoked'), 'Revoked.'),
          ...errors('400', '401', '404', '410', '412', '429'),
        },
      },
    },
    '/status/current': {
      get: {
        operationId: 'getCurrentStatus',
        tags: ['status'],
        summary: 'Current service status and version.',
        responses: {
          '200': {
            description: 'Status record.',
            content: { 'application/json': { schema: ref('StatusCurrent') } },
          },
        },
      },
    },
    '/status/health': {
      get: {
        operationId: 'getHealth',
        tags: ['status'],
        summary: 'Health check.',
        responses: {
          '200': {
            description: 'Health record.',
            content: { 'application/json': { schema: ref('StatusHealth') } },
          },
          '503': { description: 'Service unavailable.' },
        },
      },
    },
  },
  webhooks: {
    identityActions: {
      post: {
        operationId: 'identityActionsWebhook',
        summary: "'Identity Actions': sent when an identity request is approved or cancelled.",
        description:
          'The client verifies X-Webhook-Signature, answers 200 OK, then calls GET /identity/response/... with access_token in X-Access-Token. Kinds of event, the complete payload, the HMAC algorithm, the signed content and retries are not shown by the spec.',
        parameters: [header('X-Webhook-Signature', true, 'HMAC of the request, verified before the payload is trusted.')],
        requestBody: json(ref('IdentityActionsEvent')),
        responses: { '200': { description: 'Received.' } },
      },
    },
  },
  components: {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    },
    schemas,
  },
} as const;
