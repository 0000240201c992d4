import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { withConstraintErrors } from './errors.js';

export interface DatabaseHandle<Tables> {
  readonly db: Kysely<Tables>;
  readonly config: DatabaseConfig;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Schema names are interpolated into connection options, so only plain identifiers pass. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

const SQLITE_BUSY_TIMEOUT_MS = 5000;

export function openDatabase<Tables>(config: DatabaseConfig): DatabaseHandle<Tables> {
  const dialect = config.kind === 'sqlite' ? sqliteDialect(config.file) : postgresDialect(config);
  const db = new Kysely<Tables>({ dialect: withConstraintErrors(dialect) });
  let closed: Promise<void> | undefined;
  return {
    db,
    config,
    async ping() {
      await sql`select 1`.execute(db);
    },
    close() {
      closed ??= db.destroy();
      return closed;
    },
  };
}

function sqliteDialect(file: string): SqliteDialect {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const database = new Sqlite(file);
  // The busy timeout makes a second writer wait instead of failing; WAL lets
  // readers work while a write is in progress; foreign keys are off by default.
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  switchToWal(database);
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  return new SqliteDialect({ database: withStatementCache(database) });
}

/** How many prepared statements a SQLite connection keeps (the queries of both services are fewer). */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * The connection as Kysely sees it, reusing prepared statements: Kysely prepares
 * every query anew, and preparing was the largest single cost of a request that
 * reads a row (a fifth of its time). A statement still being iterated is busy and
 * is not handed out again; the oldest are dropped past the cache's size.
 */
function withStatementCache(database: Sqlite.Database): SqliteDatabase {
  const prepared = new Map<string, Sqlite.Statement>();
  return {
    prepare(source: string) {
      const known = prepared.get(source);
      if (known && !known.busy) return known;
      const statement = database.prepare(source);
      if (!known) {
        if (prepared.size >= STATEMENT_CACHE_SIZE) {
          const oldest = prepared.keys().next().value;
          if (oldest !== undefined) prepared.delete(oldest);
        }
        prepared.set(source, statement);
      }
      return statement;
    },
    close() {
      prepared.clear();
      database.close();
    },
  };
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * SQLite does not always call the busy handler while changing the journal mode,
 * so a second instance opening a new file while the first switches it to WAL
 * gets SQLITE_BUSY at once. Retry for as long as the busy timeout would wait.
 * This runs once per open, and only waits while another process holds the lock.
 */
function switchToWal(database: Sqlite.Database): void {
  const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      database.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const busy = /^SQLITE_BUSY/.test(String((error as { code?: unknown }).code));
      if (!busy || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 25);
    }
  }
}

const INT8_OID = 20;

function postgresDialect(config: Extract<DatabaseConfig, { kind: 'postgres' }>): PostgresDialect {
  if (!SCHEMA_NAME.test(config.schema)) {
    throw new Error(`Invalid PostgreSQL schema name: ${config.schema}`);
  }
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolMax,
    // Each service lives in its own schema, so its queries name tables unqualified.
    options: `-c search_path=${config.schema}`,
    // The service's name (its schema), as pg_stat_activity shows each connection.
    application_name: config.schema,
    types: {
      // Counts and bigint keys as numbers, matching what SQLite returns.
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its server must not crash the process; the next
  // query reports the problem instead.
  pool.on('error', () => {});
  pool.on('connect', answerThroughCallbacks);
  return new PostgresDialect({ pool });
}

type QueryResultCallback = (error: Error | null, result: pg.QueryResult) => void;

/**
 * Kysely calls `client.query(text, values)` and awaits the promise pg makes.
 * Reading a 100,000-row table in batches of 500 that way promoted about 70 MB
 * of garbage to V8's old generation, against 13 MB through pg's callback form
 * for the same queries in the same time: garbage that raised the process's
 * peak memory by tens of MiB during a long export. So a client's text queries
 * go through the callback form, with a promise of our own around it; anything
 * else (a cursor, a config object, a callback already given) goes to pg as it is.
 */
function answerThroughCallbacks(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text !== 'string' || typeof values === 'function' || callback !== undefined)
      return query(text, values, callback);
    return new Promise<pg.QueryResult>((resolve, reject) => {
      const done: QueryResultCallback = (error, result) =>
        error ? reject(error) : resolve(result);
      query(text, values, done);
    });
  }) as typeof client.query;
}
