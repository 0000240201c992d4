import { Type } from '@sinclair/typebox';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { oauthErrors } from '../api/described-responses.js';
import type { Codehost } from '../context.js';
import { signIdToken } from '../oidc/id-token.js';
import { scopesOf } from './applications.js';
import { type ClientIdentity, identifyClient, singleValuedParameters } from './client-auth.js';
import { bearerChallenge, invalidClient, oauthError } from './errors.js';
import { CLIENT_PARAMETERS, formEndpoint } from './form-endpoint.js';
import { type Granted, invalidRequest } from './grants/grant.js';
import { signJwtAccessToken } from './jwt-access-token.js';
import { RESOURCE_PARAMETER, requestedResource } from './resource-servers.js';
import type { IssuedToken } from './tokens.js';

const TOKEN_LOOKUP_PARAMETERS = {
  token: 'The access or refresh token',
  token_type_hint: 'access_token or refresh_token',
  ...CLIENT_PARAMETERS,
};

/** RFC 6749 section 5.1. */
const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer(),
  refresh_token: Type.Optional(Type.String({ description: 'Not from the password grant' })),
  scope: Type.String(),
  created_at: Type.Integer({ description: 'Seconds since the epoch' }),
  id_token: Type.Optional(Type.String({ description: 'With the openid scope and a client' })),
});

/** RFC 7662 section 2.2. */
const IntrospectionResponse = Type.Object({
  active: Type.Boolean(),
  scope: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  token_type: Type.Optional(Type.String()),
  exp: Type.Optional(Type.Integer()),
  iat: Type.Optional(Type.Integer()),
  sub: Type.Optional(Type.String()),
  iss: Type.Optional(Type.String()),
});

/** Token, revocation, introspection and token-info endpoints. */
export function registerTokenRoutes(app: HttpApp, codehost: Codehost): void {
  const grants = codehost.grants;
  /** Every grant's parameters, for the description; each grant reads its own. */
  const tokenParameters = {
    grant_type: [...grants.keys()].join(', '),
    ...Object.assign({}, ...[...grants.values()].map((grant) => grant.parameters)),
    resource: RESOURCE_PARAMETER,
    ...CLIENT_PARAMETERS,
  };
  const formRoute = formEndpoint(codehost);

  app.post('/oauth/token', {
    ...formRoute(
      'Exchange a code, password or refresh token for an access token',
      tokenParameters,
      TokenResponse,
      'The token (RFC 6749 section 5.1), with an ID token when the grant has openid',
    ),
    handler: async (request) => {
      const body = singleValuedParameters(request.body, ['resource']);
      const grantType = body.grant_type;
      if (grantType === undefined) throw invalidRequest('grant_type is missing.');
      const grant = grants.get(grantType);
      if (!grant) {
        throw oauthError(
          400,
          'unsupported_grant_type',
          `grant_type must be ${listed([...grants.keys()])}.`,
        );
      }
      const resource = await requestedResource(
        codehost.resourceServers,
        (request.body as Record<string, unknown> | undefined)?.resource,
      );
      return tokenAnswer(codehost, await grant.grant({ codehost, request, body, resource }));
    },
  });

  app.post('/oauth/revoke', {
    ...formRoute(
      'Revoke an access or refresh token (RFC 7009)',
      TOKEN_LOOKUP_PARAMETERS,
      Type.Object({}, { additionalProperties: false }),
      'Revoked, or there was nothing to revoke',
    ),
    handler: async (request, reply) => {
      const body = singleValuedParameters(request.body);
      const client = await identifyClient(request, body, codehost.applications);
      if (body.token === undefined) throw invalidRequest('token is missing.');
      const hint = body.token_type_hint;
      if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token') {
        throw oauthError(400, 'unsupported_token_type', 'token_type_hint is not supported.');
      }
      const row =
        hint === 'refresh_token'
          ? ((await codehost.tokens.findByRefreshToken(body.token)) ??
            (await codehost.tokens.findByAccessToken(body.token)))
          : ((await codehost.tokens.findByAccessToken(body.token)) ??
            (await codehost.tokens.findByRefreshToken(body.token)));
      // RFC 7009 section 2.2: an unknown or already invalid token is still a 200.
      if (row) {
        if (!mayActOnToken(client, row.application_id)) {
          throw oauthError(400, 'unauthorized_client', 'The token was not issued to this client.');
        }
        await codehost.tokens.revoke(row.id);
      }
      return reply.status(200).send({});
    },
  });

  app.post('/oauth/introspect', {
    ...formRoute(
      'Describe a token (RFC 7662); for authenticated clients',
      TOKEN_LOOKUP_PARAMETERS,
      IntrospectionResponse,
      "The token's state; only a client's own tokens are ever active",
    ),
    handler: async (request) => {
      const body = singleValuedParameters(request.body);
      const client = await identifyClient(request, body, codehost.applications);
      if (client.kind !== 'authenticated') {
        throw invalidClient('Introspection is for clients that authenticate with their secret.');
      }
      if (body.token === undefined) throw invalidRequest('token is missing.');
      const accessRow = await codehost.tokens.findByAccessToken(body.token);
      const row = accessRow ?? (await codehost.tokens.findByRefreshToken(body.token));
      const isRefresh = accessRow === undefined;
      // A client learns only about its own tokens; anything else is simply inactive.
      if (!row || row.application_id !== client.application.id || row.revoked_at !== null) {
        return { active: false };
      }
      if (!isRefresh && !codehost.tokens.isActive(row)) return { active: false };
      const user = await codehost.users.findById(row.resource_owner_id);
      if (user?.state !== 'active') return { active: false };
      return {
        active: true,
        scope: row.scopes,
        client_id: client.application.uid,
        username: user.username,
        token_type: isRefresh ? 'refresh_token' : 'Bearer',
        ...(isRefresh ? {} : { exp: Math.floor(Number(row.expires_at) / 1000) }),
        iat: Math.floor(Number(row.created_at) / 1000),
        sub: String(user.id),
        iss: codehost.config.publicUrl,
      };
    },
  });

  app.get('/oauth/token/info', {
    schema: {
      summary: "Describe the bearer token the request carries (Doorkeeper's token info)",
      tags: ['oauth'],
      response: {
        200: {
          ...Type.Object({
            resource_owner_id: Type.Integer(),
            scopes: Type.Array(Type.String()),
            expires_in_seconds: Type.Integer(),
            application: Type.Object({ uid: Type.Union([Type.String(), Type.Null()]) }),
            created_at: Type.Integer(),
          }),
          description: "Doorkeeper 4.2's token info",
        },
        ...oauthErrors({
          400: 'invalid_request: the token sent twice',
          401: 'invalid_token (WWW-Authenticate)',
        }),
      },
    },
    handler: async (request, reply) => {
      const header = request.headers.authorization;
      const parameter = partValue(request.query, 'access_token');
      const token =
        header && /^bearer\s/i.test(header)
          ? header.slice(7).trim()
          : typeof parameter === 'string'
            ? parameter
            : undefined;
      const row = token ? await codehost.tokens.findByAccessToken(token) : undefined;
      if (!row || !codehost.tokens.isActive(row)) {
        const description = 'The access token is invalid, expired or revoked.';
        reply.header('www-authenticate', bearerChallenge('invalid_token', description));
        throw oauthError(401, 'invalid_token', description);
      }
      const application =
        row.application_id === null
          ? undefined
          : await codehost.applications.findById(row.application_id);
      return {
        resource_owner_id: row.resource_owner_id,
        scopes: row.scopes.split(' ').filter(Boolean),
        expires_in_seconds: Math.max(0, Math.floor((Number(row.expires_at) - Date.now()) / 1000)),
        application: { uid: application?.uid ?? null },
        created_at: Math.floor(Number(row.created_at) / 1000),
      };
    },
  });
}

