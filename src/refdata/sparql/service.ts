import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { HttpError } from '../../platform/http/problem.js';
import type { RefdataSettings } from '../config.js';
import type { RefdataTables } from '../db/tables.js';
import type { FamilyRegistry } from '../families/registry.js';
import { problem } from '../problem-codes.js';
import { CHANGE_RETENTION_MS, ChangeFollower } from '../replicas/change-log.js';
import { FollowLoop } from '../replicas/follow-loop.js';
import type { ResourceStore } from '../resources/store.js';
import { PUBLISHED_STATUSES, publishedQuads } from './dataset.js';
import { StoreThread } from './store-thread.js';
import type { QueryDataset, QueryOutcome } from './store-worker.js';

/** Published resources read per query while building; the event loop is let go between batches. */
const BUILD_BATCH = 2000;
/** Changed resources read back per query. */
const APPLY_BATCH = 500;
/** What Retry-After says while the dataset is built. */
const RETRY_WHILE_BUILDING_SECONDS = 10;

interface Log {
  info(object: object, message: string): void;
  error(object: object, message: string): void;
}

/**
 * This instance's SPARQL dataset, the published view: built from the database
 * at start (503 meanwhile), then kept from the change log as the search index
 * is, on a timer for what other instances wrote and before the next query for
 * what this one wrote. The store lives in a worker thread (`StoreThread`). A
 * query past the time limit is stopped by ending that thread; the dataset is
 * then built anew beside the requests, and /sparql answers 503 until it is.
 */
export class SparqlService {
  private thread: StoreThread | undefined;
  private follower: ChangeFollower | undefined;
  private building: Promise<void> | undefined;
  private readonly loop: FollowLoop;
  private closed = false;
  private lastTurn = Date.now();
  /** Queries being evaluated or waiting for the thread. */
  private active = 0;

  constructor(
    private readonly db: Kysely<RefdataTables>,
    private readonly store: ResourceStore,
    private readonly context: { families: FamilyRegistry; iriBase: string },
    readonly settings: RefdataSettings['sparql'],
    private readonly log: Log,
  ) {
    this.loop = new FollowLoop(settings.pollMilliseconds, () => this.followOnce());
  }

  /** Quads in the dataset, for the health of an instance and the benchmark. */
  get size(): number {
    return this.thread?.size ?? 0;
  }

  get available(): boolean {
    return this.thread !== undefined;
  }

