/**
 * The raw engine the search route is compared with: SQLite FTS5 over the same
 * resources' four fields (the table refdata itself used before its in-memory
 * index), asked for the top 20 by bm25 with the same field weights, plus an
 * exact count, on one thread with no HTTP around it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../src/platform/db/connection.js';
import { loadProgramConfig } from '../src/program.js';
import type { RefdataTables } from '../src/refdata/db/tables.js';
import { FamilyRegistry } from '../src/refdata/families/registry.js';
import { searchFields } from '../src/refdata/search/documents.js';
import { queryWords, wordsOf } from '../src/refdata/search/words.js';
import { percentiles } from './refdata-search.js';

export interface FtsAnchor {
  /** p50 and p95 of one query's top 20 and count, in ms; undefined for a query without words. */
  measure(query: string, times: number): { p50: number; p95: number } | undefined;
  close(): void;
}

/** Builds an FTS5 table in a scratch file from the resources in a refdata database. */
export async function buildFtsAnchor(env: Record<string, string>): Promise<FtsAnchor> {
  const directory = mkdtempSync(join(tmpdir(), 'fts-anchor-'));
  const fts = new Database(join(directory, 'anchor.sqlite'));
  fts.pragma('journal_mode = off');
  fts.exec(`create virtual table f using fts5(label, identifier, mappings, description,
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4')`);
  const insert = fts.prepare(
    'insert into f (rowid, label, identifier, mappings, description) values (?, ?, ?, ?, ?)',
  );
  const families = new FamilyRegistry();
  const database = openDatabase<RefdataTables>(loadProgramConfig(env).services.refdata.database);
  try {
    let after = 0;
    for (;;) {
      const rows = await database.db
        .selectFrom('resources')
        .select(['id', 'iri', 'family', 'name', 'body'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(5000)
        .execute();
      if (rows.length === 0) break;
      fts.transaction(() => {
        for (const row of rows) {
          const fields = searchFields(
            row,
            JSON.parse(row.body) as Record<string, unknown>,
            families,
          );
          const plain = (text: string) => wordsOf(text).join(' ');
          insert.run(
            row.id,
            plain(fields.label),
            plain(fields.identifier),
            plain(fields.mappings),
            plain(fields.description),
          );
        }
      })();
      after = rows[rows.length - 1]?.id ?? after;
    }
  } finally {
    await database.close();
  }
  const top = fts.prepare(
    'select rowid, bm25(f, 4.0, 3.0, 2.0, 1.0) as score from f where f match ? order by score limit 20',
  );
  const count = fts.prepare('select count(*) as n from f where f match ?');
  return {
    measure(query, times) {
      const q = new URLSearchParams(query).get('q');
      const words = q === null ? [] : queryWords(q);
      if (words.length === 0) return undefined;
      const expression = words.map((word) => `"${word}"*`).join(' AND ');
      const latencies: number[] = [];
      for (let n = 0; n < times; n += 1) {
        const started = performance.now();
        top.all(expression);
        count.get(expression);
        latencies.push(performance.now() - started);
      }
      return percentiles(latencies);
    },
    close() {
      fts.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
