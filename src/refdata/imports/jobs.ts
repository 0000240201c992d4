import { type Selectable, sql } from 'kysely';
import { claimUnderLease, type QueueTable } from '../../platform/background/lease-claim.js';
import { WorkLoop } from '../../platform/background/work-loop.js';
import { ConstraintViolationError } from '../../platform/db/errors.js';
import { betweenBatches } from '../../platform/streams/between-batches.js';
import type { ImportJobsTable } from '../db/tables.js';
import { DEFAULT_LANGUAGE } from '../families/common.js';
import type { ResourceContext } from '../resources/resource-context.js';
import { normalizedName } from '../resources/rows.js';
import { cfihosItems } from './cfihos-mapping.js';
import type { Encoding } from './csv-table.js';
import { type Counts, countsOf, type ImportPlan, planImport, type ReportEntry } from './plan.js';
import { rdfItems } from './rdf-source.js';
import type { ImportSettings } from './settings.js';
import { type NewImport, type ReadTables, readTables } from './upload-rules.js';

export type ImportJobRow = Selectable<ImportJobsTable>;

/** Another import of the library has not ended yet. */
export class ImportRunning extends Error {
  override readonly name = 'ImportRunning';
}

/** A check's files were let go (a day after it ended): it cannot be run for real. */
export class FilesGone extends Error {
  override readonly name = 'FilesGone';
}

/** This worker's claim on a job lapsed and another took it up: it stops at once. */
class LeaseLost extends Error {
  override readonly name = 'LeaseLost';
}

/**
 * The jobs as the kernel's claim sees them: unfinished ones, oldest first.
 * A job renews its lease as it goes (`progress`), known by its attempt number.
 */
const IMPORT_JOBS: QueueTable = {
  table: 'import_jobs',
  due: 'created_at',
  lease: 'lease_until',
  attempts: 'attempts',
  pending: (alias) =>
    sql<boolean>`${sql.ref(`${alias}.state`)} in ('queued', 'checking', 'writing')`,
};

/** A job taken up this many times without ending has ended: it is failed, saying so. */
const MAX_ATTEMPTS = 3;
/**
 * Writes of a valid-only import commit this many resources at a time: on
 * SQLite a batch holds the one connection while it writes, so larger ones
 * (1,000 was tried) leave pages waiting that long.
 */
const BATCH = 200;
/** Progress is recorded (and the lease renewed) after this many resources are checked. */
const CHECK_STEP = 250;
/** Uploads whose tables this instance keeps for its worker, at most. */
const PRE_READ_KEPT = 4;
/** How long a check's files are kept for running it for real. */
const FILES_KEPT_MS = 24 * 60 * 60 * 1000;
/** Refused lines kept apart for a status to list; the report has them all. */
const REFUSED_KEPT = 200;

/**
 * Import jobs (docs/import.md): made by a request, worked on by whichever
 * instance claims one first, under a lease it renews as it goes, so that a job
 * whose instance stopped is taken up again (at most `MAX_ATTEMPTS` times) and
 * two instances never work on one. A valid-only import's writes commit in
 * batches together with the count of them, and only while the lease is held.
 */
export class ImportJobs {
  private readonly loop: WorkLoop;
  private readonly preRead = new Map<number, ReadTables>();
  private closed = false;

  constructor(
    private readonly refdata: ResourceContext,
    readonly settings: ImportSettings,
    private readonly log: {
      info(object: object, message: string): void;
      error(object: unknown, message: string): void;
    },
    private readonly now: () => number = Date.now,
  ) {
    this.loop = new WorkLoop({
      pollMilliseconds: settings.pollMilliseconds,
      turn: () => this.work(),
      failed: (error) => this.log.error({ err: error }, 'import worker failed'),
    });
  }

