import { siblingModule, startModuleWorker } from '../../platform/threads/module-worker.js';
import { WorkerCalls } from '../../platform/threads/worker-calls.js';
import { VIEWS, type View } from '../lifecycle/views.js';
import type { QueryOutcome, QueryRequest, ReadOutcome } from './engine-calls.js';
import type { SnapshotPlace, SnapshotState } from './saved-dataset.js';
import { SnapshotFile } from './snapshot-file.js';
import type { SparqlStoreApi } from './store-worker.js';

/** A call given to a copy: its answer, when the copy took it up, and how to stop it. */
export interface AskedQuery<Outcome> {
  answer: Promise<Outcome>;
  /** Resolves when the copy takes the call up (every call before it answered). */
  started: Promise<void>;
  /** Ends the copy evaluating it, the only way to stop it; a new copy is filled from the snapshot. */
  stop(): void;
  /** Whether its copy was replaced after it (stopped, trapped, or left swollen). */
  replaced(): boolean;
  /** Whether it was stopped for queries waiting while another long query ran (`keepLane`). */
  preempted(): boolean;
}

/** A copy may hold this much memory, or twice what its view needs, before it is replaced. */
const SWOLLEN_FLOOR_BYTES = 512 * 1024 * 1024;
const SWOLLEN_FACTOR = 2;

/** A query waited longer than it may for a copy of its view. */
export class WaitedTooLong extends Error {}

/** A query runs long once it has run this long: past it, it is in the lane for long queries. */
const LONG_QUERY_MILLISECONDS = 1000;
/** How often a view looks for long queries holding copies that queries wait for. */
const LANE_CHECK_MILLISECONDS = 200;

/** Starts a store's worker thread; `onEnd` hears of it ending, asked or not. */
type StartWorker = (onEnd: (error: Error) => void) => WorkerCalls<SparqlStoreApi>;

/** One copy of a view: a store in a worker thread, its calls answered in the order made. */
class Copy {
  quads = 0;
  /** The memory it held after its last change: what its view needs. */
  baselineBytes = 0;
  /** A query is being evaluated: the copy takes no other until it is answered. */
  querying = false;
  /** Ended (stopped, spent or closed): its calls' failures are expected. */
  retired = false;
  /** Being filled from the snapshot: changes wait in its line, and nobody waits for them. */
  filling = false;
  /** The query it evaluates now: since when, and how to stop it for a query waiting. */
  running: { since: number; preempt: () => void } | undefined;
  private last: Promise<unknown> = Promise.resolve();
  /** Calls wait for this (a new copy's filling) before they are sent. */
  private ready: Promise<void> = Promise.resolve();
  private readonly calls: WorkerCalls<SparqlStoreApi>;

  /** `onFailure` hears of its thread ending unasked. */
  constructor(start: StartWorker, onFailure: (error: Error) => void) {
    this.calls = start((error) => {
      if (!this.retired) onFailure(error);
    });
  }

  call<Method extends keyof SparqlStoreApi & string>(
    method: Method,
    ...args: Parameters<SparqlStoreApi[Method]>
  ): { answer: Promise<Awaited<ReturnType<SparqlStoreApi[Method]>>>; started: Promise<void> } {
    const started = this.last.then(
      () => undefined,
      () => undefined,
    );
    const answer = this.ready.then(() => this.calls.call(method, ...args));
    this.last = answer.catch(() => undefined);
    return { answer, started };
  }

  /** Fills the copy from a snapshot file first: every call made after this waits for it. */
  restoreFrom(snapshot: SnapshotFile): Promise<void> {
    this.filling = true;
    this.ready = snapshot
      .flushed()
      .then(async () => {
        // What it leaves out was left out, and said, when the change was first made.
        this.took(await this.calls.call('restore', snapshot.path));
      })
      .finally(() => {
        this.filling = false;
      });
    return this.ready;
  }

