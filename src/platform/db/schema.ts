import {
  type ColumnDefinitionBuilder,
  type CreateTableBuilder,
  type Kysely,
  PostgresAdapter,
} from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the schema as it was then.
export type MigrationDb = Kysely<any>;

/** True when a migration runs against PostgreSQL rather than SQLite. */
export function isPostgres(db: MigrationDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * An `id` primary key the database assigns, never reused after a delete (so a
 * stale reference can never point at a newer row): an identity column on
 * PostgreSQL, AUTOINCREMENT on SQLite.
 */
export function withIdColumn<Name extends string>(
  db: MigrationDb,
  table: CreateTableBuilder<Name, never>,
): CreateTableBuilder<Name, 'id'> {
  return table.addColumn('id', 'integer', (column: ColumnDefinitionBuilder) =>
    isPostgres(db)
      ? column.primaryKey().generatedByDefaultAsIdentity()
      : column.primaryKey().autoIncrement(),
  );
}

/** Milliseconds since the epoch; `bigint` so it fits on PostgreSQL (read back as a number). */
export const TIMESTAMP = 'bigint';
