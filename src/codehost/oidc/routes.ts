import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fixedJsonDocument, sendWithValidators } from '../../platform/http/conditional.js';
import type { HttpApp } from '../../platform/http/server.js';
import { KeySet, NOT_MODIFIED, oauthErrors, ServerMetadata } from '../api/described-responses.js';
import type { Codehost } from '../context.js';
import { scopesOf } from '../oauth/applications.js';
import { bearerChallenge, oauthError } from '../oauth/errors.js';
import { authorizationServerMetadata } from '../oauth/metadata-routes.js';
import { CLAIMS, claimsFor, userFacts } from './claims.js';
import { SIGNING_ALGORITHMS } from './signing-keys.js';

/** How long relying parties may cache the key set; a new key is published for longer before it signs. */
export const KEY_SET_MAX_AGE_SECONDS = 300;

/**
 * OpenID Connect Discovery 1.0, the key set it names (at GitLab's address) and
 * the userinfo endpoint, GET and POST (OpenID Connect Core 5.3).
 */
export function registerOidcRoutes(app: HttpApp, codehost: Codehost): void {
  const base = codehost.config.publicUrl;
  // OpenID Connect Discovery 1.0: the RFC 8414 metadata and what OpenID Connect adds.
  const configuration = {
    ...authorizationServerMetadata(codehost),
    userinfo_endpoint: `${base}/oauth/userinfo`,
    end_session_endpoint: `${base}/oauth/logout`,
    jwks_uri: `${base}/oauth/discovery/keys`,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
    claim_types_supported: ['normal'],
    claims_supported: [
      'iss',
      'sub',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'at_hash',
      ...Object.keys(CLAIMS),
    ],
  };

  app.get('/.well-known/openid-configuration', {
    schema: {
      summary: 'OpenID Connect discovery document (OpenID Connect Discovery 1.0)',
      tags: ['oauth'],
      response: {
        200: {
          ...Type.Composite([
            ServerMetadata,
            Type.Object({
              userinfo_endpoint: Type.String(),
              jwks_uri: Type.String(),
              id_token_signing_alg_values_supported: Type.Array(Type.String()),
              claims_supported: Type.Array(Type.String()),
            }),
          ]),
          description: 'The provider configuration',
        },
        304: NOT_MODIFIED,
      },
    },
    handler: fixedJsonDocument(configuration, 3600),
  });

  app.get('/oauth/discovery/keys', {
    schema: {
      summary: 'The key set ID tokens are signed with (JWKS)',
      tags: ['oauth'],
      response: {
        200: {
          description: 'The published keys: the one that signs, and those about to or just retired',
          // jose types a key's every member as optional; the set is checked by the schema.
          content: { 'application/jwk-set+json': { schema: Type.Unsafe<object>(KeySet) } },
        },
        304: NOT_MODIFIED,
      },
    },
    handler: async (request, reply) =>
      sendWithValidators(
        request,
        reply.header('cache-control', `public, max-age=${KEY_SET_MAX_AGE_SECONDS}`),
        {
          body: JSON.stringify(await codehost.signingKeys.published()),
          contentType: 'application/jwk-set+json',
          // No Last-Modified: a removed key leaves no row to date its removal by, and
          // a date that did not move would let If-Modified-Since keep a withdrawn key.
        },
      ),
  });

  const userinfo = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', 'no-store');
    const { user, scopes } = await userinfoCaller(codehost, request);
    return claimsFor(user, await userFacts(codehost, user), scopes, 'userinfo');
  };
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/oauth/userinfo',
      config: { errorShape: 'oauth' },
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

function refused(status: 401 | 403, error: string, description: string, scope?: string) {
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
  const body = request.body as Record<string, unknown> | undefined;
  const fromBody = typeof body?.access_token === 'string' ? body.access_token : undefined;
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
