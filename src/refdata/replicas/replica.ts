import type { Kysely } from 'kysely';
import type { RefdataTables } from '../db/tables.js';
import { CHANGE_RETENTION_MS, ChangeFollower } from './change-log.js';
import { FollowLoop } from './follow-loop.js';

/** How long after a failed build the next one is tried. */
const RETRY_BUILD_MILLISECONDS = 5000;

/** What a replica keeps its copy in: a worker thread, seen from the request thread. */
export interface ReplicaThread {
  readonly size: number;
  close(): Promise<void>;
}

export interface ReplicaLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/**
 * A copy of the resources an instance keeps in a worker thread for reading
 * (the search index, the SPARQL dataset): built from the database at start,
 * then kept from the change log by a `FollowLoop`, on a timer for what other
 * instances wrote and before the next read for what this one wrote. A new
 * copy is built beside the one in use, which answers until the new one is
 * ready: when asked, when the thread ended unasked, or when the log was not
 * read for so long that changes may have been pruned from it.
 *
 * A replica says how to start a thread (`newThread`), how to fill one from the
 * database (`fill`) and how to apply changed resources to it (`apply`); one
 * that keeps its copy between runs also how to load it (`resume`, at start,
 * the log then read from the position it holds) and where to note the
 * position it has reached (`reached`).
 */
export abstract class Replica<Thread extends ReplicaThread> {
  /** The copy in use; undefined until the first build is done, or while one is rebuilt. */
  protected thread: Thread | undefined;
  protected closed = false;
  private follower: ChangeFollower | undefined;
  private building: Promise<void> | undefined;
  /** Numbers the builds, so that one ending never clears the mark of a later one. */
  private builds = 0;
  private retry: NodeJS.Timeout | undefined;
  private readonly loop: FollowLoop;
  private lastTurn = Date.now();

  constructor(
    protected readonly db: Kysely<RefdataTables>,
    pollMilliseconds: number,
    protected readonly log: ReplicaLog,
    /** What log lines call it ("search index"). */
    private readonly name: string,
  ) {
    this.loop = new FollowLoop(pollMilliseconds, () => this.followOnce());
  }

  /** A new, empty copy; `onFailure` hears of its thread ending other than by `close`. */
  protected abstract newThread(onFailure: (error: Error) => void): Thread;
  /**
   * Fills a new copy from the database; answers what to do once it is the one
   * in use (what the replica keeps beside the thread, built from the same rows).
   */
  protected abstract fill(thread: Thread): Promise<() => void>;
  /** Brings these resources (by id; some may be gone) up to date in the copy. */
  protected abstract apply(thread: Thread, ids: number[]): Promise<void>;
  /**
   * A copy kept from an earlier run, loaded, and the change-log position it
   * holds every change up to; undefined to build from the database. Asked at
   * the first build only.
   */
  protected async resume(
    _onFailure: (thread: Thread, error: Error) => void,
  ): Promise<{ thread: Thread; position: number } | undefined> {
    return undefined;
  }
  /**
   * The copy in use holds every change up to `position` (after each turn; and,
   * `settled`, once it is built or loaded and at close): what a replica that
   * keeps its copy for the next run (`resume`) notes.
   */
  protected async reached(_thread: Thread, _position: number, _settled: boolean): Promise<void> {}
  /** Each turn, before the log is read (search reads whether it is marked down). */
  protected async beforeTurn(): Promise<void> {}
  /** Each turn, after the log was read. */
  protected async afterTurn(_now: number): Promise<void> {}

  /** Resources (or quads) held by the copy in use, for health and benchmarks. */
  get size(): number {
    return this.thread?.size ?? 0;
  }

  protected get isBuilding(): boolean {
    return this.building !== undefined;
  }

