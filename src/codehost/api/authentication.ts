import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/http/problem.js';
import { partValue } from '../../platform/http/request-parts.js';
import type { UserRow } from '../accounts/users.js';
import type { Codehost } from '../context.js';
import { bearerChallenge, oauthError } from '../oauth/errors.js';
import type { Scope } from '../oauth/scopes.js';
import { problem } from '../problem-codes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * An API route's token scopes: any one admits the caller. The route's
     * description lists them, so they are declared here, once, for both.
     */
    apiScopes?: readonly Scope[];
  }
}

export interface ApiCaller {
  user: UserRow;
  scopes: readonly string[];
  via: 'personal_access_token' | 'oauth';
}

const UNAUTHORIZED = () => new HttpError(problem(401, 'unauthorized'));

function refusedToken(description: string): HttpError {
  return oauthError(401, 'invalid_token', description, {
    'www-authenticate': bearerChallenge('invalid_token', description),
  });
}

/**
 * Finds who is calling the API, in GitLab's order: `private_token` parameter,
 * `PRIVATE-TOKEN` header (personal access tokens), then `access_token`
 * parameter and `Authorization: Bearer` (OAuth tokens). A request may carry an
 * OAuth token once only (RFC 6750 section 2). Refused tokens are 401; a token
 * that works but lacks every scope the route accepts (its `apiScopes`) is 403
 * insufficient_scope.
 */
export async function authenticateApiRequest(
  request: FastifyRequest,
  codehost: Codehost,
): Promise<ApiCaller> {
  const acceptedScopes = request.routeOptions.config.apiScopes;
  if (!acceptedScopes) throw new Error(`${request.routeOptions.url} declares no apiScopes.`);
  const authorization = request.headers.authorization;
  const bearer =
    authorization !== undefined && /^bearer\s+/i.test(authorization)
      ? authorization.replace(/^bearer\s+/i, '').trim()
      : undefined;
  const accessTokenParameter = partValue(request.query, 'access_token');
  if (bearer !== undefined && accessTokenParameter !== undefined) {
    throw oauthError(
      400,
      'invalid_request',
      'Send the access token in the Authorization header or the access_token parameter, not both.',
    );
  }

  const privateToken =
    singleString(partValue(request.query, 'private_token')) ??
    singleString(request.headers['private-token']);
  const caller =
    privateToken !== undefined
      ? await personalAccessTokenCaller(codehost, privateToken)
      : await oauthCaller(codehost, singleString(accessTokenParameter) ?? bearer);

  if (!acceptedScopes.some((scope) => caller.scopes.includes(scope))) {
    const description = `The token lacks the scope this request needs (${acceptedScopes.join(' or ')}).`;
    throw oauthError(403, 'insufficient_scope', description, {
      'www-authenticate': bearerChallenge(
        'insufficient_scope',
        description,
        acceptedScopes.join(' '),
      ),
    });
  }
  return caller;
}

function singleString(value: unknown): string | undefined {
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

async function personalAccessTokenCaller(codehost: Codehost, token: string): Promise<ApiCaller> {
  const row = await codehost.personalAccessTokens.findActive(token);
  if (!row) throw UNAUTHORIZED();
  const user = await codehost.users.findById(row.user_id);
  if (user?.state !== 'active') throw UNAUTHORIZED();
  return { user, scopes: row.scopes.split(' '), via: 'personal_access_token' };
}

async function oauthCaller(codehost: Codehost, token: string | undefined): Promise<ApiCaller> {
  if (token === undefined || token === '') throw UNAUTHORIZED();
  const found = await codehost.tokens.findAccessTokenWithOwner(token);
  // GitLab's API guard wording for each case.
  if (!found) throw refusedToken('Bad Access Token.');
  const { token: row, owner: user } = found;
  if (row.revoked_at !== null) {
    throw refusedToken('Token was revoked. You have to re-authorize from the user.');
  }
  if (!codehost.tokens.isActive(row)) {
    throw refusedToken('Token is expired. You can either do re-authorization or token refresh.');
  }
  if (user.state !== 'active') throw UNAUTHORIZED();
  return { user, scopes: row.scopes.split(' '), via: 'oauth' };
}
