import type { Kysely } from 'kysely';
import { SingleWriterLease } from '../../../platform/background/single-writer-lease.js';
import type { RefdataTables } from '../../db/tables.js';
import { LIBRARY_FAMILY } from '../../families/family.js';
import type { FamilyRegistry } from '../../families/registry.js';
import { writableIri } from '../../rdf/writable-terms.js';
import { CHANGE_RETENTION_MS, ChangeFollower } from '../../replicas/change-log.js';
import { FollowLoop } from '../../replicas/follow-loop.js';
import type { ReplicaLog } from '../../replicas/replica.js';
import type { ResourceStore } from '../../resources/store.js';
import { publishedTriplesByGraph, unfiledGraph } from '../dataset.js';
import { deleteResourcesUpdate } from './delete-update.js';
import type { ExternalStore } from './store-client.js';

/** Changed resources sent to the store at once. */
const APPLY_BATCH = 200;
/** Published resources read per query in a resynchronisation. */
const RESYNC_BATCH = 2000;
/** How long after a failed turn the next is tried; doubled after each failure in a row, up to a minute. */
const RETRY_MILLISECONDS = 2000;
const MAX_RETRY_MILLISECONDS = 60_000;

/**
 * Keeps the published view in an external SPARQL store: from the change log,
 * each changed resource's triples deleted from whatever graph holds them (and
 * the blank nodes they hold) and its triples now posted to its library's
 * graph. Delivery is at least once: the position in the log is kept in the
 * database (`sparql_store_sync`) and moves only after the store has taken
 * the changes before it, so a store or an instance killed mid-way has them
 * sent again, and sending twice leaves the same triples.
 *
 * One instance writes at a time: it holds a lease on the row, renewed as it
 * goes; another takes over when it lapses (the holder ended). A store other
 * than the one the position is about, a position never set, or one older
 * than the change log keeps, is followed by a resynchronisation from scratch.
 */
/**
 * Asks for the store to be rewritten from scratch: the instance keeping it
 * does so on its next turn, or the next one to start (the command's way).
 */
export async function requestResync(db: Kysely<RefdataTables>): Promise<void> {
  await db
    .updateTable('sparql_store_sync')
    .set({ resync_requested_at: Date.now() })
    .where('id', '=', 1)
    .execute();
}

export class StoreSync {
  private readonly loop: FollowLoop;
  /** One instance writes to the store at a time. */
  private readonly lease: SingleWriterLease;
  /** The follower in use and the position it was started from, while this instance holds the lease. */
  private follower: { follower: ChangeFollower; position: number } | undefined;
  private failedAt = 0;
  private retryMilliseconds = RETRY_MILLISECONDS;
  /** The last turn sent everything the log held: the position is in step, though it may not move. */
  private inStep = false;
  private closed = false;

  constructor(
    private readonly db: Kysely<RefdataTables>,
    private readonly store: ResourceStore,
    private readonly context: { families: FamilyRegistry; iriBase: string },
    private readonly client: ExternalStore,
    pollMilliseconds: number,
    private readonly log: ReplicaLog,
  ) {
    this.loop = new FollowLoop(pollMilliseconds, () => this.turn());
    this.lease = new SingleWriterLease(
      db,
      { table: 'sparql_store_sync', id: 1 },
      client.config.leaseMilliseconds,
    );
  }

  start(): void {
    this.loop.start();
  }

  /** A write of this instance has committed: the next turn sends it. */
  noteLocalWrite(): void {
    this.loop.noteLocalWrite();
  }

  /** Resolves once every write noted before the call has been sent (or a turn failed). */
  caughtUp(): Promise<void> {
    return this.loop.caughtUp();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.loop.close();
    // Another instance need not wait for the lease to lapse.
    await this.lease.release().catch(() => undefined);
  }

  /**
   * Rewrites every library's graph from the database. Changes made meanwhile
   * are sent after it (the log's end is read first). A library's graph is
   * replaced by its first batch and grows with the next: until the end,
   * queries see it part written.
   */
  private async resync(): Promise<void> {
    const began = Date.now();
    const follower = await ChangeFollower.fromEnd(this.db);
    const written = new Set<string>();
    let after = 0;
    while (!this.closed) {
      const rows = await this.store
        .selectWithFacts()
        .where('resource.id', '>', after)
        .orderBy('resource.id')
        .limit(RESYNC_BATCH)
        .execute();
      if (rows.length === 0) break;
      for (const [graph, ntriples] of publishedTriplesByGraph(this.context, rows)) {
        await this.keepLease();
        await this.client.writeGraph(written.has(graph) ? 'POST' : 'PUT', graph, ntriples);
        written.add(graph);
      }
      after = rows[rows.length - 1]?.id ?? after;
    }
    if (this.closed) return;
    // A graph with nothing published now may hold what was: a library's, or one removed.
    for (const graph of await this.libraryGraphs(true)) {
      if (!written.has(graph)) {
        await this.keepLease();
        await this.client.update(`DROP SILENT GRAPH <${writableIri(graph)}>`);
      }
    }
    await this.record(follower.safePosition, began);
    this.follower = { follower, position: follower.safePosition };
    this.log.info({ graphs: written.size }, 'sparql store: resynchronised');
  }

