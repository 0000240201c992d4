import { siblingModule, startModuleWorker } from '../../platform/threads/module-worker.js';
import { WorkerCalls } from '../../platform/threads/worker-calls.js';
import type { QueryDataset, QueryOutcome, SparqlStoreApi } from './store-worker.js';

/**
 * A SPARQL dataset in a worker thread of its own (`store-worker.ts`), seen from
 * the thread that serves requests. Calls are answered in the order made, so a
 * query made after an update sees it.
 */
export class StoreThread {
  private quads = 0;
  private closing = false;
  private readonly calls: WorkerCalls<SparqlStoreApi>;

  /** Starts an empty store; `onFailure` hears of the thread ending other than by `close`. */
  constructor(onFailure: (error: Error) => void) {
    const worker = startModuleWorker(siblingModule(import.meta.url, 'store-worker'), {
      name: 'sparql store',
    });
    worker.unref();
    this.calls = new WorkerCalls<SparqlStoreApi>(worker, (error) => {
      if (!this.closing) onFailure(error);
    });
  }

  /** Quads held, as of the last update answered. */
  get size(): number {
    return this.quads;
  }

  /** Removes what is stored about `iris`, then adds `nquads` (their new triples, if any). */
  async replace(iris: string[], nquads: string): Promise<void> {
    if (iris.length > 0) this.quads = await this.calls.call('remove', iris);
    this.quads = await this.calls.call('load', nquads);
  }

  query(text: string, format: string, dataset: QueryDataset | undefined): Promise<QueryOutcome> {
    return this.calls.call('query', text, format, dataset);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.calls.terminate();
  }
}
