import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../platform/http/server.js';
import { answer } from '../described-responses.js';
import type { SigningKey } from './signing-key.js';

/** The public key set of refdata's own tokens, for anyone who wants to verify them. */
export function registerKeySetRoute(app: HttpApp, key: SigningKey): void {
  app.get('/.well-known/jwks.json', {
    schema: {
      summary: "Public keys of refdata's own access tokens (JWKS)",
      tags: ['authentication'],
      response: {
        200: answer(
          'The JSON Web Key Set (RFC 7517)',
          'application/json',
          Type.Object({
            keys: Type.Array(Type.Object({ kid: Type.String(), kty: Type.String() })),
          }),
        ),
      },
    },
    handler: async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=300').send({ keys: [key.publicJwk] }),
  });
}
