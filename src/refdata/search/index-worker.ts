/**
 * The worker thread that holds an instance's search index. Matching and
 * ranking a broad query visits thousands of postings; on a thread of its own
 * that work runs beside the requests the main thread parses, authorizes and
 * answers (on a second core where there is one), and a freeze or a large
 * update does not hold the event loop. See docs/search.md.
 */
import { answerCalls } from '../../platform/threads/worker-calls.js';
import {
  type HitFacts,
  type IndexAnswer,
  type IndexedDocument,
  type IndexQuery,
  MemoryIndex,
} from './memory-index.js';

/** An index answer with what each hit shows, in the order of the hits. */
export interface ThreadAnswer extends IndexAnswer {
  facts: (HitFacts | undefined)[];
}

const index = new MemoryIndex();

const api = {
  /**
   * Puts `documents` (each replacing the one with its id), removes `removed`,
   * and then, with `freeze`, freezes the statistics as `freezeStatistics`
   * decides; answers the number of documents held.
   */
  update(documents: IndexedDocument[], removed: number[], freeze: boolean): number {
    for (const document of documents) index.put(document);
    for (const id of removed) index.remove(id);
    if (freeze) index.freezeStatistics();
    return index.size;
  },
  search(query: IndexQuery): ThreadAnswer {
    const answer = index.search(query);
    return { ...answer, facts: answer.hits.map((hit) => index.hitOf(hit.id)) };
  },
};

export type IndexApi = typeof api;

answerCalls(api);