  /** Notes what the copy holds after a change; answers the resources it left out. */
  took(held: { quads: number; heldBytes: number; leftOut: string[] }): string[] {
    this.quads = held.quads;
    this.baselineBytes = held.heldBytes;
    return held.leftOut;
  }

  /**
   * Whether a query left the copy holding far more memory than its view
   * needs: its engine never gives memory back, so the copy is replaced.
   */
  swollen(heldBytes: number | undefined): boolean {
    return (
      heldBytes !== undefined &&
      heldBytes > Math.max(SWOLLEN_FLOOR_BYTES, SWOLLEN_FACTOR * this.baselineBytes)
    );
  }

  terminate(): Promise<void> {
    return this.calls.terminate();
  }
}

/**
 * A query waiting for a copy, for at most the wait allowed. The next free copy
 * goes to the waiting query of highest `priority` (its client's unspent share
 * of the engine), first come first served among equals.
 */
interface Waiting {
  priority: number;
  resolve: (copy: Copy) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * One view's copies: each change goes to every copy, and to the view's
 * snapshot file; each query to one copy not evaluating another, in the order
 * asked. A query past its time is stopped by ending its copy, as is a copy
 * whose engine trapped or failed a change: a new copy is filled from the
 * snapshot in its own thread while the others answer. With every copy being
 * filled, queries wait in line, each for at most `waitMilliseconds`.
 */
class ViewCopies {
  private copies: Copy[];
  private readonly waiting: Waiting[] = [];
  readonly snapshot: SnapshotFile;
  /** Copies long queries may hold at once while others wait: all but one (one with one copy). */
  private readonly longLane: number;
  private readonly laneCheck: NodeJS.Timeout;
  private closed = false;

  constructor(
    readonly view: View,
    private readonly start: StartWorker,
    count: number,
    private readonly onFailure: (error: Error) => void,
    place: SnapshotPlace,
    private readonly waitMilliseconds: number,
    /** Hears of resources whose RDF a copy could not read, and left out. */
    private readonly onLeftOut: (iris: string[]) => void,
  ) {
    this.snapshot = new SnapshotFile(place.path, place.resume);
    this.copies = Array.from({ length: count }, () => new Copy(start, onFailure));
    this.longLane = Math.max(1, count - 1);
    this.laneCheck = setInterval(() => this.keepLane(), LANE_CHECK_MILLISECONDS);
    this.laneCheck.unref();
  }

  /**
   * Long queries share one lane: while queries wait, no more than `longLane`
   * copies evaluate queries that have run past `LONG_QUERY_MILLISECONDS`; the
   * youngest beyond it is stopped (its copy replaced, its client told to ask
   * again), so that runaway queries of several clients cannot hold every copy,
   * nor every core, from the queries waiting.
   */
  private keepLane(): void {
    if (this.waiting.length === 0) return;
    const now = Date.now();
    const long = this.copies
      .filter((copy) => copy.running && now - copy.running.since > LONG_QUERY_MILLISECONDS)
      .sort((a, b) => (b.running?.since ?? 0) - (a.running?.since ?? 0));
    for (const copy of long.slice(0, Math.max(0, long.length - this.longLane)))
      copy.running?.preempt();
  }

  get quads(): number {
    return this.copies.find((copy) => !copy.querying || copy.quads > 0)?.quads ?? 0;
  }

  /**
   * Gives a change to the snapshot and every copy; resolves when the copies
   * that answer queries hold it. A copy still being filled takes it after the
   * file, in its line, and nobody waits for it: its queries wait behind it.
   */
  async replace(iris: string[], nquads: string): Promise<void> {
    // A copy let go by a new build may still be handed a change a turn had begun with.
    if (this.closed) return;
    // In the snapshot first: a copy filled from it from now on holds the change.
    this.snapshot.append(iris, nquads);
    await this.give(this.copies, iris, nquads);
    await this.snapshot.flushed();
  }

  /**
   * A batch of the build: to the snapshot and the first copy alone. The
   * others are filled from the snapshot once the build is done (`fillOthers`),
   * one after another, rather than all load every batch at once on the cores
   * that serve requests.
   */
  async load(nquads: string): Promise<void> {
    this.snapshot.append([], nquads);
    await this.give(this.copies.slice(0, 1), [], nquads);
  }

