import { Parser } from 'n3';
import oxigraph from 'oxigraph';
import { HttpError } from '../../platform/http/problem.js';
import type { Refdata } from '../context.js';
import type { View } from '../lifecycle/views.js';
import { problem } from '../problem-codes.js';
import { negotiate } from '../rdf/negotiation.js';
import { RDF_FORMATS, RDF_MEDIA_TYPES, type RdfMediaType } from '../rdf/serialize.js';
import { classify, type QueryForm } from './query-form.js';
import { readQuery } from './query-reading.js';
import { queryRefused } from './refusals.js';
import type { DatasetChoice, QueryDataset } from './store-worker.js';

/** XML Schema's namespace: its datatypes' IRIs name the casts (`xsd:integer(?x)`). */
const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** SPARQL results formats for SELECT (and, but for CSV and TSV, ASK), by media type. */
export const RESULTS_FORMATS = {
  'application/sparql-results+json': 'application/sparql-results+json',
  'application/sparql-results+xml': 'application/sparql-results+xml',
  'application/json': 'application/sparql-results+json',
  'text/csv': 'text/csv',
  'text/tab-separated-values': 'text/tab-separated-values',
} as const;
export type ResultsMediaType = keyof typeof RESULTS_FORMATS;

export const SELECT_OFFERED = Object.keys(RESULTS_FORMATS) as ResultsMediaType[];
/** CSV and TSV are defined for solution sequences only (SPARQL 1.1 CSV and TSV §1). */
export const ASK_OFFERED: ResultsMediaType[] = [
  'application/sparql-results+json',
  'application/sparql-results+xml',
  'application/json',
];
/** Graphs are written as dereferenced resources are, Turtle first as SPARQL servers do. */
export const GRAPH_OFFERED: RdfMediaType[] = [
  'text/turtle',
  ...RDF_MEDIA_TYPES.filter((mediaType) => mediaType !== 'text/turtle'),
];

/**
 * A store that holds nothing, on the request thread: what the engine says of a
 * text the grammar cannot read, with no data to evaluate it over.
 */
const EMPTY_STORE = new oxigraph.Store();

/** A query's answer, as `/sparql` and the query page give it. */
export interface Evaluation {
  form: QueryForm;
  /** The media type chosen from `Accept`. */
  mediaType: string;
  contentType: string;
  body: string;
  /** The row cap, when it took the place of the query's own limit (`X-SPARQL-MaxRows`). */
  cappedAt: number | undefined;
}

/**
 * Evaluates a query over a view within the endpoint's limits and writes its
 * answer in the format `accept` chooses: what is refused, and why, is thrown
 * as a problem (413 for the text's size, 403 for an update, 400 for what the
 * grammar or the engine refuses, 406 for no format, 503 for the limits).
 * Who may read the view is the caller's to check.
 */
