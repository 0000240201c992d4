import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { HttpApp } from '../../platform/http/server.js';
import { constantTimeEqual, secretHash } from '../../platform/security/secrets.js';
import { oauthErrors } from '../api/described-responses.js';
import type { Codehost } from '../context.js';
import { bearerChallenge, oauthError } from './errors.js';
import {
  clientInformation,
  MetadataRefused,
  parseClientMetadata,
  RegistrationStore,
} from './registration.js';

/** GitLab's address for RFC 7591 registration; RFC 7592's reads and deletes are below it. */
export const REGISTRATION_PATH = '/oauth/register';
/** A registration request is a few hundred bytes; far more is not one. */
const MAX_REGISTRATION_BYTES = 16 * 1024;

const ClientInformation = Type.Object(
  {
    client_id: Type.String(),
    client_id_issued_at: Type.Integer(),
    client_name: Type.String(),
    client_uri: Type.Optional(Type.String()),
    redirect_uris: Type.Array(Type.String()),
    grant_types: Type.Array(Type.String()),
    response_types: Type.Array(Type.String()),
    token_endpoint_auth_method: Type.Literal('none'),
    scope: Type.String(),
    registration_client_uri: Type.String(),
    registration_access_token: Type.Optional(
      Type.String({ description: 'On registration only: reads and deletes it (RFC 7592)' }),
    ),
  },
  { additionalProperties: false },
);

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer[ ]+(\S+)$/i.exec(header.trim());
  return match?.[1];
}

function unauthorized(description: string) {
  return oauthError(401, 'invalid_token', description, {
    'www-authenticate': bearerChallenge('invalid_token', description),
  });
}

/**
 * Dynamic Client Registration (RFC 7591) and its management (RFC 7592), as
 * GitLab offers it for MCP clients: a program registers itself as a public
 * client (PKCE, loopback or https redirect URIs), owned by nobody; each person
 * it signs in sees it as "registered itself" on their authorized applications.
 * The operator may require an initial access token, or turn it off.
 */
export function registerRegistrationRoutes(app: HttpApp, codehost: Codehost): void {
  const settings = codehost.settings.registration;
  if (settings.mode === 'off') return;
  const store = new RegistrationStore(codehost.db);
  const base = codehost.config.publicUrl;

  app.post(REGISTRATION_PATH, {
    bodyLimit: MAX_REGISTRATION_BYTES,
    config: { rateLimit: { max: settings.perAddressPerHour, timeWindow: 3_600_000 } },
    schema: {
      summary: 'Register a client (RFC 7591): a public client with PKCE',
      tags: ['oauth'],
      consumes: ['application/json'],
      // Checked by the handler, so that anything wrong is invalid_client_metadata.
      body: Type.Unknown({
        description:
          'Client metadata (RFC 7591 section 2): redirect_uris, client_name, client_uri, grant_types, response_types, token_endpoint_auth_method (none), scope; other fields are ignored',
      }),
      response: {
        201: { ...ClientInformation, description: 'Registered (RFC 7591 section 3.2.1)' },
        ...oauthErrors({
          400: 'invalid_redirect_uri or invalid_client_metadata (RFC 7591 section 3.2.2)',
          401: 'invalid_token: the initial access token is missing or wrong',
          413: 'The body is larger than the limit',
          415: 'The body is not JSON',
          429: 'Too many registrations from this address (Retry-After)',
        }),
      },
    },
    handler: async (request, reply) => {
      if (settings.mode === 'token') {
        const token = bearerOf(request);
        if (
          token === undefined ||
          settings.initialAccessTokenHash === undefined ||
          !constantTimeEqual(secretHash(token), settings.initialAccessTokenHash)
        ) {
          throw unauthorized('Registering a client here needs the initial access token.');
        }
      }
      let metadata: ReturnType<typeof parseClientMetadata>;
      try {
        metadata = parseClientMetadata(request.body);
      } catch (error) {
        if (error instanceof MetadataRefused) throw oauthError(400, error.error, error.message);
        throw error;
      }
      await store.expireUnused(settings.unusedDays);
      const { application, registrationToken } = await store.register(metadata);
      return reply.status(201).send({
        ...clientInformation(application, base),
        registration_access_token: registrationToken,
      });
    },
  });

  const managed = async (request: FastifyRequest) => {
    const token = bearerOf(request);
    const { client_id: clientId } = request.params as { client_id: string };
    const application = token === undefined ? undefined : await store.authorized(clientId, token);
    // RFC 7592 section 2: an unknown client and a wrong token are told apart to nobody.
    if (!application) {
      throw unauthorized('The registration access token is missing or does not match this client.');
    }
    return application;
  };
  const params = Type.Object({ client_id: Type.String({ maxLength: 2048 }) });
  const managementErrors = oauthErrors({
    401: 'invalid_token: the registration access token is missing or wrong',
  });

  app.get(`${REGISTRATION_PATH}/:client_id`, {
    schema: {
      summary: "Read a client's registration (RFC 7592), with its registration access token",
      tags: ['oauth'],
      params,
      response: {
        200: { ...ClientInformation, description: 'The registration' },
        ...managementErrors,
      },
    },
    handler: async (request) => clientInformation(await managed(request), base),
  });

  app.delete(`${REGISTRATION_PATH}/:client_id`, {
    schema: {
      summary: 'Delete a registration (RFC 7592): its tokens stop working',
      tags: ['oauth'],
      params,
      response: {
        204: { type: 'null', description: 'Deleted, with every code and token issued to it' },
        ...managementErrors,
      },
    },
    handler: async (request, reply) => {
      await store.remove((await managed(request)).id);
      return reply.status(204).send();
    },
  });
}
