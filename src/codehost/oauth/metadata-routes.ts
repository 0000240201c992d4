import { fixedJsonDocument } from '../../platform/http/conditional.js';
import type { HttpApp } from '../../platform/http/server.js';
import { NOT_MODIFIED, ServerMetadata } from '../api/described-responses.js';
import type { Codehost } from '../context.js';
import { DEVICE_CODE_GRANT_TYPE } from './grants/device-code.js';
import { issuerOf } from './issuer.js';
import { REGISTRATION_PATH } from './registration-routes.js';
import { SCOPE_NAMES } from './scopes.js';

/** RFC 8414 authorization server metadata; OpenID Connect discovery builds on it. */
export function authorizationServerMetadata(codehost: Codehost) {
  const base = codehost.config.publicUrl;
  return {
    issuer: issuerOf(codehost),
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    introspection_endpoint: `${base}/oauth/introspect`,
    // RFC 7591, unless the operator turned it off.
    ...(codehost.settings.registration.mode === 'off'
      ? {}
      : { registration_endpoint: `${base}${REGISTRATION_PATH}` }),
    // RFC 8628 section 4, where the grant is offered.
    ...(codehost.grants.has(DEVICE_CODE_GRANT_TYPE)
      ? { device_authorization_endpoint: `${base}/oauth/authorize_device` }
      : {}),
    scopes_supported: SCOPE_NAMES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...codehost.grants.keys()],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: [
      'client_secret_basic',
      'client_secret_post',
      'none',
    ],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    // A client ID may be the https address of the client's own metadata.
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/docs`,
  };
}

/** RFC 8414 authorization server metadata, so clients can configure themselves. */
export function registerMetadataRoutes(app: HttpApp, codehost: Codehost): void {
  app.get('/.well-known/oauth-authorization-server', {
    schema: {
      summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
      tags: ['oauth'],
      response: {
        200: { ...ServerMetadata, description: 'Where and how to ask for tokens' },
        304: NOT_MODIFIED,
      },
    },
    handler: fixedJsonDocument(authorizationServerMetadata(codehost), 3600),
  });
}
