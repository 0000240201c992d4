import type { Kysely } from 'kysely';
import { type Command, type CommandContext, UsageError } from '../../platform/cli/command.js';
import { openDatabase } from '../../platform/db/connection.js';
import { migrateToLatest } from '../../platform/db/migrations.js';
import { refdataMigrations } from '../db/migrations.js';
import type { RefdataTables, SearchStateTable } from '../db/tables.js';
import type { FamilyRegistry } from '../families/registry.js';
import { searchDocument } from './documents.js';

const BATCH = 1000;

async function withDatabase(
  context: CommandContext,
  action: (db: Kysely<RefdataTables>) => Promise<number>,
) {
  const database = openDatabase<RefdataTables>(context.config().services.refdata.database);
  try {
    await migrateToLatest(database, refdataMigrations);
    return await action(database.db);
  } finally {
    await database.close();
  }
}

async function setState(db: Kysely<RefdataTables>, state: SearchStateTable['state']) {
  await db
    .updateTable('search_state')
    .set({ state, changed_at: Date.now() })
    .where('id', '=', 1)
    .execute();
}

/** Rebuilds the index from the stored resources; search answers 503 meanwhile. */
export async function rebuildSearchIndex(
  db: Kysely<RefdataTables>,
  families: FamilyRegistry,
): Promise<number> {
  await setState(db, 'rebuilding');
  await db.deleteFrom('search_documents').execute();
  let after = 0;
  let indexed = 0;
  for (;;) {
    const rows = await db
      .selectFrom('resources')
      .select(['id', 'iri', 'family', 'name', 'body'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) break;
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('search_documents')
        .values(rows.map((row) => searchDocument(row, families)))
        .execute();
    });
    indexed += rows.length;
    after = rows[rows.length - 1]?.id ?? after;
  }
  await setState(db, 'available');
  return indexed;
}

function noArguments(args: string[]) {
  if (args.length > 0) throw new UsageError('This command takes no arguments.');
}

/** refdata's admin verbs for the search index. */
export const searchCommands = (families: FamilyRegistry): readonly Command[] => [
  {
    name: 'refdata-search-rebuild',
    usage: 'refdata-search-rebuild',
    summary: 'Rebuild the search index from the stored resources (search answers 503 meanwhile).',
    run: (args, context) => {
      noArguments(args);
      return withDatabase(context, async (db) => {
        const indexed = await rebuildSearchIndex(db, families);
        context.stdout.write(`Indexed ${indexed} resources; search is available.\n`);
        return 0;
      });
    },
  },
  {
    name: 'refdata-search-down',
    usage: 'refdata-search-down',
    summary: 'Mark the search index down: search answers 503 with Retry-After on every instance.',
    run: (args, context) => {
      noArguments(args);
      return withDatabase(context, async (db) => {
        await setState(db, 'down');
        context.stdout.write('Search is down.\n');
        return 0;
      });
    },
  },
  {
    name: 'refdata-search-up',
    usage: 'refdata-search-up',
    summary: 'Mark the search index available again.',
    run: (args, context) => {
      noArguments(args);
      return withDatabase(context, async (db) => {
        await setState(db, 'available');
        context.stdout.write('Search is available.\n');
        return 0;
      });
    },
  },
];
