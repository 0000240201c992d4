import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { HttpApp } from '../../platform/http/server.js';
import { isTwoFactorEnabled } from '../accounts/users.js';
import { oauthErrors } from '../api/described-responses.js';
import type { Codehost } from '../context.js';
import { signIdToken } from '../oidc/id-token.js';
import { scopesOf } from './applications.js';
import { type ClientIdentity, identifyClient, singleValuedParameters } from './client-auth.js';
import { bearerChallenge, invalidClient, oauthError } from './errors.js';
import { coversScopes, DEFAULT_SCOPES, parseScopes } from './scopes.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS, GrantRefused, type IssuedToken } from './tokens.js';

/**
 * A form's parameters, each a single string; others are ignored (RFC 6749
 * section 3.2), and the handler says which are missing in OAuth's words.
 */
const formBody = (parameters: Record<string, string>) =>
  Type.Object(
    Object.fromEntries(
      Object.entries(parameters).map(([name, description]) => [
        name,
        Type.Optional(Type.String({ description })),
      ]),
    ),
    {
      additionalProperties: Type.String(),
      description: 'Form parameters (application/x-www-form-urlencoded; JSON is accepted too).',
    },
  );

/** How a client authenticates in the body (RFC 6749 section 2.3.1), or names itself. */
const CLIENT_PARAMETERS = {
  client_id: 'The Application ID (or HTTP Basic authentication)',
  client_secret: 'The secret of a confidential client (or HTTP Basic authentication)',
};

const TOKEN_PARAMETERS = {
  grant_type: 'authorization_code, password or refresh_token',
  code: 'authorization_code: the code from /oauth/authorize',
  redirect_uri: 'authorization_code: the redirect URI the code was sent to',
  code_verifier: 'authorization_code: the PKCE verifier (RFC 7636)',
  username: "password: the user's username or e-mail address",
  password: "password: the user's password",
  refresh_token: 'refresh_token: the refresh token',
  scope: 'password and refresh_token: the scopes wanted, space-separated',
  ...CLIENT_PARAMETERS,
};

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

const OAUTH_ERRORS = oauthErrors({
  400: 'invalid_request, invalid_grant, unsupported_grant_type, invalid_scope, ...',
  401: 'invalid_client (WWW-Authenticate: Basic)',
  413: 'The body is larger than the limit',
  415: 'The body is neither a form nor JSON',
  429: 'Too many requests from this address (Retry-After)',
});

