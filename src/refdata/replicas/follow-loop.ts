import { WorkLoop } from '../../platform/background/work-loop.js';

/**
 * The rhythm of a replica that follows the change log (the search index, the
 * SPARQL dataset, the external store): the platform's work loop, with a turn
 * before the next read after a write this instance committed, so whoever
 * wrote reads their own write. A read waits for the turn that covers the
 * writes noted before it.
 */
export class FollowLoop {
  private readonly loop: WorkLoop;
  private closed = false;
  private localWrites = 0;
  private appliedLocalWrites = 0;

  /** `followOnce` reads the log and applies it; its failures are its own to report. */
  constructor(pollMilliseconds: number, followOnce: () => Promise<void>) {
    this.loop = new WorkLoop({
      pollMilliseconds,
      turn: async () => {
        const writes = this.localWrites;
        try {
          await followOnce();
        } finally {
          // A read waiting on this turn answers from the replica as it is, even if the turn failed.
          this.appliedLocalWrites = Math.max(this.appliedLocalWrites, writes);
        }
      },
      failed: () => undefined,
    });
  }

  /** Starts the timer (its first turn comes after one period: the replica was just built). */
  start(): void {
    this.loop.start();
  }

  /** A write of this instance has committed: the next read first follows the log. */
  noteLocalWrite(): void {
    this.localWrites += 1;
  }

  /** Resolves once every write noted before the call has been followed. */
  async caughtUp(): Promise<void> {
    const wanted = this.localWrites;
    while (this.appliedLocalWrites < wanted && !this.closed) await this.loop.next();
  }

  /** One turn, after any turn under way. */
  turn(): Promise<void> {
    return this.loop.next();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.loop.close();
  }
}
