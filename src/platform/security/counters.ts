import { type Kysely, sql } from 'kysely';
import { reusableQuery } from '../db/reusable-query.js';
import type { MigrationDb } from '../db/schema.js';

/** The table fixed-window counters live in; include the migration in a service's set. */
export interface CounterTables {
  rate_limit_counters: { key: string; window_started_at: number; count: number };
}

export const counterTableMigration = {
  async up(db: MigrationDb) {
    await db.schema
      .createTable('rate_limit_counters')
      .addColumn('key', 'varchar(300)', (column) => column.primaryKey())
      .addColumn('window_started_at', 'bigint', (column) => column.notNull())
      .addColumn('count', 'integer', (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex('rate_limit_counters_window')
      .on('rate_limit_counters')
      .column('window_started_at')
      .execute();
  },
};

export interface CounterState {
  /** Hits in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetsInMs: number;
}

/**
 * Fixed-window counters kept in the service's database, so every instance behind a
 * load balancer counts the same hits. One statement per hit: the upsert restarts an
 * expired window or increments a live one atomically on both databases.
 */
export class CounterStore {
  constructor(
    private readonly db: Kysely<CounterTables>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Every request to a rate-limited endpoint counts: built once (values are stand-ins). */
  private readonly upsertHit = reusableQuery((key: string, windowMs: string, now: string) => {
    const expired = sql<boolean>`rate_limit_counters.window_started_at + ${windowMs} <= ${now}`;
    return this.db
      .insertInto('rate_limit_counters')
      .values({ key, window_started_at: now as unknown as number, count: 1 })
      .onConflict((conflict) =>
        conflict.column('key').doUpdateSet({
          count: sql`case when ${expired} then 1 else rate_limit_counters.count + 1 end`,
          window_started_at: sql`case when ${expired} then ${now} else rate_limit_counters.window_started_at end`,
        }),
      )
      .returning(['count', 'window_started_at']);
  });

  async hit(key: string, windowMs: number): Promise<CounterState> {
    const now = this.now();
    const [row] = (await this.db.executeQuery(this.upsertHit(key, windowMs, now))).rows;
    if (!row) throw new Error('The counter upsert returned no row.');
    return {
      count: Number(row.count),
      resetsInMs: Math.max(0, Number(row.window_started_at) + windowMs - now),
    };
  }

  private readonly byKey = reusableQuery((key: string) =>
    this.db
      .selectFrom('rate_limit_counters')
      .select(['count', 'window_started_at'])
      .where('key', '=', key),
  );

  /** The current count without adding a hit (0 when the window has ended). */
  async peek(key: string, windowMs: number): Promise<CounterState> {
    const now = this.now();
    const [row] = (await this.db.executeQuery(this.byKey(key))).rows;
    if (!row || Number(row.window_started_at) + windowMs <= now) {
      return { count: 0, resetsInMs: 0 };
    }
    return {
      count: Number(row.count),
      resetsInMs: Number(row.window_started_at) + windowMs - now,
    };
  }

  async reset(key: string): Promise<void> {
    await this.db.deleteFrom('rate_limit_counters').where('key', '=', key).execute();
  }

  /** Drops counters whose window ended long ago; run now and then. */
  async purge(olderThanMs: number): Promise<void> {
    await this.db
      .deleteFrom('rate_limit_counters')
      .where('window_started_at', '<', this.now() - olderThanMs)
      .execute();
  }
}
