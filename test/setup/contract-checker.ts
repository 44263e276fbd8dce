/**
 * Holds the fake to the OpenAPI document it serves, both ways: every request it answers and every
 * answer it gives is validated against the document with a JSON Schema 2020-12 validator (Ajv).
 * - A request the document refuses must be refused (4xx): a fake that accepts it is too lenient.
 * - An answer must have a status the operation documents, and a body of that status's schema.
 * Answers shaped by an injected fault are left out: they are wrong on purpose.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from '../../src/contract/openapi.js';
import type { FakeExchange } from '../../src/testing/index.js';

// ajv-formats is CommonJS with a default export.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

const DOC_ID = 'https://acme.test/openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addSchema({ ...openApiDocument, $id: DOC_ID } as unknown as object);

const validators = new Map<string, ValidateFunction>();
/** The validator of the schema at `pointer` in the document (compiled once). */
function validatorAt(pointer: string[]): ValidateFunction {
  const ref = `${DOC_ID}#/${pointer.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

interface Operation {
  template: string;
  method: string;
  spec: {
    parameters?: { name: string; in: string; required?: boolean }[];
    requestBody?: { required?: boolean; content?: Record<string, unknown> };
    responses: Record<string, { content?: Record<string, unknown> }>;
  };
}

const operations: (Operation & { pattern: RegExp })[] = Object.entries(openApiDocument.paths).flatMap(([template, item]) =>
  Object.entries(item as Record<string, Operation['spec']>).map(([method, spec]) => ({
    template,
    method: method.toUpperCase(),
    spec,
    // credential_ref is appended verbatim and may hold `/` (the spec): it spans segments.
    pattern: new RegExp(
      `^${template
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\{credential_ref\}/g, '.+')
        .replace(/\{[^}]+\}/g, '[^/]+')}$`,
    ),
  })),
);

/** Served beside the API but not an operation of it: the document itself. */
const BESIDE_THE_API = new Set(['GET /docs/spec']);

/**
 * Fields the spec marks "yes in schema" but describes as optional (identity request): the document
 * keeps the schema's word (required), the fake the description's (it accepts their absence), and
 * the SDK always sends them. A request lacking only these is not one the fake must refuse.
 */
const REQUIRED_IN_SCHEMA_ONLY = ['results_emails', 'download_email', 'expiry_hours'];

function errorsOf(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`).join('; ');
}

/**
 * The contract problems of one exchange with a fake served at `baseUrl`; none for requests outside
 * the REST API (the OIDC server, the journey pages) or shaped by a fault.
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one check per part of an exchange the OpenAPI document constrains (path, parameters, body, status, answer), each problem said as itself
export async function contractProblems(baseUrl: string, exchange: FakeExchange): Promise<string[]> {
  if (exchange.fault) return [];
  const { request, response } = exchange;
  const base = new URL(baseUrl);
  const url = new URL(request.url);
  if (url.origin !== base.origin || !url.pathname.startsWith(`${base.pathname}/`)) return [];
  const path = url.pathname.slice(base.pathname.length);
  const method = request.method.toUpperCase();
  const candidates = operations.filter((o) => o.pattern.test(path));
  const operation = candidates.find((o) => o.method === method);
  const where = `${method} ${path}`;
  if (BESIDE_THE_API.has(where)) return [];
  if (!operation) {
    // Not in the document: the fake must refuse it.
    return response.status >= 400 && response.status < 500 ? [] : [`${where}: not in the document, but answered ${response.status}`];
  }
  const problems: string[] = [];

  // The request, as the document describes it.
  const refused: string[] = [];
  for (const parameter of operation.spec.parameters ?? []) {
    if (parameter.in === 'header' && parameter.required && !request.headers.has(parameter.name))
      refused.push(`header ${parameter.name} missing`);
  }
  const body = operation.spec.requestBody;
  if (body?.content?.['application/json']) {
    const text = await request.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
      const validate = validatorAt([
        'paths',
        operation.template,
        method.toLowerCase(),
        'requestBody',
        'content',
        'application/json',
        'schema',
      ]);
      if (!validate(parsed)) {
        const real = (validate.errors ?? []).filter(
          (e) => !(e.keyword === 'required' && REQUIRED_IN_SCHEMA_ONLY.includes(String(e.params['missingProperty']))),
        );
        if (real.length > 0) refused.push(`body: ${errorsOf({ ...validate, errors: real } as ValidateFunction)}`);
      }
    } catch {
      if (body.required) refused.push('body is not JSON');
    }
  }
  if (refused.length > 0 && response.status < 400)
    problems.push(`${where}: accepted (${response.status}) a request the document refuses: ${refused.join('; ')}`);

  // The answer, as the document describes it.
  const status = String(response.status);
  const documented = operation.spec.responses[status] ?? operation.spec.responses['default'];
  if (!documented) {
    problems.push(`${where}: answered ${status}, which the document does not list for ${operation.template}`);
    return problems;
  }
  if (documented.content?.['application/json']) {
    const text = await response.clone().text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      problems.push(`${where}: ${status} body is not JSON`);
      return problems;
    }
    const key = operation.spec.responses[status] ? status : 'default';
    const validate = validatorAt([
      'paths',
      operation.template,
      method.toLowerCase(),
      'responses',
      key,
      'content',
      'application/json',
      'schema',
    ]);
    if (!validate(parsed)) problems.push(`${where}: ${status} body departs from the document: ${errorsOf(validate)}`);
  }
  return problems;
}
