import { sql } from 'kysely';
/**
 * Our own engine with nothing around it: the index the server holds
 * (`MemoryIndex`), built in this process from the same resources, asked each
 * query of the mix with its filters, facets and exact total, on one thread
 * with no HTTP, no worker thread and no database. It is what the search route
 * costs beyond the bare route and the page's rows, and it stands next to raw
 * FTS5 as engine against engine.
 */

import { openDatabase } from '../src/platform/db/connection.js';
import { loadProgramConfig } from '../src/program.js';
import type { RefdataTables } from '../src/refdata/db/tables.js';
import { FamilyRegistry } from '../src/refdata/families/registry.js';
import { indexedDocument, selectIndexRows } from '../src/refdata/search/documents.js';
import { type IndexQuery, MemoryIndex } from '../src/refdata/search/memory-index.js';
import { foldedName, queryWords } from '../src/refdata/search/words.js';
import { percentiles } from './refdata-search.js';

export interface IndexAlone {
  /** p50 and p95 of one query, in ms. */
  measure(query: string, times: number): { p50: number; p95: number };
}

export async function buildIndexAlone(env: Record<string, string>): Promise<IndexAlone> {
  const families = new FamilyRegistry();
  const index = new MemoryIndex();
  const database = openDatabase<RefdataTables>(loadProgramConfig(env).services.refdata.database);
  try {
    // A database an older build made (`BENCH_PROGRAM`) has no language column: its
    // rows are read as that build read them, their labels in English.
    const withLanguage = await database.db
      .selectFrom('resources')
      .select('language')
      .limit(1)
      .execute()
      .then(
        () => true,
        () => false,
      );
    let after = 0;
    for (;;) {
      const rows = await (withLanguage
        ? selectIndexRows(database.db)
        : database.db
            .selectFrom('resources as r')
            .leftJoin('resources as parent', 'parent.iri', 'r.parent_iri')
            .select([
              'r.id as id',
              'r.iri as iri',
              'r.family as family',
              'r.name as name',
              'r.status as status',
              'r.body as body',
              sql<string | null>`coalesce(parent.library_key, r.library_key)`.as('library'),
            ])
      )
        .where('r.id', '>', after)
        .orderBy('r.id')
        .limit(5000)
        .execute();
      if (rows.length === 0) break;
      for (const row of rows) index.put(indexedDocument(row, families));
      after = rows[rows.length - 1]?.id ?? after;
    }
  } finally {
    await database.close();
  }
  index.freezeStatistics();
  return {
    measure(query, times) {
      const parameters = new URLSearchParams(query);
      const q = parameters.get('q');
      const set = (name: string) =>
        parameters.has(name) ? new Set(parameters.getAll(name)) : undefined;
      const filters: IndexQuery['filters'] = {};
      const family = set('family');
      const library = set('library');
      const status = set('status');
      if (family) filters.family = family;
      if (library) filters.library = library;
      if (status) filters.status = status;
      const asked: IndexQuery = {
        words: q === null ? [] : queryWords(q),
        phrase: q === null ? '' : foldedName(q),
        filters,
        limit: Number(parameters.get('limit') ?? 20),
        after: undefined,
      };
      // Once unmeasured: the first asking of a word works out its frequency and impacts.
      index.search(asked);
      const latencies: number[] = [];
      for (let n = 0; n < times; n += 1) {
        const started = performance.now();
        index.search(asked);
        latencies.push(performance.now() - started);
      }
      return percentiles(latencies);
    },
  };
}
