import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type DatabaseConfig, serviceSection, withServiceSection } from '../src/platform/config.js';
import { type DatabaseHandle, openDatabase } from '../src/platform/db/connection.js';
import { migrateToLatest } from '../src/platform/db/migrations.js';
import { createLogger } from '../src/platform/http/logging.js';
import type { HttpApp } from '../src/platform/http/server.js';
import { buildService, type ServiceDefinition } from '../src/platform/service.js';
import { loadProgramConfig, type ProgramConfig } from '../src/program.js';
import { recordResponses } from './contract/recorder.js';

export type DatabaseKind = 'sqlite' | 'postgres';

const postgresUrl = process.env.TEST_DATABASE_URL;

/**
 * Every storage and HTTP suite runs once per kind: always SQLite, and PostgreSQL
 * too when TEST_DATABASE_URL is set (CI sets it, and fails if the server is down).
 */
export const DATABASE_KINDS: readonly DatabaseKind[] = postgresUrl
  ? ['sqlite', 'postgres']
  : ['sqlite'];

export interface TestDatabase {
  config: DatabaseConfig;
  /** Removes the database (SQLite directory or PostgreSQL schema). */
  drop(): Promise<void>;
}

/** A database nobody else uses: a new SQLite file, or a new PostgreSQL schema. */
export async function createTestDatabase(kind: DatabaseKind, label = 'db'): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const directory = mkdtempSync(join(tmpdir(), 'chrd-test-'));
    return {
      config: { kind: 'sqlite', file: join(directory, `${label}.sqlite`) },
      drop: async () => rmSync(directory, { recursive: true, force: true }),
    };
  }
  if (!postgresUrl) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `test_${label}_${randomBytes(6).toString('hex')}`;
  return {
    config: { kind: 'postgres', url: postgresUrl, schema, poolMax: 4, preparedStatements: true },
    drop: async () => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface TestService {
  app: HttpApp;
  config: ProgramConfig;
  database: DatabaseHandle<unknown>;
  /** Every JSON log line the service wrote, parsed. */
  logLines(): Record<string, unknown>[];
  /** The raw log text, for asserting that something never appears in it. */
  logText(): string;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  extend?: (app: HttpApp) => Promise<void> | void;
  /** Listen on an ephemeral loopback port (for browsers and real HTTP clients). */
  listen?: boolean;
}

/** The configuration with one service's database replaced (a test's own). */
export function withDatabase(
  config: ProgramConfig,
  name: string,
  database: DatabaseConfig,
): ProgramConfig {
  const section = { ...serviceSection(config, name), database };
  return withServiceSection(config, name, section) as ProgramConfig;
}

/** Starts a service in-process on a fresh database of the chosen kind. */
export async function startTestService(
  definition: ServiceDefinition,
  kind: DatabaseKind,
  options: TestServiceOptions = {},
): Promise<TestService> {
  const testDatabase = await createTestDatabase(kind, definition.name);
  // Local state (refdata's signing key, codehost's first password) stays out of the tree.
  const dataDir = mkdtempSync(join(tmpdir(), 'chrd-data-'));
  const loaded = loadProgramConfig({ LOG_LEVEL: 'info', DATA_DIR: dataDir, ...options.env });
  const config = withDatabase(loaded, definition.name, testDatabase.config);

  const chunks: string[] = [];
  const logger = createLogger(
    definition.name,
    config.logLevel,
    {
      write: (chunk: string) => {
        chunks.push(chunk);
      },
    },
    config.logFormat === 'text' ? 'text' : 'json',
  );
  const database = openDatabase(testDatabase.config);
  let app: HttpApp;
  try {
    await migrateToLatest(database, definition.migrations);
    app = await buildService(definition, {
      platform: config,
      database,
      logger,
      ...(options.extend ? { extend: options.extend } : {}),
    });
    recordResponses(app, definition.name);
    if (options.listen) await app.listen({ host: '127.0.0.1', port: 0 });
    else await app.ready();
  } catch (error) {
    await database.close();
    await testDatabase.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    app,
    config,
    database,
    logText: () => chunks.join(''),
    logLines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    async close() {
      await app.close();
      await testDatabase.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The base URL of a service started with `listen: true`. */
export function baseUrl(service: TestService): string {
  const address = service.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('service is not listening');
  return `http://127.0.0.1:${address.port}`;
}

/**
 * A service started before the tests of the enclosing `describe` and closed
 * after them, used as if it were the service itself: the handle forwards to
 * the one `start` made, so a file states which service it needs in one line
 * instead of a variable, a `beforeAll` and an `afterAll`.
 */
export function startedForTests<T extends { close(): Promise<void> }>(start: () => Promise<T>): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    await started?.close();
    started = undefined;
  });
  return new Proxy({} as T, {
    get(_target, property) {
      if (started === undefined)
        throw new Error(`The service is used outside its tests (reading ${String(property)}).`);
      const value: unknown = Reflect.get(started, property);
      return typeof value === 'function' ? value.bind(started) : value;
    },
    has: (_target, property) => started !== undefined && Reflect.has(started, property),
  });
}
