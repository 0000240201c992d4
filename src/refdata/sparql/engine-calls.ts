/**
 * What the request thread and an engine's thread say to each other about a
 * query: its request, and its outcome. Types only, so that the request thread
 * loads none of the engine.
 */
import type { Reading } from './query-reading.js';

/**
 * The comment line that opens each resource's N-Quads in what a copy is given
 * (`#resource <iri>`, N-Quads allows comments): a copy that cannot read one
 * resource's quads loads the others, and says which it left out.
 */
export const RESOURCE_MARK = '#resource ';

/** The dataset a query runs over: the protocol's graphs. */
export interface QueryDataset {
  /** `default-graph-uri`: their merge is the default graph. */
  defaultGraphs: string[];
  /** `named-graph-uri`: the named graphs. */
  namedGraphs: string[];
}

/**
 * The dataset given to an engine: the protocol's graphs; `from`, the query's
 * own (`FROM`, `FROM NAMED`); undefined, every graph together as the default.
 */
export type DatasetChoice = QueryDataset | 'from' | undefined;

/** A query as the request thread hands it to a copy of a view. */
export interface QueryRequest {
  text: string;
  /** The cap on rows, put into the query when its own LIMIT is larger or missing. */
  maxRows: number;
  /** A results format for solutions and booleans, an RDF format for graphs. */
  format: string;
  /** The protocol's graphs; without them, the query's `FROM`, else every graph as the default. */
  dataset: QueryDataset | undefined;
}

/**
 * Why a query was not answered, as the copy found it. `trapped`: the engine
 * failed inside (its stack overflowed); the copy cannot be trusted after it,
 * and what the engine said is never shown.
 */
export type Refusal =
  | { kind: 'syntax' | 'refused' | 'too-complex'; message: string }
  | { kind: 'trapped' };

export type QueryOutcome =
  /** `heldBytes`: the copy's memory after the query (its engine's grows, and never shrinks). */
  { ok: true; body: string; capped: boolean; heldBytes?: number } | { ok: false; refusal: Refusal };

/** A query read, not evaluated: what an external store is sent, and what is checked first. */
export type ReadOutcome = { ok: true; reading: Reading } | { ok: false; refusal: Refusal };
