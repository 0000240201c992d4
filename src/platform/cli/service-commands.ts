import { describeDatabase, serviceSection } from '../config.js';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrations.js';
import { announceServices, closeOnSignals, type StartHooks, startServices } from '../runner.js';
import type { ServiceDefinition } from '../service.js';
import { type Command, UsageError } from './command.js';

/** The services named on the command line, or all of them. */
function chooseServices(
  args: string[],
  definitions: readonly ServiceDefinition[],
): ServiceDefinition[] {
  if (args.length === 0) return [...definitions];
  const chosen: ServiceDefinition[] = [];
  for (const arg of args) {
    const definition = definitions.find((candidate) => candidate.name === arg);
    if (!definition) {
      const names = definitions.map((candidate) => candidate.name).join(', ');
      throw new UsageError(`Unknown service "${arg}"; choose from ${names}.`);
    }
    if (!chosen.includes(definition)) chosen.push(definition);
  }
  return chosen;
}

export function serviceCommands(
  definitions: readonly ServiceDefinition[],
  hooks: StartHooks = {},
): Command[] {
  const serviceList = `[${definitions.map((definition) => definition.name).join('|')} ...]`;
  return [
    {
      name: 'start',
      usage: `start ${serviceList}`,
      summary: 'Migrate and start the services (all by default) until SIGINT or SIGTERM.',
      details:
        'Each service says where it listens, where its API documentation is and which database it uses. Settings come from the environment and a .env file (docs/configuration.md).',
      example: definitions.at(-1)?.name ?? '',
      async run(args, context) {
        const chosen = chooseServices(args, definitions);
        const config = context.config();
        const running = await startServices(chosen, config, hooks);
        // Signals are handled before the services say they are listening: a
        // signal that arrived in between would otherwise kill the process
        // without closing anything.
        closeOnSignals(running, config.shutdownTimeoutMs, context.stderr);
        announceServices(running, context.stdout);
        return 'running';
      },
    },
    {
      name: 'migrate',
      usage: `migrate ${serviceList}`,
      summary: 'Apply pending database migrations and exit.',
      details:
        'start applies them too; this is for deployments that migrate in a step of their own.',
      example: definitions[0]?.name ?? '',
      async run(args, context) {
        const chosen = chooseServices(args, definitions);
        const config = context.config();
        for (const definition of chosen) {
          const database = openDatabase(serviceSection(config, definition.name).database);
          try {
            const applied = await migrateToLatest(database, definition.migrations);
            context.stdout.write(
              applied.length === 0
                ? `${definition.name}: database ${describeDatabase(database.config)} is up to date\n`
                : `${definition.name}: applied ${applied.join(', ')} to ${describeDatabase(database.config)}\n`,
            );
          } finally {
            await database.close();
          }
        }
        return 0;
      },
    },
  ];
}
