/**
 * printable(): what the service wrote, made safe for a message or a log line (#45: the test that
 * held U+2028 placed it past the 64-character cut, so it could not fail). A property over strings
 * with a control or separator character at any place within the cut.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { printable } from '../../src/internal/text.js';

const FORGING = ['\n', '\r', '\u0000', '\u001b', '\u007f', '\u0085', '\u009b', '\u2028', '\u2029'];

describe('printable', () => {
  test('property: no line break, control or line/paragraph separator survives, wherever it is within the cut (log forging)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.constantFrom(...FORGING), fc.nat(), (text, forging, at) => {
        const place = at % (text.length + 1);
        const written = `${text.slice(0, place)}${forging}${text.slice(place)}`;
        const shown = printable(written)!;
        for (const char of FORGING) expect(shown).not.toContain(char);
        // Each forging character becomes one space: nothing else moves.
        expect(shown).toHaveLength(Math.min(written.length, 64) + (written.length > 64 ? 1 : 0));
      }),
      { numRuns: 300 },
    );
  });

  test('not a string is undefined; a long one is cut at max with an ellipsis, never between the halves of a surrogate pair', () => {
    expect(printable(42)).toBeUndefined();
    expect(printable('a'.repeat(70))).toBe(`${'a'.repeat(64)}…`);
    expect(printable(`${'a'.repeat(63)}😀b`)).toBe(`${'a'.repeat(63)}…`);
    // A pair elsewhere, or a lone high surrogate ending a text that is not cut, moves nothing.
    expect(printable(`😀${'a'.repeat(70)}`)).toBe(`😀${'a'.repeat(62)}…`);
    expect(printable('ab\ud800')).toBe('ab\ud800');
    expect(printable(`${'a'.repeat(63)}\ud800`)).toBe(`${'a'.repeat(63)}\ud800`);
  });
});
