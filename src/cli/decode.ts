/**
 * `acme-identity decode <token>`: a JWT or an SD-JWT taken apart for reading: the header, the
 * payload with its dates in human time, and each disclosure with its digest and whether the
 * payload references it. Nothing is verified, and the output says so.
 */
import { createHash } from 'node:crypto';
import { unixTimeOf } from '../internal/times.js';
import { oneLine } from './report.js';

interface DecodedDisclosure {
  readonly encoded: string;
  /** The claim name (absent for an array element). */
  readonly name?: string;
  readonly value: unknown;
  /** base64url SHA-256 of the disclosure as sent (`_sd_alg` sha-256). */
  readonly digest: string;
  /** Whether the payload lists its digest (in an `_sd` array or as an array element `{"...": digest}`). */
  readonly referenced: boolean;
}

export interface DecodedToken {
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  /** exp, nbf, iat in ISO time. */
  readonly dates: Record<string, string>;
  readonly disclosures: readonly DecodedDisclosure[];
  /** Whether a key-binding JWT follows the disclosures. */
  readonly keyBinding: boolean;
  readonly verified: false;
}

const part = (text: string, what: string): Record<string, unknown> => {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Said below.
  }
  throw new TypeError(`the ${what} is not base64url JSON`);
};

/** Every digest the payload references, at any depth. */
function digestsIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) digestsIn(item, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '_sd' && Array.isArray(item)) for (const d of item) if (typeof d === 'string') into.add(d);
      if (key === '...' && typeof item === 'string') into.add(item);
      digestsIn(item, into);
    }
  }
  return into;
}

/**
 * Takes a JWT or an SD-JWT (`jwt~disclosure~…~[kb-jwt]`) apart.
 * @throws {TypeError} naming the part that is not what it should be.
 */
export function decodeToken(token: string): DecodedToken {
  const trimmed = token.trim();
  const [jwt = '', ...rest] = trimmed.split('~');
  const sections = jwt.split('.');
  if (sections.length !== 3) throw new TypeError(`not a JWT: ${sections.length} dot-separated parts, not 3`);
  const [headerText = '', payloadText = ''] = sections;
  const header = part(headerText, 'header');
  const payload = part(payloadText, 'payload');
  const keyBinding = rest.length > 0 && rest.at(-1) !== '';
  const encodedDisclosures = rest.slice(0, keyBinding ? -1 : undefined).filter((d) => d !== '');
  const referenced = digestsIn(payload);
  const disclosures = encodedDisclosures.map((encoded, index): DecodedDisclosure => {
    let array: unknown;
    try {
      array = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    } catch {
      throw new TypeError(`disclosure ${index + 1} is not base64url JSON`);
    }
    if (!Array.isArray(array) || (array.length !== 2 && array.length !== 3))
      throw new TypeError(`disclosure ${index + 1} is not [salt, name, value] or [salt, value]`);
    const digest = createHash('sha256').update(encoded, 'ascii').digest('base64url');
    return {
      encoded,
      ...(array.length === 3 ? { name: String(array[1]) } : {}),
      value: array.at(-1),
      digest,
      referenced: referenced.has(digest),
    };
  });
  const dates: Record<string, string> = {};
  for (const claim of ['exp', 'nbf', 'iat']) {
    // Read as the verifiers read it (`internal/times.ts`): an exp in milliseconds shows its own date.
    const seconds = unixTimeOf(payload[claim]);
    if (seconds !== undefined) dates[claim] = new Date(seconds * 1000).toISOString();
  }
  return { header, payload, dates, disclosures, keyBinding, verified: false };
}

/** The decoded token as text, marked as not verified. */
export function formatDecoded(decoded: DecodedToken): string {
  const lines = [
    'NOT VERIFIED: decoded only (acme-identity verify checks the signature)',
    '',
    'header:',
    JSON.stringify(decoded.header, null, 2),
    '',
    'payload:',
    JSON.stringify(decoded.payload, null, 2),
  ];
  for (const [claim, iso] of Object.entries(decoded.dates)) lines.push(`  ${claim}: ${iso}`);
  if (decoded.disclosures.length) {
    lines.push('', `disclosures (${decoded.disclosures.length}):`);
    for (const d of decoded.disclosures) {
      lines.push(
        `  ${d.referenced ? '✓' : '✗ not referenced'} ${d.name ?? '(array element)'} = ${JSON.stringify(d.value)}  digest ${d.digest}`,
      );
    }
  }
  if (decoded.keyBinding) lines.push('', 'key binding JWT: present');
  // The token is anyone's text. JSON escapes C0 controls but leaves C1 controls and U+2028 as they
  // are, and a disclosure's name is printed without JSON: each control character becomes a space.
  return lines.join('\n').split('\n').map(oneLine).join('\n');
}
