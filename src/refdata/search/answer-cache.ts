import { LRUCache } from 'lru-cache';
import type { SearchAnswer } from './service.js';

/** Bytes counted for an answer beside its hits' text: the object, its total and its cursor. */
const ANSWER_OVERHEAD_BYTES = 512;
/**
 * Bytes counted per hit beside its text: the objects and the strings' headers,
 * and in the body as sent (which the route keeps with the answer) its links and
 * field names.
 */
const HIT_OVERHEAD_BYTES = 768;
/** Bytes counted per facet value beside its text. */
const FACET_OVERHEAD_BYTES = 64;

/**
 * The answers of recent searches, as a search engine keeps its query results
 * (Solr's `queryResultCache`): a query asked again, or a page asked again,
 * is answered without matching, ranking or the hop to the index's thread.
 * Every answer belongs to the index as it was when asked; `invalidate` is
 * called on each change to the index, and forgets them all. An answer asked
 * before a change and given after it is not kept (`generation` is compared).
 * Bounded by an estimate of the memory the answers take.
 */
export class AnswerCache {
  private readonly answers: LRUCache<string, SearchAnswer> | undefined;
  private current = 0;

  constructor(maxBytes: number) {
    this.answers =
      maxBytes > 0
        ? new LRUCache({ maxSize: maxBytes, sizeCalculation: estimatedBytes })
        : undefined;
  }

  /** Changes with every `invalidate`; an answer is kept only for the generation it was asked in. */
  get generation(): number {
    return this.current;
  }

  get(key: string): SearchAnswer | undefined {
    return this.answers?.get(key);
  }

  /** Whether an answer is kept under `key`, without counting as a use of it. */
  has(key: string): boolean {
    return this.answers?.has(key) ?? false;
  }

  /** Whether answers are kept at all (a bound of 0 turns the cache off). */
  get enabled(): boolean {
    return this.answers !== undefined;
  }

  /**
   * Keeps `answer` if the index has not changed since `askedIn` (a
   * `generation`) and it fits in the bound; answers whether it was kept.
   */
  set(key: string, answer: SearchAnswer, askedIn: number): boolean {
    if (askedIn !== this.current || !this.answers) return false;
    this.answers.set(key, answer);
    return this.answers.has(key);
  }

  /** The index changed (or is about to): every answer kept is forgotten. */
  invalidate(): void {
    this.current += 1;
    this.answers?.clear();
  }

  /** Answers held now (the tests read it). */
  get size(): number {
    return this.answers?.size ?? 0;
  }
}

/**
 * A fair estimate of the memory an answer takes, for the cache's bound: its
 * text as strings (up to 2 bytes a character) and again in the body as sent
 * (UTF-8, 1 byte for most).
 */
export function estimatedBytes(answer: SearchAnswer): number {
  let bytes = ANSWER_OVERHEAD_BYTES;
  for (const hit of answer.hits) {
    const { row, library, types } = hit;
    let characters = row.iri.length + row.name.length + (row.description?.length ?? 0);
    characters += row.family.length + row.status.length;
    if (library) characters += library.iri.length + (library.label?.length ?? 0);
    for (const type of types) characters += type.length;
    bytes += HIT_OVERHEAD_BYTES + 3 * characters;
  }
  for (const counts of [...Object.values(answer.facets), answer.languages])
    for (const value of counts.keys()) bytes += FACET_OVERHEAD_BYTES + 2 * value.length;
  return bytes;
}