  /** Starts the first build and the timer; resolves when built or after `waitMilliseconds`. */
  protected async startWithin(waitMilliseconds: number): Promise<void> {
    this.building = this.build();
    this.loop.start();
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      this.building,
      new Promise((resolve) => {
        timeout = setTimeout(resolve, waitMilliseconds);
      }),
    ]);
    clearTimeout(timeout);
  }

  /** Resolves when the build under way (if any) is done. */
  async built(): Promise<void> {
    await this.building;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.loop.close();
    await this.building?.catch(() => undefined);
    if (this.thread && this.follower)
      await this.reached(this.thread, this.follower.safePosition, true).catch((error: unknown) =>
        this.log.error({ err: error }, `${this.name}: what it holds could not be kept`),
      );
    await this.thread?.close();
    this.thread = undefined;
  }

  /** A write of this instance has committed: the next read sees it. */
  noteLocalWrite(): void {
    this.loop.noteLocalWrite();
  }

  /** Waits for every write noted before the call to be in the copy. */
  protected caughtUp(): Promise<void> {
    return this.loop.caughtUp();
  }

  /** Builds a new copy beside the one in use, unless one is being built. */
  protected rebuild(why: string): void {
    if (this.building || this.closed) return;
    this.log.info({}, `${this.name}: rebuilding (${why})`);
    this.building = this.build();
  }

  /** Drops a copy that can serve no more (its thread ended, or was ended) and builds anew. */
  protected discard(thread: Thread, why: string): void {
    if (this.thread === thread) {
      this.thread = undefined;
      this.follower = undefined;
    }
    void thread.close();
    this.rebuild(why);
  }

  private failed(thread: Thread, error: Error): void {
    if (this.closed) return;
    this.log.error({ err: error }, `${this.name}: its thread ended`);
    this.discard(thread, 'its thread ended');
  }

  private async followOnce(): Promise<void> {
    try {
      await this.beforeTurn();
      const thread = this.thread;
      const follower = this.follower;
      if (thread && follower) {
        let more = true;
        while (more && !this.closed) {
          const next = await follower.next(this.db);
          more = next.more;
          try {
            if (next.resourceIds.size > 0) await this.apply(thread, [...next.resourceIds]);
          } catch (error) {
            // The follower has moved past these changes: only a new copy is sure to hold them.
            if (!this.closed)
              this.log.error({ err: error }, `${this.name}: a change could not be applied`);
            // A copy a build has just replaced is let go by the build.
            if (this.thread === thread) this.discard(thread, 'a change could not be applied');
            return;
          }
        }
        if (this.thread === thread) await this.reached(thread, follower.safePosition, false);
      }
      const now = Date.now();
      // An instance that could not read the log for longer than it is kept may have missed changes.
      if (now - this.lastTurn > CHANGE_RETENTION_MS / 2)
        this.rebuild('the change log was not read');
      this.lastTurn = now;
      await this.afterTurn(now);
    } catch (error) {
      if (!this.closed)
        this.log.error({ err: error }, `${this.name}: reading the change log failed`);
    }
  }

  private async build(): Promise<void> {
    this.builds += 1;
    const mine = this.builds;
    const started = Date.now();
    /** The new copy while it is built; closed if the build does not finish. */
    let building: Thread | undefined;
    try {
      const resumed =
        mine === 1 ? await this.resume((thread, error) => this.failed(thread, error)) : undefined;
      let thread: Thread;
      let follower: ChangeFollower;
      let install: () => void = () => undefined;
      if (resumed) {
        thread = resumed.thread;
        building = thread;
        // What changed since it was kept is applied before it is read from.
        follower = ChangeFollower.from(resumed.position);
        for (let more = true; more && !this.closed; ) {
          const next = await follower.next(this.db);
          more = next.more;
          if (next.resourceIds.size > 0) await this.apply(thread, [...next.resourceIds]);
        }
      } else {
        // The log's end first: what changes while the build reads is applied after it.
        follower = await ChangeFollower.fromEnd(this.db);
        const made = this.newThread((error) => this.failed(made, error));
        thread = made;
        building = thread;
        install = await this.fill(thread);
      }
      if (this.closed) return;
      const previous = this.thread;
      this.thread = thread;
      this.follower = follower;
      install();
      building = undefined;
      await this.reached(thread, follower.safePosition, true);
      await previous?.close();
      this.log.info(
        { size: thread.size, milliseconds: Date.now() - started, resumed: resumed !== undefined },
        `${this.name}: ${resumed ? 'loaded from what it kept' : 'built'}`,
      );
    } catch (error) {
      if (!this.closed) {
        this.log.error({ err: error }, `${this.name}: the build failed; trying again shortly`);
        // Without a copy nothing can be read: try again rather than wait for a restart.
        clearTimeout(this.retry);
        this.retry = setTimeout(() => {
          this.rebuild('the last build failed');
        }, RETRY_BUILD_MILLISECONDS);
        this.retry.unref();
      }
    } finally {
      await building?.close();
      if (this.builds === mine) this.building = undefined;
    }
    // What changed while it was built is applied before it is read from (a turn of its own).
    if (!this.closed && this.thread) await this.loop.turn();
  }
}
