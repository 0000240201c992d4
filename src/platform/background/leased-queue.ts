import type { Kysely } from 'kysely';
import { type Claim, claimUnderLease, type QueueTable, settleClaim } from './lease-claim.js';
import type { RetryPolicy } from './retry-policy.js';
import { WorkLoop } from './work-loop.js';

/** How an attempt ended: done, or the reason it was not (tried again by the retry policy). */
export type AttemptOutcome = { ok: true } | { ok: false; error: string; final?: boolean };

/** What a queue writes into its row when a piece of work ends one way or the other. */
export interface Settlement {
  /** The attempt succeeded. */
  done(now: number): Record<string, unknown>;
  /** It failed and will be tried again at the row's new due time (set by the queue). */
  retry(error: string): Record<string, unknown>;
  /** It failed for the last time (or `final`): the work is given up, the reason kept. */
  failed(now: number, error: string): Record<string, unknown>;
}

export interface LeasedQueueOptions<Row> {
  table: QueueTable;
  settle: Settlement;
  /** One attempt at one row: sending a mail, posting a token. It should not throw; a throw counts as a failure. */
  attempt: (row: Row, claim: Claim) => Promise<AttemptOutcome>;
  retry: RetryPolicy;
  /** How long a claim holds a row: longer than any attempt takes. */
  leaseMs: number;
  /** Attempts in flight at once on this instance. */
  concurrency: number;
  /** Milliseconds between looks at the table when nothing wakes the queue. */
  pollMilliseconds: number;
  /** Where failures of the queue itself (not of an attempt) are reported. */
  failed: (error: unknown) => void;
  now?: () => number;
}

/**
 * The one queue of work done after the answer: rows of a queue's table,
 * claimed under a lease (`claimUnderLease`), tried with at most `concurrency`
 * in flight, each attempt's outcome written only while its claim holds, and
 * a failed one due again after the retry policy's next wait, or given up after
 * the last. A slot that frees claims the next row at once; nothing waits for a
 * whole batch. With a key, one attempt per key is out at a time, in order, on
 * every instance together.
 */
export class LeasedQueue<Row extends { id: number }> {
  private readonly loop: WorkLoop;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly now: () => number;
  private started = false;
  private closed = false;

  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: each queue's table is named at run time.
    private readonly db: Kysely<any>,
    private readonly options: LeasedQueueOptions<Row>,
  ) {
    this.now = options.now ?? Date.now;
    this.loop = new WorkLoop({
      pollMilliseconds: options.pollMilliseconds,
      turn: () => this.claimAndStart(),
      failed: options.failed,
    });
  }

  start(): void {
    this.started = true;
    this.loop.start();
  }

  /**
   * Something was queued here: look now rather than at the next poll. An
   * instance that does not take this work on (never started) leaves it.
   */
  wake(): void {
    if (this.started) this.loop.wake();
  }

  /** Resolves when a look that began after the call has claimed what it could. */
  next(): Promise<void> {
    return this.loop.next();
  }

  /** Resolves once every attempt started so far has been recorded. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Stops claiming and waits for the attempts under way to be recorded. */
  async close(): Promise<void> {
    this.closed = true;
    await this.loop.close();
    await this.settled();
  }

  private async claimAndStart(): Promise<void> {
    if (this.closed) return;
    const rows = await claimUnderLease<Row>(this.db, this.options.table, {
      limit: this.options.concurrency - this.inFlight.size,
      leaseMs: this.options.leaseMs,
      now: this.now(),
    });
    for (const row of rows) {
      const running = this.run(row, row.claim).finally(() => {
        this.inFlight.delete(running);
        // A slot is free: the next due row is claimed now.
        if (!this.closed) this.wake();
      });
      this.inFlight.add(running);
    }
  }

  private async run(row: Row, claim: Claim): Promise<void> {
    let outcome: AttemptOutcome;
    try {
      outcome = await this.options.attempt(row, claim);
    } catch (error) {
      outcome = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    try {
      await this.record(claim, outcome);
    } catch (error) {
      // The claim lapses and the row is due again: tried once more, never lost.
      this.options.failed(error);
    }
  }

  private async record(claim: Claim, outcome: AttemptOutcome): Promise<void> {
    const { table, settle, retry } = this.options;
    const now = this.now();
    if (outcome.ok) {
      await settleClaim(this.db, table, claim, settle.done(now));
      return;
    }
    const wait = outcome.final ? undefined : retry.waitAfter(claim.attempts);
    await settleClaim(
      this.db,
      table,
      claim,
      wait === undefined
        ? settle.failed(now, outcome.error)
        : { ...settle.retry(outcome.error), [table.due]: now + wait },
    );
  }
}
