import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { type Command, type CommandContext, UsageError } from '../../platform/cli/command.js';
import { serviceSection, serviceSettings } from '../../platform/config.js';
import { openDatabase } from '../../platform/db/connection.js';
import { migrateToLatest } from '../../platform/db/migrations.js';
import { loadOrCreateSigningKey } from '../auth/signing-key.js';
import { Catalogues } from '../catalogues/catalogues.js';
import type { RefdataSettings } from '../config.js';
import { createRefdata } from '../context.js';
import { refdataMigrations } from '../db/migrations.js';
import type { RefdataTables } from '../db/tables.js';
import { isLibrary } from '../families/family.js';
import { FamilyRegistry } from '../families/registry.js';
import { WebhookSecrets } from '../webhooks/secrets.js';
import { ENCODINGS, type Encoding } from './csv-table.js';
import type { ImportJobRow } from './jobs.js';
import { progressOf, summaryLine } from './status.js';

interface Options {
  library: string;
  dryRun: boolean;
  mode: 'all-or-nothing' | 'valid-only';
  encoding: Encoding | undefined;
  actor: string;
  files: string[];
}

function optionsOf(args: readonly string[]): Options {
  const options: Partial<Options> & { files: string[] } = {
    dryRun: false,
    mode: 'all-or-nothing',
    actor: 'refdata-import',
    files: [],
  };
  for (const arg of args) {
    const [flag, value] = arg.startsWith('--')
      ? [arg.split('=')[0], arg.slice(arg.indexOf('=') + 1)]
      : [];
    if (flag === undefined) options.files.push(arg);
    else if (flag === '--library' && arg.includes('=')) options.library = value;
    else if (flag === '--dry-run' && !arg.includes('=')) options.dryRun = true;
    else if (flag === '--valid-only' && !arg.includes('=')) options.mode = 'valid-only';
    else if (flag === '--as' && arg.includes('=') && value) options.actor = value;
    else if (flag === '--encoding' && ENCODINGS.includes(value as Encoding))
      options.encoding = value as Encoding;
    else throw new UsageError(`Unknown or incomplete option ${arg}.`);
  }
  if (!options.library) throw new UsageError('Name the library: --library=<IRI>.');
  if (options.files.length === 0) throw new UsageError('Name one or more files to import.');
  return options as Options;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One line of progress, as a person watching a terminal wants it. */
function progressLine(job: ImportJobRow): string {
  const progress = progressOf(job);
  const rate =
    progress.rowsPerSecond === null
      ? ''
      : `, ${progress.rowsPerSecond}/s, ${progress.secondsLeft} s left`;
  return `${progress.phase}: ${progress.done} of ${progress.total} (${progress.percent} %${rate})\n`;
}

async function runImport(options: Options, context: CommandContext): Promise<number> {
  const config = context.config();
  const section = serviceSection(config, 'refdata');
  const configured = serviceSettings<RefdataSettings>(config, 'refdata');
  // The command works on its job itself, whatever the instances are set to.
  const settings = { ...configured, imports: { ...configured.imports, worker: true } };
  const files = await Promise.all(
    options.files.map(async (path) => ({ name: basename(path), bytes: await readFile(path) })),
  );
  const database = openDatabase<RefdataTables>(section.database);
  const silent = {
    info() {},
    warn() {},
    error: (object: object, message: string) =>
      context.stderr.write(`${message}: ${String((object as { err?: unknown }).err)}\n`),
  };
  const refdata = createRefdata(
    database.db,
    section,
    settings,
    // The context checks tokens as the service does, though this command takes none.
    settings.tokens.jwksUrl
      ? undefined
      : await loadOrCreateSigningKey(settings.tokens.signingKeyFile),
    await Catalogues.load(settings.cataloguesDir),
    new FamilyRegistry(),
    silent,
    await WebhookSecrets.load(settings.webhooks.keyFile),
    config,
  );
  try {
    await migrateToLatest(database, refdataMigrations);
    const library = await refdata.store.findByIri(options.library);
    if (!library || !isLibrary(library)) {
      context.stderr.write(`No library has the IRI ${options.library}.\n`);
      return 1;
    }
    const job = await refdata.imports.create({ ...options, owner: options.actor, files });
    context.stdout.write(
      `Import ${job.id} of ${files.length} file(s) into ${library.name}${options.dryRun ? ' (dry run)' : ''}\n`,
    );
    // This process works on it too; a running instance may claim it first.
    refdata.imports.start();
    let last = '';
    for (;;) {
      const now = await refdata.imports.find(options.actor, job.id);
      if (!now) return 1;
      if (now.state === 'done' || now.state === 'failed') {
        if (now.error) context.stderr.write(`${now.error}\n`);
        if (now.counts)
          context.stdout.write(`${summaryLine(JSON.parse(now.counts), now.written === 1)}\n`);
        const refused = now.counts ? (JSON.parse(now.counts) as { refused: number }).refused : 0;
        return now.state === 'failed' ? 1 : refused > 0 ? 2 : 0;
      }
      const line = progressLine(now);
      if (line !== last && now.state !== 'queued') context.stdout.write(line);
      last = line;
      await pause(500);
    }
  } finally {
    await refdata.imports.close();
    await database.close();
  }
}

/** refdata's admin verb for bulk imports (docs/import.md). */
export const importCommands: readonly Command[] = [
  {
    name: 'refdata-import',
    usage: [
      'refdata-import --library=<IRI> [--dry-run] [--valid-only] FILE...',
      'refdata-import --library=<IRI> [--encoding=<name>] [--as=<who>] FILE...',
    ],
    summary: 'Import CSV, .xlsx or ZIP files of the CFIHOS tables into a library.',
    details: `Runs an import job as POST /imports would, prints its progress, and ends with one line: created N, updated N, unchanged N, refused N. --dry-run writes nothing; --valid-only writes what passes (else one refused line and nothing is written); --encoding is one of ${ENCODINGS.join(', ')} (detected when left out); --as names who the revisions record (refdata-import by default). Exit status: 0 when nothing was refused, 2 when lines were refused, 1 when the import failed.`,
    example: '--library=<IRI> --dry-run classes.csv',
    run: (args, context) => runImport(optionsOf(args), context),
  },
];
