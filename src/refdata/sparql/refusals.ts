import { HttpError } from '../../platform/http/problem.js';
import { problem } from '../problem-codes.js';

/** What Retry-After says while the dataset is built or the store is away. */
const RETRY_SECONDS = 10;

/** 503 `sparql-busy`: as many queries as an instance takes are under way. */
export function busy(maxConcurrent: number): HttpError {
  return new HttpError(
    problem(
      503,
      'sparql-busy',
      `This instance is evaluating ${maxConcurrent} queries; ask again in a moment.`,
      { headers: { 'retry-after': '1' } },
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
