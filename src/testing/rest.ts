/** The fake's REST API below the base URL: identity requests and responses, credentials, status, the OpenAPI document. */
import { openApiDocument } from '../contract/openapi.js';
import { ROUTES, routePattern, type OperationId } from '../contract/routes.js';
import { authenticate, authenticateIdentity, readJson } from './auth.js';
import {
  decryptFile,
  fileDataAs,
  isDuplicate,
  issueCredential,
  revocableCredential,
  usableCredential,
  validateCredentialInput,
  verificationAnswer,
} from './credentials.js';
import { actionAnswer, json, ok, serviceError, typed, withNumbers, type ResponseContext } from './http.js';
import { findRecord, isOpen, newIdentityRecord, requestDetails, samePerson, validateIdentityInput } from './identity.js';
import { verifyJwt } from './keys.js';
import type { FakeState, Route, RouteEntry } from './state.js';

/** Every REST route, in the order they are matched; the rate limit counts all but status and docs. */
export function restRoutes(state: FakeState): RouteEntry[] {
  const identity = identityRoutes(state);
  const credentials = credentialRoutes(state);
  const status = statusRoutes(state);
  const entry = (id: OperationId, route: Route, limited = true): RouteEntry => [
    ROUTES[id].method,
    routePattern(ROUTES[id].path),
    route,
    limited,
  ];
  return [
    entry('createIdentityRequest', identity.create),
    entry('getIdentityRequest', identity.get),
    entry('deleteIdentityRequest', identity.delete),
    entry('getIdentityResponse', identity.response),
    entry('submitCredential', credentials.submit),
    entry('verifyCredential', credentials.verify),
    entry('getCredentialFileData', credentials.fileData),
    entry('revokeCredential', credentials.revoke),
    entry('getCurrentStatus', status.current, false),
    entry('getHealth', status.health, false),
    ['GET', /^\/docs\/spec$/, async (_request, ctx) => openApiAnswer(ctx), false],
  ];
}

/**
 * The OpenAPI document, as JSON or, as the `specFormat` reading says, YAML (`application/yaml`):
 * the spec shows neither. Written by the `yaml` library, loaded only for that reading.
 */
async function openApiAnswer(ctx: ResponseContext): Promise<Response> {
  if (ctx.readings?.specFormat !== 'yaml') return json(ctx, openApiDocument);
  const { stringify } = await import('yaml');
  return typed(ctx, stringify(openApiDocument), 'application/yaml');
}

function identityRoutes(state: FakeState): Record<'create' | 'get' | 'delete' | 'response', Route> {
  return {
    async create(request, ctx) {
      const client = await authenticateIdentity(state, request, ctx.now);
      const input = validateIdentityInput(await readJson(request), {
        supportedClaims: state.supportedClaims,
        purposes: state.options.purposes,
        optionalInputs: state.readings.optionalInputs,
      });
      for (const existing of state.identity.values()) {
        if (existing.clientId === client.clientId && isOpen(existing, ctx.now) && samePerson(existing.input, input)) {
          // Under the conflictDetails reading, both codes of the existing request, named as the creation's answer names them.
          throw serviceError('E1006', 'An open identity request to this person exists', {
            details:
              state.readings.conflictDetails === 'codes'
                ? { access_request_code: existing.accessRequestCode, identity_session_code: existing.identitySessionCode }
                : { existing_code: existing.accessRequestCode },
          });
        }
      }
      const record = newIdentityRecord(client.clientId, input, new URL(state.authUrl).origin, ctx.now);
      state.identity.set(record.accessRequestCode, record);
      if (input.send_email && state.settings.emailDelivery === 'fail') {
        throw serviceError('E2002', 'The request was created but the email could not be sent', {
          // The code the client cannot learn elsewhere: the access_request_code arrives with the
          // webhook, the identity_session_code that retrieves the result only here. Under the
          // emailFailureDetails reading, both codes, named as the creation's answer names them.
          details:
            state.readings.emailFailureDetails === 'codes'
              ? {
                  access_request_code: record.accessRequestCode,
                  identity_session_code: record.identitySessionCode,
                  redirect_url: record.redirectUrl,
                }
              : { code: record.identitySessionCode, redirect_url: record.redirectUrl },
        });
      }
      return ok(ctx, {
        access_request_code: record.accessRequestCode,
        identity_session_code: record.identitySessionCode,
        redirect_url: record.redirectUrl,
      });
    },
    async get(request, ctx, [arc, isc]) {
      const client = await authenticateIdentity(state, request, ctx.now);
      return ok(ctx, requestDetails(findRecord(state.identity, client.clientId, arc, isc), ctx.now, state.readings));
    },
    async delete(request, ctx, [arc, isc]) {
      const client = await authenticateIdentity(state, request, ctx.now);
      const record = findRecord(state.identity, client.clientId, arc, isc);
      record.status = 'deleted';
      return actionAnswer(ctx, state.readings.deleteAnswer, { message: 'Identity request cancelled and deleted' });
    },
    async response(request, ctx, [arc, isc]) {
      const client = await authenticateIdentity(state, request, ctx.now);
      const header = request.headers.get('x-access-token');
      if (!header) throw serviceError('E1003', 'X-Access-Token is required', { minimal: true });
      const token = await verifyJwt(state.allKeys, header, ctx.now, state.readings.tokenTimes);
      if (!token) throw serviceError('E1003', 'X-Access-Token is invalid or expired', { minimal: true });
      const record = findRecord(state.identity, client.clientId, arc, isc);
      if (token['access_request_code'] !== arc || token['access_token'] !== record.accessToken) {
        throw serviceError('E1004', 'X-Access-Token was not issued for this request', { minimal: true });
      }
      if (record.status !== 'approved' || !record.response) throw serviceError('E1005', 'No identity response for this request');
      return ok(ctx, record.response);
    },
  };
}

