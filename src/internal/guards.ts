/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Whether two JSON values are the same value: arrays in order, objects by their keys in any order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/**
 * Sets an own, enumerable property of a plain object, even one named `__proto__` (which JSON.parse
 * makes an own key of what it reads, and which assignment would take for the prototype): what a
 * service or a token names is kept as data, never as the prototype the object's other fields
 * would then be read through.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * The boolean a value the service wrote says, or `undefined` when it says none. The spec writes
 * `sanctionscheck.is_pep` as the string `Yes`, so a service may write any boolean as a word:
 * `true`/`false` and `yes`/`no` (in any case, with spaces around), `1`/`0` as a number or its digit,
 * and JSON's booleans. Each of these says one thing; anything else (`"y"`, `"2"`, `null`, an object)
 * is no boolean, never a guess.
 */
export function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value !== 'string') return undefined;
  if (TRUE_WORD.test(value)) return true;
  if (FALSE_WORD.test(value)) return false;
  return undefined;
}
const TRUE_WORD = /^\s*(?:true|yes|1)\s*$/i;
const FALSE_WORD = /^\s*(?:false|no|0)\s*$/i;
