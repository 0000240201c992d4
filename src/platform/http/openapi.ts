import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { HttpApp } from './server.js';

export interface ApiDescription {
  title: string;
  description: string;
  version: string;
  publicUrl: string;
  tags?: { name: string; description: string }[];
}

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/**
 * Collects the route schemas into an OpenAPI 3.1 document. Must be registered
 * before any documented route, since it learns routes as they are added.
 */
export async function registerOpenApi(app: HttpApp, api: ApiDescription): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: api.title, description: api.description, version: api.version },
      servers: [{ url: api.publicUrl }],
      tags: [
        { name: 'operations', description: 'Health and readiness probes' },
        ...(api.tags ?? []),
      ],
    },
  });
}

/** Serves the document and its human page; call after every route is registered. */
export async function registerApiDocs(app: HttpApp): Promise<void> {
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: true,
    // Scripts stay locked to the plugin's hashes. Swagger UI sets inline styles,
    // which style hashes cannot allow, so styles get 'unsafe-inline' (as helmet's
    // default policy gives every other page). No upgrade: see the server's CSP.
    transformStaticCSP: (header) =>
      header
        .replace(/\s*upgrade-insecure-requests;?/, '')
        .replace(/style-src ([^;]*);/, "style-src $1 'unsafe-inline';"),
    // No calls to the public validator badge: the page must work offline.
    uiConfig: { validatorUrl: null, deepLinking: true },
  });
}
