import { describe, expect, it } from 'vitest';
import { AnswerCache, estimatedBytes } from '../../src/refdata/search/answer-cache.js';
import type { SearchAnswer } from '../../src/refdata/search/service.js';

/** An answer of `hits` hits whose descriptions are `length` characters long. */
function answerOf(hits: number, length = 10): SearchAnswer {
  return {
    hits: Array.from({ length: hits }, (_, at) => ({
      row: {
        id: at,
        iri: `http://example.org/${at}`,
        name: `Pump ${at}`,
        family: 'class',
        status: 'Draft',
        description: 'd'.repeat(length),
      },
      library: { iri: 'http://example.org/library', label: 'Library' },
      types: ['http://www.w3.org/2002/07/owl#Class'],
    })),
    total: hits,
    facets: { family: new Map([['class', hits]]), library: new Map(), status: new Map() },
    languages: new Map([['en', hits]]),
    next: undefined,
  };
}

describe('the answers kept for searches asked again', () => {
  it('gives back what was kept under the same key, and nothing under another', () => {
    const cache = new AnswerCache(1024 * 1024);
    const answer = answerOf(3);
    expect(cache.set('pump', answer, cache.generation)).toBe(true);
    expect(cache.get('pump')).toBe(answer);
    expect(cache.get('valve')).toBeUndefined();
  });

  it('forgets every answer when the index changes', () => {
    const cache = new AnswerCache(1024 * 1024);
    cache.set('pump', answerOf(1), cache.generation);
    cache.set('valve', answerOf(1), cache.generation);
    cache.invalidate();
    expect(cache.get('pump')).toBeUndefined();
    expect(cache.get('valve')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not keep an answer asked before a change and given after it', () => {
    const cache = new AnswerCache(1024 * 1024);
    const askedIn = cache.generation;
    cache.invalidate();
    expect(cache.set('pump', answerOf(1), askedIn)).toBe(false);
    expect(cache.get('pump')).toBeUndefined();
  });

  it('stays within its bound, forgetting the answer used least recently', () => {
    const one = estimatedBytes(answerOf(20, 200));
    const cache = new AnswerCache(Math.floor(one * 2.5));
    cache.set('a', answerOf(20, 200), cache.generation);
    cache.set('b', answerOf(20, 200), cache.generation);
    expect(cache.get('a')).toBeDefined();
    cache.set('c', answerOf(20, 200), cache.generation);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    // An answer larger than the whole bound is not kept.
    expect(cache.set('d', answerOf(100, 2000), cache.generation)).toBe(false);
  });

  it('keeps nothing with a bound of 0', () => {
    const cache = new AnswerCache(0);
    expect(cache.enabled).toBe(false);
    expect(cache.set('pump', answerOf(1), cache.generation)).toBe(false);
    expect(cache.get('pump')).toBeUndefined();
  });

  it('estimates more bytes for more hits and longer text', () => {
    expect(estimatedBytes(answerOf(20))).toBeGreaterThan(estimatedBytes(answerOf(2)));
    expect(estimatedBytes(answerOf(2, 1000))).toBeGreaterThan(
      estimatedBytes(answerOf(2, 10)) + 3000,
    );
  });
});