  /**
   * Makes a job; `read`, the files as the upload's checks read them, spares
   * this instance's worker reading them again (another instance reads them
   * from the database).
   */
  async create(input: NewImport, read?: ReadTables): Promise<ImportJobRow> {
    const db = this.refdata.db;
    try {
      return await db
        .transaction()
        .execute(async (trx) => {
          const job = await trx
            .insertInto('import_jobs')
            .values({
              library_iri: input.library,
              owner: input.owner,
              dry_run: input.dryRun ? 1 : 0,
              mode: input.mode,
              encoding: input.encoding ?? null,
              state: 'queued',
              created_at: this.now(),
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          for (const file of input.files) {
            await trx
              .insertInto('import_files')
              .values({ job_id: job.id, name: file.name, bytes: file.bytes })
              .execute();
          }
          return job;
        })
        .then((job) => {
          // Only a worker takes its own jobs up first; a few are kept, the oldest let go.
          if (read && this.settings.worker) {
            this.preRead.set(job.id, read);
            for (const id of this.preRead.keys()) {
              if (this.preRead.size <= PRE_READ_KEPT) break;
              this.preRead.delete(id);
            }
          }
          return job;
        });
    } catch (error) {
      if (error instanceof ConstraintViolationError && error.kind === 'unique')
        throw new ImportRunning(
          `An import into ${input.library} is under way; wait for it to end.`,
        );
      throw error;
    }
  }

  /** The same files imported again, as a new job: a dry run's real run. */
  async rerun(job: ImportJobRow, dryRun: boolean): Promise<ImportJobRow> {
    const files = await this.refdata.db
      .selectFrom('import_files')
      .select(['name', 'bytes'])
      .where('job_id', '=', job.id)
      .orderBy('id')
      .execute();
    if (files.length === 0)
      throw new FilesGone(
        `The files of import ${job.id} are kept a day after it ended, and are gone; upload them again.`,
      );
    return this.create({
      library: job.library_iri,
      owner: job.owner,
      dryRun,
      mode: job.mode,
      encoding: (job.encoding ?? undefined) as Encoding | undefined,
      files: files.map((file) => ({ name: file.name, bytes: Buffer.from(file.bytes) })),
    });
  }

  /** A job of its owner's, without its report (megabytes, which a status does not need). */
  async find(owner: string, id: number): Promise<ImportJobRow | undefined> {
    return this.withoutReport().where('id', '=', id).where('owner', '=', owner).executeTakeFirst();
  }

  /** The whole report of a job of its owner's, as stored (JSON). */
  async report(owner: string, id: number): Promise<string | null | undefined> {
    const row = await this.refdata.db
      .selectFrom('import_jobs')
      .select('report')
      .where('id', '=', id)
      .where('owner', '=', owner)
      .executeTakeFirst();
    return row?.report;
  }

  private withoutReport() {
    return this.refdata.db
      .selectFrom('import_jobs')
      .select([
        'id',
        'library_iri',
        'owner',
        'dry_run',
        'mode',
        'encoding',
        'state',
        'total',
        'done',
        'phase_started_at',
        'lease_until',
        'attempts',
        'files',
        'counts',
        'refused_lines',
        'written',
        'error',
        'created_at',
        'finished_at',
      ])
      .select(sql<null>`null`.as('report'));
  }

  async list(owner: string, limit = 50): Promise<ImportJobRow[]> {
    return this.withoutReport()
      .where('owner', '=', owner)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  start(): void {
    if (!this.settings.worker) return;
    this.loop.start();
  }

  /** Looks for work now (a job was just made here). */
  nudge(): void {
    if (!this.settings.worker) return;
    this.loop.wake();
  }

  /** Ends the worker; a job under way is left to its lease, and taken up again later. */
  async close(): Promise<void> {
    this.closed = true;
    await this.loop.close();
  }

  /** Works on claimable jobs one after another until none is left. */
  private async work(): Promise<void> {
    await this.dropOldFiles();
    for (;;) {
      if (this.closed) return;
      const job = await this.claim();
      if (!job) return;
      try {
        await this.run(job);
      } catch (error) {
        if (error instanceof LeaseLost || this.closed) return;
        this.log.error({ err: error, importJob: job.id }, 'import job failed');
        await this.finish(job, {
          state: 'failed',
          error:
            'The import stopped on an unexpected error; nothing more was written. Run it again.',
        });
      }
    }
  }

  /** The oldest job nobody holds, now held by this instance (its `attempts` is the claim's mark). */
  private async claim(): Promise<ImportJobRow | undefined> {
    const [job] = await claimUnderLease<ImportJobRow>(this.refdata.db, IMPORT_JOBS, {
      limit: 1,
      leaseMs: this.settings.leaseMilliseconds,
      now: this.now(),
    });
    return job;
  }

  /** Records progress while the claim holds, renewing it; a lapsed claim stops the work. */
  private async progress(
    job: ImportJobRow,
    fields: Partial<
      Pick<
        ImportJobRow,
        'state' | 'total' | 'done' | 'phase_started_at' | 'report' | 'refused_lines' | 'files'
      >
    >,
  ): Promise<void> {
    const updated = await this.refdata.db
      .updateTable('import_jobs')
      .set({ ...fields, lease_until: this.now() + this.settings.leaseMilliseconds })
      .where('id', '=', job.id)
      .where('attempts', '=', job.attempts)
      .executeTakeFirst();
    if (updated.numUpdatedRows !== 1n) throw new LeaseLost();
  }

  /**
   * Ends a job. The files of a real run are not needed any more and are let
   * go; a check's stay for "Import these files" (those of checks ended a day
   * ago are let go as the worker goes on).
   */
  private async finish(
    job: ImportJobRow,
    fields: Partial<
      Pick<
        ImportJobRow,
        'state' | 'counts' | 'report' | 'refused_lines' | 'error' | 'written' | 'done'
      >
    >,
  ): Promise<void> {
    await this.refdata.db
      .updateTable('import_jobs')
      .set({ state: 'done', ...fields, finished_at: this.now(), lease_until: 0 })
      .where('id', '=', job.id)
      .where('attempts', '=', job.attempts)
      .execute();
    if (job.dry_run === 0) await this.dropFiles([job.id]);
  }

  private async dropFiles(jobs: readonly number[]): Promise<void> {
    if (jobs.length > 0)
      await this.refdata.db.deleteFrom('import_files').where('job_id', 'in', jobs).execute();
  }

  /** The files of checks that ended more than `FILES_KEPT_MS` ago. */
  private async dropOldFiles(): Promise<void> {
    const old = await this.refdata.db
      .selectFrom('import_jobs')
      .select('id')
      .where('state', 'in', ['done', 'failed'])
      .where('finished_at', '<', this.now() - FILES_KEPT_MS)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('import_files')
            .select('id')
            .whereRef('import_files.job_id', '=', 'import_jobs.id'),
        ),
      )
      .limit(100)
      .execute();
    await this.dropFiles(old.map((row) => row.id));
  }

  private async run(job: ImportJobRow): Promise<void> {
    if (job.attempts > MAX_ATTEMPTS) {
      await this.finish(job, {
        state: 'failed',
        error: `The service stopped ${MAX_ATTEMPTS} times while this import ran; it was given up. ${job.state === 'writing' && job.mode === 'valid-only' ? 'Some batches may have been written: ' : ''}Run it again: what was written is then reported unchanged.`,
      });
      return;
    }
    const read = await this.readFiles(job);
    if ('error' in read) {
      await this.finish(job, { state: 'failed', error: read.error });
      return;
    }
    const library = await this.refdata.store.findByIri(job.library_iri);
    if (library?.family !== 'library') {
      await this.finish(job, {
        state: 'failed',
        error: `${job.library_iri} is no library (any more).`,
      });
      return;
    }
    const resuming = job.state === 'writing';
    const previous = resuming && job.report ? (JSON.parse(job.report) as ReportEntry[]) : undefined;
    await this.progress(job, {
      state: resuming ? 'writing' : 'checking',
      files: JSON.stringify(read.files),
      done: 0,
      phase_started_at: this.now(),
    });
    const justification = justificationOf(job.id, read.files);
    const started = performance.now();
    const plan = await this.plan(job, read, library.iri, justification);
    // How long each phase took, for an operator (and the benchmark's profile).
    const timing = {
      importJob: job.id,
      resources: plan.entries.length,
      checkMs: Math.round(performance.now() - started),
    };
    const entries = previous ? resumed(plan.entries, previous) : plan.entries;
    const counts = countsOf(entries);
    const report = JSON.stringify(entries);
    const refusedLines = JSON.stringify(
      entries.filter((entry) => entry.outcome === 'refused').slice(0, REFUSED_KEPT),
    );
    if (job.dry_run === 1 || plan.steps.length === 0) {
      this.log.info(timing, 'import job checked');
      await this.finish(job, {
        counts: JSON.stringify(counts),
        report,
        refused_lines: refusedLines,
        done: plan.steps.length,
      });
      return;
    }
    if (job.mode === 'all-or-nothing' && counts.refused > 0) {
      await this.finish(job, {
        counts: JSON.stringify(counts),
        report,
        refused_lines: refusedLines,
        error: `Nothing was written: ${counts.refused} line(s) were refused, and this import is all or nothing.`,
      });
      return;
    }
    const writing = performance.now();
    await this.write(job, plan, counts, { report, refused_lines: refusedLines }, justification);
    this.log.info(
      { ...timing, writeMs: Math.round(performance.now() - writing) },
      'import job written',
    );
  }

  /** The job's files read into CFIHOS tables (kept from its upload when made here), or why not. */
  private async readFiles(job: ImportJobRow): Promise<ReadTables | { error: string }> {
    const kept = this.preRead.get(job.id);
    this.preRead.delete(job.id);
    if (kept) return kept;
    const rows = await this.refdata.db
      .selectFrom('import_files')
      .select(['name', 'bytes'])
      .where('job_id', '=', job.id)
      .orderBy('id')
      .execute();
    const read = await readTables(
      rows.map((row) => ({ name: row.name, bytes: Buffer.from(row.bytes) })),
      (job.encoding ?? undefined) as Encoding | undefined,
    );
    return 'errors' in read ? { error: read.errors.map((error) => error.detail).join(' ') } : read;
  }

  private async plan(
    job: ImportJobRow,
    read: ReadTables,
    library: string,
    justification: string,
  ): Promise<ImportPlan> {
    const { tables } = read;
    const stored = await this.refdata.store.libraryContents(library);
    const classes = new Map<string, string>();
    for (const row of stored) {
      // A Rejected class holds no name (docs/review.md).
      if (row.family === 'cfihos-entity' && row.status !== 'Rejected')
        classes.set(`${row.name_scope} ${row.name_normalized}`, row.iri);
    }
    const mapping = cfihosItems(tables, {
      iriBase: this.refdata.iriBase,
      library,
      storedClass: (kind, name) => classes.get(`${kind} ${normalizedName(name)}`),
    });
    for (const graph of read.graphs) {
      const described = rdfItems(graph.quads, graph.source, {
        iriBase: this.refdata.iriBase,
        library,
        language: (await this.refdata.store.findByIri(library))?.language ?? DEFAULT_LANGUAGE,
      });
      mapping.items.push(...described.items);
      mapping.refused.push(...described.refused);
    }
    await this.progress(job, { total: mapping.items.length });
    let checked = 0;
    return planImport(this.refdata, mapping.items, mapping.refused, {
      justification,
      author: job.owner,
      checked: async () => {
        checked += 1;
        if (checked % CHECK_STEP === 0) {
          await this.progress(job, { done: checked });
          // Checking is work in this thread: requests are served between steps.
          await betweenBatches();
        }
      },
    });
  }

  private async write(
    job: ImportJobRow,
    plan: ImportPlan,
    counts: Counts,
    report: Pick<ImportJobRow, 'report' | 'refused_lines'>,
    justification: string,
  ): Promise<void> {
    const { steps } = plan;
    await this.progress(job, {
      state: 'writing',
      total: steps.length,
      done: 0,
      phase_started_at: this.now(),
      ...report,
    });
    const change = { actor: job.owner, justification };
    const batch = job.mode === 'all-or-nothing' ? steps.length : BATCH;
    for (let start = 0; start < steps.length; start += batch) {
      if (start > 0) await betweenBatches();
      const slice = steps.slice(start, start + batch);
      const last = start + slice.length >= steps.length;
      await this.refdata.store.writeMany(slice, change, async (trx) => {
        // The count commits with the writes it counts, and only while the claim holds.
        const updated = await trx
          .updateTable('import_jobs')
          .set({
            done: start + slice.length,
            // Some of it is written from the first batch on, whatever befalls the rest.
            written: 1,
            lease_until: this.now() + this.settings.leaseMilliseconds,
            ...(last
              ? {
                  state: 'done' as const,
                  written: 1,
                  counts: JSON.stringify(counts),
                  finished_at: this.now(),
                  lease_until: 0,
                }
              : {}),
          })
          .where('id', '=', job.id)
          .where('attempts', '=', job.attempts)
          .executeTakeFirst();
        if (updated.numUpdatedRows !== 1n) throw new LeaseLost();
      });
    }
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * What each revision an import writes says: its files, as many names as fit
 * (the justification's limit is 2,000 characters), without control characters.
 */
export function justificationOf(id: number, files: readonly { name: string }[]): string {
  const names = files.map((file) => file.name.replace(CONTROL_CHARACTERS, '?'));
  let listed = names.join(', ');
  if (listed.length > 1500) listed = `${listed.slice(0, 1500)}…`;
  return `Imported from ${files.length === 1 ? 'the file' : `${files.length} files`} ${listed} (import ${id})`;
}

/**
 * A report made again after a restart, with what the run before it wrote
 * (now found unchanged) reported as that run planned it.
 */
function resumed(entries: readonly ReportEntry[], previous: readonly ReportEntry[]): ReportEntry[] {
  const key = (entry: ReportEntry) => `${entry.source}\n${entry.line}\n${entry.iri}`;
  const before = new Map(previous.map((entry) => [key(entry), entry]));
  return entries.map((entry) => {
    const earlier = before.get(key(entry));
    return entry.outcome === 'unchanged' &&
      earlier &&
      (earlier.outcome === 'created' || earlier.outcome === 'updated')
      ? { ...entry, outcome: earlier.outcome }
      : entry;
  });
}