/** Token, revocation, introspection and token-info endpoints. */
export function registerTokenRoutes(app: HttpApp, codehost: Codehost): void {
  const rateLimit = {
    max: codehost.platform.security.credentialRequestsPerMinute,
    timeWindow: 60_000,
  };
  const noStore = async (_request: unknown, reply: FastifyReply) => {
    // RFC 6749 section 5.1: token responses must not be cached.
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  };
  /** What the three form-posting endpoints share: OAuth errors, rate limit, no caching. */
  const formRoute = <T extends TSchema>(
    summary: string,
    parameters: Record<string, string>,
    success: T,
    description: string,
  ) => ({
    config: { errorShape: 'oauth' as const, rateLimit },
    onRequest: noStore,
    schema: {
      summary,
      tags: ['oauth'],
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      body: formBody(parameters),
      response: { 200: { ...success, description }, ...OAUTH_ERRORS },
    },
  });

  app.post('/oauth/token', {
    ...formRoute(
      'Exchange a code, password or refresh token for an access token',
      TOKEN_PARAMETERS,
      TokenResponse,
      'The token (RFC 6749 section 5.1), with an ID token when the grant has openid',
    ),
    handler: async (request) => {
      const body = singleValuedParameters(request.body);
      const grantType = body.grant_type;
      if (grantType === undefined) throw invalidRequest('grant_type is missing.');
      switch (grantType) {
        case 'authorization_code':
          return withIdToken(
            codehost,
            await authorizationCodeGrant(codehost, request, body),
            'code',
          );
        case 'password':
          return withIdToken(codehost, await passwordGrant(codehost, request, body), 'password');
        case 'refresh_token':
          return withIdToken(codehost, await refreshTokenGrant(codehost, request, body), 'refresh');
        default:
          throw oauthError(
            400,
            'unsupported_grant_type',
            'grant_type must be authorization_code, password or refresh_token.',
          );
      }
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
    config: { errorShape: 'oauth' },
    onRequest: noStore,
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
      const query = request.query as Record<string, unknown>;
      const token =
        header && /^bearer\s/i.test(header)
          ? header.slice(7).trim()
          : typeof query.access_token === 'string'
            ? query.access_token
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

function invalidRequest(description: string) {
  return oauthError(400, 'invalid_request', description);
}

/** Who may revoke a token: its own client, or anyone for a token issued without one. */
function mayActOnToken(client: ClientIdentity, applicationId: number | null): boolean {
  if (applicationId === null) return true;
  return client.kind !== 'none' && client.application.id === applicationId;
}

function tokenResponse(issued: IssuedToken) {
  return {
    access_token: issued.accessToken,
    token_type: 'bearer' as const,
    expires_in: ACCESS_TOKEN_LIFETIME_SECONDS,
    ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
    scope: issued.row.scopes,
    created_at: Math.floor(Number(issued.row.created_at) / 1000),
  };
}

/**
 * The token response, with an ID token when the grant has `openid` and a
 * client (OpenID Connect Core 3.1.3.3; and 12.2 for refreshes, which repeat the
 * original `auth_time` but carry no `nonce`).
 */
async function withIdToken(
  codehost: Codehost,
  issued: IssuedToken,
  grantType: 'code' | 'password' | 'refresh',
) {
  const response = tokenResponse(issued);
  const { row } = issued;
  if (!scopesOf(row).includes('openid') || row.application_id === null) return response;
  const [user, application, grant] = await Promise.all([
    codehost.users.findById(row.resource_owner_id),
    codehost.applications.findById(row.application_id),
    row.grant_id === null ? undefined : codehost.tokens.findGrantById(row.grant_id),
  ]);
  if (!user || !application) return response;
  const authTime = grant?.auth_time ?? user.current_sign_in_at;
  const idToken = await signIdToken(codehost, {
    user,
    clientId: application.uid,
    scopes: scopesOf(row),
    accessToken: issued.accessToken,
    authTime: authTime === null ? undefined : Math.floor(Number(authTime) / 1000),
    nonce: grantType === 'code' ? (grant?.nonce ?? undefined) : undefined,
  });
  return { ...response, id_token: idToken };
}

async function authorizationCodeGrant(
  codehost: Codehost,
  request: Parameters<typeof identifyClient>[0],
  body: Record<string, string>,
): Promise<IssuedToken> {
  // The order of checks is the one GitLab's Doorkeeper applies.
  if (body.redirect_uri === undefined) throw invalidRequest('redirect_uri is missing.');
  const client = await identifyClient(request, body, codehost.applications);
  if (client.kind === 'none') throw invalidClient('The client is not identified.');
  if (body.code === undefined) throw invalidRequest('code is missing.');
  let grant: Awaited<ReturnType<typeof codehost.tokens.redeemCode>>;
  try {
    grant = await codehost.tokens.redeemCode({
      code: body.code,
      applicationId: client.application.id,
      redirectUri: body.redirect_uri,
      codeVerifier: body.code_verifier,
    });
  } catch (error) {
    if (error instanceof GrantRefused) throw oauthError(400, 'invalid_grant', error.message);
    throw error;
  }
  const user = await codehost.users.findById(grant.resource_owner_id);
  if (user?.state !== 'active') {
    throw oauthError(400, 'invalid_grant', 'The user who granted access can no longer sign in.');
  }
  return codehost.tokens.issueToken({
    userId: user.id,
    applicationId: client.application.id,
    grantId: grant.id,
    scopes: scopesOf(grant),
    withRefreshToken: true,
  });
}

async function passwordGrant(
  codehost: Codehost,
  request: Parameters<typeof identifyClient>[0],
  body: Record<string, string>,
): Promise<IssuedToken> {
  if (body.username === undefined) throw invalidRequest('username is missing.');
  if (body.password === undefined) throw invalidRequest('password is missing.');
  // The spec's password grant names no client; one that is named must be valid.
  const client = await identifyClient(request, body, codehost.applications);
  const allowed = client.kind === 'none' ? undefined : scopesOf(client.application);
  const scopes = body.scope === undefined ? [...DEFAULT_SCOPES] : parseScopes(body.scope);
  if (!scopes || (allowed && !coversScopes(allowed, scopes))) {
    throw oauthError(
      400,
      'invalid_scope',
      'The requested scope is invalid, unknown or not allowed.',
    );
  }
  const check = await codehost.signIn.check(body.username, body.password);
  switch (check.outcome) {
    case 'invalid':
      throw oauthError(400, 'invalid_grant', 'Invalid login or password.');
    case 'locked':
      throw oauthError(
        400,
        'invalid_grant',
        `Too many failed sign-in attempts; try again in ${check.retryAfterSeconds} seconds.`,
        { 'retry-after': String(check.retryAfterSeconds) },
      );
    case 'blocked':
      throw oauthError(400, 'invalid_grant', 'This account is blocked.');
  }
  if (isTwoFactorEnabled(check.user)) {
    throw oauthError(
      400,
      'invalid_grant',
      'Two-factor authentication is enabled for this account; use a personal access token instead.',
    );
  }
  // A password someone else chose is only good for choosing one's own, on the web.
  if (check.user.password_change_required === 1) {
    throw oauthError(
      400,
      'invalid_grant',
      'This password was set by an administrator and must be changed first: sign in on the web to choose your own.',
    );
  }
  return codehost.tokens.issueToken({
    userId: check.user.id,
    applicationId: client.kind === 'none' ? null : client.application.id,
    grantId: null,
    scopes,
    withRefreshToken: false,
  });
}

async function refreshTokenGrant(
  codehost: Codehost,
  request: Parameters<typeof identifyClient>[0],
  body: Record<string, string>,
): Promise<IssuedToken> {
  if (body.refresh_token === undefined) throw invalidRequest('refresh_token is missing.');
  const client = await identifyClient(request, body, codehost.applications);
  if (client.kind === 'none') throw invalidClient('The client is not identified.');
  const requested = body.scope === undefined ? undefined : parseScopes(body.scope);
  if (body.scope !== undefined && !requested) {
    throw oauthError(400, 'invalid_scope', 'The requested scope is invalid or unknown.');
  }
  try {
    const previous = await codehost.tokens.refreshable(body.refresh_token, client.application.id);
    // RFC 6749 section 6: a refresh may narrow the scope, never widen it. Refused
    // requests leave the refresh token usable.
    if (requested && !coversScopes(scopesOf(previous), requested)) {
      throw oauthError(400, 'invalid_scope', 'The requested scope exceeds the original grant.');
    }
    const user = await codehost.users.findById(previous.resource_owner_id);
    if (user?.state !== 'active') {
      throw oauthError(400, 'invalid_grant', 'The user who granted access can no longer sign in.');
    }
    return await codehost.tokens.rotate(previous, requested ?? scopesOf(previous));
  } catch (error) {
    if (error instanceof GrantRefused) throw oauthError(400, 'invalid_grant', error.message);
    throw error;
  }
}
