import type { ErrorRenderer } from '../platform/http/errors.js';
import type { Problem } from '../platform/http/problem.js';

/**
 * GitLab's API error shape, `{"message": ...}`, with GitLab's wording: the status
 * and reason ("404 Not Found"), followed by the detail for client errors. A 500
 * also carries the traceId so a user can quote it (also in X-Request-Id).
 */
export const renderGitlabError: ErrorRenderer = (problem, { traceId }) => ({
  contentType: 'application/json; charset=utf-8',
  body:
    problem.status >= 500
      ? { message: gitlabStatusLine(problem), traceId }
      : { message: gitlabMessage(problem) },
});

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

function gitlabMessage(problem: Problem): string {
  // GitLab's 400s name what was wrong ("400 Bad request - level is invalid");
  // its 404s and 405s are bare status lines.
  return problem.status === 400 && problem.detail
    ? `${gitlabStatusLine(problem)} - ${problem.detail}`
    : gitlabStatusLine(problem);
}
