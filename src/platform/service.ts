import type { FastifyBaseLogger } from 'fastify';
import type { Command } from './cli/command.js';
import {
  type Config,
  type ServiceConfig,
  type ServiceSettingsReader,
  serviceSection,
  serviceSettings,
} from './config.js';
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

export interface ServiceDependencies<Tables, Settings = unknown> {
  database: DatabaseHandle<Tables>;
  /** The service's own section: its address and database. */
  config: ServiceConfig;
  /** What its own settings reader read. */
  settings: Settings;
  platform: Config;
}

/**
 * What a service tells the platform about itself. The platform owns the server,
 * the database connection and the lifecycle; the service owns its routes, tables
 * and error shape. Services never import each other.
 */
export interface ServiceDefinition<Tables = unknown, Settings = unknown>
  extends ServiceSettingsReader<Settings> {
  title: string;
  description: string;
  apiTags?: ApiDescription['tags'];
  /** How its operations authenticate, for the description and the docs' Authorize. */
  apiSecurity?(config: ServiceConfig, settings: Settings): ApiSecurity;
  /** What a route's unforeseen failure (500) looks like, for the description. */
  internalError?: ApiDescription['internalError'];
  migrations: MigrationSet;
  /** Builds the renderer once the service's public URL is known. */
  errorRenderer(config: ServiceConfig): ErrorRenderer;
  /** What it asks of text in request bodies beyond valid Unicode (NFC, no controls). */
  bodyText?: BodyTextPolicy;
  registerRoutes(app: HttpApp, dependencies: ServiceDependencies<Tables, Settings>): Promise<void>;
  /** Admin verbs this service adds to the command line. */
  adminCommands: readonly Command[];
  /**
   * Runs once the database is migrated when the service is started for real
   * (not in tests that build the server directly); returns a line to print,
   * such as where a first administrator's password was written.
   */
  initialize?(dependencies: ServiceDependencies<Tables, Settings>): Promise<string | undefined>;
}

export interface BuildOptions<Tables> {
  platform: Config;
  database: DatabaseHandle<Tables>;
  logger: FastifyBaseLogger;
  /** Adds routes after the service's own; tests use it for fixture routes. */
  extend?: (app: HttpApp) => Promise<void> | void;
}

/** Assembles a service's server; it owns the database from here and closes it on close. */
export async function buildService<Tables, Settings>(
  definition: ServiceDefinition<Tables, Settings>,
  options: BuildOptions<Tables>,
): Promise<HttpApp> {
  const config = serviceSection(options.platform, definition.name);
  const settings = serviceSettings<Settings>(options.platform, definition.name);
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
    ...(definition.apiSecurity ? { security: definition.apiSecurity(config, settings) } : {}),
    ...(definition.internalError ? { internalError: definition.internalError } : {}),
  });
  registerHealthRoutes(app, () => options.database.ping());
  await definition.registerRoutes(app, {
    database: options.database,
    config,
    settings,
    platform: options.platform,
  });
  await options.extend?.(app);
  await registerApiDocs(app);
  return app;
}
