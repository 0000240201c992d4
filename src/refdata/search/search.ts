import type { Status } from '../db/tables.js';
import type { RankKey } from './ranking.js';

export interface SearchRequest {
  q: string | undefined;
  families: readonly string[];
  libraries: readonly string[];
  statuses: readonly Status[];
  /** Only resources with a label in one of these languages (BCP 47); none: any. */
  languages?: readonly string[];
  /**
   * Whether to count the matches' languages (the search page's chooser): a
   * tally for every match, which the API, which shows none, does not pay for.
   */
  countLanguages?: boolean;
  limit: number;
  after: Cursor | undefined;
}

/**
 * Where the previous page ended (tier, score, name, id), and the generation of
 * the statistics its scores were computed with. Under the same generation the
 * next page starts exactly after it; under a later one, after the same key,
 * as near as the new scores allow (see docs/search.md).
 */
export interface Cursor extends RankKey {
  generation: number;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(
    JSON.stringify([cursor.tier, cursor.score, cursor.name, cursor.id, cursor.generation]),
  ).toString('base64url');
}

/** The cursor a client sent back, or undefined when it is not one of ours. */
export function decodeCursor(text: string): Cursor | undefined {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 5 &&
      Number.isInteger(value[0]) &&
      value[0] >= 0 &&
      value[0] <= 2 &&
      typeof value[1] === 'number' &&
      Number.isFinite(value[1]) &&
      value[1] >= 0 &&
      typeof value[2] === 'string' &&
      value[2].length <= 1000 &&
      Number.isInteger(value[3]) &&
      value[3] >= 0 &&
      Number.isInteger(value[4]) &&
      value[4] >= 0
    ) {
      return {
        tier: value[0],
        score: value[1],
        name: value[2],
        id: value[3],
        generation: value[4],
      };
    }
  } catch {
    // Falls through: not a cursor.
  }
  return undefined;
}
