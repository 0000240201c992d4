/**
 * Schemas of what codehost's API answers, for its routes' `schema.response`:
 * the API description says what comes back, and the contract test holds every
 * response of the test suite to it.
 */
import { type TObject, type TSchema, Type } from '@sinclair/typebox';

/** GitLab's API error: a status line, or a record's messages by attribute. */
const GitLabError = Type.Object(
  {
    message: Type.Union([Type.String(), Type.Record(Type.String(), Type.Array(Type.String()))]),
    traceId: Type.Optional(Type.String({ description: 'Quote it when reporting a 5xx' })),
  },
  { title: 'GitLab error', examples: [{ message: '404 Project Not Found' }] },
);

/** A refused or insufficient token, in RFC 6750's words (as GitLab's API guard answers). */
const TokenError = Type.Object(
  {
    error: Type.String({ examples: ['invalid_token', 'insufficient_scope', 'invalid_request'] }),
    error_description: Type.String(),
  },
  { title: 'OAuth 2.0 bearer token error' },
);

const API_ERROR = Type.Union([GitLabError, TokenError]);

const WHY: Record<number, string> = {
  400: 'A parameter is missing, malformed or not allowed (GitLab error)',
  401: 'No token, or an unknown, revoked or expired one (GitLab error or RFC 6750 error, with WWW-Authenticate)',
  403: 'The token lacks the scope, or the user the access (RFC 6750 insufficient_scope or GitLab error)',
  404: 'Not there, or not visible to the caller (GitLab error)',
  413: 'The body is larger than the limit (GitLab error)',
  415: 'The body is in a type the route does not take (GitLab error)',
};

/** The error answers an API operation can give, by status. */
export function apiErrors(...statuses: (keyof typeof WHY)[]): Record<number, TSchema> {
  return Object.fromEntries(
    statuses.map((status) => [status, { ...API_ERROR, description: WHY[status] }]),
  );
}

/** A success answer: the schema, with the description the API reference shows. */
export function answer<T extends TObject>(schema: T, description: string): T {
  return { ...schema, description };
}
