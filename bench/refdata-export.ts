/**
 * The level-3 export of a large library: seed N classes into one library in bulk
 * (straight into the server's database, as a migration would), then read the
 * library at detailLevel=3 and measure the time to the last byte and the server
 * process's peak memory.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { loadConfig } from '../src/platform/config.js';
import { openDatabase } from '../src/platform/db/connection.js';
import type { RefdataTables } from '../src/refdata/db/tables.js';
import { peakMemoryMib } from './processes.js';
import type { RefdataBenchServer } from './refdata-server.js';

const BATCH = 1000;

async function seed(db: Kysely<RefdataTables>, libraryIri: string, terms: number): Promise<void> {
  const now = Date.now();
  for (let offset = 0; offset < terms; offset += BATCH) {
    const count = Math.min(BATCH, terms - offset);
    const rows = Array.from({ length: count }, (_, index) => {
      const n = offset + index;
      const body = {
        name: `Exported class ${n}`,
        description: `Class number ${n} of the export benchmark`,
        ontology: libraryIri,
        subClassOf: ['http://example.org/Equipment'],
      };
      return {
        iri: `${libraryIri}/${randomUUID()}`,
        family: 'class',
        status: 'Draft' as const,
        name: body.name,
        name_normalized: body.name.toLowerCase(),
        library_key: libraryIri,
        parent_iri: null,
        replaces_iri: null,
        body: JSON.stringify(body),
        version: 1,
        created_by: 'bench',
        created_at: now,
        updated_by: 'bench',
        updated_at: now,
      };
    });
    await db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('resources')
        .values(rows)
        .returning(['id', 'body'])
        .execute();
      await trx
        .insertInto('revisions')
        .values(
          inserted.map((row) => ({
            resource_id: row.id,
            version: 1,
            action: 'create' as const,
            status: 'Draft' as const,
            actor: 'bench',
            justification: 'Seeded for the export benchmark',
            body: row.body,
            created_at: now,
          })),
        )
        .execute();
    });
  }
}

export interface ExportFigures {
  terms: number;
  format: string;
  seconds: number;
  megabytes: number;
  peakMemoryMib: number | undefined;
  memoryBeforeMib: number | undefined;
}

export async function measureExport(
  server: RefdataBenchServer,
  terms: number,
  formats: readonly string[],
): Promise<ExportFigures[]> {
  const database = openDatabase<RefdataTables>(loadConfig(server.env).services.refdata.database);
  try {
    await seed(database.db, server.refs.library, terms);
  } finally {
    await database.close();
  }
  const figures: ExportFigures[] = [];
  for (const format of formats) {
    const memoryBeforeMib = await peakMemoryMib(server.pid);
    const started = performance.now();
    const response = await fetch(
      `${server.url}${new URL(server.refs.library).pathname}?detailLevel=3`,
      {
        headers: { authorization: `Bearer ${server.token}`, accept: format },
      },
    );
    if (response.status !== 200 || !response.body)
      throw new Error(`export answered ${response.status}`);
    let bytes = 0;
    for await (const chunk of response.body) bytes += (chunk as Uint8Array).byteLength;
    figures.push({
      terms,
      format,
      seconds: (performance.now() - started) / 1000,
      megabytes: bytes / 1024 / 1024,
      peakMemoryMib: await peakMemoryMib(server.pid),
      memoryBeforeMib,
    });
  }
  return figures;
}
