/**
 * Where a successful answer keeps its record: the one rule that opens the service's envelopes,
 * for every operation. Form is read generously (the spec's `{data, correlation_id, meta?}`, a bare
 * record as its token and status tables show, an envelope with more fields such as
 * `{success: true, data}` or JSend's `{status: 'success', data}`, one wrapped once more, `null`
 * for an absent optional); meaning is never guessed: a record in which none of the fields the
 * spec names arrived is refused, naming the fields that did.
 */
import { isObject, setOwn } from '../internal/guards.js';
import { printable } from '../internal/text.js';

/** How deep envelopes are opened: the spec's one, and one more a gateway may add. */
const MAX_WRAPS = 2;

/** A successful answer, opened. */
export interface OpenedAnswer {
  /** The record, `null` fields of it dropped (an absent optional written as `null`). */
  data: unknown;
  /** The first `correlation_id` the envelopes carried, outermost first. */
  correlationId: string | undefined;
  meta: Record<string, unknown> | undefined;
  /** Where the record sat in the body (`data`, `data.data`; empty for a bare one): issues are named from the body's root. */
  path: string;
}

/**
 * What may stand beside `data` in an envelope around a record of any fields (a raw credential,
 * which may have a `data` field of its own): the spec's fields, and those other envelopes carry
 * (`ok`, `error: null` and `errors: []` say no failure here: one that says one never reaches this
 * room, client/failure.ts has made it the error it carries).
 */
const ENVELOPE_FIELDS = new Set([
  'data',
  'correlation_id',
  'meta',
  'success',
  'ok',
  'status',
  'message',
  'error',
  'errors',
  'timestamp',
  'request_id',
]);

/** How many of `fields` `value` has, not counting `null` ones. */
function known(value: Record<string, unknown>, fields: ReadonlySet<string>): number {
  let count = 0;
  for (const field of fields) if (value[field] !== undefined && value[field] !== null) count += 1;
  return count;
}

/**
 * `value` without the object fields that are `null`, at every depth except a disclosed `value`:
 * the digest covers it as sent, so it is kept as sent, a `null` one and the nulls inside it too
 * (read raw by `verifyIdentityResponse`, the same disclosure says the same).
 */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isObject(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null && key !== 'value') continue;
    // A field named `__proto__` stays a field: never the prototype the record's other fields are read through.
    setOwn(kept, key, key === 'value' ? field : withoutNulls(field));
  }
  return kept;
}

/** A record found inside its envelopes, with what the envelopes said on the way in. */
interface Found {
  data: unknown;
  correlationId: string | undefined;
  meta: Record<string, unknown> | undefined;
  path: string;
}

/**
 * Whether `body` is an envelope around a record of any fields: nothing but envelope fields beside
 * its `data` object. Inside the outermost one, an envelope must also say so by a field other than
 * `data` (`correlation_id`, `success`…): a record whose only field is `data` is a record.
 */
function isEnvelope(body: Record<string, unknown>, outermost: boolean): boolean {
  const keys = Object.keys(body);
  return keys.every((key) => ENVELOPE_FIELDS.has(key)) && (outermost || keys.length > 1);
}

/**
 * Whether `data` (what `body`'s `data` holds, opened) is the record, rather than `body` itself: it
 * holds at least as many of the record's fields as `body` does, and at least one; or `body` holds
 * none of them and is an envelope by its fields alone ({@link isEnvelope}). So an empty record in
 * the spec's envelope (a DELETE's `{data: {}, correlation_id}`, `{data: {message: null}}` or
 * `{data: null}`) is read as that record, with the envelope's correlation id, and a record of none
 * of its fields is named by what it holds rather than by its envelope's fields.
 */
function holdsTheRecord(
  body: Record<string, unknown>,
  data: Record<string, unknown>,
  fields: ReadonlySet<string>,
  outermost: boolean,
): boolean {
  const outside = known(body, fields);
  if (known(data, fields) >= Math.max(1, outside)) return true;
  return outside === 0 && isEnvelope(body, outermost);
}

/**
 * The record inside `body`: `body` itself, or what its `data` holds (opened the same way, up to
 * `wraps` levels) when that is the record ({@link holdsTheRecord}). None of the
 * service's records has a `data` field of its own, and an envelope's own fields (`status:
 * 'success'`) are fewer than its record's. Around a record of any fields (`fields` undefined),
 * `data` is opened only where nothing but envelope fields stands beside it ({@link isEnvelope}).
 */
function find(body: unknown, fields: ReadonlySet<string> | undefined, wraps: number): Found {
  const bare: Found = { data: body, correlationId: undefined, meta: undefined, path: '' };
  if (wraps === 0 || !isObject(body)) return bare;
  // `data: null` is a record of none of its fields, read as one where the body is an envelope
  // ({@link holdsTheRecord}); a raw credential's body is never reshaped.
  const data = fields !== undefined && body['data'] === null ? {} : body['data'];
  let inner: Found;
  if (fields === undefined) {
    // An envelope by its fields is opened whatever its `data` holds (`null`, a string, nothing):
    // the schema then refuses what is no credential, rather than the envelope being read as one.
    if (!isEnvelope(body, wraps === MAX_WRAPS)) return bare;
    inner = find(data, undefined, wraps - 1);
  } else {
    if (!isObject(data)) return bare;
    inner = find(data, fields, wraps - 1);
    if (!isObject(inner.data) || !holdsTheRecord(body, inner.data, fields, wraps === MAX_WRAPS)) return bare;
  }
  return {
    data: inner.data,
    correlationId: typeof body['correlation_id'] === 'string' ? body['correlation_id'] : inner.correlationId,
    meta: isObject(body['meta']) ? body['meta'] : inner.meta,
    path: `data.${inner.path}`,
  };
}

/**
 * Opens the envelopes around a record. `fields`: the names the record's schema knows, or
 * `undefined` for a record of any fields (a raw credential), which is taken out of envelopes that
 * say they are ones ({@link isEnvelope}) and kept exactly as sent.
 */
export function openAnswer(body: unknown, fields: ReadonlySet<string> | undefined): OpenedAnswer {
  const found = find(body, fields, MAX_WRAPS);
  return { ...found, data: fields === undefined ? found.data : withoutNulls(found.data) };
}

/**
 * Why a record is no record of its kind: none of the fields the spec names arrived. The answer's
 * field names are listed (cut and printable), never its values. `undefined` when some arrived.
 */
export function emptyRecordProblem(data: unknown, fields: ReadonlySet<string>): string | undefined {
  if (!isObject(data)) return undefined;
  if (known(data, fields) > 0) return undefined;
  const names = Object.keys(data);
  const shown = names.slice(0, 8).map((name) => printable(name) ?? '');
  const arrived = names.length === 0 ? 'nothing' : `${shown.join(', ')}${names.length > shown.length ? ', …' : ''}`;
  return `none of the documented fields arrived (${arrived}): the answer is not read, rather than read as a record of absent fields`;
}
