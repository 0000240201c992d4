/**
 * The worker thread that holds one copy of one view of an instance's SPARQL
 * dataset, in Oxigraph's in-memory store. Reading a query (SPARQL.js) and
 * evaluating it are synchronous and may take long: on a thread of its own
 * they run beside the requests the main thread answers, and a query past its
 * time is stopped by ending the thread (see `EmbeddedSparql`).
 *
 * Oxigraph runs as WebAssembly with a stack of fixed size inside its memory:
 * a query that overflows it traps, and the trap may leave the engine's memory
 * corrupt, so that every later query fails. Such a query is answered as too
 * complex, its text is never evaluated again here, and the thread says it is
 * spent (`trapped`): its owner ends it and fills a new copy.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { setPriority } from 'node:os';
import { BlankNode, defaultGraph, type NamedNode, namedNode, type Quad, Store } from 'oxigraph';
import { answerCalls } from '../../platform/threads/worker-calls.js';
import {
  type DatasetChoice,
  type QueryOutcome,
  type QueryRequest,
  RESOURCE_MARK,
  type ReadOutcome,
  type Refusal,
} from './engine-calls.js';
import { classify } from './query-form.js';
import { MAX_OPERATIONS, readQuery } from './query-reading.js';
import { readSnapshotRecord } from './snapshot-file.js';
import { syntaxInWords } from './syntax-words.js';

/**
 * Requests first: a copy loads and changes its store after writes (a bulk
 * import, the other copies' filling) and evaluates the long queries, on the
 * cores the request thread and the search index also need. Linux gives each
 * thread its own niceness, so this thread alone steps back when they want a
 * core and has every idle one otherwise. A copy steps back when told
 * (`stepBack`): the first copy of a view once it is filled (nothing answers
 * the view before it), every other at once. (Elsewhere the call would apply
 * to the whole process, so it is made on Linux only.)
 */
const NICENESS = 10;

function stepBack(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(NICENESS);
  } catch {
    // Not allowed here (a container without it): the thread runs at its parent's priority.
  }
}

/** This thread's store: one view of the dataset. */
const store = new Store();
/**
 * A store that holds nothing: what the engine says of a text the grammar
 * cannot read is asked of it, so that such a text is never evaluated over data.
 */
const empty = new Store();
/** The engine trapped: nothing it answers from now on is trusted. */
let spent = false;

/** The engine's own failures (a trap, its stack), as opposed to its refusals of a query. */
function isTrap(error: unknown): boolean {
  return (
    // WebAssembly.RuntimeError: the traps (out of bounds, unreachable after a panic).
    (error instanceof Error && error.name === 'RuntimeError') ||
    (error instanceof RangeError && /call stack/i.test(error.message))
  );
}

/** Runs `work` on the engine; a trap marks the thread spent and becomes `trapped`. */
function guarded<T>(work: () => T): T | { ok: false; refusal: Refusal } {
  if (spent) return { ok: false, refusal: { kind: 'trapped' } };
  try {
    return work();
  } catch (error) {
    if (!isTrap(error)) throw error;
    spent = true;
    return { ok: false, refusal: { kind: 'trapped' } };
  }
}

/**
 * The memory this thread holds outside its JavaScript heap: the engine's
 * WebAssembly memory, above all, which grows with what a query builds and
 * never shrinks (`external` is counted per thread).
 */
function heldBytes(): number {
  return process.memoryUsage().external;
}

/** What a copy holds after a change: its quads, its memory, and the resources it left out. */
interface Held {
  quads: number;
  heldBytes: number;
  leftOut: string[];
}

/**
 * Oxigraph keeps no count: `size` walks every quad (50 ms at 700,000, 150 ms
 * at two million). Asked after every change, it was most of what a bulk
 * write cost each copy. The count is kept here instead, up by the lines each
 * load reads and down by each quad deleted, and taken from the store again
 * every few seconds, and at once after a load that had to be read resource by
 * resource (what the failed whole left behind is not counted).
 */
const COUNT_MILLISECONDS = 5000;
let counted = { quads: 0, at: Number.NEGATIVE_INFINITY };

