import { Parser } from 'n3';
import { RDF_FORMATS, type RdfMediaType } from '../../rdf/serialize.js';
import type { QueryDataset, QueryOutcome, ReadOutcome } from '../engine-calls.js';
import type { Reading } from '../query-reading.js';
import { queryRefused, timedOut, unavailable } from '../refusals.js';
import { RESULTS_WRITERS, readJsonResults } from './results-writers.js';
import type { ExternalStore } from './store-client.js';
import type { StoreSync } from './store-sync.js';

/** A graph no store holds: what a graph the protocol names that is not ours stands for. */
const NO_GRAPH = 'urn:refdata:no-such-graph';

/** XML Schema's namespace: its datatypes' IRIs name the casts (`xsd:integer(?x)`). */
const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** How much of a store's refusal a client is shown. */
const REFUSAL_CHARACTERS = 500;

/**
 * The published view's queries, answered by an external SPARQL store that
 * `StoreSync` keeps. The store is asked for SPARQL JSON results or N-Triples,
 * and the answer is written here in the format asked for, so that a client
 * reads the same formats as from the embedded engine. Without a dataset of
 * its own (the protocol's graphs, or `FROM`), a query runs over the
 * libraries' graphs: each one named, their merge the default graph, as the
 * embedded engine has it, and never the store's other graphs (Virtuoso's own).
 */
export class ExternalSparql {
  private graphs: { list: string[]; until: number } | undefined;

  constructor(
    private readonly client: ExternalStore,
    readonly sync: StoreSync,
    private readonly settings: { timeoutMilliseconds: number; pollMilliseconds: number },
  ) {}

  /**
   * The dataset a published-view query runs over in the store: the protocol's
   * graphs, else the query's own `FROM` and `FROM NAMED` (sent as the
   * protocol's, the query without them), else every library's graph. A graph
   * that is not a library's is taken as an empty one, as the embedded engine
   * has it, so that the store's other graphs (Virtuoso's own) are never read.
   */
  private async datasetOf(
    reading: Reading,
    protocol: QueryDataset | undefined,
  ): Promise<QueryDataset> {
    const libraries = await this.libraryDataset();
    const chosen = protocol ?? reading.from;
    if (!chosen) return libraries;
    const ours = new Set(libraries.defaultGraphs);
    const own = (graphs: string[]) => graphs.map((graph) => (ours.has(graph) ? graph : NO_GRAPH));
    return { defaultGraphs: own(chosen.defaultGraphs), namedGraphs: own(chosen.namedGraphs) };
  }

  /** A write of this instance has committed: a library it made is in the next query's dataset. */
  noteLocalWrite(): void {
    this.graphs = undefined;
    this.sync.noteLocalWrite();
  }

  /**
   * Sends a query, as a copy of the working view read it, over the protocol's
   * graphs (which take the place of its `FROM`), or its own `FROM`, or every
   * library's graph. A store's own functions (Virtuoso's `bif:` and `sql:`)
   * reach past the data, and are refused.
   */
  async query(
    first: Reading,
    format: string,
    protocol: QueryDataset | undefined,
    /** Reads the query again with the dataset's named graphs, for its `GRAPH ?g {}`. */
    reread: (namedGraphs: string[]) => Promise<ReadOutcome>,
  ): Promise<QueryOutcome> {
    let reading = first;
    const extension = reading.functions.find((iri) => !iri.startsWith(XSD)) ?? reading.builtIns[0];
    if (extension !== undefined) throw queryRefused(`<${extension}> is not offered here.`);
    const graphs = await this.datasetOf(reading, protocol);
    if (reading.listsGraphs) {
      // The store finds no graph for an empty pattern: the named graphs are listed for it, by
      // the names given (a graph that is not ours is an empty one, but named all the same).
      const named = (protocol ?? reading.from)?.namedGraphs ?? graphs.namedGraphs;
      const listed = await reread([...new Set(named)]);
      if (!listed.ok) return listed;
      reading = listed.reading;
    }
    const text = reading.withoutFrom ?? reading.text;
    const writeResults = RESULTS_WRITERS[format];
    const accept = writeResults ? 'application/sparql-results+json' : 'application/n-triples';
    const signal = AbortSignal.timeout(this.settings.timeoutMilliseconds);
    let status: number;
    let body: string;
    try {
      const response = await this.client.query(text, accept, graphs, signal);
      status = response.status;
      body = await response.text();
    } catch (error) {
      if (signal.aborted) throw timedOut(this.settings.timeoutMilliseconds);
      const why = error instanceof Error ? error.message : String(error);
      throw unavailable(`The SPARQL store could not be reached (${why}); ask again in a moment.`);
    }
    // The text was read here first: what the store refuses is its own limit, not syntax.
    if (status === 400)
      return { ok: false, refusal: { kind: 'refused', message: refusalOf(body) } };
    // What the store says of its own failure (Virtuoso: a transaction timed out) is the client's to read.
    if (status < 200 || status >= 300)
      throw unavailable(`The SPARQL store answered ${status}: ${refusalOf(body)}`);
    try {
      const capped = reading.capped;
      if (writeResults) return { ok: true, body: writeResults(readJsonResults(body)), capped };
      const quads = new Parser({ format: 'N-Triples' }).parse(body);
      const writer = RDF_FORMATS[format as RdfMediaType];
      return { ok: true, body: writer ? await writer.write(quads) : body, capped };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw unavailable(`The SPARQL store's answer could not be read (${why}).`);
    }
  }

  /** Every library's graph, named and merged as the default; read again each poll interval. */
  private async libraryDataset(): Promise<{ defaultGraphs: string[]; namedGraphs: string[] }> {
    const now = Date.now();
    if (!this.graphs || this.graphs.until < now)
      this.graphs = {
        list: await this.sync.libraryGraphs(),
        until: now + this.settings.pollMilliseconds,
      };
    return { defaultGraphs: this.graphs.list, namedGraphs: this.graphs.list };
  }
}

/** The store's own words, without the query it may echo after them (Virtuoso does). */
function refusalOf(body: string): string {
  const said = body.split(/\n\s*\n|\nSPARQL query:/)[0]?.trim() ?? '';
  return (said || 'The SPARQL store refused the query.').slice(0, REFUSAL_CHARACTERS);
}