  private async give(copies: Copy[], iris: string[], nquads: string): Promise<void> {
    const leftOut = new Set<string>();
    await Promise.all(
      copies.map(async (copy) => {
        const filling = copy.filling;
        const taken = copy.call('replace', iris, nquads).answer.then(
          (held) => {
            const left = copy.took(held);
            // A copy being filled leaves out what the first copies left out, and said.
            if (!filling) for (const iri of left) leftOut.add(iri);
          },
          () => {
            // A copy that cannot take a change is replaced by one filled from the snapshot,
            // unless it was already ended (a copy being replaced answers nothing more).
            if (!copy.retired) this.replaceCopy(copy);
          },
        );
        if (!filling) await taken;
      }),
    );
    if (leftOut.size > 0) this.onLeftOut([...leftOut]);
  }

  /**
   * Fills the first copy from the snapshot file, at the priority of requests
   * when `leading` (the view a start waits for) and stepped back otherwise;
   * resolves when it answers. The others follow it (`fillOthers`).
   */
  async restoreFirst(leading: boolean): Promise<void> {
    const [first] = this.copies;
    if (!first) return;
    if (!leading) this.stepBack(first);
    first.querying = true;
    await first.restoreFrom(this.snapshot);
    this.release(first);
    this.fillOthers();
  }

  /** A copy gives way to requests from its next call on (the first, once it answers alone). */
  private stepBack(copy: Copy): void {
    copy.call('stepBack').answer.catch(() => undefined);
  }

  /**
   * Fills every copy but the first from the snapshot, one after another, each
   * busy (no query waits for it) until filled, then answering.
   */
  fillOthers(): void {
    const others = this.copies.slice(1);
    for (const copy of this.copies) this.stepBack(copy);
    for (const copy of others) copy.querying = true;
    void (async () => {
      for (const copy of others) {
        if (copy.retired) continue;
        try {
          await copy.restoreFrom(this.snapshot);
          this.release(copy);
        } catch (error) {
          // A copy that cannot be filled from the snapshot leaves the dataset to be built anew.
          if (!copy.retired) this.onFailure(error as Error);
        }
      }
    })();
  }

  /** Where the snapshot is, and how much of it is written. */
  get place(): SnapshotState {
    return {
      path: this.snapshot.path,
      bytes: this.snapshot.bytes,
      changeBytes: this.snapshot.changeBytes,
    };
  }

