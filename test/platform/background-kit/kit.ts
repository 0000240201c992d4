/**
 * The shared test kit of the background-work kernel: a clock the test moves,
 * a queue table of its own on a real database, instances of `LeasedQueue`
 * over it (two in one process, or one in a child process the test kills with
 * SIGKILL), and a log of every attempt, which the tests read to prove that
 * each piece of work is done at least once and each key's work in order. The
 * kernel is one for every queue (mail, logout tokens, ...), so what it proves
 * here holds for each.
 */
import { type Kysely, sql } from 'kysely';
import type { Claim } from '../../../src/platform/background/lease-claim.js';
import { type AttemptOutcome, LeasedQueue } from '../../../src/platform/background/leased-queue.js';
import { RetryPolicy } from '../../../src/platform/background/retry-policy.js';

/** A clock that moves only when the test moves it. */
export class ManualClock {
  constructor(private at = 1_000_000) {}
  readonly now = (): number => this.at;
  advance(milliseconds: number): void {
    this.at += milliseconds;
  }
}

export interface KitJob {
  id: number;
  key: number;
  attempts: number;
  state: string;
}

// biome-ignore lint/suspicious/noExplicitAny: the kit's tables are made by the test.
export type KitDb = Kysely<any>;

/** The kit's queue table, and its attempts log (who tried what, and how it ended). */
export async function createKitTables(db: KitDb, kind: 'sqlite' | 'postgres'): Promise<void> {
  const id = sql.raw(
    kind === 'postgres' ? 'serial primary key' : 'integer primary key autoincrement',
  );
  await sql`create table kit_jobs (id ${id}, key integer not null, state varchar(16) not null default 'pending',
    due_at bigint not null, lease_until bigint not null default 0, attempts integer not null default 0,
    finished_by varchar(16), error varchar(200))`.execute(db);
  await sql`create table kit_attempts (id ${id}, job_id integer not null, key integer not null,
    instance varchar(16) not null, attempt integer not null, outcome varchar(16) not null)`.execute(
    db,
  );
}

/** Queues `count` jobs over `keys` keys, round robin, all due at `dueAt`. */
export async function enqueue(
  db: KitDb,
  count: number,
  keys: number,
  dueAt: number,
): Promise<void> {
  const rows = Array.from({ length: count }, (_, index) => ({ key: index % keys, due_at: dueAt }));
  await db.insertInto('kit_jobs').values(rows).execute();
}

export const KIT_TABLE = {
  table: 'kit_jobs',
  due: 'due_at',
  lease: 'lease_until',
  attempts: 'attempts',
  key: 'key',
  pending: (alias: string) => sql<boolean>`${sql.ref(`${alias}.state`)} = 'pending'`,
};

export interface KitQueueOptions {
  instance: string;
  now?: () => number;
  leaseMs?: number;
  concurrency?: number;
  pollMilliseconds?: number;
  retry?: string;
  /** What an attempt does before it ends (wait, hang); by default nothing. */
  during?: (job: KitJob, claim: Claim) => Promise<void>;
  /** Whether the attempt fails. */
  fails?: (job: KitJob, claim: Claim) => boolean;
}

/** An instance of the kernel over the kit's table, logging each attempt when it starts and ends. */
export function kitQueue(db: KitDb, options: KitQueueOptions): LeasedQueue<KitJob> {
  const log = (job: KitJob, claim: Claim, outcome: string) =>
    db
      .insertInto('kit_attempts')
      .values({
        job_id: job.id,
        key: job.key,
        instance: options.instance,
        attempt: claim.attempts,
        outcome,
      })
      .execute();
  return new LeasedQueue<KitJob>(db, {
    table: KIT_TABLE,
    settle: {
      done: () => ({ state: 'done', finished_by: options.instance, error: null }),
      retry: (error) => ({ error }),
      failed: (_now, error) => ({ state: 'failed', finished_by: options.instance, error }),
    },
    attempt: async (job, claim): Promise<AttemptOutcome> => {
      await log(job, claim, 'started');
      await options.during?.(job, claim);
      const failed = options.fails?.(job, claim) ?? false;
      await log(job, claim, failed ? 'failed' : 'done');
      return failed ? { ok: false, error: `attempt ${claim.attempts} failed` } : { ok: true };
    },
    retry: RetryPolicy.parse(options.retry ?? '10ms,10ms,10ms') as RetryPolicy,
    leaseMs: options.leaseMs ?? 1000,
    concurrency: options.concurrency ?? 4,
    pollMilliseconds: options.pollMilliseconds ?? 60_000,
    failed: (error) => {
      throw error;
    },
    ...(options.now ? { now: options.now } : {}),
  });
}

export interface AttemptRow {
  id: number;
  job_id: number;
  key: number;
  instance: string;
  attempt: number;
  outcome: string;
}

/** Every attempt logged, in the order they were logged. */
export function attempts(db: KitDb): Promise<AttemptRow[]> {
  return db.selectFrom('kit_attempts').selectAll().orderBy('id').execute() as Promise<AttemptRow[]>;
}

export function jobs(
  db: KitDb,
): Promise<(KitJob & { finished_by: string | null; error: string | null })[]> {
  return db.selectFrom('kit_jobs').selectAll().orderBy('id').execute() as never;
}
