import type { DatabaseConnection, Dialect, Driver } from 'kysely';

export type ConstraintKind = 'unique' | 'foreign_key' | 'not_null' | 'check';

/**
 * The one error type a service sees when a write breaks a constraint, whichever
 * database ran it. Services turn it into their own 400/409 answers.
 */
export class ConstraintViolationError extends Error {
  override readonly name = 'ConstraintViolationError';
  constructor(
    readonly kind: ConstraintKind,
    /** Columns involved, where the database reports them. */
    readonly columns: readonly string[],
    /** Table or constraint name, where the database reports it. */
    readonly target: string | undefined,
    options: { cause: unknown },
  ) {
    super(
      `${kind.replace('_', ' ')} constraint violated${target ? ` on ${target}` : ''}` +
        (columns.length ? ` (${columns.join(', ')})` : ''),
      options,
    );
  }
}

/**
 * Text the database cannot hold: PostgreSQL refuses NUL (and characters outside
 * its encoding) anywhere in a string, even as a query parameter; SQLite stores it.
 */
export class UnstorableTextError extends Error {
  override readonly name = 'UnstorableTextError';
}

/** character_not_in_repertoire (NUL bytes) and untranslatable_character. */
const POSTGRES_UNSTORABLE_TEXT = new Set(['22021', '22P05']);

const SQLITE_KINDS: Record<string, ConstraintKind> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign_key',
  SQLITE_CONSTRAINT_NOTNULL: 'not_null',
  SQLITE_CONSTRAINT_CHECK: 'check',
};

const POSTGRES_KINDS: Record<string, ConstraintKind> = {
  '23505': 'unique',
  '23503': 'foreign_key',
  '23502': 'not_null',
  '23514': 'check',
};

interface DriverError {
  code?: unknown;
  message?: unknown;
  constraint?: unknown;
  table?: unknown;
  column?: unknown;
  detail?: unknown;
}

/** Returns the domain error for a constraint failure, or the error unchanged. */
export function mapDatabaseError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const driverError = error as DriverError;
  const code = typeof driverError.code === 'string' ? driverError.code : '';
  const message = typeof driverError.message === 'string' ? driverError.message : '';

  const sqliteKind = SQLITE_KINDS[code];
  if (sqliteKind) {
    // better-sqlite3: "UNIQUE constraint failed: users.username, users.tenant"
    const qualified = message.split(': ')[1]?.split(', ') ?? [];
    const columns = qualified.map((name) => name.split('.').pop() ?? name).filter(Boolean);
    const table = qualified[0]?.includes('.') ? qualified[0].split('.')[0] : undefined;
    return new ConstraintViolationError(sqliteKind, columns, table, { cause: error });
  }

  if (POSTGRES_UNSTORABLE_TEXT.has(code)) {
    return new UnstorableTextError('A value contains a character that cannot be stored.', {
      cause: error,
    });
  }

  const postgresKind = POSTGRES_KINDS[code];
  if (postgresKind) {
    // pg: detail "Key (username)=(bob) already exists."; only the column names are kept.
    const keyColumns =
      typeof driverError.detail === 'string'
        ? /^Key \(([^)]*)\)=/.exec(driverError.detail)?.[1]?.split(', ')
        : undefined;
    const columns =
      keyColumns ?? (typeof driverError.column === 'string' ? [driverError.column] : []);
    const target =
      typeof driverError.constraint === 'string'
        ? driverError.constraint
        : typeof driverError.table === 'string'
          ? driverError.table
          : undefined;
    return new ConstraintViolationError(postgresKind, columns, target, { cause: error });
  }
  return error;
}

/**
 * Wraps a Kysely dialect so that every query, on every connection and in every
 * transaction, reports constraint failures as ConstraintViolationError. Doing it
 * at the connection keeps the mapping out of every repository.
 */
export function withConstraintErrors(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: (): Driver => {
      const driver = dialect.createDriver();
      const acquire = driver.acquireConnection.bind(driver);
      driver.acquireConnection = async () => mappedConnection(await acquire());
      return driver;
    },
  };
}

const mapped = new WeakMap<DatabaseConnection, DatabaseConnection>();

function mappedConnection(connection: DatabaseConnection): DatabaseConnection {
  const existing = mapped.get(connection);
  if (existing) return existing;
  const proxy = new Proxy(connection, {
    get(target, property) {
      if (property === 'executeQuery') {
        return async (...args: Parameters<DatabaseConnection['executeQuery']>) => {
          try {
            return await target.executeQuery(...args);
          } catch (error) {
            throw mapDatabaseError(error);
          }
        };
      }
      const value = Reflect.get(target, property, target);
      // Drivers keep state in private fields, so methods must run on the real object.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  mapped.set(connection, proxy);
  return proxy;
}
