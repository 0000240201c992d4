import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { RefdataSettings } from '../config.js';
import type { RefdataTables } from '../db/tables.js';
import type { FamilyRegistry } from '../families/registry.js';
import { VIEWS, type View } from '../lifecycle/views.js';
import { logCovers } from '../replicas/change-log.js';
import { Replica, type ReplicaLog } from '../replicas/replica.js';
import type { ResourceStore } from '../resources/store.js';
import { ClientShares } from './client-shares.js';
import { viewQuads } from './dataset.js';
import type { SparqlEngine } from './engine.js';
import type { QueryOutcome, QueryRequest, ReadOutcome } from './engine-calls.js';
import { busy, preempted, timedOut, unavailable } from './refusals.js';
import { datasetFingerprint, SavedDataset, type SnapshotPlace } from './saved-dataset.js';
import { type AskedQuery, StoreThread, WaitedTooLong } from './store-thread.js';

/** Published resources read per query while building; the event loop is let go between batches. */
const BUILD_BATCH = 2000;
/** What a client's work cost: engine seconds, and whether a copy had to be replaced. */
export interface Spent {
  seconds: number;
  replaced: boolean;
}

/** Changed resources read back per query. */
const APPLY_BATCH = 500;
/** The dataset's position is written down at most this often while it changes, */
const SAVE_MILLISECONDS = 5000;
/** and this often while nothing changes (a start after a long stop asks how old it is). */
const QUIET_SAVE_MILLISECONDS = 60_000;
/** A snapshot's changes may grow to this, or to the size of its build, before a new build. */
const SNAPSHOT_CHANGES_FLOOR_BYTES = 64 * 1024 * 1024;
/** About what a quad takes in a build's N-Quads (a class's run 150 to 200 bytes). */
const BUILD_BYTES_PER_QUAD = 200;

/**
 * This instance's SPARQL dataset, its published and working views: built from the database
 * at start (503 meanwhile), then kept from the change log as the search index
 * is (`Replica`). Each view lives in worker threads, `copies` of it, and in a
 * snapshot file (`StoreThread`). A query past the time limit is stopped by
 * ending its copy's thread; the other copies answer meanwhile, and a new copy
 * is filled from the snapshot, while queries wait in line when no copy is left.
 * Each client has its share of the engine (`ClientShares`).
 */
export class EmbeddedSparql extends Replica<StoreThread> implements SparqlEngine {
  /** Queries being evaluated or waiting for the thread. */
  private active = 0;
  private readonly shares: ClientShares;
  /** Where the snapshot files are kept, and, when this instance owns it, kept for the next start. */
  private saved: SavedDataset | undefined;
  /**
   * What a kept dataset must have been kept for: the code and settings that shape its
   * triples, and the database; read once at start, when this instance keeps one.
   */
  private keptFor: { fingerprint: string; database: string } | undefined;
  /** When the dataset's position was last written down, and which. */
  private lastSaved = { at: 0, position: -1 };

  constructor(
    db: Kysely<RefdataTables>,
    private readonly store: ResourceStore,
    private readonly context: { families: FamilyRegistry; iriBase: string },
    readonly settings: RefdataSettings['sparql'],
    log: ReplicaLog,
    /** The views this instance holds: both, or the working view beside an external store. */
    readonly heldViews: readonly View[] = VIEWS,
  ) {
    super(db, settings.pollMilliseconds, log, 'sparql dataset');
    this.shares = new ClientShares(settings.clientConcurrent, settings.timeoutMilliseconds);
  }

  /**
   * Loads the dataset this instance's directory kept from its last run (and the
   * changes since), or builds it from the database; resolves when it answers,
   * or after the start wait.
   */
  async start(): Promise<void> {
    this.saved = await SavedDataset.open(this.settings.snapshotDirectory);
    if (this.saved.owned)
      this.keptFor = {
        fingerprint: await datasetFingerprint({
          iriBase: this.context.iriBase,
          views: this.heldViews,
        }),
        database: await this.databaseName(),
      };
    return this.startWithin(this.settings.startWaitMilliseconds);
  }