function quadCount(exact: boolean): number {
  const now = Date.now();
  if (exact || now - counted.at >= COUNT_MILLISECONDS) counted = { quads: store.size, at: now };
  return counted.quads;
}

/** The quads a load of `nquads` adds: its lines but the resources' marks (comments). */
function quadLines(nquads: string): number {
  let lines = 0;
  for (let at = 0; at < nquads.length; ) {
    const end = nquads.indexOf('\n', at);
    const next = end === -1 ? nquads.length : end + 1;
    if (nquads.charCodeAt(at) !== 35 /* # */ && next - at > 1) lines += 1;
    at = next;
  }
  return lines;
}

/** Loads `nquads` and counts what it added. */
function load(nquads: string): void {
  store.load(nquads, LOAD);
  counted.quads += quadLines(nquads);
}

function held(leftOut: string[], exact = false): Held {
  return { quads: quadCount(exact), heldBytes: heldBytes(), leftOut };
}

/** Deletes `quad`, and what hangs from its object when that is a blank node of the resource. */
function deleteWithBlankNodes(quad: Quad): void {
  store.delete(quad);
  counted.quads -= 1;
  if (quad.object instanceof BlankNode)
    for (const inner of store.match(quad.object, null, null, quad.graph))
      deleteWithBlankNodes(inner);
}

/** Removes every triple about `iri`, and the blank nodes it holds. */
function removeResource(iri: string): void {
  for (const quad of store.match(namedNode(iri), null, null, null)) deleteWithBlankNodes(quad);
}

const LOAD = { format: 'application/n-quads', no_transaction: true } as const;

/**
 * Removes every triple about each IRI (and the blank nodes it holds), then adds
 * `nquads`; answers the resources left out. When the whole cannot be read (a
 * value no reader takes, stored before the rules), what it loaded is removed
 * and each resource (`RESOURCE_MARK`) is loaded alone: one bad resource costs
 * only itself, never the view.
 */
function replaceResources(iris: string[], nquads: string): string[] {
  for (const iri of iris) removeResource(iri);
  if (nquads === '') return [];
  try {
    load(nquads);
    return [];
  } catch (error) {
    if (isTrap(error)) throw error;
    // Some of it may be in the store: counted again from the store at the next answer.
    counted.at = Number.NEGATIVE_INFINITY;
  }
  const blocks = nquads.split(`\n${RESOURCE_MARK}`).map((block, at) => {
    const text = at === 0 ? block : `${RESOURCE_MARK}${block}`;
    const iri = text.startsWith(RESOURCE_MARK)
      ? text.slice(RESOURCE_MARK.length, text.indexOf('\n'))
      : undefined;
    return { iri, text };
  });
  for (const block of blocks) if (block.iri) removeResource(block.iri);
  const left: string[] = [];
  for (const block of blocks) {
    try {
      load(block.text);
    } catch (error) {
      if (isTrap(error)) throw error;
      if (!block.iri) throw error;
      removeResource(block.iri);
      left.push(block.iri);
    }
  }
  return left;
}

/** Throws what a call that changes the store cannot do: a spent engine holds nothing sure. */
function changing<T>(work: () => T): T {
  if (spent) throw new Error('the SPARQL engine of this copy trapped; it is being replaced');
  try {
    return work();
  } catch (error) {
    if (isTrap(error)) spent = true;
    throw error;
  }
}

/** What the engine said of a query: where it stopped reading, in words, or its refusal. */
function engineRefusal(text: string, error: unknown): Refusal {
  const message = error instanceof Error ? error.message : String(error);
  return /^error at \d+:\d+/.test(message)
    ? { kind: 'syntax', message: syntaxInWords(text, message) }
    : { kind: 'refused', message };
}

