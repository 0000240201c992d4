import type { FastifyBaseLogger } from 'fastify';
import type { Command } from './cli/command.js';
import type { Config, ServiceConfig, ServiceName } from './config.js';
import type { DatabaseHandle } from './db/connection.js';
import type { MigrationSet } from './db/migrations.js';
import type { BodyTextPolicy } from './http/body-parsers.js';
import type { ErrorRenderer } from './http/errors.js';
import { registerHealthRoutes } from './http/health.js';
import {
  type ApiDescription,
  type ApiSecurity,
  registerApiDocs,
  registerOpenApi,
} from './http/openapi.js';
import { createHttpServer, type HttpApp } from './http/server.js';
import { PACKAGE_VERSION } from './version.js';

export interface ServiceDependencies<Tables> {
  database: DatabaseHandle<Tables>;
  config: ServiceConfig;
  platform: Config;
}

/**
 * What a service tells the platform about itself. The platform owns the server,
 * the database connection and the lifecycle; the service owns its routes, tables
 * and error shape. Services never import each other.
 */
export interface ServiceDefinition<Tables = unknown> {
  name: ServiceName;
  title: string;
  description: string;
  apiTags?: ApiDescription['tags'];
  /** How its operations authenticate, for the description and the docs' Authorize. */
  apiSecurity?(config: ServiceConfig, platform: Config): ApiSecurity;
  /** What a route's unforeseen failure (500) looks like, for the description. */
  internalError?: ApiDescription['internalError'];
  migrations: MigrationSet;
  /** Builds the renderer once the service's public URL is known. */
  errorRenderer(config: ServiceConfig): ErrorRenderer;
  /** What it asks of text in request bodies beyond valid Unicode (NFC, no controls). */
  bodyText?: BodyTextPolicy;
  registerRoutes(app: HttpApp, dependencies: ServiceDependencies<Tables>): Promise<void>;
  /** Admin verbs this service adds to the command line. */
  adminCommands: readonly Command[];
  /**
   * Runs once the database is migrated when the service is started for real
   * (not in tests that build the server directly); returns a line to print,
   * such as where a first administrator's password was written.
   */
  initialize?(dependencies: ServiceDependencies<Tables>): Promise<string | undefined>;
}

export interface BuildOptions<Tables> {
  platform: Config;
  database: DatabaseHandle<Tables>;
  logger: FastifyBaseLogger;
  /** Adds routes after the service's own; tests use it for fixture routes. */
  extend?: (app: HttpApp) => Promise<void> | void;
}

/** Assembles a service's server; it owns the database from here and closes it on close. */
export async function buildService<Tables>(
  definition: ServiceDefinition<Tables>,
  options: BuildOptions<Tables>,
): Promise<HttpApp> {
  const config = options.platform.services[definition.name];
  const app = await createHttpServer({
    config: options.platform,
    logger: options.logger,
    renderError: definition.errorRenderer(config),
    ...(definition.bodyText ? { bodyText: definition.bodyText } : {}),
  });
  app.addHook('onClose', async () => options.database.close());

  await registerOpenApi(app, {
    title: definition.title,
    description: definition.description,
    version: PACKAGE_VERSION,
    publicUrl: config.publicUrl,
    ...(definition.apiTags ? { tags: definition.apiTags } : {}),
    ...(definition.apiSecurity
      ? { security: definition.apiSecurity(config, options.platform) }
      : {}),
    ...(definition.internalError ? { internalError: definition.internalError } : {}),
  });
  registerHealthRoutes(app, () => options.database.ping());
  await definition.registerRoutes(app, {
    database: options.database,
    config,
    platform: options.platform,
  });
  await options.extend?.(app);
  await registerApiDocs(app);
  return app;
}
