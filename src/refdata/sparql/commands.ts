import { type Command, UsageError } from '../../platform/cli/command.js';
import { serviceSection } from '../../platform/config.js';
import { openDatabase } from '../../platform/db/connection.js';
import { migrateToLatest } from '../../platform/db/migrations.js';
import { refdataMigrations } from '../db/migrations.js';
import type { RefdataTables } from '../db/tables.js';
import { requestResync } from './external/store-sync.js';

/** refdata's admin verbs for the SPARQL dataset. */
export const sparqlCommands: readonly Command[] = [
  {
    name: 'refdata-sparql-store-resync',
    usage: 'refdata-sparql-store-resync',
    summary: 'Have the external SPARQL store rewritten from scratch.',
    details:
      'The instance keeping the store (REFDATA_SPARQL_STORE_*, docs/sparql.md) rewrites every library graph from the database within its poll interval, then goes on from the change log; with none running, the next one to start does.',
    example: '',
    run: async (args, context) => {
      if (args.length > 0) throw new UsageError('This command takes no arguments.');
      const database = openDatabase<RefdataTables>(
        serviceSection(context.config(), 'refdata').database,
      );
      try {
        await migrateToLatest(database, refdataMigrations);
        await requestResync(database.db);
        context.stdout.write(
          'Asked the instance keeping the SPARQL store to rewrite it from scratch; it does so within its poll interval.\n',
        );
        return 0;
      } finally {
        await database.close();
      }
    },
  },
];
