import type { ErrorRenderer } from '../platform/http/errors.js';
import type { Problem } from '../platform/http/problem.js';
import { OAUTH_CODES } from './oauth/errors.js';
import type { CodehostProblemCode } from './problem-codes.js';
import { errorPage } from './web/layout.js';

/*
 * codehost's errors come in three shapes, one per surface (see app.ts):
 * - the API, and the addresses programs call: GitLab's `{"message": "404 Not Found"}`;
 * - the OAuth endpoints: RFC 6749's `{"error", "error_description"}`;
 * - web pages: an HTML page.
 */

/** The web pages' errors: a page, where a person is reading. */
export const renderPageError: ErrorRenderer = (problem, { traceId }) => ({
  contentType: 'text/html; charset=utf-8',
  body: errorPage(problem, traceId),
});

/** The OAuth endpoints' errors (RFC 6749 section 5.2). */
export const renderOAuthError: ErrorRenderer = (problem, { traceId }) => ({
  contentType: 'application/json; charset=utf-8',
  body: {
    error: oauthCode(problem),
    error_description: problem.detail ?? problem.title,
    ...(problem.status >= 500 ? { traceId } : {}),
  },
});

/**
 * What programs are answered at codehost's other addresses (discovery, health,
 * the API description, an address nobody serves): GitLab's shape, except that
 * refused tokens speak OAuth (RFC 6750), as GitLab's API guard does.
 */
export const renderMachineError: ErrorRenderer = (problem, context) =>
  OAUTH_CODES.has(problem.code)
    ? renderOAuthError(problem, context)
    : renderGitlabError(problem, context);

/**
 * The API's errors: as at the other machine addresses. Their `Content-Type` is
 * made GitLab's plain `application/json` by the api surface's onSend hook (and
 * the one for unrouted API addresses): Fastify adds a charset to any JSON type
 * it sends as text, whatever is declared here.
 */
export const renderApiError: ErrorRenderer = (problem, context) => ({
  ...renderMachineError(problem, context),
  contentType: 'application/json',
});

function oauthCode(problem: Problem): string {
  if (OAUTH_CODES.has(problem.code)) return problem.code;
  if (problem.status >= 500) return 'server_error';
  return 'invalid_request';
}

/**
 * GitLab's API error shape, `{"message": ...}`, with GitLab's wording: the status
 * and reason ("404 Not Found"), followed by the detail for client errors. A 500
 * also carries the traceId so a user can quote it (also in X-Request-Id).
 */
const renderGitlabError: ErrorRenderer = (problem, { traceId }) => ({
  contentType: 'application/json; charset=utf-8',
  body:
    problem.status >= 500
      ? { message: gitlabStatusLine(problem), traceId }
      : { message: gitlabMessage(problem) },
});

/** A message GitLab words exactly, sent as it is: `{"message": "404 Group Not Found"}`. */
export const GITLAB_VERBATIM = 'gitlab-verbatim' satisfies CodehostProblemCode;
/** ActiveRecord validation errors: `{"message": {"path": ["has already been taken"]}}`. */
export const GITLAB_RECORD_INVALID = 'gitlab-record-invalid' satisfies CodehostProblemCode;

const GITLAB_REASONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Request Entity Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

function gitlabStatusLine(problem: Problem): string {
  return `${problem.status} ${GITLAB_REASONS[problem.status] ?? problem.title}`;
}

function gitlabMessage(problem: Problem): string | Record<string, string[]> {
  if (problem.code === GITLAB_VERBATIM && problem.detail) return problem.detail;
  if (problem.code === GITLAB_RECORD_INVALID && problem.errors) {
    const byAttribute: Record<string, string[]> = {};
    for (const error of problem.errors) {
      byAttribute[error.field] = [...(byAttribute[error.field] ?? []), error.detail];
    }
    return byAttribute;
  }
  // GitLab's 400s name what was wrong ("400 Bad request - level is invalid");
  // its 404s and 405s are bare status lines.
  return problem.status === 400 && problem.detail
    ? `${gitlabStatusLine(problem)} - ${problem.detail}`
    : gitlabStatusLine(problem);
}
