import { type Kysely, type RawBuilder, sql } from 'kysely';
import { isPostgres } from '../db/schema.js';

/**
 * Where a queue keeps its work: a table of its own (the queue's own columns
 * beside these), each row one piece of work. graphile-worker's and pg-boss's
 * job tables have this shape; each queue here keeps its own table so that its
 * rows stay its domain's (a mail, a logout token), with these columns named
 * as the queue names them.
 */
export interface QueueTable {
  table: string;
  /** When the work is next due (epoch milliseconds). */
  due: string;
  /** Until when a claim holds it; below now (0) when nobody does. */
  lease: string;
  /** Attempts so far: each claim adds one, and is known by it. */
  attempts: string;
  /**
   * The rows still to be done (the rest are finished), as a condition on the
   * columns of the table known as `alias`: `(t) => sql\`${sql.ref(\`${t}.state\`)} = 'pending'\``.
   */
  pending: (alias: string) => RawBuilder<boolean>;
  /**
   * The column naming whom the work is for (a webhook subscription, a relying
   * party): a key's work is claimed in id order, one at a time, so that one
   * slow or failing receiver holds one slot and never the others' turns.
   */
  key?: string;
}

/** A claimed row: the claim is known by its lease's end and its attempt number. */
export interface Claim {
  id: number;
  leaseUntil: number;
  attempts: number;
}

/**
 * The one claim-under-lease statement, for both dialects: up to `limit` due
 * rows nobody holds, each marked held until `now + leaseMs` with one more
 * attempt, in one statement. On PostgreSQL the rows are chosen `for update
 * skip locked` and checked again once locked, so two instances never claim
 * the same row; SQLite has one writer at a time. A row whose claim lapsed
 * (its instance died) is due again: work is done at least once.
 */
export async function claimUnderLease<Row extends { id: number }>(
  // biome-ignore lint/suspicious/noExplicitAny: each queue's table is named at run time.
  db: Kysely<any>,
  queue: QueueTable,
  options: { limit: number; leaseMs: number; now: number },
): Promise<(Row & { claim: Claim })[]> {
  if (options.limit <= 0) return [];
  const { now } = options;
  const leaseUntil = now + options.leaseMs;
  const table = sql.table(queue.table);
  const due = sql.ref(queue.due);
  const lease = sql.ref(queue.lease);
  const attempts = sql.ref(queue.attempts);
  // A key's first unfinished row only: the next in its order, and none while one is out.
  const firstOfKey = queue.key
    ? sql`and candidate.id = (select min(earlier.id) from ${table} as earlier where earlier.${sql.ref(queue.key)} = candidate.${sql.ref(queue.key)} and ${queue.pending('earlier')})`
    : sql``;
  const lock = isPostgres(db) ? sql`for update skip locked` : sql``;
  const { rows } = await sql<Row>`update ${table}
    set ${lease} = ${leaseUntil}, ${attempts} = ${attempts} + 1
    where id in (
      select id from ${table} as candidate
      where ${queue.pending('candidate')} and candidate.${due} <= ${now} and candidate.${lease} < ${now}
      ${firstOfKey}
      order by candidate.${due}, candidate.id
      limit ${options.limit}
      ${lock})
    and ${queue.pending(queue.table)} and ${lease} < ${now}
    returning *`.execute(db);
  return rows.map((row) => {
    const record = row as Row & Record<string, unknown>;
    return {
      ...row,
      claim: { id: row.id, leaseUntil, attempts: Number(record[queue.attempts]) },
    };
  });
}

/**
 * Updates a claimed row only while the claim still holds it (its lease and
 * attempt unchanged): after a lapse, another instance's claim is the one to
 * record. True when the row was this claim's.
 */
export async function settleClaim(
  // biome-ignore lint/suspicious/noExplicitAny: each queue's table is named at run time.
  db: Kysely<any>,
  queue: QueueTable,
  claim: Claim,
  columns: Record<string, unknown>,
): Promise<boolean> {
  const assignments = Object.entries({ ...columns, [queue.lease]: 0 }).map(
    ([column, value]) => sql`${sql.ref(column)} = ${value}`,
  );
  const result = await sql`update ${sql.table(queue.table)}
    set ${sql.join(assignments)}
    where id = ${claim.id} and ${sql.ref(queue.lease)} = ${claim.leaseUntil}
      and ${sql.ref(queue.attempts)} = ${claim.attempts}`.execute(db);
  return (result.numAffectedRows ?? 0n) > 0n;
}
