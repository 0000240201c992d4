import { Type } from '@sinclair/typebox';
import { DOCS_PATH } from '../../platform/http/openapi.js';
import type { HttpApp } from '../../platform/http/server.js';
import { answer } from '../described-responses.js';
import { SCOPES_SUPPORTED } from './provider-tokens.js';
import { ROLES } from './roles.js';

/** RFC 9728 section 3: where a protected resource's metadata is. */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * refdata's resource identifier (RFC 8707, RFC 9728): its public address, the
 * root written without its slash, as the authorization server stores it.
 */
export function resourceIdentifier(publicUrl: string): string {
  const url = new URL(publicUrl);
  return url.pathname === '/' ? url.origin : url.href.replace(/\/$/, '');
}

const ResourceMetadata = Type.Object({
  resource: Type.String({ description: "refdata's resource identifier: the tokens' audience" }),
  resource_name: Type.String(),
  authorization_servers: Type.Array(Type.String(), {
    description: 'Issuers whose tokens for this resource are taken (RFC 8414 metadata at each)',
  }),
  scopes_supported: Type.Array(Type.String()),
  bearer_methods_supported: Type.Array(Type.String()),
  resource_documentation: Type.String(),
  roles_supported: Type.Array(Type.String(), {
    description: "refdata's roles, granted by the authorization server's groups",
  }),
});

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): which authorization server
 * issues tokens for this API and how to ask for them. A client that got a 401
 * finds this document from the challenge's `resource_metadata`, then the
 * server's own metadata, registers, and asks with `resource` set to `resource`.
 */
export function registerResourceMetadataRoute(
  app: HttpApp,
  publicUrl: string,
  authorizationServers: readonly string[],
): void {
  const document = {
    resource: resourceIdentifier(publicUrl),
    resource_name: 'refdata',
    authorization_servers: [...authorizationServers],
    // The scopes mean something only to the provider's tokens; refdata's own carry roles.
    scopes_supported: authorizationServers.length > 0 ? SCOPES_SUPPORTED : [],
    bearer_methods_supported: ['header'],
    resource_documentation: `${publicUrl}${DOCS_PATH}`,
    roles_supported: [...ROLES],
  };
  app.get(RESOURCE_METADATA_PATH, {
    schema: {
      summary: 'OAuth 2.0 protected resource metadata (RFC 9728): where to get a token',
      tags: ['authentication'],
      response: { 200: answer('The metadata', 'application/json', ResourceMetadata) },
    },
    handler: async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=300').send(document),
  });
}
