import type { HttpApp } from '../../platform/http/server.js';
import type { SigningKey } from './signing-key.js';

/** The public key set of refdata's own tokens, for anyone who wants to verify them. */
export function registerKeySetRoute(app: HttpApp, key: SigningKey): void {
  app.get('/.well-known/jwks.json', {
    schema: {
      summary: "Public keys of refdata's own access tokens (JWKS)",
      tags: ['authentication'],
    },
    handler: async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=300').send({ keys: [key.publicJwk] }),
  });
}
