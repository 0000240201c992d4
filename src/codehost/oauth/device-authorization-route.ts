import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../platform/http/server.js';
import type { Codehost } from '../context.js';
import { scopesOf } from './applications.js';
import { identifyClient, singleValuedParameters } from './client-auth.js';
import { isMetadataDocumentUrl, MetadataDocumentRefused } from './client-metadata-documents.js';
import {
  DEVICE_CODE_LIFETIME_SECONDS,
  DEVICE_POLLING_INTERVAL_SECONDS,
  displayedUserCode,
} from './device-grants.js';
import { invalidClient, oauthError } from './errors.js';
import { CLIENT_PARAMETERS, formEndpoint } from './form-endpoint.js';
import { RESOURCE_PARAMETER, requestedResource } from './resource-servers.js';
import { coversScopes, DEFAULT_SCOPES, parseScopes } from './scopes.js';

/** Where a person enters the code a device shows (GitLab's address). */
export const DEVICE_VERIFICATION_PATH = '/oauth/device';

/** RFC 8628 section 3.2. */
const DeviceAuthorizationResponse = Type.Object({
  device_code: Type.String({ description: 'What the device polls the token endpoint with' }),
  user_code: Type.String({ description: 'What the user types on the verification page' }),
  verification_uri: Type.String(),
  verification_uri_complete: Type.String({ description: 'The verification page with the code' }),
  expires_in: Type.Integer(),
  interval: Type.Integer({ description: 'Seconds to wait between polls' }),
});

/**
 * RFC 8628's device authorization endpoint, at GitLab's address: a client
 * that cannot take a browser's redirect asks for a pair of codes, shows the
 * user code and the verification page, and polls the token endpoint.
 */
export function registerDeviceAuthorizationRoute(app: HttpApp, codehost: Codehost): void {
  const formRoute = formEndpoint(codehost);
  const base = codehost.config.publicUrl;
  app.post('/oauth/authorize_device', {
    ...formRoute(
      'Start a device authorization (RFC 8628): a device code to poll with, a user code to show',
      {
        ...CLIENT_PARAMETERS,
        scope: 'The scopes wanted, space-separated (default: api)',
        resource: RESOURCE_PARAMETER,
      },
      DeviceAuthorizationResponse,
      'The codes (RFC 8628 section 3.2)',
    ),
    handler: async (request) => {
      const body = singleValuedParameters(request.body, ['resource']);
      // A client known by its metadata's address is read (or read again) here, as at /oauth/authorize.
      if (body.client_id !== undefined && isMetadataDocumentUrl(body.client_id)) {
        try {
          await codehost.metadataDocuments.resolve(body.client_id, request.ip);
        } catch (error) {
          if (!(error instanceof MetadataDocumentRefused)) throw error;
          throw invalidClient(error.message);
        }
      }
      const client = await identifyClient(request, body, codehost.applications);
      if (client.kind === 'none') throw invalidClient('The client is not identified.');
      const resource = await requestedResource(
        codehost.resourceServers,
        (request.body as Record<string, unknown> | undefined)?.resource,
      );
      if (client.application.device_authorization_grant !== 1) {
        throw oauthError(
          400,
          'unauthorized_client',
          'This application does not use the device authorization grant; its owner can turn it on in its settings.',
        );
      }
      const scopes = body.scope === undefined ? [...DEFAULT_SCOPES] : parseScopes(body.scope);
      if (!scopes || !coversScopes(scopesOf(client.application), scopes)) {
        throw oauthError(
          400,
          'invalid_scope',
          'The requested scope is invalid, unknown, or malformed.',
        );
      }
      const { deviceCode, userCode } = await codehost.deviceGrants.request({
        applicationId: client.application.id,
        scopes,
        resource,
      });
      const shown = displayedUserCode(userCode);
      return {
        device_code: deviceCode,
        user_code: shown,
        verification_uri: `${base}${DEVICE_VERIFICATION_PATH}`,
        verification_uri_complete: `${base}${DEVICE_VERIFICATION_PATH}?user_code=${shown}`,
        expires_in: DEVICE_CODE_LIFETIME_SECONDS,
        interval: DEVICE_POLLING_INTERVAL_SECONDS,
      };
    },
  });
}
