import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../platform/db/schema.js';
import type { RefdataTables } from '../db/tables.js';

/** Changes read at once; more are read on the next turn. */
const READ_LIMIT = 5000;
/**
 * A sequence number missing below one already seen belongs to a transaction
 * still open (PostgreSQL hands numbers out at insert, not at commit) or rolled
 * back. It is asked for again on every turn for this long, then given up.
 */
const GAP_TIMEOUT_MS = 60_000;
/** A jump larger than this (a sequence's cache lost in a crash) is not followed number by number. */
const MAX_GAPS = 10_000;
/** A gap found before the first turn: its time to be given up has not started. */
const NOT_ASKED = -1;
/** Entries older than this are pruned; an instance further behind rebuilds its index. */
export const CHANGE_RETENTION_MS = 60 * 60 * 1000;

/**
 * Follows `search_changes` from a position: which resources changed since the
 * last turn. Sequence numbers are not committed in order on PostgreSQL, so a
 * number skipped over is remembered as a gap and looked for again, rather
 * than lost behind a high-water mark.
 */
export class ChangeFollower {
  private readonly gaps = new Map<number, number>();

  private constructor(
    private highest: number,
    private readonly now: () => number,
  ) {}

  /** A follower from the log's current end; the recent numbers missing there count as gaps. */
  static async fromEnd(
    db: Kysely<RefdataTables>,
    now: () => number = Date.now,
  ): Promise<ChangeFollower> {
    const end = await db
      .selectFrom('search_changes')
      .select(sql<number | string | null>`max(seq)`.as('seq'))
      .executeTakeFirst();
    const highest = Number(end?.seq ?? 0);
    const follower = new ChangeFollower(highest, now);
    const recent = await db
      .selectFrom('search_changes')
      .select('seq')
      .where('seq', '>', highest - 1000)
      .execute();
    const present = new Set(recent.map((row) => Number(row.seq)));
    // Not yet asked for: their time starts at the first turn, not now (a build may take minutes).
    for (let seq = Math.max(1, highest - 999); seq < highest; seq += 1)
      if (!present.has(seq)) follower.gaps.set(seq, NOT_ASKED);
    return follower;
  }

  /**
   * A follower from a position kept elsewhere (`safePosition` of an earlier
   * one): every change after it is read again, what was already applied too.
   */
  static from(position: number, now: () => number = Date.now): ChangeFollower {
    return new ChangeFollower(position, now);
  }

  /**
   * The position below which every change has been read: the highest read,
   * or just below the oldest number still awaited. A follower started from
   * it (`from`) misses nothing.
   */
  get safePosition(): number {
    let safe = this.highest;
    for (const seq of this.gaps.keys()) safe = Math.min(safe, seq - 1);
    return safe;
  }

  /** Open gaps, for tests and logs. */
  get openGaps(): number {
    return this.gaps.size;
  }

  /** The resources changed since the last turn; `more` when the read stopped at its limit. */
  async next(db: Kysely<RefdataTables>): Promise<{ resourceIds: Set<number>; more: boolean }> {
    const now = this.now();
    for (const [seq, since] of this.gaps) {
      if (since === NOT_ASKED) this.gaps.set(seq, now);
      else if (now - since > GAP_TIMEOUT_MS) this.gaps.delete(seq);
    }
    const resourceIds = new Set<number>();
    if (this.gaps.size > 0) {
      const filled = await db
        .selectFrom('search_changes')
        .select(['seq', 'resource_id'])
        .where('seq', 'in', [...this.gaps.keys()].slice(0, 1000))
        .execute();
      for (const row of filled) {
        this.gaps.delete(Number(row.seq));
        resourceIds.add(row.resource_id);
      }
    }
    const rows = await db
      .selectFrom('search_changes')
      .select(['seq', 'resource_id'])
      .where('seq', '>', this.highest)
      .orderBy('seq')
      .limit(READ_LIMIT)
      .execute();
    for (const row of rows) {
      const seq = Number(row.seq);
      if (seq - this.highest - 1 <= MAX_GAPS)
        for (let missing = this.highest + 1; missing < seq; missing += 1)
          this.gaps.set(missing, now);
      this.highest = seq;
      resourceIds.add(row.resource_id);
    }
    return { resourceIds, more: rows.length === READ_LIMIT };
  }
}

/** Drops entries every instance has had time to read. */
export async function pruneChanges(db: Kysely<RefdataTables>, now = Date.now()): Promise<void> {
  await db
    .deleteFrom('search_changes')
    .where('changed_at', '<', now - CHANGE_RETENTION_MS)
    .execute();
}

/**
 * Whether the log still holds every change after `position`, for a copy kept
 * since `savedAt`. Never when the database has numbered no change that far (it
 * was restored from a backup older than the copy); otherwise when it was kept
 * recently enough that nothing after it can have been pruned, or the log still
 * reaches back to it, or no change numbered after it was ever made (a quiet
 * database whose log was pruned empty).
 */
export async function logCovers(
  db: Kysely<RefdataTables>,
  position: number,
  savedAt: number,
  now = Date.now(),
): Promise<boolean> {
  const issued = await highestIssued(db);
  if (issued < position) return false;
  if (now - savedAt < CHANGE_RETENTION_MS / 2) return true;
  const first = await db
    .selectFrom('search_changes')
    .select(sql<number | string | null>`min(seq)`.as('seq'))
    .executeTakeFirst();
  if (first?.seq !== null && first?.seq !== undefined && Number(first.seq) <= position + 1)
    return true;
  return issued <= position;
}

/** The highest sequence number the log ever handed out, pruned or not (both count up, never reuse). */
async function highestIssued(db: Kysely<RefdataTables>): Promise<number> {
  if (isPostgres(db)) {
    const { rows } = await sql<{
      last_value: string;
      is_called: boolean;
    }>`select last_value, is_called from search_changes_seq_seq`.execute(db);
    return rows[0]?.is_called ? Number(rows[0].last_value) : 0;
  }
  const { rows } = await sql<{
    seq: number;
  }>`select seq from sqlite_sequence where name = 'search_changes'`.execute(db);
  return Number(rows[0]?.seq ?? 0);
}
