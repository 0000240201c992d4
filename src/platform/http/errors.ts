import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ConstraintViolationError, UnstorableTextError } from '../db/errors.js';
import { ownEntry } from '../own.js';
import { CUSTOM_FORMATS } from './formats.js';
import {
  type FieldError,
  type FieldLocation,
  GENERIC_NOT_FOUND,
  HttpError,
  type Problem,
  problem,
  validationProblem,
} from './problem.js';
import type { RouteTable } from './route-table.js';

/** How a service puts a problem on the wire. */
export type ErrorRenderer = (
  problem: Problem,
  context: { traceId: string; request: FastifyRequest },
) => { contentType: string; body: unknown };

const VALIDATION_LOCATIONS: Record<string, FieldLocation> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

interface AjvIssue {
  keyword?: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Converts anything thrown while handling a request into a problem. */
export function problemFromError(error: unknown): Problem {
  if (error instanceof HttpError) return error.problem;
  if (error instanceof UnstorableTextError) {
    return problem(
      400,
      'unstorable-text',
      'A value contains a character that cannot be stored (such as NUL).',
    );
  }
  if (error instanceof ConstraintViolationError) {
    // Services translate constraint failures into their own messages; one that
    // slips through is still the client's conflict, not a server fault, except for
    // not-null and check failures, which mean our own validation missed something.
    if (error.kind === 'unique' || error.kind === 'foreign_key') {
      return problem(
        409,
        'conflict',
        'The request conflicts with the current state of the resource.',
      );
    }
    return internalProblem();
  }
  const fastifyError = error as Partial<FastifyError> & {
    validation?: AjvIssue[];
    validationContext?: string;
  };
  if (Array.isArray(fastifyError.validation)) {
    const location = VALIDATION_LOCATIONS[fastifyError.validationContext ?? 'body'] ?? 'body';
    const errors = fieldErrorsOf(fastifyError.validation, location);
    return validationProblem(errors);
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem(
        413,
        'payload-too-large',
        'The request body is larger than this server accepts.',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem(
        415,
        'unsupported-media-type',
        'This route does not accept that Content-Type.',
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problem(400, 'malformed-body', 'The request body is not valid JSON.', {
        title: 'Malformed request body',
      });
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // Client errors raised by Fastify and its plugins describe the request, not us.
    return problem(status, 'bad-request', fastifyError.message);
  }
  return internalProblem();
}

/** Schema validation issues as the field errors problems list, in plain words. */
export function fieldErrorsOf(issues: readonly AjvIssue[], location: FieldLocation): FieldError[] {
  return mergeEnumerations(issues).map((issue) => fieldError(location, issue));
}

function internalProblem(): Problem {
  return problem(
    500,
    'internal',
    'An unexpected error occurred. Quote the traceId when reporting it.',
  );
}

/**
 * A choice among literals (TypeBox's union of constants) fails as one `const`
 * issue per literal plus an `anyOf`: "must be equal to constant" again and again,
 * never naming the values. One issue naming every allowed value says it plainly.
 */
function mergeEnumerations(issues: readonly AjvIssue[]): AjvIssue[] {
  const allowedAt = new Map<string, unknown[]>();
  for (const issue of issues) {
    if (issue.keyword !== 'const') continue;
    const allowed = allowedAt.get(issue.instancePath) ?? [];
    allowed.push(issue.params.allowedValue);
    allowedAt.set(issue.instancePath, allowed);
  }
  const choices = new Set(
    issues.filter((issue) => issue.keyword === 'anyOf').map((issue) => issue.instancePath),
  );
  for (const path of allowedAt.keys()) if (!choices.has(path)) allowedAt.delete(path);
  if (allowedAt.size === 0) return [...issues];
  const merged: AjvIssue[] = [];
  for (const issue of issues) {
    const allowed = allowedAt.get(issue.instancePath);
    if (allowed === undefined) merged.push(issue);
    else if (issue.keyword === 'anyOf') {
      const values = allowed.map((value) => JSON.stringify(value)).join(', ');
      merged.push({
        ...issue,
        message: allowed.length === 1 ? `must be ${values}` : `must be one of ${values}`,
      });
    } else if (issue.keyword !== 'const') merged.push(issue);
  }
  return merged;
}

function fieldError(location: FieldLocation, issue: AjvIssue): FieldError {
  const missing = issue.params.missingProperty;
  const additional = issue.params.additionalProperty;
  const child =
    typeof missing === 'string' ? missing : typeof additional === 'string' ? additional : undefined;
  // Ajv escapes instancePath itself; the property name it reports separately is raw.
  const pointer =
    child === undefined
      ? issue.instancePath
      : `${issue.instancePath}/${child.replaceAll('~', '~0').replaceAll('/', '~1')}`;
  const field = location === 'body' ? pointer : pointer.replace(/^\//, '').replaceAll('/', '.');
  const format =
    issue.keyword === 'format' && typeof issue.params.format === 'string'
      ? ownEntry(CUSTOM_FORMATS, issue.params.format)
      : undefined;
  const detail =
    typeof additional === 'string'
      ? 'is not a known field'
      : typeof missing === 'string'
        ? 'is required'
        : (format?.detail ?? issue.message ?? 'is invalid');
  return { in: location, field, detail };
}

export function sendProblem(
  reply: FastifyReply,
  request: FastifyRequest,
  render: ErrorRenderer,
  value: Problem,
): FastifyReply {
  const { contentType, body } = render(value, { traceId: request.id, request });
  if (value.headers) reply.headers(value.headers);
  return reply
    .status(value.status)
    .type(contentType)
    .send(typeof body === 'string' ? body : JSON.stringify(body));
}

/** A 404 for an address no route serves, or a 405 (with Allow) where others do. */
function routeProblem(routes: RouteTable, request: FastifyRequest): Problem {
  // Fastify parses the body even of requests bound for the not-found handler; the
  // missing route is the answer that matters then, not the state of the body.
  const allowed = routes.methodsFor(request.url);
  // A route that exists for this very method and still ends up here (a handler
  // calling callNotFound for a missing resource) is a plain 404.
  return allowed.length > 0 && !allowed.includes(request.method)
    ? problem(
        405,
        'method-not-allowed',
        `${request.method} is not allowed here; use ${allowed.join(', ')}.`,
        { headers: { allow: allowed.join(', ') } },
      )
    : problem(404, 'not-found', GENERIC_NOT_FOUND);
}

/**
 * An error handler rendering with `render`: the service's, or a surface's own
 * (a scoped plugin sets one for its routes). A request no route serves is
 * answered by the surface owning its address (see `RouteTable.ownerOf`).
 */
export function errorHandler(render: ErrorRenderer, routes?: RouteTable) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const unrouted = request.is404 && routes !== undefined;
    const value = unrouted ? routeProblem(routes, request) : problemFromError(error);
    if (value.status >= 500) {
      // A deliberate 5xx (search marked down, 503 while closing) is an expected
      // state: one line at warn. Anything else is a fault, logged with its stack.
      if (error instanceof HttpError) {
        request.log.warn({ problem: value.code }, value.detail ?? value.title);
      } else {
        request.log.error({ err: error }, 'request failed');
      }
    }
    // A catch-all route (pages named by a path of any depth) also matches addresses
    // other surfaces claim: its failures there take their owner's shape.
    const byAddress = routes !== undefined && (unrouted || request.routeOptions.config?.catchAll);
    const renderer = byAddress ? (routes.ownerOf(request.url) ?? render) : render;
    return sendProblem(reply, request, renderer, value);
  };
}

/** Installs the 404/405 and error handlers that give a service its error shape. */
export function installErrorHandling(
  app: FastifyInstance,
  render: ErrorRenderer,
  routes: RouteTable,
): void {
  app.setErrorHandler(errorHandler(render, routes));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      request,
      routes.ownerOf(request.url) ?? render,
      routeProblem(routes, request),
    ),
  );
}
