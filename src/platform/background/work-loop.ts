/**
 * The one loop of work done after the answer (deliveries, mail, logout
 * tokens, import jobs, followers of the change log): a turn on a timer, for
 * what other instances made due, and a turn at once when this instance made
 * something due (`wake`). Turns never overlap; a wake during a turn makes one
 * more turn after it, however many wakes came. A turn's failure is reported
 * and the loop goes on.
 */
export class WorkLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Callers waiting for a turn that begins after they asked, and whether one is due. */
  private waiting: (() => void)[] = [];
  private again = false;
  private started = false;
  private closed = false;

  constructor(
    private readonly options: {
      /** Milliseconds between turns when nothing wakes the loop. */
      pollMilliseconds: number;
      /** One turn: look for what is due and do it. */
      turn: () => Promise<void>;
      /** A turn failed; the next is still taken. */
      failed: (error: unknown) => void;
    },
  ) {}

  /** Starts the timer and takes a first turn at once. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.wake();
    this.schedule();
  }

  /** Something is due here: a turn now, or right after the one under way. */
  wake(): void {
    void this.next();
  }

  /** Resolves when a turn that began after the call has ended (failed or not). */
  next(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.running) this.again = true;
    else this.run();
    return done;
  }

  /** Stops the timer and waits for the turn under way; no turn starts after. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  private run(): void {
    const waiting = this.waiting.splice(0);
    this.running = this.options
      .turn()
      .catch((error: unknown) => this.options.failed(error))
      .finally(() => {
        this.running = undefined;
        for (const resolve of waiting) resolve();
        if (this.again && !this.closed) {
          this.again = false;
          this.run();
        } else if (this.closed) for (const resolve of this.waiting.splice(0)) resolve();
      });
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.next().finally(() => this.schedule());
    }, this.options.pollMilliseconds);
    this.timer.unref();
  }
}
