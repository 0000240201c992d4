import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { CacheOutcome, RequestCaching } from '../../platform/http/cache-directives.js';
import type { RefdataTables, Status } from '../db/tables.js';
import type { FamilyRegistry } from '../families/registry.js';
import { pruneChanges } from '../replicas/change-log.js';
import { Replica, type ReplicaLog } from '../replicas/replica.js';
import type { ResourceRow } from '../resources/rows.js';
import { AnswerCache } from './answer-cache.js';
import { indexedDocument, selectIndexRows } from './documents.js';
import { IndexThread } from './index-thread.js';
import type { ThreadAnswer } from './index-worker.js';
import { LibraryLabels } from './library-labels.js';
import type { Dimension } from './memory-index.js';
import type { Cursor, SearchRequest } from './search.js';
import { foldedName, queryWords } from './words.js';

/** Resources read per query while building; the event loop is let go between batches. */
const BUILD_BATCH = 2000;
/** Changed resources read back per query. */
const APPLY_BATCH = 500;
/** How often an instance prunes the change log. */
const PRUNE_EVERY_MS = 60_000;

/** What a hit shows of its resource. */
export interface HitRow extends Pick<ResourceRow, 'id' | 'iri' | 'name' | 'family' | 'status'> {
  description: string | undefined;
}

export interface SearchHit {
  row: HitRow;
  /** The library the resource is defined in (a value's: its picklist's). */
  library: { iri: string; label: string | undefined } | undefined;
  /** The standard RDF classes it is an instance of. */
  types: readonly string[];
}

export interface SearchAnswer {
  hits: SearchHit[];
  /** Every match the filters let through; exact. */
  total: number;
  /** For each dimension, the matches under each value, that dimension's own filter left out. */
  facets: Record<Dimension, Map<string, number>>;
  /** How many resources have labels in each language (lower-case tags), for a chooser. */
  languages: Map<string, number>;
  next: Cursor | undefined;
}

export interface SearchSettings {
  pollMilliseconds: number;
  /** The bound of the answers kept for searches asked again (0: none kept). */
  answerCacheBytes: number;
}

/** A search's answer, and whether it came from the answers kept (for `Cache-Status`). */
export interface Searched {
  answer: SearchAnswer;
  cache: CacheOutcome;
}

/**
 * The search index of this instance: built from the database at start (search
 * answers 503 meanwhile), then kept up to date from the change log, on a timer
 * for what other instances write, and before the next search for what this one
 * wrote (read your own writes). The index itself lives in a worker thread
 * (`IndexThread`); this side reads the database and turns rows into documents.
 * A rebuild asked for from the command line, or after the index's thread
 * failed, is built beside the index in use, which answers until the new one is
 * ready.
 */
export class SearchService extends Replica<IndexThread> {
  /** The libraries' labels, from the rows the index was built and kept from. */
  private libraries = new LibraryLabels();
  private state: 'available' | 'rebuilding' | 'down' = 'available';
  private builtFor = 0;
  private lastPrune = 0;
  private readonly answers: AnswerCache;

  constructor(
    db: Kysely<RefdataTables>,
    private readonly families: FamilyRegistry,
    settings: SearchSettings,
    log: ReplicaLog,
  ) {
    super(db, settings.pollMilliseconds, log, 'search index');
    this.answers = new AnswerCache(settings.answerCacheBytes);
  }

  /** Whether search may answer: the index is built, and search is not marked down. */
  get available(): boolean {
    return this.thread !== undefined && this.state === 'available';
  }

  /** Starts the first build and the timer; resolves when built or after `waitMilliseconds`. */
  async start(waitMilliseconds: number): Promise<void> {
    await this.readState();
    await this.startWithin(waitMilliseconds);
  }

  async search(request: SearchRequest): Promise<SearchAnswer> {
    return (await this.searchCaching(request, { fresh: false, store: true })).answer;
  }

  /**
   * A search answered from the answers kept when `caching` allows (the same
   * query, filters and page asked since the index last changed), and kept for
   * the next time if it allows that.
   */
  async searchCaching(request: SearchRequest, caching: RequestCaching): Promise<Searched> {
    await this.caughtUp();
    const index = this.thread;
    if (!index) throw new Error('search asked before the index was built');
    const words = request.q === undefined ? [] : queryWords(request.q);
    if (request.q !== undefined && words.length === 0) {
      const empty = { family: new Map(), library: new Map(), status: new Map() };
      return {
        answer: { hits: [], total: 0, facets: empty, languages: new Map(), next: undefined },
        cache: { hit: false, forward: 'bypass', stored: false },
      };
    }
    const phrase = request.q === undefined ? '' : foldedName(request.q);
    const key = answerKey(request, words, phrase);
    if (!caching.fresh) {
      const kept = this.answers.get(key);
      if (kept) return { answer: kept, cache: { hit: true } };
    }
    // RFC 9211's `fwd=request`: an answer was kept, and the request did not allow it.
    const refused = caching.fresh && this.answers.has(key);
    const askedIn = this.answers.generation;
    const answer = await index.search({
      words,
      phrase,
      filters: {
        ...(request.families.length > 0 ? { family: new Set(request.families) } : {}),
        ...(request.libraries.length > 0 ? { library: new Set(request.libraries) } : {}),
        ...(request.statuses.length > 0 ? { status: new Set<string>(request.statuses) } : {}),
      },
      ...((request.languages ?? []).length > 0
        ? { languages: new Set(request.languages?.map((tag) => tag.toLowerCase())) }
        : {}),
      ...(request.countLanguages ? { countLanguages: true } : {}),
      limit: request.limit,
      after: request.after,
    });
    const result: SearchAnswer = {
      hits: this.pageHits(answer),
      total: answer.total,
      facets: answer.facets,
      languages: answer.languages,
      next: answer.next ? { ...answer.next, generation: answer.generation } : undefined,
    };
    const stored = caching.store && this.answers.set(key, result, askedIn);
    const forward = !this.answers.enabled ? 'bypass' : refused ? 'request' : 'miss';
    return { answer: result, cache: { hit: false, forward, stored } };
  }

