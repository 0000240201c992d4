import { normalizedName } from '../resources/rows.js';

/**
 * The words search is made of, alike for what is indexed and what is asked:
 * lower case, accents dropped, letters and digits only. A UUID (the last
 * segment of most IRIs) is one word without its hyphens, so that pasting one
 * finds its resource, and its first group finds it as a prefix, without five
 * words of random hex in the dictionary for every resource.
 */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ACCENTS = /[\u0300-\u036f]/g;
const WORD = /[\p{L}\p{N}]+/gu;

export function wordsOf(text: string): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(ACCENTS, '')
      .replace(UUID, (uuid) => uuid.replaceAll('-', ''))
      .match(WORD) ?? []
  );
}

/** At most this many words of a query count, each at most this long. */
export const MAX_QUERY_WORDS = 10;
export const MAX_WORD_LENGTH = 50;

export function queryWords(q: string): string[] {
  return wordsOf(q)
    .slice(0, MAX_QUERY_WORDS)
    .map((word) => word.slice(0, MAX_WORD_LENGTH));
}

/**
 * A label as the index compares it with the whole query, for exact and
 * leading matches and the order of ties: `normalizedName` (spaces squeezed,
 * lower case) with accents dropped as `wordsOf` drops them, so that `Pümp`
 * ranks what `pump` ranks.
 */
export function foldedName(text: string): string {
  return normalizedName(text).normalize('NFKD').replace(ACCENTS, '');
}
