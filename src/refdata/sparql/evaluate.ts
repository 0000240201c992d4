import { Parser } from 'n3';
import { HttpError } from '../../platform/http/problem.js';
import type { Refdata } from '../context.js';
import type { View } from '../lifecycle/views.js';
import { problem } from '../problem-codes.js';
import { negotiate, notAcceptable } from '../rdf/negotiation.js';
import { RDF_FORMATS, RDF_MEDIA_TYPES, type RdfMediaType } from '../rdf/serialize.js';
import type { QueryDataset, Refusal } from './engine-calls.js';
import { bracketsInWords, readBrackets } from './query-bounds.js';
import { classify, type QueryForm } from './query-form.js';
import { queryRefused, TRAPPED_IN_WORDS, tooComplex } from './refusals.js';

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
  /** Who asks, for their share of the engine (`ClientShares.clientOf`). */
  client: string,
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
  // Before anything parses it: parsers recurse on nesting, on the engine's fixed stack.
  const brackets = readBrackets(text);
  if (!brackets.balanced && brackets.why === 'too-deep')
    throw tooComplex(bracketsInWords(brackets));
  const classified = classify(text);
  if (classified.kind === 'update') throw updateRefused();
  const maxRows = Math.min(refdata.sparql.settings.maxRows, rowLimit ?? Number.POSITIVE_INFINITY);
  const form: QueryForm = classified.kind === 'query' ? classified.form : 'SELECT';
  const graph = form === 'CONSTRUCT' || form === 'DESCRIBE';
  const offered = graph ? GRAPH_OFFERED : form === 'ASK' ? ASK_OFFERED : SELECT_OFFERED;
  // A text that is no query is answered by what is wrong with it, whatever Accept asked for.
  const mediaType =
    classified.kind === 'unknown' ? offered[0] : negotiate(accept, offered as readonly string[]);
  if (!mediaType) {
    // What is wrong with the text comes before what is wrong with Accept.
    const read = await refdata.sparql.read(view, text, maxRows, client);
    if (!read.ok) throw refusalProblem(read.refusal);
    throw notAcceptable(offered, 'This answer');
  }
  // Oxigraph writes every graph format off the request thread, but for RDF/XML it
  // writes predicates XML cannot name as broken XML: the service's own writer
  // writes that one, and refuses such a graph instead.
  const ownWriter = graph && mediaType === 'application/rdf+xml';
  const outcome = await refdata.sparql.query(
    view,
    {
      text,
      maxRows,
      format: ownWriter
        ? 'application/n-triples'
        : graph
          ? mediaType
          : RESULTS_FORMATS[mediaType as ResultsMediaType],
      dataset,
    },
    client,
  );
  if (!outcome.ok) throw refusalProblem(outcome.refusal);
  const cappedAt = outcome.capped ? maxRows : undefined;
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

/** Why a copy did not answer, as a problem: syntax in words, a refusal, or too complex. */
function refusalProblem(refusal: Refusal): HttpError {
  switch (refusal.kind) {
    case 'syntax':
      return new HttpError(
        problem(400, 'sparql-syntax', refusal.message, { title: 'Not a SPARQL query' }),
      );
    case 'refused':
      return queryRefused(refusal.message);
    case 'too-complex':
      return tooComplex(refusal.message);
    case 'trapped':
      return tooComplex(TRAPPED_IN_WORDS);
  }
}
