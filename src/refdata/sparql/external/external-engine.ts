import type { RefdataSettings } from '../../config.js';
import type { View } from '../../lifecycle/views.js';
import type { EmbeddedSparql } from '../embedded-engine.js';
import type { SparqlEngine } from '../engine.js';
import type { QueryOutcome, QueryRequest, ReadOutcome } from '../engine-calls.js';
import type { ExternalSparql } from './engine.js';

/** How long a published-view query waits for its instance's writes to reach the store. */
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

/**
 * The published view in an external SPARQL store, the working view (Drafts
 * are never sent out) in the embedded engine beside it. A published-view query
 * is read by a copy of the working view first, so that it is refused here in
 * the same words and within the same client shares as the embedded engine's.
 */
export class ExternalStoreSparql implements SparqlEngine {
  constructor(
    private readonly working: EmbeddedSparql,
    private readonly published: ExternalSparql,
  ) {}

  get settings(): RefdataSettings['sparql'] {
    return this.working.settings;
  }

  query(view: View, request: QueryRequest, client: string): Promise<QueryOutcome> {
    if (view === 'working') return this.working.query(view, request, client);
    return this.working.admitted(client, async (priority, spent) => {
      // What this instance wrote is in the store first, when it is the one keeping it,
      // unless the store takes longer than a moment (a resynchronisation under way).
      await firstOf(this.published.sync.caughtUp(), OWN_WRITES_WAIT_MILLISECONDS);
      const reread = (namedGraphs?: string[]) =>
        this.working.readWithin(
          'working',
          request.text,
          request.maxRows,
          priority,
          spent,
          namedGraphs,
        );
      const read = await reread();
      if (!read.ok) return read;
      const started = Date.now();
      try {
        return await this.published.query(read.reading, request.format, request.dataset, reread);
      } finally {
        spent.seconds += (Date.now() - started) / 1000;
      }
    });
  }

  read(_view: View, text: string, maxRows: number, client: string): Promise<ReadOutcome> {
    return this.working.read('working', text, maxRows, client);
  }

  async start(): Promise<void> {
    this.published.sync.start();
    await this.working.start();
  }

  async close(): Promise<void> {
    await Promise.all([this.working.close(), this.published.sync.close()]);
  }

  noteLocalWrite(): void {
    this.working.noteLocalWrite();
    this.published.noteLocalWrite();
  }
}
