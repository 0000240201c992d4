import type { Command } from '../../platform/cli/command.js';
import { UsageError } from '../../platform/cli/command.js';
import { serviceSection, serviceSettings } from '../../platform/config.js';
import { openDatabase } from '../../platform/db/connection.js';
import { migrateToLatest } from '../../platform/db/migrations.js';
import type { RefdataSettings } from '../config.js';
import { refdataMigrations } from '../db/migrations.js';
import type { RefdataTables } from '../db/tables.js';
import { FamilyRegistry } from '../families/registry.js';
import { ResourceStore } from '../resources/store.js';
import { ExternalStore } from './external/store-client.js';
import { StoreSync } from './external/store-sync.js';

/** How long the command waits for an instance writing to the store to let go of it. */
const LEASE_WAIT_MILLISECONDS = 60_000;

/** refdata's admin verbs for the SPARQL dataset. */
export const sparqlCommands: readonly Command[] = [
  {
    name: 'refdata-sparql-store-resync',
    usage: 'refdata-sparql-store-resync',
    summary: 'Rewrite the published view in the external SPARQL store from scratch.',
    details:
      'Takes over from the instance keeping the store (waiting up to a minute for it to let go), rewrites every library graph from the database, then hands back: the instances go on from the change log. Needs REFDATA_SPARQL_STORE_* (docs/sparql.md).',
    example: '',
    run: async (args, context) => {
      if (args.length > 0) throw new UsageError('This command takes no arguments.');
      const config = context.config();
      const settings = serviceSettings<RefdataSettings>(config, 'refdata');
      if (!settings.sparql.store) {
        context.stderr.write(
          'No external SPARQL store is configured: set REFDATA_SPARQL_STORE_QUERY_URL and the rest (docs/sparql.md).\n',
        );
        return 1;
      }
      const database = openDatabase<RefdataTables>(serviceSection(config, 'refdata').database);
      try {
        await migrateToLatest(database, refdataMigrations);
        const families = new FamilyRegistry();
        const store = new ResourceStore(
          database.db,
          (family) => families.byKey(family)?.aggregate?.field,
        );
        const log = {
          info: (_object: object, message: string) => context.stdout.write(`${message}\n`),
          error: (object: object, message: string) =>
            context.stderr.write(`${message}: ${String((object as { err?: unknown }).err)}\n`),
        };
        const sync = new StoreSync(
          database.db,
          store,
          { families, iriBase: settings.iriBase },
          new ExternalStore(settings.sparql.store),
          settings.sparql.pollMilliseconds,
          log,
        );
        if (!(await sync.resyncHolding(LEASE_WAIT_MILLISECONDS))) {
          context.stderr.write(
            'Another instance kept writing to the store for a minute; try again.\n',
          );
          return 1;
        }
        return 0;
      } finally {
        await database.close();
      }
    },
  },
];
