/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
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