export async function evaluate(
  refdata: Refdata,
  text: string,
  view: View,
  dataset: QueryDataset | undefined,
  accept: string | undefined,
  /** A lower cap than the endpoint's, for a page that shows no more. */
  rowLimit?: number,
): Promise<Evaluation> {
  if (Buffer.byteLength(text) > refdata.sparql.settings.maxQueryBytes) {
    throw new HttpError(
      problem(
        413,
        'payload-too-large',
        `The query is longer than ${refdata.sparql.settings.maxQueryBytes} bytes.`,
      ),
    );
  }
  const classified = classify(text);
  if (classified.kind === 'update') throw updateRefused();
  const maxRows = Math.min(refdata.sparql.settings.maxRows, rowLimit ?? Number.POSITIVE_INFINITY);
  const capped = readQuery(text, maxRows);
  // A text the grammar cannot read is most likely no query: what the engine says
  // of it (where it stopped reading) is the answer, whatever Accept asked for.
  // It is asked of an empty store, so that such a text learns nothing of the data.
  if (!capped.readable || classified.kind === 'unknown') {
    const refusal = engineRefusal(text);
    if (refusal !== undefined) throw refusedQuery(refusal);
  }
  // The engine reads more than SPARQL 1.1 (triple terms): the row cap cannot be put in.
  if (!capped.readable) {
    throw queryRefused(
      'This endpoint answers SPARQL 1.1 queries; this one is written in syntax beyond it.',
    );
  }
  if (capped.federated) {
    throw queryRefused(
      "SERVICE is not evaluated: this endpoint calls no other endpoint on a client's behalf.",
    );
  }
  const external = view === 'published' ? refdata.sparql.external : undefined;
  if (external) {
    // An external store's own functions (Virtuoso's bif: and sql:) reach past the data,
    // and its other graphs are not the dataset's.
    const extension = capped.functions.find((iri) => !iri.startsWith(XSD)) ?? capped.builtIns[0];
    if (extension !== undefined) throw queryRefused(`<${extension}> is not offered here.`);
  }
  const choice: DatasetChoice = external
    ? await external.admit(capped.fromGraphs, dataset)
    : (dataset ?? (capped.fromGraphs.length > 0 ? 'from' : undefined));
  const form: QueryForm = classified.kind === 'query' ? classified.form : 'SELECT';
  const graph = form === 'CONSTRUCT' || form === 'DESCRIBE';
  const offered = graph ? GRAPH_OFFERED : form === 'ASK' ? ASK_OFFERED : SELECT_OFFERED;
  const mediaType = negotiate(accept, offered as readonly string[]);
  if (!mediaType) throw notAcceptable(offered);
  // Oxigraph writes every graph format off the request thread, but for RDF/XML it
  // writes predicates XML cannot name as broken XML: the service's own writer
  // writes that one, and refuses such a graph instead.
  const ownWriter = graph && mediaType === 'application/rdf+xml';
  const cappedAt = capped.capped ? maxRows : undefined;
  const outcome = await refdata.sparql.query(
    view,
    capped.text,
    ownWriter
      ? 'application/n-triples'
      : graph
        ? mediaType
        : RESULTS_FORMATS[mediaType as ResultsMediaType],
    choice,
  );
  if (!outcome.ok) throw refusedQuery(outcome.message, outcome.syntax);
  if (ownWriter) {
    const format = RDF_FORMATS['application/rdf+xml'];
    try {
      const quads = new Parser({ format: 'N-Triples' }).parse(outcome.body);
      const body = await format.write(quads);
      return { form, mediaType, contentType: format.contentType, body, cappedAt };
    } catch (error) {
      throw unwritable(mediaType, error instanceof Error ? error.message : String(error));
    }
  }
  const contentType = graph
    ? RDF_FORMATS[mediaType as RdfMediaType].contentType
    : mediaType.startsWith('text/') || mediaType.endsWith('json')
      ? `${mediaType}; charset=utf-8`
      : mediaType;
  return { form, mediaType, contentType, body: outcome.body, cappedAt };
}

export function updateRefused(): HttpError {
  return new HttpError(
    problem(
      403,
      'sparql-update-refused',
      'This endpoint answers queries only; resources are written through the authoring API.',
    ),
  );
}

function unwritable(mediaType: string, why: string): HttpError {
  return new HttpError(
    problem(
      406,
      'not-acceptable',
      `This graph cannot be written as ${RDF_FORMATS[mediaType as RdfMediaType]?.label ?? mediaType} (${why}); ask for Turtle or N-Triples.`,
      { title: 'Not Acceptable' },
    ),
  );
}

/** The engine's message: a parse error says where (`error at 3:14: expected ...`). */
function refusedQuery(message: string, syntax = /^error at \d+:\d+/.test(message)): HttpError {
  return syntax
    ? new HttpError(problem(400, 'sparql-syntax', message, { title: 'Not a SPARQL query' }))
    : queryRefused(message);
}

/** The engine's refusal of a text, asked of a store that holds nothing; undefined if it reads it. */
function engineRefusal(text: string): string | undefined {
  try {
    EMPTY_STORE.query(text, { results_format: 'application/sparql-results+json' });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export function notAcceptable(offered: readonly string[]): HttpError {
  return new HttpError(
    problem(406, 'not-acceptable', `This answer is available as ${offered.join(', ')}.`, {
      title: 'Not Acceptable',
    }),
  );
}