  /** Sends a call to a copy not evaluating another, and holds the copy until it answers. */
  ask<Outcome extends QueryOutcome | ReadOutcome>(
    send: (copy: Copy) => { answer: Promise<Outcome>; started: Promise<void> },
    priority: number,
  ): AskedQuery<Outcome> {
    let copy: Copy | undefined;
    let replaced = false;
    let preempted = false;
    // A copy is taken the moment it is chosen (`querying`), so that no two queries share one.
    const taken = new Promise<Copy>((resolve, reject) => {
      const free = this.copies.find((candidate) => !candidate.querying);
      if (free) {
        free.querying = true;
        resolve(free);
        return;
      }
      const entry: Waiting = {
        priority,
        resolve,
        reject,
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(entry);
          if (at !== -1) this.waiting.splice(at, 1);
          reject(new WaitedTooLong('no copy of the view was free in time'));
        }, this.waitMilliseconds),
      };
      this.waiting.push(entry);
    }).then((chosen) => {
      copy = chosen;
      const asked = send(chosen);
      void asked.started.then(() => {
        if (copy === chosen && !chosen.retired && !replaced)
          chosen.running = {
            since: Date.now(),
            preempt: () => {
              preempted = true;
              replaced = true;
              this.replaceCopy(chosen);
            },
          };
      });
      return { chosen, asked };
    });
    const answer = taken.then(({ chosen, asked }) =>
      asked.answer.then(
        (outcome) => {
          chosen.running = undefined;
          // A trapped engine is never asked again, and a swollen one gives back its memory
          // only by ending: the copy is replaced, not released.
          replaced =
            (!outcome.ok && outcome.refusal.kind === 'trapped') ||
            (outcome.ok && 'heldBytes' in outcome && chosen.swollen(outcome.heldBytes));
          if (replaced) this.replaceCopy(chosen);
          else this.release(chosen);
          return outcome;
        },
        (error: unknown) => {
          chosen.running = undefined;
          this.release(chosen);
          throw error;
        },
      ),
    );
    return {
      answer,
      // A query let go without a copy is answered by its failure, not timed.
      started: taken.then(
        ({ asked }) => asked.started,
        () => undefined,
      ),
      stop: () => {
        replaced = true;
        if (copy) this.replaceCopy(copy);
      },
      replaced: () => replaced,
      preempted: () => preempted,
    };
  }

  /** A copy has answered (or been filled): the next query waiting takes it, still marked. */
  private release(copy: Copy): void {
    if (copy.retired) return;
    // The waiting query of the client with the most share left; the first among equals.
    let at = -1;
    for (let index = 0; index < this.waiting.length; index += 1)
      if (at === -1 || (this.waiting[index]?.priority ?? 0) > (this.waiting[at]?.priority ?? 0))
        at = index;
    const next = at === -1 ? undefined : this.waiting.splice(at, 1)[0];
    if (next) {
      clearTimeout(next.timer);
      next.resolve(copy);
    } else copy.querying = false;
  }

  /**
   * Ends `copy` and fills a new one from the snapshot, in the new copy's
   * thread: every change made before it is in the file, every one made after
   * it reaches the new copy once the file is loaded (a change in both is
   * applied twice, to the same effect).
   */
  private replaceCopy(copy: Copy): void {
    if (copy.retired) return;
    copy.retired = true;
    copy.running = undefined;
    void copy.terminate();
    const fresh = new Copy(this.start, this.onFailure);
    this.stepBack(fresh);
    // Busy until filled, so that no query waits on it while another copy is free.
    fresh.querying = true;
    this.copies = this.copies.map((candidate) => (candidate === copy ? fresh : candidate));
    fresh.restoreFrom(this.snapshot).then(
      () => this.release(fresh),
      (error: Error) => {
        // A copy that cannot be filled from the snapshot leaves the dataset to be built anew.
        if (!fresh.retired) this.onFailure(error);
      },
    );
  }

  /** Ends every copy, lets go the queries waiting for one, and removes the snapshot unless `keep`. */
  async close(keep: boolean): Promise<void> {
    this.closed = true;
    clearInterval(this.laneCheck);
    for (const copy of this.copies) copy.retired = true;
    const ended = new Error('the SPARQL dataset was closed');
    for (const waiting of this.waiting.splice(0)) {
      clearTimeout(waiting.timer);
      waiting.reject(ended);
    }
    await Promise.all(this.copies.map((copy) => copy.terminate()));
    await this.snapshot.close(keep);
  }
}

/**
 * A SPARQL dataset seen from the thread that serves requests: each view in
 * worker threads of its own (`store-worker.ts`), `copies` of it, and a
 * snapshot file of it at its `places` (`saved-dataset.ts`). Each
 * thread's store lives in WebAssembly memory, at most 4 GiB: a thread per
 * view lets each view have it (docs/sparql.md), and the views answer side by
 * side. Calls to a copy are answered in the order made, so a query made
 * after a change sees it.
 */
export class StoreThread {
  private closing = false;
  private readonly views: Partial<Record<View, ViewCopies>> = {};
  /** The snapshot files are named by a saved dataset's manifest: they outlive the thread. */
  keepFiles = false;

