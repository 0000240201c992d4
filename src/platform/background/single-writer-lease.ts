import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type Kysely, sql } from 'kysely';

/** Where a lease is kept: one row of a table with `holder` and `lease_until` columns. */
export interface LeaseRow {
  table: string;
  id: number;
}

/** What `hold` found: the lease still this instance's, taken or renewed now, or another's. */
export type Holding = 'kept' | 'renewed' | 'not-held';

/**
 * One writer at a time among all instances (the external SPARQL store's
 * keeper): a lease on a row, taken when nobody holds it or its holder's time
 * ran out, renewed once half of it is gone, and given back on close so the
 * next need not wait. Work done under it checks `hold` before each write, and
 * each write lasts less than half the lease, so a former holder's write never
 * lands after the next holder's.
 */
export class SingleWriterLease {
  /** This instance, as the row names its holder. */
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private until = 0;

  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: the lease's table is named at run time.
    private readonly db: Kysely<any>,
    private readonly row: LeaseRow,
    private readonly leaseMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes or renews the lease when half of it is gone; `not-held` while another holds it. */
  async hold(): Promise<Holding> {
    const now = this.now();
    if (this.until - now > this.leaseMs / 2) return 'kept';
    const result = await sql`update ${sql.table(this.row.table)}
      set holder = ${this.holder}, lease_until = ${now + this.leaseMs}
      where id = ${this.row.id}
        and (holder = ${this.holder} or holder is null or lease_until < ${now})`.execute(this.db);
    const held = (result.numAffectedRows ?? 0n) === 1n;
    this.until = held ? now + this.leaseMs : 0;
    return held ? 'renewed' : 'not-held';
  }

  /** Gives the lease back, if this instance holds it: another may take it at once. */
  async release(): Promise<void> {
    this.until = 0;
    await sql`update ${sql.table(this.row.table)} set holder = null, lease_until = 0
      where id = ${this.row.id} and holder = ${this.holder}`.execute(this.db);
  }
}
