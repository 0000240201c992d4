import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { oauthErrors } from '../api/described-responses.js';
import type { Codehost } from '../context.js';
import { scopesOf } from '../oauth/applications.js';
import { bearerChallenge, oauthError } from '../oauth/errors.js';
import { claimsFor, userFacts } from './claims.js';

/** The userinfo endpoint, GET and POST (OpenID Connect Core 5.3), on the OAuth surface. */
export function registerUserinfoRoute(app: HttpApp, codehost: Codehost): void {
  const userinfo = async (request: FastifyRequest) => {
    const { user, scopes } = await userinfoCaller(codehost, request);
    return claimsFor(user, await userFacts(codehost, user), scopes, 'userinfo');
  };
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/oauth/userinfo',
      schema: {
        summary:
          "The signed-in user's claims (OpenID Connect Core 5.3); a bearer token with openid",
        tags: ['oauth'],
        response: {
          200: {
            // Which claims depends on the scopes; the handler builds them as a record.
            ...Type.Unsafe<Record<string, unknown>>(Type.Object({ sub: Type.String() })),
            description: 'The claims the token’s scopes allow',
          },
          ...oauthErrors({
            400: 'invalid_request: the token sent twice',
            401: 'invalid_token: none, or not a live one (WWW-Authenticate)',
            403: 'insufficient_scope: the token lacks openid',
            415: 'The body is not a form',
          }),
        },
      },
      handler: userinfo,
    });
  }
}

function refused(
  status: 401 | 403,
  error: 'invalid_token' | 'insufficient_scope',
  description: string,
  scope?: string,
) {
  return oauthError(status, error, description, {
    'www-authenticate': bearerChallenge(error, description, scope),
  });
}

/**
 * The user behind an OAuth access token with `openid`, sent as RFC 6750 allows:
 * `Authorization: Bearer`, or `access_token` in a POST's form body. Personal
 * access tokens are not OpenID Connect grants and are refused.
 */
async function userinfoCaller(codehost: Codehost, request: FastifyRequest) {
  const header = request.headers.authorization;
  const fromHeader =
    header && /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, '').trim() : undefined;
  const parameter = partValue(request.body, 'access_token');
  const fromBody = typeof parameter === 'string' ? parameter : undefined;
  if (fromHeader !== undefined && fromBody !== undefined) {
    throw oauthError(
      400,
      'invalid_request',
      'Send the access token once: in the header or the body.',
    );
  }
  const token = fromHeader ?? fromBody;
  if (!token) {
    throw oauthError(401, 'invalid_token', 'An access token with the openid scope is required.', {
      'www-authenticate': 'Bearer realm="codehost", scope="openid"',
    });
  }
  const row = await codehost.tokens.findByAccessToken(token);
  if (!row || !codehost.tokens.isActive(row)) {
    throw refused(401, 'invalid_token', 'The access token is invalid, expired or revoked.');
  }
  const scopes = scopesOf(row);
  if (!scopes.includes('openid')) {
    throw refused(
      403,
      'insufficient_scope',
      'The access token was not granted the openid scope.',
      'openid',
    );
  }
  const user = await codehost.users.findById(row.resource_owner_id);
  if (user?.state !== 'active') {
    throw refused(401, 'invalid_token', 'The user of this access token can no longer sign in.');
  }
  return { user, scopes };
}
