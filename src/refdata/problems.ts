import { Type } from '@sinclair/typebox';
import type { ErrorRenderer } from '../platform/http/errors.js';
import type { FieldError } from '../platform/http/problem.js';
import type { HttpApp } from '../platform/http/server.js';
import { ownEntry } from '../platform/own.js';
import { problems } from './described-responses.js';

/**
 * Problem types of our own, each documented at `<public URL>/problems/<code>`.
 * Problems that say no more than their HTTP status use `about:blank`, as RFC 9457
 * section 4.2.1 intends.
 */
export const PROBLEM_TYPES: Readonly<Record<string, { title: string; description: string }>> = {
  validation: {
    title: 'Invalid request',
    description:
      'A parameter or body field is missing, of the wrong type, unknown, or has a value the service does not accept. The `errors` member lists each one with a JSON pointer (body) or parameter name.',
  },
  'malformed-body': {
    title: 'Malformed request body',
    description: 'The request body could not be parsed as the declared Content-Type.',
  },
  'invalid-token': {
    title: 'Authentication required',
    description:
      'The request has no bearer token, or its token is malformed, expired, for another audience or issuer, or not signed by a trusted key. `WWW-Authenticate` says which.',
  },
  'missing-role': {
    title: 'Role required',
    description:
      'The token is valid but lacks the role this operation needs: Reader, Creator or Reviewer (see docs/authentication.md).',
  },
  'domain-rule': {
    title: 'Rule not met',
    description:
      'The body is well-formed but breaks a rule of its family (a reference to a missing or wrong resource, a value kind without its range, an unsafe symbol, ...). `errors` names each field.',
  },
  duplicate: {
    title: 'Duplicate resource',
    description:
      'A resource with this IRI, or of the same family with the same name in the same library, already exists.',
  },
  'not-draft': {
    title: 'Not a Draft',
    description:
      'Only a Draft can be changed (PUT); a Submitted, Approved, Rejected or Deprecated resource stays as it was decided.',
  },
  'wrong-state': {
    title: 'Not in the state this step starts from',
    description:
      'Each lifecycle step starts from one state: submit from Draft, approve and reject from Submitted. `detail` says which state the resource is in.',
  },
  'already-replaced': {
    title: 'Already replaced',
    description:
      'The resource this one replaces was already replaced by another, now its one dcterms:isReplacedBy. A second replacement is not submitted or approved: replace the successor named in `detail`, or change `replaces`.',
  },
  'moves-with-picklist': {
    title: 'Values move with their picklist',
    description:
      'A picklist value is submitted, approved and rejected together with its picklist, never alone. Take the step on the picklist named in `detail`.',
  },
  'stale-write': {
    title: 'Changed meanwhile',
    description:
      'The resource changed since the version the request was based on (its `If-Match` ETag, or a concurrent write). Read it again and repeat the change.',
  },
  'wrong-family': {
    title: 'Resource of another family',
    description: 'The IRI names a resource of another family; update it through its own route.',
  },
  'not-acceptable': {
    title: 'Not Acceptable',
    description:
      'None of the media types in `Accept` is offered. Resources are offered as application/json, application/ld+json, text/turtle, application/trig, application/n-triples, application/rdf+xml, application/n-quads and text/html.',
  },
  'search-unavailable': {
    title: 'Search unavailable',
    description:
      'The search index is being rebuilt (refdata-search-rebuild) or is marked down. Retry after the seconds in Retry-After; everything else keeps working.',
  },
  'sparql-syntax': {
    title: 'Not a SPARQL query',
    description:
      'The query text does not parse as SPARQL 1.1. `detail` says, in words, the line and column where reading stopped and what stands there (an undeclared prefix, a bracket never closed, a word not expected there).',
  },
  'sparql-query-refused': {
    title: 'Query refused',
    description:
      'The query parses, but the engine cannot evaluate it here: `detail` says why (for example a SERVICE to another endpoint, which this endpoint does not call).',
  },
  'sparql-query-too-complex': {
    title: 'Query too complex',
    description:
      'The query nests brackets deeper, or chains more operations (nested groups, UNION, OPTIONAL, BIND, operators, path steps), than this endpoint evaluates (docs/sparql.md#limits). `detail` says which and where; split the query, or give alternatives as VALUES.',
  },
  'sparql-update-refused': {
    title: 'Updates are refused',
    description:
      'The endpoint answers queries only. Resources are written through the authoring API, Drafts first, and reach the published view when approved.',
  },
  'sparql-timeout': {
    title: 'Query took too long',
    description:
      'The query ran past the time limit (REFDATA_SPARQL_TIMEOUT_MS) and was stopped. Narrow it (a LIMIT, a library graph, fewer property paths) and ask again.',
  },
  'import-running': {
    title: 'An import is under way',
    description:
      'One import at a time works on a library. Follow the one under way at its address (GET /imports/{id}) and start the next once it has ended.',
  },
  'release-conflict': {
    title: 'Another release came first',
    description:
      "A release of this library was made while this one was being made, or this version exists already. Read the library's releases again (GET /releases?library=) and release a version after the latest.",
  },
  'not-author': {
    title: 'Not the author',
    description:
      'Only its author (the person who created it) changes or submits a Draft, and copies a Rejected resource into a new Draft. Comment on it instead, or write a Draft of your own (docs/review.md).',
  },
  'four-eyes': {
    title: 'Four eyes',
    description:
      'Nobody approves or rejects what they submitted or last changed: another Reviewer decides it. `errors` names each such resource. An operator may turn the rule off with REFDATA_FOUR_EYES=false (docs/review.md).',
  },
  'unapproved-dependencies': {
    title: 'It names what is not approved',
    description:
      'An approved resource may name only published resources, or ones approved in the same decision: `errors` lists each resource named that is not, with its status and the field naming it. Approve those first, or decide them together as a package (docs/review.md).',
  },
  'comment-locked': {
    title: 'The comment can no longer be changed',
    description:
      'A comment is edited only by its author, and only for a short while after it was written (docs/review.md); write another comment instead.',
  },
  'quality-errors': {
    title: 'The quality report has errors',
    description:
      'A library is released only when its quality report (GET /quality?library=) finds no error. `errors` lists each finding: the resource, the rule and what to do; fix them and release again (docs/releases.md).',
  },
  'webhook-limit': {
    title: 'Too many webhooks',
    description:
      'Each person may have as many webhook subscriptions as REFDATA_WEBHOOK_MAX_PER_OWNER allows; delete one to make another.',
  },
  'sparql-busy': {
    title: 'Too many queries at once',
    description:
      'This instance is evaluating as many queries as it takes at once (REFDATA_SPARQL_MAX_CONCURRENT). Retry after the seconds in Retry-After.',
  },
  'sparql-unavailable': {
    title: 'SPARQL unavailable',
    description:
      'The dataset is being built (at start, or after a query past the time limit was stopped). Retry after the seconds in Retry-After; everything else keeps working.',
  },
  'not-found': {
    title: 'Not found',
    description:
      'No resource has the IRI asked for, or no route exists at this address. `detail` says which.',
  },
  removed: {
    title: 'Removed',
    description:
      'The resource existed as a Draft and was removed (a value its picklist no longer lists). Its revisions, ending with the removal, are still at `/revisions`.',
  },
  'method-not-allowed': {
    title: 'Method not allowed',
    description: 'The route exists but not with this method; `Allow` lists the methods it has.',
  },
  'payload-too-large': {
    title: 'Request body too large',
    description: 'The body is larger than the service accepts (`BODY_LIMIT_BYTES`).',
  },
  'unsupported-media-type': {
    title: 'Unsupported media type',
    description: 'Bodies are `application/json` (or a form, where a route says so).',
  },
  'bad-request': {
    title: 'Bad request',
    description: 'The request could not be read as HTTP the service understands.',
  },
  'unstorable-text': {
    title: 'Text that cannot be stored',
    description: 'A value holds characters the database cannot store, such as NUL.',
  },
  conflict: {
    title: 'Conflict',
    description: 'The request clashes with what is stored; read the resource again.',
  },
  'rate-limited': {
    title: 'Too many requests',
    description: 'Too many requests from this client; retry after the seconds in `Retry-After`.',
  },
  internal: {
    title: 'Internal error',
    description: 'The service failed. Nothing was changed; quote the `traceId` when reporting it.',
  },
  'unsupported-route': {
    title: 'Route not supported',
    description:
      'The route exists in some deployments of the platform but is not supported by this service (`/rdl/terms/annotationproperty`, `/rdl/shapes`).',
  },
};

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problemDetailsRenderer(publicUrl: string): ErrorRenderer {
  return (problem, { traceId, request }) => {
    const documented = ownEntry(PROBLEM_TYPES, problem.code);
    return {
      contentType: PROBLEM_CONTENT_TYPE,
      body: {
        type: documented ? `${publicUrl}/problems/${problem.code}` : 'about:blank',
        title: documented?.title ?? problem.title,
        status: problem.status,
        ...(problem.detail ? { detail: problem.detail } : {}),
        // The path only: a query string may carry values that do not belong in errors.
        // (None for what was refused before a request line was read.)
        ...(request.url === '' ? {} : { instance: request.url.split('?')[0] }),
        traceId,
        ...(problem.errors ? { errors: problem.errors.map(problemDetailsError) } : {}),
      },
    };
  };
}

function problemDetailsError(error: FieldError): Record<string, string> {
  switch (error.in) {
    case 'body':
      return { pointer: `#${error.field}`, detail: error.detail };
    case 'header':
      return { header: error.field, detail: error.detail };
    default:
      return { parameter: error.field, detail: error.detail };
  }
}

const ProblemType = Type.Object({
  type: Type.String({ format: 'uri' }),
  title: Type.String(),
  description: Type.String(),
});

/** Makes every problem `type` URI we hand out dereferenceable. */
export function registerProblemTypeRoutes(app: HttpApp, publicUrl: string): void {
  app.get(
    '/problems/:code',
    {
      schema: {
        tags: ['problems'],
        summary: 'Describe a problem type used in error responses',
        params: Type.Object({ code: Type.String({ maxLength: 64 }) }),
        response: {
          200: ProblemType,
          ...problems(400, 404),
        },
      },
    },
    async (request, reply) => {
      const documented = ownEntry(PROBLEM_TYPES, request.params.code);
      if (!documented) return reply.callNotFound();
      return { type: `${publicUrl}/problems/${request.params.code}`, ...documented };
    },
  );
}