  /** Starts empty stores of `views`; `onFailure` hears of a thread ending other than by `close`. */
  constructor(
    views: readonly View[],
    options: {
      copies: number;
      places: Record<View, SnapshotPlace>;
      waitMilliseconds: number;
      /** Hears of resources a view left out, their RDF unreadable. */
      onLeftOut: (view: View, iris: string[]) => void;
    },
    onFailure: (error: Error) => void,
  ) {
    const forView = (view: View) =>
      new ViewCopies(
        view,
        (onEnd) => {
          const worker = startModuleWorker(siblingModule(import.meta.url, 'store-worker'), {
            name: `sparql ${view} view`,
          });
          worker.unref();
          return new WorkerCalls(worker, onEnd);
        },
        options.copies,
        (error) => {
          if (!this.closing) onFailure(error);
        },
        options.places[view],
        options.waitMilliseconds,
        (iris) => options.onLeftOut(view, iris),
      );
    for (const view of views) this.views[view] = forView(view);
    this.onFailure = onFailure;
  }

  /** Hears of a copy of a view failing other than by `close` (its thread, or its filling). */
  private readonly onFailure: (error: Error) => void;

  private held(): ViewCopies[] {
    return VIEWS.flatMap((view) => this.views[view] ?? []);
  }

  /** Quads held by the views, as of the last changes answered. */
  get size(): number {
    return this.held().reduce((sum, view) => sum + view.quads, 0);
  }

  /** Where each view's snapshot is, and how much of it is written. */
  get places(): Partial<Record<View, SnapshotState>> {
    return Object.fromEntries(this.held().map((copies) => [copies.view, copies.place]));
  }

  /** Resolves when every change given so far is in the snapshot files. */
  async flushed(): Promise<void> {
    await Promise.all(this.held().map((copies) => copies.snapshot.flushed()));
  }

  /** A batch of the build, per view: to each view's snapshot and first copy (`fillOthers` later). */
  async load(quads: Record<View, string>): Promise<void> {
    await Promise.all(this.held().map((copies) => copies.load(quads[copies.view])));
  }

  /** The build is done: the other copies of each view are filled from its snapshot, in turn. */
  fillOthers(): void {
    for (const copies of this.held()) copies.fillOthers();
  }

  /**
   * Fills the first copy of each view from its snapshot file (a saved
   * dataset): resolves when the published view's answers (the working view's
   * when it is the only one held here), filled at the priority of requests;
   * the other views' first copies are filled stepped back, their queries
   * waiting in line meanwhile, and every view's other copies follow its first.
   */
  async restore(): Promise<void> {
    const views = this.held();
    const leading = views.find((copies) => copies.view === 'published') ?? views[0];
    const others = views.filter((copies) => copies !== leading);
    for (const copies of others)
      copies.restoreFirst(false).catch((error: Error) => {
        if (!this.closing) this.onFailure(error);
      });
    await leading?.restoreFirst(true);
  }

  /** Removes what each view holds about `iris`, then adds their triples now (if any), per view. */
  async replace(iris: string[], quads: Record<View, string>): Promise<void> {
    await Promise.all(
      VIEWS.map((view) => this.views[view]?.replace(iris, quads[view]) ?? Promise.resolve()),
    );
  }

  /**
   * Sends a query to a copy of a view not evaluating another; `started`
   * resolves when that copy takes it up, which is when its time starts: the
   * time it waits in line is not its own.
   */
  query(view: View, request: QueryRequest, priority: number): AskedQuery<QueryOutcome> {
    return this.copiesOf(view).ask((copy) => copy.call('query', request), priority);
  }

  /** Reads a query with a copy of `view`, without evaluating it (for an external store). */
  read(
    view: View,
    text: string,
    maxRows: number,
    priority: number,
    namedGraphs?: string[],
  ): AskedQuery<ReadOutcome> {
    return this.copiesOf(view).ask(
      (copy) => copy.call('read', text, maxRows, namedGraphs),
      priority,
    );
  }

  private copiesOf(view: View): ViewCopies {
    const copies = this.views[view];
    if (!copies) throw new Error(`the ${view} view is not held here`);
    return copies;
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.held().map((view) => view.close(this.keepFiles)));
  }
}
