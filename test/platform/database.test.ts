import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { codehostMigrations } from '../../src/codehost/db/migrations.js';
import type { DatabaseConfig } from '../../src/platform/config.js';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/connection.js';
import { ConstraintViolationError } from '../../src/platform/db/errors.js';
import {
  MigrationError,
  type MigrationSet,
  migrateToLatest,
} from '../../src/platform/db/migrations.js';
import { reusableNamedQuery, reusableQuery } from '../../src/platform/db/reusable-query.js';
import { refdataMigrations } from '../../src/refdata/db/migrations.js';
import { type AnyDb, fixtureMigrations } from '../fixtures/migrations.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../harness.js';

const run = promisify(execFile);
const migrateProcess = new URL('../fixtures/migrate-process.ts', import.meta.url).pathname;

describe.each(DATABASE_KINDS)('storage on %s', (kind) => {
  const opened: DatabaseHandle<unknown>[] = [];
  const created: TestDatabase[] = [];

  async function freshDatabase(): Promise<TestDatabase> {
    const database = await createTestDatabase(kind, 'storage');
    created.push(database);
    return database;
  }
  function open(database: TestDatabase): DatabaseHandle<AnyDb extends Kysely<infer T> ? T : never> {
    const handle = openDatabase(database.config);
    opened.push(handle);
    return handle as never;
  }

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((handle) => handle.close()));
    await Promise.all(created.splice(0).map((database) => database.drop()));
  });

  it('applies migrations once; a second run is a no-op that keeps the data', async () => {
    const handle = open(await freshDatabase());
    expect(await migrateToLatest(handle, fixtureMigrations)).toEqual([
      '0001_widgets',
      '0002_parts',
    ]);
    const db = handle.db as AnyDb;
    await db.insertInto('widgets').values({ id: 1, name: 'sprocket' }).execute();

    expect(await migrateToLatest(handle, fixtureMigrations)).toEqual([]);
    expect(await db.selectFrom('widgets').selectAll().execute()).toEqual([
      { id: 1, name: 'sprocket' },
    ]);
  });

  it('applies only the migrations added since the last run', async () => {
    const handle = open(await freshDatabase());
    const first = { '0001_widgets': fixtureMigrations['0001_widgets'] } as MigrationSet;
    expect(await migrateToLatest(handle, first)).toEqual(['0001_widgets']);
    expect(await migrateToLatest(handle, fixtureMigrations)).toEqual(['0002_parts']);
  });

  it('lets two instances, in two processes, migrate one database at the same time', async () => {
    const database = await freshDatabase();
    // Both processes begin migrating at this moment, well after either has booted.
    const startAt = String(Date.now() + 2500);
    const migrateInAnotherProcess = async () => {
      const { stdout } = await run(process.execPath, [
        '--import',
        'tsx',
        migrateProcess,
        JSON.stringify(database.config),
        startAt,
      ]);
      return JSON.parse(stdout) as string[];
    };
    const results = await Promise.all([migrateInAnotherProcess(), migrateInAnotherProcess()]);
    // Each migration ran exactly once, in one process or the other.
    expect(results.flat().sort()).toEqual(['0001_widgets', '0002_parts']);
    const handle = open(database);
    const applied = await sql<{
      name: string;
    }>`select name from kysely_migration order by name`.execute(handle.db);
    expect(applied.rows.map((row) => row.name)).toEqual(['0001_widgets', '0002_parts']);
  });

  it('applies each service migration set twice without change', async () => {
    for (const migrations of [codehostMigrations, refdataMigrations]) {
      const handle = open(await freshDatabase());
      const first = await migrateToLatest(handle, migrations);
      expect(first).toEqual(Object.keys(migrations).sort());
      expect(await migrateToLatest(handle, migrations)).toEqual([]);
    }
  });

  it('names the migration that failed', async () => {
    const handle = open(await freshDatabase());
    const broken: MigrationSet = {
      ...fixtureMigrations,
      '0003_broken': {
        async up(db: AnyDb) {
          await sql`create table widgets (id integer)`.execute(db);
        },
      },
    };
    await expect(migrateToLatest(handle, broken)).rejects.toThrow(MigrationError);
    await expect(migrateToLatest(handle, broken)).rejects.toThrow(/Migration 0003_broken failed/);
  });

  it('reports a duplicate key as a unique ConstraintViolationError', async () => {
    const handle = open(await freshDatabase());
    await migrateToLatest(handle, fixtureMigrations);
    const db = handle.db as AnyDb;
    await db.insertInto('widgets').values({ id: 1, name: 'sprocket' }).execute();

    const error = await db
      .insertInto('widgets')
      .values({ id: 2, name: 'sprocket' })
      .execute()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConstraintViolationError);
    expect(error).toMatchObject({ kind: 'unique', columns: ['name'] });

    const duplicateKey = await db
      .insertInto('widgets')
      .values({ id: 1, name: 'gear' })
      .execute()
      .catch((caught: unknown) => caught);
    expect(duplicateKey).toMatchObject({ kind: 'unique', columns: ['id'] });
  });

  it('reports a dangling reference as a foreign_key ConstraintViolationError, also in a transaction', async () => {
    const handle = open(await freshDatabase());
    await migrateToLatest(handle, fixtureMigrations);
    const db = handle.db as AnyDb;

    const error = await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('widgets').values({ id: 1, name: 'sprocket' }).execute();
        await trx.insertInto('parts').values({ id: 1, widget_id: 99 }).execute();
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConstraintViolationError);
    expect((error as ConstraintViolationError).kind).toBe('foreign_key');
    // The transaction rolled back: the widget inserted before the failure is gone.
    expect(await db.selectFrom('widgets').selectAll().execute()).toEqual([]);
  });

  it('reports a missing required value as not_null', async () => {
    const handle = open(await freshDatabase());
    await migrateToLatest(handle, fixtureMigrations);
    const error = await (handle.db as AnyDb)
      .insertInto('widgets')
      .values({ id: 1, name: null })
      .execute()
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'not_null' });
  });

  it('leaves other errors unchanged', async () => {
    const handle = open(await freshDatabase());
    const error = await sql`select * from no_such_table`
      .execute(handle.db)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ConstraintViolationError);
  });

  it("runs a reusable query with each call's values, building it once", async () => {
    const handle = open(await freshDatabase());
    await migrateToLatest(handle, fixtureMigrations);
    const db = handle.db as AnyDb;
    await db
      .insertInto('widgets')
      .values([
        { id: 1, name: 'sprocket' },
        { id: 2, name: 'gear' },
        { id: 3, name: 'cog' },
      ])
      .execute();
    let builds = 0;
    const byName = reusableQuery((name: string) => {
      builds += 1;
      // A constant beside the value: only the stand-in is swapped.
      return db.selectFrom('widgets').select('id').where('name', '=', name).where('id', '<', 3);
    });
    const ids = async (name: string) =>
      (await db.executeQuery(byName(name))).rows.map((row) => Number(row.id));
    expect(await ids('sprocket')).toEqual([1]);
    expect(await ids('gear')).toEqual([2]);
    // The constant still holds: cog's id is 3.
    expect(await ids('cog')).toEqual([]);
    expect(builds).toBe(1);
    expect(() => byName()).toThrow(/expected 1 values, got 0/);

    // The named form: a whole row's values by column, the same stand-in used twice.
    let namedBuilds = 0;
    const insertWidget = reusableNamedQuery(['id', 'name'], (value) => {
      namedBuilds += 1;
      return db
        .insertInto('widgets')
        .values({ id: value.id as unknown as number, name: value.name })
        .returning(['id', 'name', sql<string>`${value.name} || '!'`.as('shout')]);
    });
    const inserted = async (id: number, name: string) =>
      (await db.executeQuery(insertWidget({ id, name }))).rows[0];
    expect(await inserted(4, 'axle')).toEqual({ id: 4, name: 'axle', shout: 'axle!' });
    expect(await inserted(5, 'hub')).toEqual({ id: 5, name: 'hub', shout: 'hub!' });
    expect(namedBuilds).toBe(1);
  });

  it('answers a ping, and rejects one after closing', async () => {
    const handle = open(await freshDatabase());
    await expect(handle.ping()).resolves.toBeUndefined();
    await handle.close();
    await expect(handle.ping()).rejects.toThrow();
  });

  if (kind === 'sqlite') {
    it('runs SQLite with WAL, foreign keys and a busy timeout', async () => {
      const handle = open(await freshDatabase());
      const pragma = async (name: string) =>
        Object.values(
          (await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(handle.db)).rows[0] ??
            {},
        )[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('busy_timeout')).toBe(5000);
    });
  }

  if (kind === 'postgres') {
    it("keeps a service's tables and migration bookkeeping in its own schema", async () => {
      const database = await freshDatabase();
      const handle = open(database);
      await migrateToLatest(handle, fixtureMigrations);
      const schema = database.config.kind === 'postgres' ? database.config.schema : '';
      const tables = await sql<{ table_name: string }>`
        select table_name from information_schema.tables
        where table_schema = ${schema} order by table_name`.execute(handle.db);
      expect(tables.rows.map((row) => row.table_name)).toEqual([
        'kysely_migration',
        'kysely_migration_lock',
        'parts',
        'widgets',
      ]);
    });

    /** The statements the connection that answers this query has prepared, with their texts. */
    async function preparedTexts(db: AnyDb): Promise<string[]> {
      // Itself a plain text query: pg_prepared_statements is per connection, and a
      // one-connection pool (below) makes it the same connection.
      const rows = await sql<{ statement: string }>`
        select statement from pg_prepared_statements`.execute(db);
      return rows.rows.map((row) => row.statement);
    }

    it('prepares each statement once per connection, and not at all when told not to', async () => {
      const database = await freshDatabase();
      for (const preparedStatements of [true, false]) {
        const config = { ...database.config, poolMax: 1, preparedStatements } as const;
        const handle = open({ ...database, config });
        await migrateToLatest(handle, fixtureMigrations);
        const db = handle.db as AnyDb;
        const read = (id: number) =>
          db.selectFrom('widgets').select('name').where('id', '=', id).execute();
        if (preparedStatements) {
          await db.insertInto('widgets').values({ id: 1, name: 'sprocket' }).execute();
        }
        expect(await read(1)).toEqual([{ name: 'sprocket' }]);
        expect(await read(2)).toEqual([]);
        const texts = (await preparedTexts(db)).filter((text) => text.includes('"widgets"'));
        const reads = texts.filter((text) => text.startsWith('select "name"'));
        expect(reads).toHaveLength(preparedStatements ? 1 : 0);
        await handle.close();
      }
    });

    it('answers a prepared select * after another instance adds a column, in and out of a transaction', async () => {
      const database = await freshDatabase();
      const handle = open({
        ...database,
        config: { ...database.config, poolMax: 1 } as DatabaseConfig,
      });
      const other = open(database);
      await migrateToLatest(handle, fixtureMigrations);
      const db = handle.db as AnyDb;
      await db.insertInto('widgets').values({ id: 1, name: 'sprocket' }).execute();
      const all = (from: AnyDb) => from.selectFrom('widgets').selectAll().execute();
      expect(await all(db)).toEqual([{ id: 1, name: 'sprocket' }]);
      await sql`alter table widgets add column colour text`.execute(other.db);
      // PostgreSQL refuses the prepared plan ("cached plan must not change result
      // type"); outside a transaction the statement is run again, unnamed.
      expect(await all(db)).toEqual([{ id: 1, name: 'sprocket', colour: null }]);
      // Inside one, the transaction has failed already, so the error stands; the
      // next attempt, in a new transaction, runs unnamed and succeeds.
      const one = (from: AnyDb) =>
        from.selectFrom('widgets').selectAll().where('id', '=', 1).execute();
      const inTransaction = () => db.transaction().execute((trx) => one(trx));
      expect(await inTransaction()).toEqual([{ id: 1, name: 'sprocket', colour: null }]);
      await sql`alter table widgets add column size integer`.execute(other.db);
      await expect(inTransaction()).rejects.toThrow(/cached plan must not change result type/);
      expect(await inTransaction()).toEqual([
        { id: 1, name: 'sprocket', colour: null, size: null },
      ]);
    });
  }
});
