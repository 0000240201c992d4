import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { RefdataSettings } from '../config.js';
import type { RefdataTables } from '../db/tables.js';
import type { FamilyRegistry } from '../families/registry.js';
import { VIEWS, type View } from '../lifecycle/views.js';
import { Replica, type ReplicaLog } from '../replicas/replica.js';
import type { ResourceStore } from '../resources/store.js';
import { viewQuads } from './dataset.js';
import type { ExternalSparql } from './external/engine.js';
import { busy, timedOut, unavailable } from './refusals.js';
import { StoreThread } from './store-thread.js';
import type { DatasetChoice, QueryOutcome } from './store-worker.js';

/** Published resources read per query while building; the event loop is let go between batches. */
const BUILD_BATCH = 2000;
/** How long a published-view query waits for its instance's writes to reach an external store. */
const OWN_WRITES_WAIT_MILLISECONDS = 2000;

/** Resolves when `promise` settles or after `milliseconds`, whichever is first. */
async function firstOf(promise: Promise<unknown>, milliseconds: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, milliseconds);
    }),
  ]);
  clearTimeout(timer);
}

/** Changed resources read back per query. */
const APPLY_BATCH = 500;

/**
 * This instance's SPARQL dataset, its published and working views: built from the database
 * at start (503 meanwhile), then kept from the change log as the search index
 * is (`Replica`). Each view lives in worker threads, `copies` of it
 * (`StoreThread`). A query past the time limit is stopped by ending its copy's
 * thread; the other copies answer meanwhile, and a new copy is filled from one
 * of them. With one copy, the dataset is built anew and /sparql answers 503
 * until it is.
 */
export class SparqlService extends Replica<StoreThread> {
  /** Queries being evaluated or waiting for the thread. */
  private active = 0;

  constructor(
    db: Kysely<RefdataTables>,
    private readonly store: ResourceStore,
    private readonly context: { families: FamilyRegistry; iriBase: string },
    readonly settings: RefdataSettings['sparql'],
    log: ReplicaLog,
    /** The store the published view is kept in, when one is configured: this instance keeps the working view. */
    readonly external?: ExternalSparql,
  ) {
    super(db, settings.pollMilliseconds, log, 'sparql dataset');
  }

  /** The views this instance holds: both, or the working view beside an external store. */
  get heldViews(): readonly View[] {
    return this.external ? ['working'] : VIEWS;
  }

  /** Starts the first build and the timer; resolves when built or after the start wait. */
  start(): Promise<void> {
    this.external?.sync.start();
    return this.startWithin(this.settings.startWaitMilliseconds);
  }

  override async close(): Promise<void> {
    await Promise.all([super.close(), this.external?.sync.close()]);
  }

  override noteLocalWrite(): void {
    super.noteLocalWrite();
    this.external?.noteLocalWrite();
  }

  /**
   * Evaluates a query over one view, within the limits: at most
   * `maxConcurrent` at once (503 `sparql-busy` beyond), each for at most
   * `timeoutMilliseconds` (then stopped: 503 `sparql-timeout`).
   */
  async query(
    view: View,
    text: string,
    format: string,
    dataset: DatasetChoice,
  ): Promise<QueryOutcome> {
    if (this.active >= this.settings.maxConcurrent) throw busy(this.settings.maxConcurrent);
    this.active += 1;
    try {
      if (view === 'published' && this.external) {
        // What this instance wrote is in the store first, when it is the one keeping it,
        // unless the store takes longer than a moment (a resynchronisation under way).
        await firstOf(this.external.sync.caughtUp(), OWN_WRITES_WAIT_MILLISECONDS);
        return await this.external.query(text, format, dataset);
      }
      await this.caughtUp();
      const thread = this.thread;
      if (!thread) throw unavailable();
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const asked = thread.query(view, text, format, dataset);
      // Its time runs from when the thread takes it up, not while it waits in line.
      const pastTime = asked.started.then(
        () =>
          new Promise<'timeout'>((resolve) => {
            if (settled) return;
            timer = setTimeout(() => resolve('timeout'), this.settings.timeoutMilliseconds);
          }),
      );
      const answer = await Promise.race([asked.answer.catch(() => 'ended' as const), pastTime]);
      settled = true;
      clearTimeout(timer);
      if (answer === 'timeout') {
        // The store cannot interrupt a query: its copy's thread is ended and filled anew
        // from a sibling, or, without one, the whole dataset is built anew.
        if (!asked.stop()) this.discard(thread, 'a query ran past the time limit');
        throw timedOut(this.settings.timeoutMilliseconds);
      }
      // The thread ended under the query (another one's time ran out, or memory).
      if (answer === 'ended') throw unavailable();
      return answer;
    } finally {
      this.active -= 1;
    }
  }

  protected newThread(onFailure: (error: Error) => void): StoreThread {
    return new StoreThread(this.heldViews, this.settings.copies, onFailure);
  }

  protected async fill(thread: StoreThread): Promise<() => void> {
    let after = 0;
    // The thread loads one batch while the next is read and written as N-Quads.
    let loading: Promise<void> = Promise.resolve();
    while (!this.closed) {
      const rows = await this.store
        .selectWithFacts()
        .where('resource.id', '>', after)
        .orderBy('resource.id')
        .limit(BUILD_BATCH)
        .execute();
      if (rows.length === 0) break;
      const quads = viewQuads(this.context, rows);
      await loading;
      loading = thread.replace([], quads);
      // Its failure is taken up at the next `await loading`, not as an unhandled rejection.
      loading.catch(() => undefined);
      after = rows[rows.length - 1]?.id ?? after;
      await nextTurn();
    }
    await loading;
    return () => undefined;
  }

  /**
   * Brings the changed resources up to date: each one's triples are replaced by
   * its triples now, or removed when it is no longer published (or no longer
   * stored: a removed picklist value is found by its tombstone).
   */
  protected async apply(thread: StoreThread, ids: number[]): Promise<void> {
    for (let start = 0; start < ids.length; start += APPLY_BATCH) {
      const { rows, iris } = await this.store.changed(ids.slice(start, start + APPLY_BATCH));
      await thread.replace(iris, viewQuads(this.context, rows));
    }
  }
}