  /** This database's name (migration 0018). */
  private async databaseName(): Promise<string> {
    const row = await this.db
      .selectFrom('database_identity')
      .select('token')
      .where('id', '=', 1)
      .executeTakeFirst();
    return row?.token ?? '';
  }

  override async close(): Promise<void> {
    await super.close();
    await this.saved?.close();
  }

  /**
   * Reads and evaluates a query over one view for `client`, within the limits
   * (`admitted`), once this instance's own writes are in the view.
   */
  query(view: View, request: QueryRequest, client: string): Promise<QueryOutcome> {
    return this.admitted(client, async (priority, spent) => {
      await this.caughtUp();
      return this.timed((thread) => thread.query(view, request, priority), spent);
    });
  }

  /** Reads a query with a copy of `view` (the working view, beside an external store), within the limits. */
  read(view: View, text: string, maxRows: number, client: string): Promise<ReadOutcome> {
    return this.admitted(client, (priority, spent) =>
      this.readWithin(view, text, maxRows, priority, spent),
    );
  }

  /**
   * Reads a query with a copy of `view` (the working view when it is not held
   * here), as part of work `admitted` runs; `namedGraphs` lists the graphs a
   * `GRAPH ?g {}` stands for.
   */
  readWithin(
    view: View,
    text: string,
    maxRows: number,
    priority: number,
    spent: Spent,
    namedGraphs?: string[],
  ): Promise<ReadOutcome> {
    const held = this.heldViews.includes(view) ? view : 'working';
    return this.timed((thread) => thread.read(held, text, maxRows, priority, namedGraphs), spent);
  }

  /**
   * Runs `work` for `client` within the limits: the client's share (429
   * beyond, `ClientShares`), at most `maxConcurrent` at once (503
   * `sparql-busy` beyond); `work` notes the engine time it spent, and whether
   * a copy had to be replaced, which the client is charged. An external store's
   * queries run within the same limits.
   */
  async admitted<Outcome>(
    client: string,
    work: (priority: number, spent: Spent) => Promise<Outcome>,
  ): Promise<Outcome> {
    if (this.active >= this.settings.maxConcurrent) throw busy(this.settings.maxConcurrent);
    const charge = this.shares.admit(client);
    this.active += 1;
    const spent = { seconds: 0, replaced: false };
    try {
      return await work(this.shares.balanceOf(client), spent);
    } finally {
      this.active -= 1;
      charge(spent.seconds, spent.replaced);
    }
  }

  /**
   * Gives a call to a copy and waits for its answer, for at most the time
   * limit from when the copy takes it up: past it, the copy is ended (the
   * only way to stop the engine) and replaced from the snapshot.
   */
  private async timed<Outcome>(
    ask: (thread: StoreThread) => AskedQuery<Outcome>,
    spent: Spent,
  ): Promise<Outcome> {
    const thread = this.thread;
    if (!thread) throw unavailable();
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    let startedAt: number | undefined;
    const asked = ask(thread);
    const pastTime = asked.started.then(
      () =>
        new Promise<'timeout'>((resolve) => {
          if (settled) return;
          startedAt = Date.now();
          timer = setTimeout(() => resolve('timeout'), this.settings.timeoutMilliseconds);
        }),
    );
    const answer = await Promise.race([
      asked.answer.catch((error: unknown) =>
        error instanceof WaitedTooLong ? ('waited' as const) : ('ended' as const),
      ),
      pastTime,
    ]);
    settled = true;
    clearTimeout(timer);
    if (startedAt !== undefined) spent.seconds += (Date.now() - startedAt) / 1000;
    if (asked.replaced()) spent.replaced = true;
    if (answer === 'timeout') {
      asked.stop();
      spent.replaced = true;
      throw timedOut(this.settings.timeoutMilliseconds);
    }
    if (answer === 'waited')
      throw busy(this.settings.maxConcurrent, this.settings.queueWaitMilliseconds);
    if (answer === 'ended' && asked.preempted()) {
      spent.replaced = true;
      throw preempted();
    }
    // The copy ended under the call (the instance is closing, or its thread failed).
    if (answer === 'ended') throw unavailable();
    return answer;
  }