  /**
   * The graphs queries see as the dataset: each library's, and the one for
   * resources in none. With `removed`, the graphs of removed libraries too.
   */
  async libraryGraphs(removed = false): Promise<string[]> {
    const libraries = await this.db
      .selectFrom('resources')
      .select('iri')
      .where('family', '=', LIBRARY_FAMILY)
      .execute();
    const gone = removed
      ? await this.db
          .selectFrom('removed_resources')
          .select('iri')
          .where('family', '=', LIBRARY_FAMILY)
          .execute()
      : [];
    return [
      ...new Set([
        ...libraries.map((row) => row.iri),
        ...gone.map((row) => row.iri),
        unfiledGraph(this.context.iriBase),
      ]),
    ];
  }

  private async turn(): Promise<void> {
    if (this.closed || Date.now() - this.failedAt < this.retryMilliseconds) return;
    try {
      if (!(await this.holdLease())) {
        this.follower = undefined;
        this.inStep = false;
        return;
      }
      const state = await this.db
        .selectFrom('sparql_store_sync')
        .selectAll()
        .where('id', '=', 1)
        .executeTakeFirstOrThrow();
      const position = Number(state.position);
      if (
        state.synced_at === 0 ||
        state.store !== this.client.config.graphStoreUrl ||
        Date.now() - state.synced_at > CHANGE_RETENTION_MS / 2 ||
        state.resync_requested_at > state.resynced_at
      ) {
        this.log.info({}, 'sparql store: resynchronising from scratch');
        await this.resync();
        this.inStep = true;
        this.retryMilliseconds = RETRY_MILLISECONDS;
        return;
      }
      // Another holder may have moved the position since this instance followed.
      if (this.follower?.position !== position)
        this.follower = { follower: ChangeFollower.from(position), position };
      const { follower } = this.follower;
      let more = true;
      while (more && !this.closed) {
        const next = await follower.next(this.db);
        more = next.more;
        const ids = [...next.resourceIds];
        for (let start = 0; start < ids.length; start += APPLY_BATCH)
          await this.apply(ids.slice(start, start + APPLY_BATCH));
        if (ids.length > 0 || follower.safePosition !== this.follower.position) {
          await this.record(follower.safePosition);
          this.follower.position = follower.safePosition;
        }
      }
      this.inStep = true;
      this.retryMilliseconds = RETRY_MILLISECONDS;
    } catch (error) {
      // The position has not moved past what failed: it is sent again on a later turn.
      this.failedAt = Date.now();
      this.retryMilliseconds = Math.min(this.retryMilliseconds * 2, MAX_RETRY_MILLISECONDS);
      this.follower = undefined;
      this.inStep = false;
      if (!this.closed) this.log.error({ err: error }, 'sparql store: a turn failed');
    }
  }

  /** Sends these resources' triples now (none, when they are not published or gone). */
  private async apply(ids: number[]): Promise<void> {
    const { rows, iris } = await this.store.changed(ids);
    if (iris.length > 0) {
      await this.keepLease();
      await this.client.update(deleteResourcesUpdate(iris));
    }
    for (const [graph, ntriples] of publishedTriplesByGraph(this.context, rows)) {
      await this.keepLease();
      await this.client.writeGraph('POST', graph, ntriples);
    }
  }

  /**
   * Before each write: renews the lease when half of it is gone, and stops the
   * task if another instance has taken it. A write lasts at most a third of
   * the lease (store-client.ts), so it ends while this instance still holds it:
   * a write of a former holder never lands after the next one's.
   */
  private async keepLease(): Promise<void> {
    if (!(await this.holdLease())) throw new Error('another instance took over the SPARQL store');
  }

  /** Takes or renews the lease; false while another holds it. */
  private async holdLease(): Promise<boolean> {
    const holding = await this.lease.hold();
    // Turns that find nothing to send keep the position in step with the log; failing ones do not.
    if (holding === 'renewed' && this.inStep) await this.record(undefined);
    return holding !== 'not-held';
  }

  /**
   * Moves the position (when given), as long as this instance holds the lease;
   * after a resynchronisation (`resyncedAt`, when it began), names the store too.
   */
  private async record(position: number | undefined, resyncedAt?: number): Promise<void> {
    await this.db
      .updateTable('sparql_store_sync')
      .set({
        ...(position === undefined ? {} : { position }),
        ...(resyncedAt === undefined
          ? {}
          : { store: this.client.config.graphStoreUrl, resynced_at: resyncedAt }),
        synced_at: Date.now(),
      })
      .where('id', '=', 1)
      .where('holder', '=', this.lease.holder)
      .execute();
  }
}
