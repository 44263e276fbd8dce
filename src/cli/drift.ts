/**
 * What differs between a service's OpenAPI document (its `/docs/spec`) and the contract this SDK
 * was built from, for `acme-identity doctor`. The contract is what goes over the wire: operations
 * (method and path), the fields of each request body and answer, their enums, the error codes. How
 * a document names things is its author's choice and is not compared: schema names, path
 * parameter names, a version prefix written into every path (`/api/v1/…`) rather than its server
 * URL, OpenAPI 3 or Swagger 2.
 */
import { openApiDocument } from '../contract/openapi.js';
import { ERROR_TABLE } from '../contract/errors.js';
import { isObject } from '../internal/guards.js';

type Doc = Record<string, unknown>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The schema `schema` stands for: `$ref`s followed within `doc` (a few deep), `allOf` parts merged. */
function resolve(doc: Doc, schema: unknown, depth = 0): Doc | undefined {
  if (!isObject(schema) || depth > 8) return undefined;
  const ref = schema['$ref'];
  if (typeof ref === 'string') {
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = doc;
    for (const key of ref.slice(2).split('/')) node = isObject(node) ? node[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    return resolve(doc, node, depth + 1);
  }
  const parts = Array.isArray(schema['allOf']) ? schema['allOf'].map((part) => resolve(doc, part, depth + 1)) : [];
  if (parts.length === 0) return schema;
  // Spread rather than Object.assign: a field named `__proto__` (JSON.parse makes it an own member)
  // stays a field, where assigning it would replace the merged object's prototype and hide it.
  let properties: Doc = isObject(schema['properties']) ? { ...schema['properties'] } : {};
  for (const part of parts) if (part && isObject(part['properties'])) properties = { ...properties, ...part['properties'] };
  return { ...schema, properties };
}

/** The JSON schema of a request body or a 200 answer, in OpenAPI 3's place or Swagger 2's. */
function bodySchema(operation: Doc): unknown {
  const body = operation['requestBody'];
  if (isObject(body)) return jsonSchema(body);
  const parameters = Array.isArray(operation['parameters']) ? operation['parameters'] : [];
  return parameters.find((p) => isObject(p) && p['in'] === 'body')?.schema;
}
function answerSchema(operation: Doc): unknown {
  const responses = isObject(operation['responses']) ? operation['responses'] : {};
  const ok = responses['200'] ?? responses['201'];
  return isObject(ok) ? (jsonSchema(ok) ?? ok['schema']) : undefined;
}
function jsonSchema(holder: Doc): unknown {
  const content = isObject(holder['content']) ? holder['content'] : {};
  const json = Object.entries(content).find(([type]) => /json/i.test(type))?.[1];
  return isObject(json) ? json['schema'] : undefined;
}

/** Each field of a schema by its path (`data.ref`): the top level, and one level into `data` (the envelope). */
function fields(doc: Doc, schema: unknown, prefix: string): Map<string, Doc> {
  const out = new Map<string, Doc>();
  const resolved = resolve(doc, schema);
  const properties = resolved && isObject(resolved['properties']) ? resolved['properties'] : {};
  for (const [name, property] of Object.entries(properties)) {
    const field = resolve(doc, property) ?? {};
    out.set(`${prefix}.${name}`, field);
    if (name === 'data') for (const [inner, value] of fields(doc, field, `${prefix}.data`)) out.set(inner, value);
  }
  return out;
}

/** An operation's key: the method and the path, without a version prefix, its parameters unnamed. */
const operationKey = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/^\/api\/v\d+(?=\/)/, '').replace(/\{[^}]*\}/g, '{}')}`;

/** Each operation of a document by its key, with the path as the document writes it. */
function operations(doc: Doc): Map<string, { label: string; operation: Doc }> {
  const out = new Map<string, { label: string; operation: Doc }>();
  const paths = isObject(doc['paths']) ? doc['paths'] : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.includes(method) && isObject(operation))
        out.set(operationKey(method, path), { label: `${method.toUpperCase()} ${path}`, operation });
    }
  }
  return out;
}

const enumOf = (schema: Doc) => (Array.isArray(schema['enum']) ? schema['enum'].map(String) : undefined);

/** The differences, one line each: `+` what the service has and the contract lacks, `-` the reverse, `~` a changed enum. */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one comparison per part of an operation (method, path, parameters, bodies, answers), so each difference is said as itself
export function contractDrift(served: Doc, ours: Doc = openApiDocument): string[] {
  const out: string[] = [];
  const theirs = operations(served);
  const mine = operations(ours);
  for (const [key, { label }] of theirs) if (!mine.has(key)) out.push(`+ operation ${label}`);
  for (const [key, { label, operation }] of mine) {
    const other = theirs.get(key);
    if (!other) {
      out.push(`- operation ${label}`);
      continue;
    }
    for (const [part, schemaOf] of [
      ['body', bodySchema],
      ['answer', answerSchema],
    ] as const) {
      const a = fields(ours, schemaOf(operation), part);
      const b = fields(served, schemaOf(other.operation), part);
      for (const name of b.keys()) if (!a.has(name)) out.push(`+ field ${label} ${name}`);
      for (const [name, schema] of a) {
        const counterpart = b.get(name);
        if (!counterpart) {
          out.push(`- field ${label} ${name}`);
          continue;
        }
        const ea = enumOf(schema);
        const eb = enumOf(counterpart);
        if (ea && eb && (ea.length !== eb.length || ea.some((v) => !eb.includes(v))))
          out.push(`~ enum ${label} ${name}: ${ea.join('|')} → ${eb.join('|')}`);
      }
    }
  }
  const codes = JSON.stringify(served).match(/\bE\d{4}\b/g) ?? [];
  for (const code of new Set(codes)) if (!(code in ERROR_TABLE)) out.push(`+ error code ${code}`);
  return out;
}
