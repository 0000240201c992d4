import { siblingModule, startModuleWorker } from '../../platform/threads/module-worker.js';
import { WorkerCalls } from '../../platform/threads/worker-calls.js';
import type { View } from '../lifecycle/views.js';
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

  /** Removes what each view holds about `iris`, then adds their triples now (if any), per view. */
  async replace(iris: string[], quads: Record<View, string>): Promise<void> {
    this.quads = await this.track(this.calls.call('replace', iris, quads)).answer;
  }

  /**
   * Sends a query; `started` resolves when the thread takes it up (every call
   * before it answered), which is when its time starts: the time it waits in
   * line behind others is not its own.
   */
  query(
    view: View,
    text: string,
    format: string,
    dataset: QueryDataset | undefined,
  ): { answer: Promise<QueryOutcome>; started: Promise<void> } {
    return this.track(this.calls.call('query', view, text, format, dataset));
  }

  /** The calls answer in the order made: one starts when the one before it is answered. */
  private last: Promise<unknown> = Promise.resolve();

  private track<T>(answer: Promise<T>): { answer: Promise<T>; started: Promise<void> } {
    const started = this.last.then(
      () => undefined,
      () => undefined,
    );
    this.last = answer.catch(() => undefined);
    return { answer, started };
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.calls.terminate();
  }
}
