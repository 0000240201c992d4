import { siblingModule, startModuleWorker } from '../../platform/threads/module-worker.js';
import { WorkerCalls } from '../../platform/threads/worker-calls.js';
import type { IndexApi, ThreadAnswer } from './index-worker.js';
import type { IndexedDocument, IndexQuery } from './memory-index.js';

/**
 * A search index in a worker thread of its own (`index-worker.ts`), seen from
 * the thread that serves requests. Calls are answered in the order made, so a
 * search made after an update sees it.
 */
export class IndexThread {
  private documents = 0;
  private closing = false;

  private readonly calls: WorkerCalls<IndexApi>;

  /** Starts an empty index; `onFailure` hears of the thread ending other than by `close`. */
  constructor(onFailure: (error: Error) => void) {
    const worker = startModuleWorker(siblingModule(import.meta.url, 'index-worker'), {
      name: 'search index',
    });
    // The server, not the index, keeps the process alive.
    worker.unref();
    this.calls = new WorkerCalls<IndexApi>(worker, (error) => {
      if (!this.closing) onFailure(error);
    });
  }

  /** Documents held, as of the last update answered. */
  get size(): number {
    return this.documents;
  }

  /** Puts documents and removes ids; with `freeze`, then freezes the statistics if due. */
  async update(documents: IndexedDocument[], removed: number[], freeze: boolean): Promise<void> {
    this.documents = await this.calls.call('update', documents, removed, freeze);
  }

  search(query: IndexQuery): Promise<ThreadAnswer> {
    return this.calls.call('search', query);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.calls.terminate();
  }
}