/** Reads a query with SPARQL 1.1's grammar, and refuses what is not evaluated here. */
function read(text: string, maxRows: number, namedGraphs?: string[]): ReadOutcome {
  const reading = readQuery(text, maxRows, namedGraphs);
  if (reading.readable === 'too-complex') {
    return {
      ok: false,
      refusal: {
        kind: 'too-complex',
        message: `The query is too complex to evaluate here: its operations chain ${reading.depth > MAX_OPERATIONS * 10 ? 'thousands of steps' : `${reading.depth} steps`} deep (each nested group, UNION, OPTIONAL, BIND, operator and path step counts), and this endpoint evaluates up to ${MAX_OPERATIONS}. Split it into several queries, or give alternatives as VALUES.`,
      },
    };
  }
  // A text the grammar cannot read is most likely no query: where the engine stopped
  // reading it is the answer, in words.
  if (!reading.readable || classify(text).kind === 'unknown') {
    try {
      empty.query(text, { results_format: 'application/sparql-results+json' });
    } catch (error) {
      if (isTrap(error)) throw error;
      return { ok: false, refusal: engineRefusal(text, error) };
    }
  }
  // The engine reads more than SPARQL 1.1 (triple terms): the row cap cannot be put in.
  if (!reading.readable) {
    return {
      ok: false,
      refusal: {
        kind: 'refused',
        message:
          'This endpoint answers SPARQL 1.1 queries; this one is written in syntax beyond it.',
      },
    };
  }
  if (reading.federated) {
    return {
      ok: false,
      refusal: {
        kind: 'refused',
        message:
          "SERVICE is not evaluated: this endpoint calls no other endpoint on a client's behalf.",
      },
    };
  }
  const { readable: _readable, ...rest } = reading;
  return { ok: true, reading: rest };
}

const api = {
  /** From now on, this thread gives way to the request thread and the search index. */
  stepBack(): void {
    stepBack();
  },
  /**
   * Removes every triple about each IRI, then adds `nquads`, in one call, so
   * that no query runs between the two and sees a changed resource missing;
   * answers the quads held.
   */
  replace(iris: string[], nquads: string): Held {
    return changing(() => held(replaceResources(iris, nquads)));
  },
  /**
   * Fills the store from the view's snapshot file (`snapshot-file.ts`), record
   * by record, as the view's changes were made; answers the quads held.
   */
  restore(path: string): Held {
    return changing(() => {
      const file = openSync(path, 'r');
      const leftOut = new Set<string>();
      try {
        let position = 0;
        for (;;) {
          const record = readSnapshotRecord(file, position, readSync);
          if (!record) break;
          for (const iri of record.iris) leftOut.delete(iri);
          for (const iri of replaceResources(record.iris, record.nquads)) leftOut.add(iri);
          position = record.next;
        }
      } finally {
        closeSync(file);
      }
      return held([...leftOut], true);
    });
  },
  /** Reads a query (for an external store), without evaluating it. */
  read(text: string, maxRows: number, namedGraphs?: string[]): ReadOutcome {
    return guarded(() => read(text, maxRows, namedGraphs));
  },
  /**
   * Reads and evaluates a query over its dataset (`DatasetChoice`), and
   * writes the answer here, off the request thread, in `format`.
   */
  query(request: QueryRequest): QueryOutcome {
    return guarded(() => {
      const outcome = read(request.text, request.maxRows);
      if (!outcome.ok) return outcome;
      const { reading } = outcome;
      const dataset: DatasetChoice =
        request.dataset ?? (reading.fromGraphs.length > 0 ? 'from' : undefined);
      const graphs = (iris: string[]): NamedNode[] => iris.map((iri) => namedNode(iri));
      try {
        const answer = store.query(reading.text, {
          results_format: request.format,
          ...(dataset === 'from'
            ? {}
            : dataset === undefined
              ? { use_default_graph_as_union: true }
              : {
                  default_graph:
                    dataset.defaultGraphs.length > 0
                      ? graphs(dataset.defaultGraphs)
                      : defaultGraph(),
                  named_graphs: graphs(dataset.namedGraphs),
                }),
        });
        return { ok: true, body: String(answer), capped: reading.capped, heldBytes: heldBytes() };
      } catch (error) {
        if (isTrap(error)) throw error;
        return { ok: false, refusal: engineRefusal(reading.text, error) };
      }
    });
  },
};

export type SparqlStoreApi = typeof api;

answerCalls(api);
