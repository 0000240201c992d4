import { siblingModule, startModuleWorker } from '../../platform/threads/module-worker.js';
import { WorkerCalls } from '../../platform/threads/worker-calls.js';
import { VIEWS, type View } from '../lifecycle/views.js';
import type { DatasetChoice, QueryOutcome, SparqlStoreApi } from './store-worker.js';

/** A query given to a copy: its answer, when the copy took it up, and how to stop it. */
export interface AskedQuery {
  answer: Promise<QueryOutcome>;
  /** Resolves when the copy takes the query up (every call before it answered). */
  started: Promise<void>;
  /**
   * Ends the copy evaluating the query, the only way to stop it. A sibling
   * copy serves meanwhile and a new copy is filled from it; false when there
   * is no sibling, and the whole dataset has to be built anew.
   */
  stop(): boolean;
}

/** Starts a store's worker thread; `onEnd` hears of it ending, asked or not. */
type StartWorker = (onEnd: (error: Error) => void) => WorkerCalls<SparqlStoreApi>;

/** One copy of a view: a store in a worker thread, its calls answered in the order made. */
class Copy {
  quads = 0;
  /** A query is being evaluated: the copy takes no other until it is answered. */
  querying = false;
  /** Stopped under a query: its calls' failures are expected, not the dataset's. */
  retired = false;
  /** Holds the view: false while a replacement is filled from a sibling. */
  filled = true;
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

  /** Sends `fill` first: every call made after this waits for it. */
  fillFrom(fill: Promise<string>): Promise<void> {
    this.ready = fill.then(async (nquads) => {
      this.quads = await this.calls.call('replace', [], nquads);
    });
    return this.ready;
  }

  terminate(): Promise<void> {
    return this.calls.terminate();
  }
}

/**
 * One view's copies: each update goes to every copy, each query to one copy
 * not evaluating another, in the order asked. A query past its time is
 * stopped by ending its copy; the others answer meanwhile, so one runaway
 * query costs no other query its answer.
 */
class ViewCopies {
  private copies: Copy[];
  /** Queries waiting for a copy to be free, first come first served. */
  private readonly waiting: Array<{
    resolve: (copy: Copy) => void;
    reject: (error: Error) => void;
  }> = [];

  constructor(
    private readonly start: StartWorker,
    count: number,
    private readonly onFailure: (error: Error) => void,
  ) {
    this.copies = Array.from({ length: count }, () => new Copy(start, onFailure));
  }

  get quads(): number {
    return this.copies[0]?.quads ?? 0;
  }

  async replace(iris: string[], nquads: string): Promise<void> {
    await Promise.all(
      this.copies.map(async (copy) => {
        try {
          copy.quads = await copy.call('replace', iris, nquads).answer;
        } catch (error) {
          // A copy stopped under a query is being replaced from a sibling holding this change.
          if (!copy.retired) throw error;
        }
      }),
    );
  }

  query(text: string, format: string, dataset: DatasetChoice): AskedQuery {
    let copy: Copy | undefined;
    // A copy is taken the moment it is chosen (`querying`), so that no two queries share one.
    const taken = new Promise<Copy>((resolve, reject) => {
      const free = this.copies.find((candidate) => !candidate.querying);
      if (free) {
        free.querying = true;
        resolve(free);
      } else this.waiting.push({ resolve, reject });
    }).then((chosen) => {
      copy = chosen;
      return { chosen, asked: chosen.call('query', text, format, dataset) };
    });
    const answer = taken.then(({ chosen, asked }) =>
      asked.answer.finally(() => this.release(chosen)),
    );
    return {
      answer,
      // A query let go without a copy is answered by its failure, not timed.
      started: taken.then(
        ({ asked }) => asked.started,
        () => undefined,
      ),
      stop: () => (copy ? this.replaceCopy(copy) : false),
    };
  }

  /** A copy has answered (or been filled): the next query waiting takes it, still marked. */
  private release(copy: Copy): void {
    if (copy.retired) return;
    const next = this.waiting.shift();
    if (next) next.resolve(copy);
    else copy.querying = false;
  }

  /**
   * Ends `copy` and fills a new one from a filled sibling's dump, taken in the
   * sibling's call order: every update made before it is in the dump, every
   * one made after it reaches the new copy after the dump is loaded. The dump
   * is one string: past V8's longest (about 512 MiB of N-Quads, some three
   * million quads) it fails, and the dataset is built anew instead.
   */
  private replaceCopy(copy: Copy): boolean {
    const sibling = this.copies.find(
      (candidate) => candidate !== copy && !candidate.retired && candidate.filled,
    );
    if (!sibling || copy.retired) return false;
    copy.retired = true;
    void copy.terminate();
    const fresh = new Copy(this.start, this.onFailure);
    // Busy until filled, so that no query waits on it while a sibling is free.
    fresh.querying = true;
    fresh.filled = false;
    this.copies = this.copies.map((candidate) => (candidate === copy ? fresh : candidate));
    fresh.fillFrom(sibling.call('dump').answer).then(
      () => {
        fresh.filled = true;
        this.release(fresh);
      },
      (error: Error) => {
        // A fill that failed on a thread still running (memory) leaves the copy useless.
        if (!fresh.retired) this.onFailure(error);
      },
    );
    return true;
  }

  /** Ends every copy, and lets go the queries waiting for one. */
  async close(): Promise<void> {
    for (const copy of this.copies) copy.retired = true;
    const ended = new Error('the SPARQL dataset was closed');
    for (const waiting of this.waiting.splice(0)) waiting.reject(ended);
    await Promise.all(this.copies.map((copy) => copy.terminate()));
  }
}

/**
 * A SPARQL dataset seen from the thread that serves requests: each view in
 * worker threads of its own (`store-worker.ts`), `copies` of it. Each
 * thread's store lives in WebAssembly memory, at most 4 GiB: a thread per view
 * lets each view have it (docs/sparql.md), and the views answer side by side.
 * Calls to a copy are answered in the order made, so a query made after an
 * update sees it.
 */
export class StoreThread {
  private closing = false;
  private readonly views: Partial<Record<View, ViewCopies>> = {};

  /** Starts empty stores of `views`; `onFailure` hears of a thread ending other than by `close`. */
  constructor(views: readonly View[], copies: number, onFailure: (error: Error) => void) {
    const forView = (view: View) =>
      new ViewCopies(
        (onEnd) => {
          const worker = startModuleWorker(siblingModule(import.meta.url, 'store-worker'), {
            name: `sparql ${view} view`,
          });
          worker.unref();
          return new WorkerCalls(worker, onEnd);
        },
        copies,
        (error) => {
          if (!this.closing) onFailure(error);
        },
      );
    for (const view of views) this.views[view] = forView(view);
  }

  private held(): ViewCopies[] {
    return VIEWS.flatMap((view) => this.views[view] ?? []);
  }

  /** Quads held by the views, as of the last updates answered. */
  get size(): number {
    return this.held().reduce((sum, view) => sum + view.quads, 0);
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
  query(view: View, text: string, format: string, dataset: DatasetChoice): AskedQuery {
    const copies = this.views[view];
    if (!copies) throw new Error(`the ${view} view is not held here`);
    return copies.query(text, format, dataset);
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.held().map((view) => view.close()));
  }
}
