import { HttpError } from '../../platform/http/problem.js';
import { problem } from '../problem-codes.js';

/** What Retry-After says while the dataset is built or the store is away. */
const RETRY_SECONDS = 10;

/**
 * 503 `sparql-busy`: as many queries as an instance takes are under way, or
 * (with `waitedMilliseconds`) the query waited in line as long as it may.
 */
export function busy(maxConcurrent: number, waitedMilliseconds?: number): HttpError {
  return new HttpError(
    problem(
      503,
      'sparql-busy',
      waitedMilliseconds === undefined
        ? `This instance is evaluating ${maxConcurrent} queries; ask again in a moment.`
        : `The query waited ${waitedMilliseconds / 1000} s in line and no copy of the dataset was free; ask again in a moment.`,
      { headers: { 'retry-after': waitedMilliseconds === undefined ? '1' : '5' } },
    ),
  );
}

/**
 * 503 `sparql-busy`: the query ran long while another long query held the
 * lane for them and others waited for a copy; it was stopped.
 */
export function preempted(): HttpError {
  return new HttpError(
    problem(
      503,
      'sparql-busy',
      'The query ran long while another long query was running and other queries were waiting; it was stopped. Long queries run one at a time: ask again in a moment.',
      { headers: { 'retry-after': String(RETRY_SECONDS) } },
    ),
  );
}

/** 503 `sparql-timeout`: the query ran past the limit and was stopped. */
export function timedOut(timeoutMilliseconds: number): HttpError {
  return new HttpError(
    problem(
      503,
      'sparql-timeout',
      `The query ran longer than ${timeoutMilliseconds / 1000} s and was stopped.`,
    ),
  );
}

/** 503 `sparql-unavailable`: nothing can answer a query just now. */
export function unavailable(
  detail = 'The SPARQL dataset is being built; ask again in a moment.',
): HttpError {
  return new HttpError(
    problem(503, 'sparql-unavailable', detail, {
      headers: { 'retry-after': String(RETRY_SECONDS) },
    }),
  );
}

/** 400 `sparql-query-refused`: the query reads, but is not evaluated here. */
export function queryRefused(message: string): HttpError {
  return new HttpError(problem(400, 'sparql-query-refused', message, { title: 'Query refused' }));
}

/** 400 `sparql-query-too-complex`: the query nests or chains deeper than the engine is let go. */
export function tooComplex(message: string): HttpError {
  return new HttpError(
    problem(400, 'sparql-query-too-complex', message, { title: 'Query too complex' }),
  );
}

/** What a client is told of a query the engine failed inside: never the engine's own words. */
export const TRAPPED_IN_WORDS =
  'The query is too complex for the engine: evaluating it exhausted the stack the engine has. Split it into several queries, or nest its groups and expressions less deeply.';