/** Who may revoke a token: its own client, or anyone for a token issued without one. */
function mayActOnToken(client: ClientIdentity, applicationId: number | null): boolean {
  if (applicationId === null) return true;
  return client.kind !== 'none' && client.application.id === applicationId;
}

function tokenResponse(issued: IssuedToken, accessToken: string) {
  return {
    access_token: accessToken,
    token_type: 'bearer' as const,
    expires_in: Math.round((Number(issued.row.expires_at) - Number(issued.row.created_at)) / 1000),
    ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
    scope: issued.row.scopes,
    created_at: Math.floor(Number(issued.row.created_at) / 1000),
  };
}

/** "a, b or c". */
function listed(names: readonly string[]): string {
  return names.length < 2
    ? names.join('')
    : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/**
 * The token response, made from what the grant handed back: the access token
 * opaque for codehost's own API, a JWT (RFC 9068) for a resource server; with
 * an ID token when the grant has `openid` and a client (OpenID Connect Core
 * 3.1.3.3; and 12.2 for refreshes, which repeat the original `auth_time` but
 * carry no `nonce`).
 */
async function tokenAnswer(codehost: Codehost, granted: Granted) {
  const { issued } = granted;
  const resource = issued.row.resource;
  const accessToken =
    resource === null
      ? issued.accessToken
      : await signJwtAccessToken(codehost, {
          issued: { ...issued, row: { ...issued.row, resource } },
          user: granted.user,
          clientId: granted.clientId,
          authTime: granted.authTime,
          sid: granted.sid,
        });
  const response = tokenResponse(issued, accessToken);
  const scopes = scopesOf(granted.issued.row);
  if (!scopes.includes('openid') || granted.clientId === undefined) return response;
  const idToken = await signIdToken(codehost, {
    user: granted.user,
    clientId: granted.clientId,
    scopes,
    accessToken,
    authTime: granted.authTime,
    nonce: granted.nonce,
    amr: granted.amr,
    sid: granted.sid,
  });
  // The relying party now holds a token naming the session: it hears when it ends.
  if (granted.sid !== undefined && granted.issued.row.application_id !== null) {
    await codehost.backchannelLogout.tokenIssued(granted.sid, granted.issued.row.application_id);
  }
  return { ...response, id_token: idToken };
}
