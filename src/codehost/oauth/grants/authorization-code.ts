import { identifyClient } from '../client-auth.js';
import { invalidClient, oauthError } from '../errors.js';
import { GrantRefused } from '../tokens.js';
import { amrOf, checkSameResource, type Grant, invalidRequest, secondsOf } from './grant.js';

/** RFC 6749 section 4.1.3, with PKCE (RFC 7636). */
export const authorizationCodeGrant: Grant = {
  type: 'authorization_code',
  parameters: {
    code: 'authorization_code: the code from /oauth/authorize',
    redirect_uri: 'authorization_code: the redirect URI the code was sent to',
    code_verifier: 'authorization_code: the PKCE verifier (RFC 7636)',
  },
  async grant({ codehost, request, body, resource }) {
    // The order of checks is the one GitLab's Doorkeeper applies.
    if (body.redirect_uri === undefined) throw invalidRequest('redirect_uri is missing.');
    const client = await identifyClient(request, body, codehost.applications);
    if (client.kind === 'none') throw invalidClient('The client is not identified.');
    if (body.code === undefined) throw invalidRequest('code is missing.');
    try {
      const { grant, issued, accepted } = await codehost.tokens.exchangeCode(
        {
          code: body.code,
          applicationId: client.application.id,
          redirectUri: body.redirect_uri,
          codeVerifier: body.code_verifier,
        },
        async (grant) => {
          checkSameResource(resource, grant.resource);
          const user = await codehost.users.findById(grant.resource_owner_id);
          if (user?.state !== 'active') {
            throw oauthError(
              400,
              'invalid_grant',
              'The user who granted access can no longer sign in.',
            );
          }
          return { userId: user.id, user };
        },
      );
      const { user } = accepted;
      return {
        issued,
        user,
        clientId: client.application.uid,
        authTime: secondsOf(grant.auth_time ?? user.current_sign_in_at),
        nonce: grant.nonce ?? undefined,
        amr: amrOf(grant.amr),
        sid: grant.sid ?? undefined,
      };
    } catch (error) {
      if (error instanceof GrantRefused) throw oauthError(400, 'invalid_grant', error.message);
      throw error;
    }
  },
};
