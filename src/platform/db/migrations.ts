import { type Kysely, type Migration, type MigrationResultSet, Migrator, sql } from 'kysely';
import type { DatabaseHandle } from './connection.js';

/** A service's migrations by name; names sort in the order they apply. */
export type MigrationSet = Readonly<Record<string, Migration>>;

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

/**
 * Applies every pending migration and returns the names applied. Safe when
 * several instances start at once on one database:
 * - PostgreSQL: Kysely's migrator holds an advisory lock and runs each migration
 *   in a transaction, and tolerates the bookkeeping tables appearing concurrently.
 * - SQLite: Kysely assumes a single process there, so the whole run happens in one
 *   BEGIN IMMEDIATE transaction: a second process waits for the write lock (busy
 *   timeout), then finds nothing left to do; a failure rolls the run back whole.
 *   Foreign keys are not enforced meanwhile, as SQLite's procedure for changing a
 *   table's constraints asks (a rebuilt table is dropped, and dropping enforced
 *   parents would cascade); they are checked whole before the commit instead.
 */
export async function migrateToLatest<Tables>(
  handle: DatabaseHandle<Tables>,
  migrations: MigrationSet,
): Promise<string[]> {
  const config = handle.config;
  // Migrations work on the schema as it was then, not on today's table types.
  const database = handle.db as unknown as Kysely<unknown>;
  const run = (db: Kysely<unknown>) =>
    new Migrator({
      db,
      provider: { getMigrations: async () => ({ ...migrations }) },
      ...(config.kind === 'postgres' ? { migrationTableSchema: config.schema } : {}),
    }).migrateToLatest();

  const outcome =
    config.kind === 'postgres'
      ? await run(database)
      : await database.connection().execute(async (connection) => {
          await sql`pragma foreign_keys = off`.execute(connection);
          try {
            await sql`begin immediate`.execute(connection);
            const result = await run(connection)
              .then(async (ran) => ({ ...ran, ...(await danglingReferences(connection)) }))
              .catch((error: unknown) => ({ error }));
            await sql.raw(result.error ? 'rollback' : 'commit').execute(connection);
            return result;
          } finally {
            await sql`pragma foreign_keys = on`.execute(connection);
          }
        });
  return appliedOrThrow(outcome);
}

/** A migration that left a row naming a parent that is not there fails the run. */
async function danglingReferences(connection: Kysely<unknown>): Promise<{ error?: Error }> {
  const { rows } = await sql<{ table: string; parent: string }>`pragma foreign_key_check`.execute(
    connection,
  );
  const [first] = rows;
  return first
    ? {
        error: new MigrationError(
          `${rows.length} row(s) of ${first.table} name a missing row of ${first.parent}`,
        ),
      }
    : {};
}

function appliedOrThrow(outcome: MigrationResultSet): string[] {
  const results = outcome.results ?? [];
  if (outcome.error) {
    const failed = results.find((result) => result.status === 'Error');
    const reason = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
    throw new MigrationError(
      failed
        ? `Migration ${failed.migrationName} failed: ${reason}`
        : `Migrations failed: ${reason}`,
      { cause: outcome.error },
    );
  }
  return results.filter((result) => result.status === 'Success').map((r) => r.migrationName);
}
