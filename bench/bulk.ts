import { type Kysely, sql } from 'kysely';
import { openDatabase } from '../src/platform/db/connection.js';
import { loadProgramConfig } from '../src/program.js';
import type { RefdataTables, Status } from '../src/refdata/db/tables.js';
import { normalizedName } from '../src/refdata/resources/rows.js';
import type { RefdataBenchServer } from './refdata-server.js';

export interface SeedResource {
  iri: string;
  family: string;
  name: string;
  /** The library it belongs to (the duplicate rule's key). */
  libraryKey: string;
  body: Record<string, unknown>;
  status?: Status;
}

const BATCH = 1000;

/**
 * Writes resources in bulk, each as the store would leave it: the row, its
 * create revision, a batch per transaction (the change log's triggers tell the
 * running instances' search indexes). Far
 * faster than the HTTP API for seeding benchmarks with 100,000 resources (and
 * tests that need a library larger than a socket's buffers).
 */
export async function seedResources(
  server: RefdataBenchServer,
  resources: Iterable<SeedResource>,
): Promise<void> {
  const database = openDatabase<RefdataTables>(
    loadProgramConfig(server.env).services.refdata.database,
  );
  try {
    await seedInto(database.db, resources);
    // As a running database's autovacuum would: the planner needs the new rows' statistics.
    if (database.config.kind === 'postgres') await sql`analyze`.execute(database.db);
  } finally {
    await database.close();
  }
}

/** As `seedResources`, into a database already open (a test's service's). */
export async function seedInto(
  db: Kysely<RefdataTables>,
  resources: Iterable<SeedResource>,
): Promise<void> {
  const now = Date.now();
  const write = (batch: SeedResource[]) =>
    db.transaction().execute(async (trx) => {
      const rows = await trx
        .insertInto('resources')
        .values(
          batch.map((resource) => ({
            iri: resource.iri,
            family: resource.family,
            status: resource.status ?? 'Draft',
            name: resource.name,
            name_normalized: normalizedName(resource.name),
            library_key: resource.libraryKey,
            parent_iri: null,
            replaces_iri: null,
            body: JSON.stringify(resource.body),
            version: 1,
            created_by: 'bench',
            created_at: now,
            updated_by: 'bench',
            updated_at: now,
          })),
        )
        .returning(['id', 'iri', 'family', 'name', 'body', 'status'])
        .execute();
      await trx
        .insertInto('revisions')
        .values(
          rows.map((row) => ({
            resource_id: row.id,
            version: 1,
            action: 'create' as const,
            status: row.status,
            actor: 'bench',
            justification: 'Seeded for a benchmark',
            body: row.body,
            created_at: now,
          })),
        )
        .execute();
    });
  let batch: SeedResource[] = [];
  for (const resource of resources) {
    batch.push(resource);
    if (batch.length === BATCH) {
      await write(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await write(batch);
}

/** The tree: class n's superclass is class ⌊(n−1)/10⌋, class 0 the root under an outside IRI. */
export function* classTree(library: string, count: number): Generator<SeedResource> {
  for (let n = 0; n < count; n += 1) {
    const name = `Tree class ${n}`;
    yield {
      iri: `${library}/tree/${n}`,
      family: 'class',
      name,
      libraryKey: library,
      status: 'Approved',
      body: {
        name,
        description: `Class ${n} of the SPARQL benchmark's tree`,
        ontology: library,
        subClassOf: [
          n === 0 ? 'http://example.org/Equipment' : `${library}/tree/${Math.floor((n - 1) / 10)}`,
        ],
      },
    };
  }
}
