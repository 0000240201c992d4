import { createHash } from 'node:crypto';
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
  pool.on('connect', (client) => answerThroughCallbacks(client, config.preparedStatements));
  return new PostgresDialect({ pool });
}

/** Named statements one connection keeps at most; later texts go unnamed (one-off SQL, long IN lists). */
const PREPARED_PER_CONNECTION = 500;

/** Statement names by text, shared by every connection (a name is a digest of its text). */
const statementNames = new Map<string, string>();

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `s${createHash('sha1').update(text).digest('base64url')}`;
    // Texts are few in practice; past the cap the oldest go, and come back as the same digest.
    if (statementNames.size >= STATEMENT_CACHE_SIZE) {
      const oldest = statementNames.keys().next().value;
      if (oldest !== undefined) statementNames.delete(oldest);
    }
    statementNames.set(text, name);
  }
  return name;
}

/**
 * PostgreSQL's "cached plan must not change result type": a table a prepared
 * `select *` reads changed its columns (another instance migrated it). The
 * statement is run unnamed from then on, on that connection.
 */
function isStalePlan(error: unknown): boolean {
  return (
    (error as { code?: unknown }).code === '0A000' &&
    /cached plan must not change result type/.test(String((error as Error).message))
  );
}

const TRANSACTION_STARTS = /^\s*(begin|start transaction)\b/i;
const TRANSACTION_ENDS = /^\s*(commit|rollback|end)\b/i;

type QueryResultCallback = (error: Error | null, result: pg.QueryResult) => void;

/**
 * Kysely calls `client.query(text, values)` and awaits the promise pg makes.
 * Two things change on the way:
 *
 * - Each statement is prepared once per connection, by name, and later runs
 *   skip parsing and planning: a request of two indexed reads went from about
 *   11,000 to 17,000 per second through a bare pool on the benchmark machine.
 *   Off with DATABASE_PREPARED_STATEMENTS=false, for poolers in transaction mode.
 * - Reading a 100,000-row table in batches of 500 through the promise pg makes
 *   promoted about 70 MB of garbage to V8's old generation, against 13 MB
 *   through pg's callback form for the same queries in the same time: garbage
 *   that raised the process's peak memory by tens of MiB during a long export.
 *   So a client's text queries go through the callback form, with a promise of
 *   our own around it.
 *
 * Anything else (a cursor, a config object, a callback already given) goes to
 * pg as it is.
 */
function answerThroughCallbacks(client: pg.PoolClient, prepare: boolean): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const named = new Set<string>();
  const stale = new Set<string>();
  // A failed statement aborts its transaction, so only a statement outside one is retried.
  let inTransaction = false;
  const run = (text: string, values: unknown, name: string | undefined) =>
    new Promise<pg.QueryResult>((resolve, reject) => {
      const done: QueryResultCallback = (error, result) =>
        error ? reject(error) : resolve(result);
      if (name === undefined) query(text, values, done);
      else query({ name, text, values }, done);
    });
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text !== 'string' || typeof values === 'function' || callback !== undefined)
      return query(text, values, callback);
    if (TRANSACTION_STARTS.test(text)) inTransaction = true;
    else if (TRANSACTION_ENDS.test(text)) inTransaction = false;
    const name = prepare ? statementName(text) : undefined;
    if (name === undefined || stale.has(name)) return run(text, values, undefined);
    if (!named.has(name)) {
      if (named.size >= PREPARED_PER_CONNECTION) return run(text, values, undefined);
      named.add(name);
    }
    return run(text, values, name).catch((error: unknown) => {
      if (!isStalePlan(error)) throw error;
      stale.add(name);
      if (inTransaction) throw error;
      return run(text, values, undefined);
    });
  }) as typeof client.query;
}
