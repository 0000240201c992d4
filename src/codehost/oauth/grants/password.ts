import { isTwoFactorEnabled } from '../../accounts/users.js';
import { scopesOf } from '../applications.js';
import { identifyClient } from '../client-auth.js';
import { oauthError } from '../errors.js';
import { invalidTarget } from '../resource-servers.js';
import { coversScopes, DEFAULT_SCOPES, parseScopes } from '../scopes.js';
import { type Grant, invalidRequest, secondsOf } from './grant.js';

/** RFC 6749 section 4.3, as GitLab keeps it: a named client is optional. */
export const passwordGrant: Grant = {
  type: 'password',
  parameters: {
    username: "password: the user's username or e-mail address",
    password: "password: the user's password",
    scope: 'password and refresh_token: the scopes wanted, space-separated',
  },
  async grant({ codehost, request, body, resource }) {
    if (body.username === undefined) throw invalidRequest('username is missing.');
    // A user's password is not handed to a client for another API's tokens.
    if (resource !== undefined) {
      throw invalidTarget('The password grant issues tokens for codehost\u2019s own API only.');
    }
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
    const issued = await codehost.tokens.issueToken({
      userId: check.user.id,
      applicationId: client.kind === 'none' ? null : client.application.id,
      grantId: null,
      scopes,
      withRefreshToken: false,
    });
    return {
      issued,
      user: check.user,
      clientId: client.kind === 'none' ? undefined : client.application.uid,
      authTime: secondsOf(check.user.current_sign_in_at),
      nonce: undefined,
      // The password grant is the password alone: two-factor users are refused above.
      amr: ['pwd'],
    };
  },
};
