/** The contract room: what it writes down agrees with the spec and with what derives from it. */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { apiErrorFrom } from '../../src/errors/index.js';
import { OBTAINABLE_CREDENTIALS, SUPPORTED_CLAIMS } from '../../src/contract/claims.js';
import { ERROR_TABLE, type ServiceErrorCode } from '../../src/contract/errors.js';
import { openApiDocument } from '../../src/contract/openapi.js';
import { ROUTES, routePattern, templateOf } from '../../src/contract/routes.js';

const snapshot = readFileSync(new URL('../../docs/service-spec.md', import.meta.url), 'utf8');
const operatorCopy = new URL('../../../shared/service-spec.md', import.meta.url);

describe('contract', () => {
  test("docs/service-spec.md is the operator's specification, word for word, where that copy is at hand", () => {
    const body = snapshot.slice(snapshot.indexOf('# Identity Verification'));
    expect(body.startsWith('# Identity Verification and Credential Service')).toBe(true);
    if (existsSync(operatorCopy)) expect(body).toBe(readFileSync(operatorCopy, 'utf8'));
  });

  test("every row of the spec's error table is in the contract, and the SDK classes each code and each type the same way", () => {
    for (const row of snapshot.matchAll(/^\| (E\d{4}) \| ([A-Z_]+) \| (\d{3}) \|$/gm)) {
      const [, code, type, status] = row;
      expect(ERROR_TABLE[code as ServiceErrorCode]).toEqual({ type, status: Number(status) });
      const headers = new Headers();
      const byCode = apiErrorFrom({ status: Number(status), body: { code }, requestCorrelationId: 'c', headers });
      const byType = apiErrorFrom({ status: Number(status), body: { type }, requestCorrelationId: 'c', headers });
      expect(byType.constructor).toBe(byCode.constructor);
    }
    expect(Object.keys(ERROR_TABLE)).toHaveLength([...snapshot.matchAll(/^\| E\d{4} \|/gm)].length);
  });

  test('the claim keys and the obtainable credentials are the ones the spec names', () => {
    const named = snapshot.slice(
      snapshot.indexOf('Claim keys named in the interface'),
      snapshot.indexOf('- Credentials that can be obtained'),
    );
    const keys = [...named.matchAll(/`([a-z_]+(?:\.[a-z_]+)+)`/g)].map((m) => m[1]);
    expect([...SUPPORTED_CLAIMS].sort()).toEqual([...new Set(keys)].sort());
    const obtainable = snapshot.slice(
      snapshot.indexOf('- Credentials that can be obtained'),
      snapshot.indexOf('`document.*` claims are never'),
    );
    expect([...obtainable.matchAll(/`([a-z]+)`/g)].map((m) => m[1])).toEqual([...OBTAINABLE_CREDENTIALS]);
  });

  test("the route list is the OpenAPI document's operations: the same ids, methods and paths", () => {
    const operations = Object.entries(openApiDocument.paths as Record<string, Record<string, { operationId?: string }>>).flatMap(
      ([path, item]) =>
        Object.entries(item)
          .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
          .map(([method, operation]) => [operation.operationId, { method: method.toUpperCase(), path }] as const),
    );
    expect(Object.fromEntries(operations)).toEqual(ROUTES);
  });

  test('a template matches its concrete paths: a credential_ref may hold slashes, an identity code may not', () => {
    expect(routePattern(ROUTES.verifyCredential.path).exec('/credentials/verify/cred:1/a/b')?.slice(1)).toEqual(['cred:1/a/b']);
    expect(routePattern(ROUTES.getIdentityRequest.path).exec('/identity/request/arc_1/isc_1')?.slice(1)).toEqual(['arc_1', 'isc_1']);
    expect(routePattern(ROUTES.getIdentityRequest.path).test('/identity/request/arc_1/isc_1/x')).toBe(false);
    expect(templateOf('/identity/response/arc_secret/isc_secret?x=1')).toBe(ROUTES.getIdentityResponse.path);
    expect(templateOf('/credentials/revoke/ref/with/slashes')).toBe(ROUTES.revokeCredential.path);
    expect(templateOf('/nowhere/at/all?q=1')).toBe('/nowhere/at/all');
  });
});
