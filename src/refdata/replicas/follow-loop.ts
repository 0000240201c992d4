/**
 * The rhythm of a replica that follows the change log (the search index, the
 * SPARQL dataset): a turn on a timer, for what other instances wrote, and a
 * turn before the next read after a write this instance committed, so whoever
 * wrote reads their own write. Turns never overlap; a read waits for the turn
 * that covers the writes noted before it.
 */
export class FollowLoop {
  private queue: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private localWrites = 0;
  private appliedLocalWrites = 0;

  /** `followOnce` reads the log and applies it; its failures are its own to report. */
  constructor(
    private readonly pollMilliseconds: number,
    private readonly followOnce: () => Promise<void>,
  ) {}

  /** Starts the timer. */
  start(): void {
    this.schedule();
  }

  /** A write of this instance has committed: the next read first follows the log. */
  noteLocalWrite(): void {
    this.localWrites += 1;
  }

  /** Resolves once every write noted before the call has been followed. */
  async caughtUp(): Promise<void> {
    const wanted = this.localWrites;
    while (this.appliedLocalWrites < wanted && !this.closed) await this.turn();
  }

  /** One turn, after any turn under way. */
  turn(): Promise<void> {
    this.queue = this.queue.then(async () => {
      const writes = this.localWrites;
      try {
        await this.followOnce();
      } finally {
        // A read waiting on this turn answers from the replica as it is, even if the turn failed.
        this.appliedLocalWrites = Math.max(this.appliedLocalWrites, writes);
      }
    });
    return this.queue;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.queue.catch(() => undefined);
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.turn()
        .catch(() => undefined)
        .finally(() => this.schedule());
    }, this.pollMilliseconds);
    this.timer.unref();
  }
}
