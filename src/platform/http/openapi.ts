import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { RouteOptions } from 'fastify';
import type { HttpApp } from './server.js';

type OpenApiComponents = NonNullable<
  NonNullable<FastifyDynamicSwaggerOptions['openapi']>['components']
>;
/** OpenAPI security scheme objects, by name. */
export type SecuritySchemes = NonNullable<OpenApiComponents['securitySchemes']>;

/** One way to satisfy an operation: every named scheme, with the scopes each needs. */
export type SecurityRequirement = Record<string, string[]>;

/** How a service's operations authenticate, for its description and the docs' Authorize. */
export interface ApiSecurity {
  schemes: SecuritySchemes;
  /**
   * The alternatives that admit a caller to `route`, or undefined for a route
   * anyone may call. Read from the route itself (its hooks, its path), so the
   * description follows the code.
   */
  requirementsOf(route: RouteOptions): SecurityRequirement[] | undefined;
}

export interface ApiDescription {
  title: string;
  description: string;
  version: string;
  publicUrl: string;
  tags?: { name: string; description: string }[];
  security?: ApiSecurity;
  /**
   * The answer `route` gives when it fails in a way nobody foresaw (500), in
   * the shape the service's error renderer gives that route; undefined leaves
   * the route's own description alone. Added to every described operation,
   * since any of them can fail so.
   */
  internalError?(route: RouteOptions): unknown;
}

declare module 'fastify' {
  interface FastifySchema {
    /**
     * Request parts the description shows but the framework does not check,
     * for handlers that apply rules of their own whose answers to a bad value
     * are part of the contract (GitLab's parameters: a query string, form or
     * JSON body, each value read leniently and refused in GitLab's words).
     * Build them from the same constants the handler reads.
     */
    described?: { querystring?: unknown; body?: unknown };
  }
}

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/**
 * Collects the route schemas into an OpenAPI 3.1 document. Must be registered
 * before any documented route, since it learns routes as they are added.
 */
export async function registerOpenApi(app: HttpApp, api: ApiDescription): Promise<void> {
  const security = api.security;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: api.title, description: api.description, version: api.version },
      // First the address the description was fetched from (a relative URL is
      // resolved against it), so "Try it out" works however the page was
      // reached (127.0.0.1, a proxy's name); then the configured public address.
      servers: [
        { url: '/', description: 'The server this description was fetched from' },
        { url: api.publicUrl, description: 'The public address' },
      ],
      tags: [
        { name: 'operations', description: 'Health and readiness probes' },
        ...(api.tags ?? []),
      ],
      ...(security ? { components: { securitySchemes: security.schemes } } : {}),
    },
    transform: ({ schema, url, route }) => {
      if (!schema) return { schema, url };
      const { described, ...checked } = schema;
      const requirements = security?.requirementsOf(route as RouteOptions);
      const responses = checked.response as Record<string, unknown> | undefined;
      const internal =
        responses && !('500' in responses) ? api.internalError?.(route as RouteOptions) : undefined;
      return {
        schema: {
          ...checked,
          ...(internal ? { response: { ...responses, 500: internal } } : {}),
          ...(described?.querystring ? { querystring: described.querystring } : {}),
          ...(described?.body ? { body: described.body } : {}),
          ...(requirements && !checked.security ? { security: requirements } : {}),
        },
        url,
      };
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
    // Authorize keeps what was entered across reloads, and an OAuth sign-in
    // from the page uses PKCE (public clients need it).
    uiConfig: { validatorUrl: null, deepLinking: true, persistAuthorization: true },
    initOAuth: { usePkceWithAuthorizationCodeGrant: true },
  });
}

/** The hooks a route runs before its handler, as one list. */
export function routeHooks(route: RouteOptions): unknown[] {
  return [route.onRequest, route.preValidation, route.preHandler].flatMap((hook) =>
    hook === undefined ? [] : Array.isArray(hook) ? hook : [hook],
  );
}
