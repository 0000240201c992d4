import type { RefdataSettings } from '../config.js';
import type { View } from '../lifecycle/views.js';
import type { QueryOutcome, QueryRequest, ReadOutcome } from './engine-calls.js';

/**
 * What the SPARQL protocol code asks of an engine, whichever holds the data:
 * the embedded one (copies of both views in worker threads, `EmbeddedSparql`)
 * or an external store for the published view beside an embedded working view
 * (`ExternalStoreSparql`). Fuseki and Oxigraph layer store, query and protocol
 * the same way; the protocol code (`evaluate.ts`, `routes.ts`) knows only this.
 */
export interface SparqlEngine {
  readonly settings: RefdataSettings['sparql'];
  /** Evaluates a query over `view` for `client`, within the limits, once this instance's own writes are in it. */
  query(view: View, request: QueryRequest, client: string): Promise<QueryOutcome>;
  /** Reads a query as `view`'s engine would, without evaluating it, within the limits. */
  read(view: View, text: string, maxRows: number, client: string): Promise<ReadOutcome>;
  /** Starts building and following the change log; resolves when built or after the start wait. */
  start(): Promise<void>;
  close(): Promise<void>;
  /** A write of this instance has committed: its next read must see it. */
  noteLocalWrite(): void;
}
