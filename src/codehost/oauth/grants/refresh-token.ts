import { scopesOf } from '../applications.js';
import { identifyClient } from '../client-auth.js';
import { invalidClient, oauthError } from '../errors.js';
import { coversScopes, parseScopes } from '../scopes.js';
import { GrantRefused } from '../tokens.js';
import { amrOf, checkSameResource, type Grant, invalidRequest, secondsOf } from './grant.js';

/** RFC 6749 section 6, with rotation and reuse detection (RFC 9700 section 4.14.2). */
export const refreshTokenGrant: Grant = {
  type: 'refresh_token',
  parameters: {
    refresh_token: 'refresh_token: the refresh token',
    scope: 'password and refresh_token: the scopes wanted, space-separated',
  },
  async grant({ codehost, request, body, resource }) {
    if (body.refresh_token === undefined) throw invalidRequest('refresh_token is missing.');
    const client = await identifyClient(request, body, codehost.applications);
    if (client.kind === 'none') throw invalidClient('The client is not identified.');
    const requested = body.scope === undefined ? undefined : parseScopes(body.scope);
    if (body.scope !== undefined && !requested) {
      throw oauthError(400, 'invalid_scope', 'The requested scope is invalid or unknown.');
    }
    try {
      const { token: previous, owner: user } = await codehost.tokens.refreshable(
        body.refresh_token,
        client.application.id,
      );
      checkSameResource(resource, previous.resource);
      // RFC 6749 section 6: a refresh may narrow the scope, never widen it. Refused
      // requests leave the refresh token usable.
      if (requested && !coversScopes(scopesOf(previous), requested)) {
        throw oauthError(400, 'invalid_scope', 'The requested scope exceeds the original grant.');
      }
      if (user.state !== 'active') {
        throw oauthError(
          400,
          'invalid_grant',
          'The user who granted access can no longer sign in.',
        );
      }
      const issued = await codehost.tokens.rotate(previous, requested ?? scopesOf(previous));
      // OpenID Connect Core 12.2: a refreshed ID token repeats the original auth_time.
      const original =
        previous.grant_id === null
          ? undefined
          : await codehost.tokens.findGrantById(previous.grant_id);
      return {
        issued,
        user,
        clientId: client.application.uid,
        authTime: secondsOf(original?.auth_time ?? user.current_sign_in_at),
        nonce: undefined,
        amr: amrOf(original?.amr),
        sid: original?.sid ?? undefined,
      };
    } catch (error) {
      if (error instanceof GrantRefused) throw oauthError(400, 'invalid_grant', error.message);
      throw error;
    }
  },
};
