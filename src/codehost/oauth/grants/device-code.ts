import { identifyClient } from '../client-auth.js';
import { invalidClient, oauthError } from '../errors.js';
import { amrOf, checkSameResource, type Grant, invalidRequest, secondsOf } from './grant.js';

export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * RFC 8628 section 3.4: the device polls with its device code until the user
 * has decided. Each answer but the token is an error the device acts on:
 * poll again, more slowly, or stop.
 */
export const deviceCodeGrant: Grant = {
  type: DEVICE_CODE_GRANT_TYPE,
  parameters: {
    device_code: 'device_code: the device code from /oauth/authorize_device',
  },
  async grant({ codehost, request, body, resource }) {
    const client = await identifyClient(request, body, codehost.applications);
    if (client.kind === 'none') throw invalidClient('The client is not identified.');
    if (body.device_code === undefined) throw invalidRequest('device_code is missing.');
    if (client.application.device_authorization_grant !== 1) {
      throw oauthError(
        400,
        'unauthorized_client',
        'This application does not use the device authorization grant.',
      );
    }
    const outcome = await codehost.deviceGrants.poll(body.device_code, client.application.id);
    switch (outcome.kind) {
      case 'unknown':
        throw oauthError(400, 'invalid_grant', 'The device code is invalid.');
      case 'used':
        throw oauthError(400, 'invalid_grant', 'The device code has already been used.');
      case 'expired':
        throw oauthError(
          400,
          'expired_token',
          'The device code has expired before it was approved; ask for a new one.',
        );
      case 'denied':
        throw oauthError(400, 'access_denied', 'The user denied the request.');
      case 'pending':
        throw oauthError(
          400,
          'authorization_pending',
          'The user has not yet approved or denied the request.',
        );
      case 'slow-down':
        throw oauthError(
          400,
          'slow_down',
          `Polling too often: wait ${outcome.intervalSeconds} seconds between requests.`,
        );
      case 'approved':
        break;
    }
    const { grant } = outcome;
    checkSameResource(resource, grant.resource);
    const user = await codehost.users.findById(grant.resource_owner_id);
    if (user?.state !== 'active') {
      throw oauthError(400, 'invalid_grant', 'The user who granted access can no longer sign in.');
    }
    const issued = await codehost.deviceGrants.exchange(grant);
    if (!issued) throw oauthError(400, 'invalid_grant', 'The device code has already been used.');
    return {
      issued,
      user,
      clientId: client.application.uid,
      authTime: secondsOf(grant.auth_time ?? user.current_sign_in_at),
      nonce: undefined,
      amr: amrOf(grant.amr),
      sid: grant.sid ?? undefined,
    };
  },
};
