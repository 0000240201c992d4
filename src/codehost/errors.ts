import type { FastifyRequest } from 'fastify';
import type { ErrorRenderer } from '../platform/http/errors.js';
import type { Problem } from '../platform/http/problem.js';
import { OAUTH_ERROR_CODES } from './oauth/errors.js';
import { errorPage } from './web/layout.js';

/**
 * How a route's failures are put on the wire; set in the route's `config`.
 * `by-path` is for a route that answers paths of every surface (the project
 * pages, named by paths of any depth): its failures take the shape of the
 * surface the path belongs to, as an unknown address does.
 */
export type ErrorShape = 'gitlab' | 'oauth' | 'html' | 'by-path';

declare module 'fastify' {
  interface FastifyContextConfig {
    errorShape?: ErrorShape;
  }
}

/**
 * codehost's errors come in three shapes, chosen by the route:
 * - the API: GitLab's `{"message": "404 Not Found"}`;
 * - the OAuth endpoints (and refused tokens anywhere): RFC 6749's
 *   `{"error", "error_description"}`;
 * - web pages: an HTML page.
 * An unknown address answers as its surface does: JSON under the machine
 * prefixes (the API, OAuth's endpoints, discovery, health), a page anywhere
 * else, where a person may be reading.
 */
export const renderCodehostError: ErrorRenderer = (problem, { traceId, request }) => {
  const shape = shapeFor(request, problem);
  if (shape === 'html') {
    return { contentType: 'text/html; charset=utf-8', body: errorPage(problem, traceId) };
  }
  if (shape === 'oauth') {
    return {
      contentType: 'application/json; charset=utf-8',
      body: {
        error: oauthCode(problem),
        error_description: problem.detail ?? problem.title,
        ...(problem.status >= 500 ? { traceId } : {}),
      },
    };
  }
  return renderGitlabError(problem, { traceId, request });
};

/** Paths where programs, not people, are the callers. */
const MACHINE_PREFIXES = ['/api/', '/oauth/', '/.well-known/', '/-/', '/openapi.json'];

function isMachinePath(url: string): boolean {
  return MACHINE_PREFIXES.some((prefix) => url.startsWith(prefix));
}

function shapeFor(request: FastifyRequest, problem: Problem): ErrorShape {
  const routeShape = request.routeOptions.config?.errorShape;
  if (routeShape === 'html' || routeShape === 'oauth') return routeShape;
  // Refused tokens on the API speak OAuth (RFC 6750), as GitLab's API guard does.
  if (OAUTH_ERROR_CODES.has(problem.code)) return 'oauth';
  if (request.is404 || routeShape === 'by-path') {
    return isMachinePath(request.url) ? 'gitlab' : 'html';
  }
  return 'gitlab';
}

function oauthCode(problem: Problem): string {
  if (OAUTH_ERROR_CODES.has(problem.code)) return problem.code;
  if (problem.status >= 500) return 'server_error';
  return 'invalid_request';
}

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

/** A message GitLab words exactly, sent as it is: `{"message": "404 Group Not Found"}`. */
export const GITLAB_VERBATIM = 'gitlab-verbatim';
/** ActiveRecord validation errors: `{"message": {"path": ["has already been taken"]}}`. */
export const GITLAB_RECORD_INVALID = 'gitlab-record-invalid';

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
