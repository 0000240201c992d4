import type { RouteOptions } from 'fastify';
import type { ApiSecurity, SecurityRequirement } from '../../platform/http/openapi.js';
import { SCOPES } from '../oauth/scopes.js';

/** Each way GitLab's API takes a token (authentication.ts reads them in this order). */
const ALTERNATIVES = [
  'privateToken',
  'privateTokenParameter',
  'accessTokenParameter',
  'bearer',
  'oauth2',
] as const;

/**
 * codehost's API security for its description: a personal access token in
 * `PRIVATE-TOKEN` or `private_token`, an OAuth access token in
 * `Authorization: Bearer` or `access_token`, and the OAuth 2.0 authorization
 * code flow itself, so `/docs` can sign in through this very server. The routes
 * that take these are those that declare `apiScopes` (every route under `/api/`).
 */
export function codehostApiSecurity(publicUrl: string): ApiSecurity {
  return {
    schemes: {
      privateToken: {
        type: 'apiKey',
        in: 'header',
        name: 'PRIVATE-TOKEN',
        description: 'A personal access token (made on /profile/personal_access_tokens).',
      },
      privateTokenParameter: {
        type: 'apiKey',
        in: 'query',
        name: 'private_token',
        description: 'A personal access token as a query parameter (GitLab accepts it there too).',
      },
      accessTokenParameter: {
        type: 'apiKey',
        in: 'query',
        name: 'access_token',
        description: 'An OAuth access token as a query parameter.',
      },
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'An OAuth access token from /oauth/token.',
      },
      oauth2: {
        type: 'oauth2',
        description:
          "OAuth 2.0 authorization code with PKCE. From /docs, register an application whose redirect URI is this page's /docs/static/oauth2-redirect.html, and give its Application ID as client_id.",
        flows: {
          authorizationCode: {
            authorizationUrl: `${publicUrl}/oauth/authorize`,
            tokenUrl: `${publicUrl}/oauth/token`,
            refreshUrl: `${publicUrl}/oauth/token`,
            scopes: { ...SCOPES },
          },
        },
      },
    },
    // Each way of sending a token, once per scope that admits the caller (any
    // one does). OpenAPI 3.1 lets the other schemes list scopes too, and they
    // apply: a personal access token has scopes as well.
    requirementsOf: (route: RouteOptions) =>
      route.config?.apiScopes?.flatMap((scope) =>
        ALTERNATIVES.map((scheme): SecurityRequirement => ({ [scheme]: [scope] })),
      ),
  };
}