  protected newThread(onFailure: (error: Error) => void): StoreThread {
    if (!this.saved) throw new Error('the SPARQL dataset was not started');
    return this.threadAt(this.saved.newPlaces(this.heldViews), onFailure);
  }

  private threadAt(
    places: Record<View, SnapshotPlace>,
    onFailure: (error: Error) => void,
  ): StoreThread {
    return new StoreThread(
      this.heldViews,
      {
        copies: this.settings.copies,
        places,
        waitMilliseconds: this.settings.queueWaitMilliseconds,
        onLeftOut: (view, iris) =>
          this.log.warn(
            { view, iris: iris.slice(0, 20), count: iris.length },
            'sparql dataset: resources left out of a view, their RDF could not be read',
          ),
      },
      onFailure,
    );
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
      loading = thread.load(quads);
      // Its failure is taken up at the next `await loading`, not as an unhandled rejection.
      loading.catch(() => undefined);
      after = rows[rows.length - 1]?.id ?? after;
      await nextTurn();
    }
    await loading;
    // The other copies are filled from the snapshot, one at a time, while the first answers.
    thread.fillOthers();
    return () => undefined;
  }

  /**
   * The dataset this instance's directory kept from its last run, loaded, if
   * it was kept by the same code and settings from the same database and the
   * change log still holds every change since (docs/sparql.md).
   */
  protected override async resume(
    onFailure: (thread: StoreThread, error: Error) => void,
  ): Promise<{ thread: StoreThread; position: number } | undefined> {
    const saved = this.saved;
    const keptFor = this.keptFor;
    if (!saved?.owned || !keptFor) return undefined;
    let thread: StoreThread | undefined;
    try {
      const found = await saved.resumable({ ...keptFor, views: this.heldViews });
      if (!found || !(await logCovers(this.db, found.position, found.savedAt))) return undefined;
      const started = Date.now();
      const made = this.threadAt(found.places, (error) => onFailure(made, error));
      thread = made;
      made.keepFiles = true;
      await made.restore();
      this.log.info(
        { quads: made.size, milliseconds: Date.now() - started, position: found.position },
        'sparql dataset: loaded what it kept at its last run',
      );
      return { thread: made, position: found.position };
    } catch (error) {
      this.log.warn(
        { err: error },
        'sparql dataset: what it kept at its last run could not be loaded; building it anew',
      );
      if (thread) {
        thread.keepFiles = false;
        await thread.close();
      }
      return undefined;
    }
  }

  /**
   * Notes the position the dataset holds every change up to, beside its
   * snapshot files, for the next start: at most every few seconds while it
   * changes, once a minute while quiet, and at once when `settled` (built,
   * loaded, or closing).
   */
  protected override async reached(
    thread: StoreThread,
    position: number,
    settled: boolean,
  ): Promise<void> {
    const saved = this.saved;
    const keptFor = this.keptFor;
    if (!saved?.owned || !keptFor) return;
    const now = Date.now();
    const since = now - this.lastSaved.at;
    const due =
      settled ||
      since >= QUIET_SAVE_MILLISECONDS ||
      (position !== this.lastSaved.position && since >= SAVE_MILLISECONDS);
    if (!due) return;
    try {
      await thread.flushed();
      await saved.save({
        ...keptFor,
        position,
        views: thread.places,
      });
      thread.keepFiles = true;
      this.lastSaved = { at: now, position };
    } catch (error) {
      this.log.warn({ err: error }, 'sparql dataset: its position could not be kept');
    }
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
    // The snapshot keeps every change: once the changes outweigh the build they follow,
    // a new build (beside this one, which answers meanwhile) starts a snapshot afresh. A
    // dataset written by changes alone (a bulk import into an empty one) holds each
    // resource once, as a build would: twice what a build of the views would write
    // counts as its build too.
    const places = Object.values(thread.places);
    const all = places.reduce((sum, place) => sum + place.bytes, 0);
    const changes = places.reduce((sum, place) => sum + place.changeBytes, 0);
    const build = Math.max(all - changes, 2 * thread.size * BUILD_BYTES_PER_QUAD);
    if (changes > Math.max(SNAPSHOT_CHANGES_FLOOR_BYTES, build))
      this.rebuild('its snapshot holds more changes than the build they follow');
  }
}
