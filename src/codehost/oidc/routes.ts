import { Type } from '@sinclair/typebox';
import { fixedJsonDocument, sendWithValidators } from '../../platform/http/conditional.js';
import type { HttpApp } from '../../platform/http/server.js';
import { KeySet, NOT_MODIFIED, ServerMetadata } from '../api/described-responses.js';
import type { Codehost } from '../context.js';
import { authorizationServerMetadata } from '../oauth/metadata-routes.js';
import { CLAIMS } from './claims.js';
import { ACR_VALUES } from './id-token.js';
import { SIGNING_ALGORITHMS } from './signing-keys.js';

/** How long relying parties may cache the key set; a new key is published for longer before it signs. */
export const KEY_SET_MAX_AGE_SECONDS = 300;

/** OpenID Connect Discovery 1.0 and the key set it names (at GitLab's address). */
export function registerOidcRoutes(app: HttpApp, codehost: Codehost): void {
  const base = codehost.config.publicUrl;
  // OpenID Connect Discovery 1.0: the RFC 8414 metadata and what OpenID Connect adds.
  const configuration = {
    ...authorizationServerMetadata(codehost),
    userinfo_endpoint: `${base}/oauth/userinfo`,
    end_session_endpoint: `${base}/oauth/logout`,
    jwks_uri: `${base}/oauth/discovery/keys`,
    subject_types_supported: ['public'],
    acr_values_supported: [...ACR_VALUES],
    // OpenID Connect Back-Channel Logout 1.0, section 2.1.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
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
      'amr',
      'acr',
      'sid',
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
}
