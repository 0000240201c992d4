/**
 * Schemas of what codehost's API answers, for its routes' `schema.response`:
 * the API description says what comes back, and the contract test holds every
 * response of the test suite to it.
 */
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { RouteOptions } from 'fastify';
import { RETRY_AFTER, wwwAuthenticate } from '../../platform/http/described-headers.js';

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
  409: 'Already there: the user is a member, or the path is taken (GitLab error)',
  413: 'The body is larger than the limit (GitLab error)',
  415: 'The body is in a type the route does not take (GitLab error)',
  500: 'An unforeseen failure: "500 Internal Server Error" with the traceId to quote',
};

/** Headers an error answer carries that a client acts on. */
const ERROR_HEADERS: Partial<Record<number, Record<string, unknown>>> = {
  401: wwwAuthenticate(
    'How to authenticate: Bearer with the error (RFC 6750), or Basic for a client',
  ),
  403: wwwAuthenticate('Bearer error="insufficient_scope" with the scope needed, for a token'),
  429: RETRY_AFTER,
};

/** The `headers` of an error answer of `status`, if it carries any. */
function errorHeaders(status: number) {
  const headers = ERROR_HEADERS[status];
  return headers ? { headers } : {};
}

/** The error answers an API operation can give, by status. */
export function apiErrors(...statuses: (keyof typeof WHY)[]): Record<number, TSchema> {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        ...API_ERROR,
        description: WHY[status],
        ...errorHeaders(status),
      },
    ]),
  );
}

/** A success answer: the schema, with the description the API reference shows. */
export function answer<T extends TObject>(schema: T, description: string): T {
  return { ...schema, description };
}

/** A time GitLab may leave empty. */
export const NullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const Visibility = Type.Union([
  Type.Literal('private'),
  Type.Literal('internal'),
  Type.Literal('public'),
]);
const VisibilityLevel = Type.Union([Type.Literal(0), Type.Literal(10), Type.Literal(20)]);

/** GitLab's group entity (`groupEntity`). */
export const GitLabGroup = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  path: Type.String(),
  description: Type.String(),
  visibility_level: VisibilityLevel,
  visibility: Visibility,
  lfs_enabled: Type.Boolean(),
  avatar_url: Type.Null(),
  web_url: Type.String(),
  request_access_enabled: Type.Boolean(),
  full_name: Type.String(),
  full_path: Type.String(),
  parent_id: Type.Union([Type.Integer(), Type.Null()]),
  created_at: NullableTime,
});

const UserBasic = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  username: Type.String(),
  state: Type.String(),
  avatar_url: Type.Null(),
  web_url: Type.String(),
});

/** GitLab's member entity (`memberEntity`). */
export const GitLabMember = Type.Composite([
  UserBasic,
  Type.Object({
    access_level: Type.Integer({
      description: '10 guest, 20 reporter, 30 developer, 40 master, 50 owner',
    }),
    expires_at: Type.Null(),
  }),
]);

/** GitLab's project entity (`projectEntity`). */
export const GitLabProject = Type.Object({
  id: Type.Integer(),
  description: Type.String(),
  name: Type.String(),
  name_with_namespace: Type.String(),
  path: Type.String(),
  path_with_namespace: Type.String(),
  created_at: NullableTime,
  last_activity_at: NullableTime,
  default_branch: Type.Null(),
  tag_list: Type.Array(Type.String()),
  ssh_url_to_repo: Type.String(),
  http_url_to_repo: Type.String(),
  web_url: Type.String(),
  visibility_level: VisibilityLevel,
  visibility: Visibility,
  public: Type.Boolean(),
  owner: Type.Optional(UserBasic),
  namespace: Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    path: Type.String(),
    kind: Type.Union([Type.Literal('user'), Type.Literal('group')]),
    full_path: Type.String(),
    parent_id: Type.Union([Type.Integer(), Type.Null()]),
  }),
  archived: Type.Boolean(),
  avatar_url: Type.Null(),
  star_count: Type.Integer(),
  forks_count: Type.Integer(),
  open_issues_count: Type.Integer(),
  creator_id: Type.Union([Type.Integer(), Type.Null()]),
  issues_enabled: Type.Boolean(),
  merge_requests_enabled: Type.Boolean(),
  wiki_enabled: Type.Boolean(),
  builds_enabled: Type.Boolean(),
  snippets_enabled: Type.Boolean(),
  request_access_enabled: Type.Boolean(),
  shared_with_groups: Type.Array(Type.Unknown()),
});