  /** Starts the first build and the timer; resolves when built or after `waitMilliseconds`. */
  async start(): Promise<void> {
    this.building = this.build();
    this.loop.start();
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      this.building,
      new Promise((resolve) => {
        timeout = setTimeout(resolve, this.settings.startWaitMilliseconds);
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
    await this.loop.close();
    await this.building?.catch(() => undefined);
    await this.thread?.close();
    this.thread = undefined;
  }

  /** A write of this instance has committed: the next query sees it. */
  noteLocalWrite(): void {
    this.loop.noteLocalWrite();
  }

  /**
   * Evaluates a query over the published view, within the limits: at most
   * `maxConcurrent` at once (503 `sparql-busy` beyond), each for at most
   * `timeoutMilliseconds` (then stopped: 503 `sparql-timeout`).
   */
  async query(
    text: string,
    format: string,
    dataset: QueryDataset | undefined,
  ): Promise<QueryOutcome> {
    if (this.active >= this.settings.maxConcurrent) {
      throw new HttpError(
        problem(
          503,
          'sparql-busy',
          `This instance is evaluating ${this.settings.maxConcurrent} queries; ask again in a moment.`,
          { headers: { 'retry-after': '1' } },
        ),
      );
    }
    this.active += 1;
    try {
      await this.loop.caughtUp();
      const thread = this.thread;
      if (!thread) throw unavailable();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), this.settings.timeoutMilliseconds);
      });
      const answer = await Promise.race([
        thread.query(text, format, dataset).catch(() => 'ended' as const),
        timedOut,
      ]);
      clearTimeout(timer);
      if (answer === 'timeout') {
        this.stop(thread);
        throw new HttpError(
          problem(
            503,
            'sparql-timeout',
            `The query ran longer than ${this.settings.timeoutMilliseconds / 1000} s and was stopped.`,
          ),
        );
      }
      // The thread ended under the query (another one's time ran out, or memory).
      if (answer === 'ended') throw unavailable();
      return answer;
    } finally {
      this.active -= 1;
    }
  }

  /** Ends a thread whose query ran too long; the dataset is built anew. */
  private stop(thread: StoreThread): void {
    this.log.info({}, 'sparql: a query ran past the time limit; rebuilding the dataset');
    if (this.thread === thread) {
      this.thread = undefined;
      this.follower = undefined;
    }
    void thread.close();
    if (!this.building) this.building = this.build();
  }

  /** The thread ended unasked (a crash, memory): unavailable until rebuilt. */
  private failed(thread: StoreThread, error: Error): void {
    if (this.closed) return;
    this.log.error({ err: error }, 'sparql: the store thread ended; rebuilding');
    if (this.thread === thread) {
      this.thread = undefined;
      this.follower = undefined;
    }
    if (!this.building) this.building = this.build();
  }

  private async followOnce(): Promise<void> {
    try {
      const thread = this.thread;
      const follower = this.follower;
      if (thread && follower) {
        let more = true;
        while (more && !this.closed) {
          const next = await follower.next(this.db);
          more = next.more;
          await this.apply(thread, [...next.resourceIds]);
        }
      }
      const now = Date.now();
      // An instance that could not read the log for longer than it is kept may have missed changes.
      if (now - this.lastTurn > CHANGE_RETENTION_MS / 2 && !this.building)
        this.building = this.build();
      this.lastTurn = now;
    } catch (error) {
      if (!this.closed) this.log.error({ err: error }, 'sparql: reading the change log failed');
    }
  }

  private async build(): Promise<void> {
    const started = Date.now();
    let building: StoreThread | undefined;
    try {
      // The log's end first: what changes while the build reads is applied after it.
      const follower = await ChangeFollower.fromEnd(this.db);
      const thread = new StoreThread((error) => this.failed(thread, error));
      building = thread;
      let after = 0;
      let loading: Promise<void> = Promise.resolve();
      while (!this.closed) {
        const rows = await this.store
          .selectWithFacts()
          .where('resource.status', 'in', PUBLISHED_STATUSES)
          .where('resource.id', '>', after)
          .orderBy('resource.id')
          .limit(BUILD_BATCH)
          .execute();
        if (rows.length === 0) break;
        const nquads = await publishedQuads(this.context, rows);
        await loading;
        loading = thread.replace([], nquads);
        // Its failure is taken up at the next `await loading`, not as an unhandled rejection.
        loading.catch(() => undefined);
        after = rows[rows.length - 1]?.id ?? after;
        await nextTurn();
      }
      await loading;
      if (this.closed) return;
      const previous = this.thread;
      this.thread = thread;
      this.follower = follower;
      building = undefined;
      await previous?.close();
      this.log.info({ quads: thread.size, milliseconds: Date.now() - started }, 'sparql: built');
      this.building = undefined;
      await this.loop.turn();
    } catch (error) {
      if (!this.closed) this.log.error({ err: error }, 'sparql: the build failed');
    } finally {
      await building?.close();
      this.building = undefined;
    }
  }

  /**
   * Brings the changed resources up to date: each one's triples are replaced by
   * its triples now, or removed when it is no longer published (or no longer
   * stored: a removed picklist value is found by its tombstone).
   */
  private async apply(thread: StoreThread, ids: number[]): Promise<void> {
    for (let start = 0; start < ids.length; start += APPLY_BATCH) {
      const batch = ids.slice(start, start + APPLY_BATCH);
      const rows = await this.store.selectWithFacts().where('resource.id', 'in', batch).execute();
      const present = new Set(rows.map((row) => row.id));
      const gone = batch.filter((id) => !present.has(id));
      const removed =
        gone.length === 0
          ? []
          : await this.db
              .selectFrom('removed_resources')
              .select('iri')
              .where('resource_id', 'in', gone)
              .execute();
      const published = rows.filter((row) => PUBLISHED_STATUSES.includes(row.status));
      await thread.replace(
        [...rows.map((row) => row.iri), ...removed.map((row) => row.iri)],
        await publishedQuads(this.context, published),
      );
    }
  }
}

function unavailable(): HttpError {
  return new HttpError(
    problem(
      503,
      'sparql-unavailable',
      'The SPARQL dataset is being built; ask again in a moment.',
      { headers: { 'retry-after': String(RETRY_WHILE_BUILDING_SECONDS) } },
    ),
  );
}