  /**
   * The page's hits from what the index holds of each (as a search engine
   * returns its stored fields), with no database read: the index and the
   * libraries' labels follow the same change log.
   */
  private pageHits(answer: ThreadAnswer): SearchHit[] {
    return answer.hits.flatMap((hit, at) => {
      const facts = answer.facts[at];
      if (!facts) return [];
      const { shown } = facts;
      const label = facts.library === undefined ? undefined : this.libraries.labelOf(facts.library);
      return [
        {
          row: {
            id: hit.id,
            iri: shown.iri,
            name: shown.label,
            family: facts.family,
            // The index holds the status it was given, which came from the row.
            status: facts.status as Status,
            description: shown.description,
          },
          // A library that is not (or no longer) stored is not shown.
          library:
            facts.library === undefined || label === undefined
              ? undefined
              : { iri: facts.library, label },
          types: facts.types,
        },
      ];
    });
  }

  protected override async beforeTurn(): Promise<void> {
    await this.readState();
  }

  protected override async afterTurn(now: number): Promise<void> {
    if (now - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await pruneChanges(this.db, now);
    }
  }

  private async readState(): Promise<void> {
    const row = await this.db
      .selectFrom('search_state')
      .select(['state', 'rebuild_requested_at'])
      .where('id', '=', 1)
      .executeTakeFirst();
    this.state = row?.state ?? 'available';
    const requested = Number(row?.rebuild_requested_at ?? 0);
    if (this.builtFor === 0 && !this.thread) this.builtFor = requested;
    else if (requested > this.builtFor && !this.isBuilding) {
      this.builtFor = requested;
      this.rebuild('asked for');
    }
  }

  protected newThread(onFailure: (error: Error) => void): IndexThread {
    return new IndexThread(onFailure);
  }

  protected async fill(index: IndexThread): Promise<() => void> {
    const libraries = new LibraryLabels();
    let after = 0;
    // The thread indexes one batch while the next is read and turned into documents.
    let indexing: Promise<void> = Promise.resolve();
    while (!this.closed) {
      const rows = await selectIndexRows(this.db)
        .where('r.id', '>', after)
        .orderBy('r.id')
        .limit(BUILD_BATCH)
        .execute();
      if (rows.length === 0) break;
      for (const row of rows) libraries.note(row);
      const documents = rows.map((row) => indexedDocument(row, this.families));
      await indexing;
      indexing = index.update(documents, [], false);
      // Its failure is taken up at the next `await indexing`, not as an unhandled rejection.
      indexing.catch(() => undefined);
      after = rows[rows.length - 1]?.id ?? after;
      await nextTurn();
    }
    await indexing;
    await index.update([], [], true);
    return () => {
      this.libraries = libraries;
      this.answers.invalidate();
    };
  }

  protected async apply(index: IndexThread, ids: number[]): Promise<void> {
    for (let start = 0; start < ids.length; start += APPLY_BATCH) {
      const batch = ids.slice(start, start + APPLY_BATCH);
      const rows = await selectIndexRows(this.db).where('r.id', 'in', batch).execute();
      const present = new Set(rows.map((row) => row.id));
      for (const row of rows) this.libraries.note(row);
      for (const id of batch) if (!present.has(id)) this.libraries.forget(id);
      // Before (a search asked meanwhile may see either side of the change, and is
      // not kept) and after (a search answered before the change was kept).
      this.answers.invalidate();
      await index.update(
        rows.map((row) => indexedDocument(row, this.families)),
        batch.filter((id) => !present.has(id)),
        start + APPLY_BATCH >= ids.length,
      );
      this.answers.invalidate();
    }
  }
}

/**
 * What makes two searches the same question: the query's words and phrase as
 * the index sees them, the filters as sets, the page's size and where it starts.
 */
function answerKey(request: SearchRequest, words: readonly string[], phrase: string): string {
  const sorted = (values: readonly string[]) => [...new Set(values)].sort();
  const after = request.after;
  return JSON.stringify([
    words,
    phrase,
    sorted(request.families),
    sorted(request.libraries),
    sorted(request.statuses),
    sorted((request.languages ?? []).map((tag) => tag.toLowerCase())),
    request.countLanguages === true,
    request.limit,
    after ? [after.tier, after.score, after.name, after.id, after.generation] : null,
  ]);
}
