import { setImmediate } from 'node:timers/promises';

/**
 * A turn of the event loop between two batches of a long read. On SQLite every
 * query answers at once, so a loop that reads and writes batch after batch
 * runs on resolved promises alone and holds the thread that serves everyone
 * until it ends (a library's export, a release, its quality report, an import): with a
 * turn between batches, other requests are served between them.
 */
export function betweenBatches(): Promise<void> {
  return setImmediate();
}
