/**
 * Control characters (C0, DEL, C1) and the Unicode line and paragraph separators: what could
 * forge a log line or move a terminal's cursor when a server-written string is printed.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * A string the service (or anything between it and us) wrote, made safe to put in a message:
 * control characters become spaces and it is cut at `max` characters. `undefined` for anything
 * that is not a string.
 */
export function printable(value: unknown, max = 64): string | undefined {
  if (typeof value !== 'string') return undefined;
  let end = Math.min(value.length, max);
  // Not between the two halves of a surrogate pair.
  if (end < value.length && /[\ud800-\udbff]/.test(value.charAt(end - 1))) end -= 1;
  const clean = end < value.length ? `${value.slice(0, end)}…` : value;
  return clean.replace(UNPRINTABLE, ' ');
}
