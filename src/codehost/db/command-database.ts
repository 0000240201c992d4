import type { Kysely } from 'kysely';
import type { CommandContext } from '../../platform/cli/command.js';
import { serviceSection } from '../../platform/config.js';
import { openDatabase } from '../../platform/db/connection.js';
import { migrateToLatest } from '../../platform/db/migrations.js';
import { codehostMigrations } from './migrations.js';
import type { CodehostTables } from './tables.js';

/**
 * Runs an admin command's action on codehost's database (migrated first), then
 * closes it. An error that `explain` recognises is printed as one line with exit
 * status 1; anything else propagates.
 */
export async function withCodehostDatabase(
  context: CommandContext,
  explain: (error: unknown) => string | undefined,
  action: (db: Kysely<CodehostTables>) => Promise<number>,
): Promise<number> {
  const database = openDatabase<CodehostTables>(
    serviceSection(context.config(), 'codehost').database,
  );
  try {
    await migrateToLatest(database, codehostMigrations);
    return await action(database.db);
  } catch (error) {
    const message = explain(error);
    if (message === undefined) throw error;
    context.stderr.write(`${message}\n`);
    return 1;
  } finally {
    await database.close();
  }
}
