/**
 * The worker thread that holds one view of an instance's SPARQL dataset in
 * Oxigraph's in-memory store. Evaluating a query is synchronous and may take long: on a
 * thread of its own it runs beside the requests the main thread answers, and
 * a query past its time is stopped by ending the thread (see `SparqlService`).
 */
import { BlankNode, defaultGraph, type NamedNode, namedNode, type Quad, Store } from 'oxigraph';
import { answerCalls } from '../../platform/threads/worker-calls.js';

/** This thread's store: one view of the dataset (`StoreThread` starts a thread per view). */
const store = new Store();

/** The dataset a query runs over: the protocol's graphs, or every graph as the default. */
export interface QueryDataset {
  /** `default-graph-uri`: their merge is the default graph. */
  defaultGraphs: string[];
  /** `named-graph-uri`: the named graphs. */
  namedGraphs: string[];
}

/**
 * The dataset a query runs over: the protocol's graphs; `from`, the query's
 * own (`FROM`, `FROM NAMED`, as the grammar read them); undefined, every graph
 * together as the default graph.
 */
export type DatasetChoice = QueryDataset | 'from' | undefined;

/** What a query gave: its answer written out, or why the engine refused it. */
export type QueryOutcome =
  | { ok: true; body: string }
  /** `syntax`: the engine could not parse it (else its form says, or `message` does). */
  | { ok: false; message: string; syntax?: boolean };

/** Deletes `quad`, and what hangs from its object when that is a blank node of the resource. */
function deleteWithBlankNodes(quad: Quad): void {
  store.delete(quad);
  if (quad.object instanceof BlankNode)
    for (const inner of store.match(quad.object, null, null, quad.graph))
      deleteWithBlankNodes(inner);
}

const api = {
  /**
   * Removes every triple about each IRI (and the blank nodes it holds), then
   * adds `nquads`, in one call, so that no query runs between the two and sees
   * a changed resource missing; answers the quads held.
   */
  replace(iris: string[], nquads: string): number {
    for (const iri of iris) {
      for (const quad of store.match(namedNode(iri), null, null, null)) deleteWithBlankNodes(quad);
    }
    if (nquads !== '') store.load(nquads, { format: 'application/n-quads', no_transaction: true });
    return store.size;
  },
  /** Everything the store holds, as N-Quads: what a new copy of this view is filled from. */
  dump(): string {
    return store.dump({ format: 'application/n-quads' });
  },
  /**
   * Evaluates `text` over `dataset` (`DatasetChoice`), and writes the answer here, off the request thread,
   * in `format`: a results format for solutions and booleans, an RDF format
   * for a graph (CONSTRUCT, DESCRIBE).
   */
  query(text: string, format: string, dataset: DatasetChoice): QueryOutcome {
    const graphs = (iris: string[]): NamedNode[] => iris.map((iri) => namedNode(iri));
    try {
      const answer = store.query(text, {
        results_format: format,
        ...(dataset === 'from'
          ? {}
          : dataset === undefined
            ? { use_default_graph_as_union: true }
            : {
                default_graph:
                  dataset.defaultGraphs.length > 0 ? graphs(dataset.defaultGraphs) : defaultGraph(),
                named_graphs: graphs(dataset.namedGraphs),
              }),
      });
      return { ok: true, body: String(answer) };
    } catch (error) {
      return { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
  },
};

export type SparqlStoreApi = typeof api;

answerCalls(api);