const Access = Type.Union([
  Type.Object({ access_level: Type.Integer(), notification_level: Type.Integer() }),
  Type.Null(),
]);

/** A project with the caller's access, as `GET /projects/:id` gives it. */
export const GitLabProjectWithPermissions = Type.Composite([
  GitLabProject,
  Type.Object({ permissions: Type.Object({ project_access: Access, group_access: Access }) }),
]);

/** A group with the projects the caller can see in it, as `GET /groups/:id` gives it. */
export const GitLabGroupWithProjects = Type.Composite([
  GitLabGroup,
  Type.Object({ projects: Type.Array(GitLabProject) }),
]);

/** GitLab's pagination headers on a list. */
export const PAGINATION_HEADERS = {
  'x-total': { type: 'string', description: 'Items in every page' },
  'x-total-pages': { type: 'string' },
  'x-page': { type: 'string' },
  'x-per-page': { type: 'string' },
  'x-next-page': { type: 'string' },
  'x-prev-page': { type: 'string' },
  link: { type: 'string', description: 'rel="next", "prev", "first" and "last" pages' },
} as const;

/** A list answer with GitLab's pagination headers. */
export function page<T extends TSchema>(items: T, description: string) {
  return { ...Type.Array(items), description, headers: PAGINATION_HEADERS };
}

const PAGE_WHY: Record<number, string> = {
  200: 'A page for the user (sign-in, consent, confirmation)',
  302: 'On to the client (with code or error, and state and iss), or to sign in first',
  303: 'On after the form: to the client, or back to the page',
  400: 'A page saying what is wrong (an unknown client, an unregistered redirect URI)',
  403: 'A page: the form was not ours (its token did not match)',
  404: 'A page: there is nothing here',
  422: 'A page: the form had a mistake',
  500: 'A page: an unforeseen failure, with the trace id to quote',
};

/**
 * The answers of an OAuth or OpenID Connect endpoint a browser is sent to:
 * pages, and redirects with `Location`. Described, unlike the site's other
 * pages, because clients are built against them.
 */
export function browserAnswers(...statuses: (keyof typeof PAGE_WHY)[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      status === 302 || status === 303
        ? {
            description: PAGE_WHY[status],
            headers: { location: { type: 'string' } },
            content: { 'text/html': { schema: Type.String() } },
          }
        : { description: PAGE_WHY[status], content: { 'text/html': { schema: Type.String() } } },
    ]),
  );
}

/** RFC 6749 section 5.2's error body (and RFC 6750's, for bearer tokens). */
export const OAuthErrorBody = Type.Object({
  error: Type.String(),
  error_description: Type.String(),
  traceId: Type.Optional(Type.String()),
});

/** OAuth error answers, by status, each with what it means. */
export function oauthErrors(entries: Partial<Record<number, string>>) {
  return Object.fromEntries(
    Object.entries(entries).map(([status, description]) => [
      status,
      {
        ...OAuthErrorBody,
        description,
        ...errorHeaders(Number(status)),
      },
    ]),
  );
}

/** RFC 8414 metadata (and OpenID Connect discovery, which extends it). */
export const ServerMetadata = Type.Object({
  issuer: Type.String(),
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  scopes_supported: Type.Array(Type.String()),
  response_types_supported: Type.Array(Type.String()),
  grant_types_supported: Type.Array(Type.String()),
  code_challenge_methods_supported: Type.Array(Type.String()),
});

/** A JSON Web Key Set (RFC 7517). */
/** A cacheable document the client already holds (If-None-Match, If-Modified-Since). */
export const NOT_MODIFIED = {
  description: 'Not modified: the ETag or date the client sent is current',
  type: 'null',
};

export const KeySet = Type.Object({
  keys: Type.Array(Type.Object({ kty: Type.String(), kid: Type.Optional(Type.String()) })),
});

/**
 * What a route answers when it fails unforeseen (500), in the shape of its
 * surface's errors (see `errors.ts`): OAuth's `server_error` at the OAuth
 * endpoints, a page where a browser is sent, GitLab's `{"message"}` elsewhere.
 */
export function internalErrorOf(route: RouteOptions): unknown {
  switch (route.config?.surface) {
    case 'oauth':
      return oauthErrors({
        500: 'server_error: an unforeseen failure, with the traceId to quote',
      })[500];
    case 'web':
      return browserAnswers(500)[500];
    default:
      return apiErrors(500)[500];
  }
}
