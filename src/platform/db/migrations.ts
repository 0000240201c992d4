import { type Migration, type MigrationResult, Migrator } from 'kysely';
import type { DatabaseHandle } from './connection.js';

/** A service's migrations by name; names sort in the order they apply. */
export type MigrationSet = Readonly<Record<string, Migration>>;

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

/**
 * Applies every pending migration. Safe when several instances start at once on
 * one PostgreSQL database: Kysely's migrator serialises runs with an advisory lock
 * and tolerates the schema and bookkeeping tables appearing concurrently.
 */
export async function migrateToLatest(
  handle: DatabaseHandle<unknown>,
  migrations: MigrationSet,
): Promise<string[]> {
  const migrator = new Migrator({
    db: handle.db,
    provider: { getMigrations: async () => ({ ...migrations }) },
    ...(handle.config.kind === 'postgres' ? { migrationTableSchema: handle.config.schema } : {}),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) {
    const failed = results.find((result: MigrationResult) => result.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError(
      failed
        ? `Migration ${failed.migrationName} failed: ${reason}`
        : `Migrations failed: ${reason}`,
      { cause: error },
    );
  }
  return results.filter((result) => result.status === 'Success').map((r) => r.migrationName);
}
