import { problemCatalogue } from '../platform/http/problem.js';

/**
 * refdata's problem codes beside the platform's: each has a documented type at
 * `/problems/<code>` (problems.ts) or says no more than its status, and
 * docs/errors.md lists every one.
 */
export const REFDATA_PROBLEMS = problemCatalogue([
  'invalid-token',
  'missing-role',
  'forbidden',
  'domain-rule',
  'duplicate',
  'not-draft',
  'wrong-state',
  'already-replaced',
  'moves-with-picklist',
  'stale-write',
  'wrong-family',
  'not-acceptable',
  'search-unavailable',
  'sparql-syntax',
  'sparql-query-refused',
  'sparql-query-too-complex',
  'sparql-update-refused',
  'sparql-timeout',
  'sparql-busy',
  'sparql-unavailable',
  'release-conflict',
  'quality-errors',
  'removed',
  'unsupported-route',
  'sign-in-failed',
  'invalid-logout-token',
  'webhook-limit',
  'import-running',
  'not-author',
  'four-eyes',
  'unapproved-dependencies',
  'comment-locked',
]);

export type RefdataProblemCode = (typeof REFDATA_PROBLEMS.codes)[number];
export const problem = REFDATA_PROBLEMS.problem;