function credentialRoutes(state: FakeState): Record<'submit' | 'verify' | 'fileData' | 'revoke', Route> {
  return {
    async submit(request, ctx) {
      const client = await authenticate(state, request, ctx.now);
      const input = validateCredentialInput(await readJson(request), state.credentialTypes);
      if (isDuplicate(state.credentials.values(), client.clientId, input)) throw serviceError('E1006', 'Duplicate credential');
      const record = await issueCredential(client.clientId, input, {
        keys: state.keys,
        fileKey: state.fileKey,
        issuer: state.issuer,
        nowMs: ctx.now,
      });
      state.credentials.set(record.ref, record);
      return ok(ctx, { credential_ref: record.ref });
    },
    async verify(request, ctx, [ref]) {
      const client = await authenticate(state, request, ctx.now);
      return ok(
        ctx,
        await verificationAnswer(state.readings.verifyAnswer, state.credentials.get(ref), client.clientId, state.allKeys, ctx.now),
      );
    },
    async fileData(request, ctx, [ref]) {
      const client = await authenticate(state, request, ctx.now);
      const record = usableCredential(state.credentials.get(ref), client.clientId, ctx.now);
      return ok(ctx, { file_data: fileDataAs(state.readings.fileEncoding, await decryptFile(record, state.fileKey)) });
    },
    async revoke(request, ctx, [ref]) {
      const client = await authenticate(state, request, ctx.now);
      const record = revocableCredential(state.credentials.get(ref), client.clientId);
      record.revoked = true;
      return actionAnswer(ctx, state.readings.revokeAnswer, { revoked: true });
    },
  };
}

function statusRoutes(state: FakeState): Record<'current' | 'health', Route> {
  const { settings } = state;
  /** A status record, at the top level or (the `statusEnvelope: 'wrapped'` reading) in the general envelope. */
  const record = (ctx: ResponseContext, body: Record<string, unknown>) =>
    state.readings.statusEnvelope === 'wrapped' ? ok(ctx, body) : json(ctx, withNumbers(ctx, body));
  return {
    current: async (_request, ctx) =>
      record(ctx, {
        status: settings.status,
        timestamp: Math.floor(ctx.now / 1000),
        environment: 'sandbox',
        components: {
          api: { status: settings.status, version: openApiDocument.info.version },
          database: { status: settings.database, message: settings.database === 'connected' ? 'ok' : 'unreachable' },
        },
        maintenance_mode: settings.maintenanceMode,
      }),
    health: async (_request, ctx) =>
      record(ctx, {
        status: settings.status === 'operational' && settings.database === 'connected' ? 'healthy' : 'degraded',
        timestamp: Math.floor(ctx.now / 1000),
        database: settings.database,
      }),
  };
}
