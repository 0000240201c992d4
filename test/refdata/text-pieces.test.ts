import { describe, expect, it } from 'vitest';
import { joinInPieces } from '../../src/refdata/rdf/text-pieces.js';

describe('joinInPieces', () => {
  const parts = Array.from({ length: 1000 }, (_, n) => `line ${n} ${'x'.repeat(n % 97)}\n`);

  it('gives back exactly the concatenation, in order', () => {
    expect(joinInPieces(parts, 1000).join('')).toBe(parts.join(''));
  });

  it('closes a piece as soon as it reaches the limit, so none exceeds it by more than one part', () => {
    const pieces = joinInPieces(parts, 1000);
    const longestPart = Math.max(...parts.map((part) => part.length));
    expect(pieces.length).toBeGreaterThan(20);
    for (const piece of pieces) expect(piece.length).toBeLessThan(1000 + longestPart);
    // All but the last reached the limit: no needless small pieces.
    for (const piece of pieces.slice(0, -1)) expect(piece.length).toBeGreaterThanOrEqual(1000);
  });

  it('gives nothing for nothing, and one piece for a short text', () => {
    expect(joinInPieces([])).toEqual([]);
    expect(joinInPieces(['a', 'b'])).toEqual(['ab']);
  });
});
