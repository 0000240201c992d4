import type { Kysely } from 'kysely';
import { type Command, type CommandContext, UsageError } from '../../platform/cli/command.js';
import { serviceSection } from '../../platform/config.js';
import { openDatabase } from '../../platform/db/connection.js';
import { migrateToLatest } from '../../platform/db/migrations.js';
import { refdataMigrations } from '../db/migrations.js';
import type { RefdataTables, SearchStateTable } from '../db/tables.js';

async function withDatabase(
  context: CommandContext,
  action: (db: Kysely<RefdataTables>) => Promise<number>,
) {
  const database = openDatabase<RefdataTables>(
    serviceSection(context.config(), 'refdata').database,
  );
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

/**
 * Asks every running instance to build its index anew from the stored
 * resources; each answers from the index it has until the new one is built.
 */
export async function requestSearchRebuild(db: Kysely<RefdataTables>): Promise<void> {
  const now = Date.now();
  await db
    .updateTable('search_state')
    .set({ rebuild_requested_at: now, changed_at: now })
    .where('id', '=', 1)
    .execute();
}

function noArguments(args: string[]) {
  if (args.length > 0) throw new UsageError('This command takes no arguments.');
}

/** refdata's admin verbs for the search index. */
export const searchCommands: readonly Command[] = [
  {
    name: 'refdata-search-rebuild',
    usage: 'refdata-search-rebuild',
    summary: 'Have every running instance rebuild its search index.',
    details:
      'Each instance rebuilds from the stored resources within a second and answers from its current index meanwhile.',
    example: '',
    run: (args, context) => {
      noArguments(args);
      return withDatabase(context, async (db) => {
        await requestSearchRebuild(db);
        context.stdout.write(
          'Asked every running instance to rebuild its search index; each does so within a second.\n',
        );
        return 0;
      });
    },
  },
  {
    name: 'refdata-search-down',
    usage: 'refdata-search-down',
    summary: 'Mark search down: every instance answers it with 503.',
    details: 'Searches answer 503 with Retry-After until refdata-search-up.',
    example: '',
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
    summary: 'Mark search available again.',
    example: '',
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
