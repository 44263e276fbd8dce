/** Byte and text helpers on Web APIs only, so every entry runs in Node, browsers and edge runtimes. */

const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

/** Standard base64 (with padding) of bytes. Chunked so large files do not overflow the call stack. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

/** A `data:` URL's base64 payload follows this prefix (`data:application/pdf;base64,`). */
const DATA_URL = /^data:[^,]{0,200};base64,/i;

/**
 * The bytes of a file the service sent as "a base64 string", whose alphabet and form the spec
 * does not show: standard or URL-safe (never both in one text), padded or not, wrapped in lines
 * (MIME writes 76 characters a line), or behind a `data:…;base64,` prefix. `undefined` for
 * anything else: a character of neither alphabet, or a length no base64 has.
 */
export function fromFileBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  const bare = text.replace(DATA_URL, '').replace(/[\r\n\t ]+/g, '');
  const urlSafe = /[-_]/.test(bare);
  if (urlSafe && /[+/]/.test(bare)) return undefined;
  const standard = urlSafe ? bare.replace(/-/g, '+').replace(/_/g, '/') : bare;
  return fromBase64(standard.padEnd(Math.ceil(standard.length / 4) * 4, '='));
}

/** A plain character class, no groups: linear on multi-megabyte files (a grouped pattern overflows V8's regex stack). */
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes standard base64; `undefined` when the text is not canonical base64. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (text.length % 4 !== 0 || !BASE64_CHARS.test(text)) return undefined;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The value of one hex digit's character code. */
const nibble = (c: number) => (c <= 57 ? c - 48 : (c | 32) - 87);

/** The bytes of a hex string the caller has already checked to be hex digits of even length. */
export function fromHex(text: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (nibble(text.charCodeAt(i * 2)) << 4) | nibble(text.charCodeAt(i * 2 + 1));
  return bytes;
}

/** The parts' bytes one after another, in one new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Bytes as lower-case hex digits. */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A random identifier of `bytes` random bytes, base64url: each caller says how many it needs. */
export function randomId(bytes: number): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}
