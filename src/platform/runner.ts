import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';
import {
  type Config,
  describeDatabase,
  type ServiceConfig,
  serviceSection,
  serviceSettings,
} from './config.js';
import { openDatabase } from './db/connection.js';
import { migrateToLatest } from './db/migrations.js';
import { createLogger } from './http/logging.js';
import { DOCS_PATH } from './http/openapi.js';
import type { HttpApp } from './http/server.js';
import { buildService, type ServiceDefinition } from './service.js';

export interface RunningService {
  name: string;
  /** The service's section of the configuration it started with. */
  config: ServiceConfig;
  app: HttpApp;
  /** Where it listens, as a URL (a wildcard address shown as `localhost`). */
  url: string;
  /**
   * Where people and clients reach it: its public address, which is also what
   * its pages, redirects and tokens name. The default public address is the
   * listening port at `localhost`, since browsers take passkeys and keep one
   * cookie jar only under a name, never at `127.0.0.1`.
   */
  address: string;
  /** What the service's first-start initialization wants the operator to know. */
  notice?: string;
}

export interface StartHooks {
  /**
   * Runs before each service starts, knowing those already running: where the
   * program wires one service to another (over their public interfaces). It
   * may answer the configuration to start with instead (the configuration is
   * frozen: a changed one is a new one).
   */
  beforeStart?: (
    definition: ServiceDefinition,
    config: Config,
    running: readonly RunningService[],
  ) => Promise<Config | undefined>;
}

/**
 * Opens, migrates and starts each service. If any service fails to start, those
 * already started are closed again.
 */
export async function startServices(
  definitions: readonly ServiceDefinition[],
  config: Config,
  hooks: StartHooks = {},
): Promise<RunningService[]> {
  const running: RunningService[] = [];
  try {
    for (const definition of definitions) {
      const adjusted = (await hooks.beforeStart?.(definition, config, running)) ?? config;
      running.push(await startService(definition, adjusted));
    }
  } catch (error) {
    await closeServices(running);
    throw error;
  }
  return running;
}

/**
 * Prints one line per service saying where it listens, where its API
 * documentation is and which database it uses, then any first-start notices.
 * Callers print these only once the services can be stopped cleanly, since a
 * supervisor may signal as soon as it reads them.
 */
export function announceServices(running: readonly RunningService[], stdout: Writable): void {
  for (const service of running) {
    const database = describeDatabase(service.config.database);
    const listening = service.url.replace(/^http:\/\//, '');
    stdout.write(
      `${service.name} at ${service.address} (listening on ${listening}), API docs at ${service.address}${DOCS_PATH}, database ${database}\n`,
    );
  }
  for (const service of running) {
    if (service.notice) stdout.write(`${service.notice}\n`);
  }
}

async function startService(
  definition: ServiceDefinition,
  config: Config,
): Promise<RunningService> {
  const serviceConfig = serviceSection(config, definition.name);
  const logger = createLogger(
    definition.name,
    config.logLevel,
    undefined,
    config.logFormat === 'auto' ? (process.stdout.isTTY ? 'text' : 'json') : config.logFormat,
  );
  const database = openDatabase(serviceConfig.database);
  let app: HttpApp | undefined;
  let notice: string | undefined;
  try {
    await migrateToLatest(database, definition.migrations);
    notice = await definition.initialize?.({
      database,
      config: serviceConfig,
      settings: serviceSettings(config, definition.name),
      platform: config,
    });
    app = await buildService(definition, { platform: config, database, logger });
    // Fastify logs every listen address on its own; the start-up lines printed
    // afterwards say the same more usefully, so that log line is held back.
    const level = app.log.level;
    app.log.level = 'warn';
    try {
      await app.listen({ host: config.host, port: serviceConfig.port });
    } finally {
      app.log.level = level;
    }
  } catch (error) {
    if (app) await app.close();
    else await database.close();
    throw new StartError(definition.name, error);
  }
  return {
    name: definition.name,
    config: serviceConfig,
    app,
    url: displayUrl(app.server.address() as AddressInfo),
    address: publicAddress(serviceConfig, app.server.address() as AddressInfo),
    ...(notice ? { notice } : {}),
  };
}

export class StartError extends Error {
  override readonly name = 'StartError';
  constructor(service: string, cause: unknown) {
    const reason =
      (cause as NodeJS.ErrnoException).code === 'EADDRINUSE'
        ? `its port is already in use (${(cause as Error).message})`
        : cause instanceof Error
          ? cause.message
          : String(cause);
    super(`${service} could not start: ${reason}`, { cause });
  }
}

/**
 * The address to print for people: the public URL, unless it is the default
 * one made before a free port (`0`) was picked, which names another port.
 */
function publicAddress(config: ServiceConfig, listening: AddressInfo): string {
  const publicUrl = new URL(config.publicUrl);
  const atDefault = publicUrl.hostname === 'localhost' && config.port === 0;
  return atDefault ? `http://localhost:${listening.port}` : config.publicUrl;
}

function displayUrl(address: AddressInfo): string {
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard
    ? 'localhost'
    : address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address;
  return `http://${host}:${address.port}`;
}

/** Stops accepting, lets in-flight requests finish, then closes each database. */
export async function closeServices(services: readonly RunningService[]): Promise<void> {
  await Promise.allSettled(services.map((service) => service.app.close()));
}

/**
 * Closes the services on SIGINT or SIGTERM. A second signal, or a shutdown that
 * outlasts the timeout, exits at once with a failure status.
 */
export function closeOnSignals(
  services: readonly RunningService[],
  timeoutMs: number,
  stderr: Writable,
): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      stderr.write(`Received ${signal} again; exiting without waiting.\n`);
      process.exit(1);
    }
    stopping = true;
    for (const service of services) service.app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      stderr.write(`Shutdown took longer than ${timeoutMs} ms; exiting.\n`);
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    void closeServices(services).then(() => {
      clearTimeout(timer);
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
