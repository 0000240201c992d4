import { siblingModule, startModuleWorker } from '../../platform/threads/module-worker.js';
import { WorkerCalls } from '../../platform/threads/worker-calls.js';
import { VIEWS, type View } from '../lifecycle/views.js';
import type { QueryDataset, QueryOutcome, SparqlStoreApi } from './store-worker.js';

/** One view's store in a worker thread, and the order its calls are answered in. */
class ViewStore {
  quads = 0;
  /** The calls answer in the order made: one starts when the one before it is answered. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(readonly calls: WorkerCalls<SparqlStoreApi>) {}

  track<T>(answer: Promise<T>): { answer: Promise<T>; started: Promise<void> } {
    const started = this.last.then(
      () => undefined,
      () => undefined,
    );
    this.last = answer.catch(() => undefined);
    return { answer, started };
  }
}

/**
 * A SPARQL dataset, each view in a worker thread of its own (`store-worker.ts`),
 * seen from the thread that serves requests. Each thread's store lives in
 * WebAssembly memory, at most 4 GiB: a thread per view lets each view have it
 * (docs/sparql.md), and the views answer side by side. Calls to a view are
 * answered in the order made, so a query made after an update sees it.
 */
export class StoreThread {
  private closing = false;
  private readonly views: Record<View, ViewStore>;

  /** Starts empty stores; `onFailure` hears of a thread ending other than by `close`. */
  constructor(onFailure: (error: Error) => void) {
    const start = (view: View) => {
      const worker = startModuleWorker(siblingModule(import.meta.url, 'store-worker'), {
        name: `sparql ${view} view`,
      });
      worker.unref();
      return new ViewStore(
        new WorkerCalls<SparqlStoreApi>(worker, (error) => {
          if (!this.closing) onFailure(error);
        }),
      );
    };
    this.views = { published: start('published'), working: start('working') };
  }

  /** Quads held by both views, as of the last updates answered. */
  get size(): number {
    return this.views.published.quads + this.views.working.quads;
  }

  /** Removes what each view holds about `iris`, then adds their triples now (if any), per view. */
  async replace(iris: string[], quads: Record<View, string>): Promise<void> {
    await Promise.all(
      VIEWS.map(async (view) => {
        const store = this.views[view];
        store.quads = await store.track(store.calls.call('replace', iris, quads[view])).answer;
      }),
    );
  }

  /**
   * Sends a query to a view; `started` resolves when its thread takes it up
   * (every call before it answered), which is when its time starts: the time
   * it waits in line behind others is not its own.
   */
  query(
    view: View,
    text: string,
    format: string,
    dataset: QueryDataset | undefined,
  ): { answer: Promise<QueryOutcome>; started: Promise<void> } {
    const store = this.views[view];
    return store.track(store.calls.call('query', text, format, dataset));
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(VIEWS.map((view) => this.views[view].calls.terminate()));
  }
}
