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
   * What a pending row needs besides being due to be claimed now (its
   * subscription active), asked of the candidates only: a row that waits
   * still holds back the later rows of its key.
   */
  eligible?: (alias: string) => RawBuilder<boolean>;
  /**
   * The column naming whom the work is for (a webhook subscription, a relying
   * party): a key has one row claimed at a time, so that one slow or failing
   * receiver holds one slot and never the others' turns, and its rows are
   * claimed in `order`.
   */
  key?: string;
  /**
   * Within a key, the column grouping the rows that must go in order (a
   * resource's events to one subscription): a row waits only for the earlier
   * rows of its group. Without it, all of a key's rows go in order.
   */
  orderWithin?: string;
  /** The column rows are ordered by within a key (`id` unless named). */
  order?: string;
  /** Columns a claim sets besides the lease and attempts (a state that says "being sent"). */
  onClaim?: Record<string, string | number>;
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
  const lock = isPostgres(db) ? sql`for update skip locked` : sql``;
  const claimedSet = Object.entries(queue.onClaim ?? {}).map(
    ([column, value]) => sql`, ${sql.ref(column)} = ${value}`,
  );
  const { rows } = await sql<Row>`update ${table}
    set ${lease} = ${leaseUntil}, ${attempts} = ${attempts} + 1${sql.join(claimedSet, sql``)}
    where id in (
      select id from ${table} as candidate
      where ${queue.pending('candidate')} and candidate.${due} <= ${now} and candidate.${lease} < ${now}
      ${queue.eligible ? sql`and ${queue.eligible('candidate')}` : sql``}
      ${queue.key ? nextOfEachKey(queue, queue.key, now) : sql``}
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

/**
 * Each key's next row: among its rows that are due, held by nobody, and
 * first of their group still unfinished (every row of the key, or those of
 * its `orderWithin` group), the first; and none of a key that has a row held
 * now. The keys with a row out are asked once per claim, not once per row.
 */
function nextOfEachKey(queue: QueueTable, keyColumn: string, now: number): RawBuilder<unknown> {
  const table = sql.table(queue.table);
  const key = sql.ref(keyColumn);
  const order = sql.ref(queue.order ?? 'id');
  const sameGroup = queue.orderWithin
    ? sql`and earlier.${sql.ref(queue.orderWithin)} = waiting.${sql.ref(queue.orderWithin)}`
    : sql``;
  return sql`and candidate.id in (
      select min(waiting.id) from ${table} as waiting
      where ${queue.pending('waiting')} and waiting.${sql.ref(queue.due)} <= ${now}
        and waiting.${sql.ref(queue.lease)} < ${now}
        ${queue.eligible ? sql`and ${queue.eligible('waiting')}` : sql``}
        and not exists (
          select 1 from ${table} as earlier
          where earlier.${key} = waiting.${key} ${sameGroup}
            and earlier.${order} < waiting.${order} and ${queue.pending('earlier')})
        and waiting.${key} not in (
          select busy.${key} from ${table} as busy
          where ${queue.pending('busy')} and busy.${sql.ref(queue.lease)} >= ${now})
      group by waiting.${key})`;
}
