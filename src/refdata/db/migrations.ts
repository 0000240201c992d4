import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { MigrationSet } from '../../platform/db/migrations.js';
import { isPostgres, type MigrationDb, TIMESTAMP, withIdColumn } from '../../platform/db/schema.js';

/**
 * refdata's schema history, applied in name order at start-up. Names are
 * `NNNN_what`; a released migration is never edited, only followed by a new one.
 * Times are epoch milliseconds, so one query serves SQLite and PostgreSQL alike.
 */
export const refdataMigrations: MigrationSet = {
  '0001_resources': {
    async up(db: MigrationDb) {
      // Every family in one table: the generic lifecycle, lookups and duplicate
      // rules work on these columns; the family's own fields live in `body`.
      await withIdColumn(db, db.schema.createTable('resources'))
        .addColumn('iri', 'varchar(2048)', (c) => c.notNull().unique())
        .addColumn('family', 'varchar(32)', (c) => c.notNull())
        .addColumn('status', 'varchar(24)', (c) =>
          c
            .notNull()
            .check(
              sql.raw(
                "status in ('Draft', 'Submitted', 'Approved', 'Rejected', 'Deprecated', 'ExternallyManaged')",
              ),
            ),
        )
        .addColumn('name', 'varchar(1000)', (c) => c.notNull())
        .addColumn('name_normalized', 'varchar(1000)', (c) => c.notNull())
        // The library a term belongs to ('' for libraries and family-wide names);
        // NULLs would never clash, so the duplicate rule needs a value.
        .addColumn('library_key', 'varchar(2048)', (c) => c.notNull())
        .addColumn('parent_iri', 'varchar(2048)')
        .addColumn('replaces_iri', 'varchar(2048)')
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('created_by', 'varchar(255)', (c) => c.notNull())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('updated_by', 'varchar(255)', (c) => c.notNull())
        .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
        .addUniqueConstraint('resources_name_in_library', [
          'family',
          'library_key',
          'name_normalized',
        ])
        .execute();
      await db.schema
        .createIndex('resources_parent')
        .on('resources')
        .column('parent_iri')
        .execute();
      await db.schema
        .createIndex('resources_family')
        .on('resources')
        .columns(['family', 'status'])
        .execute();

      await withIdColumn(db, db.schema.createTable('revisions'))
        .addColumn('resource_id', 'integer', (c) =>
          c.notNull().references('resources.id').onDelete('cascade'),
        )
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('action', 'varchar(16)', (c) => c.notNull())
        .addColumn('status', 'varchar(24)', (c) => c.notNull())
        .addColumn('actor', 'varchar(255)', (c) => c.notNull())
        .addColumn('justification', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('revisions_resource')
        .on('revisions')
        .columns(['resource_id', 'id'])
        .execute();
    },
  },
  '0002_library_terms_index': {
    async up(db: MigrationDb) {
      // A library's terms are read in id order, a batch at a time (detail levels 2 and 3).
      await db.schema
        .createIndex('resources_library_terms')
        .on('resources')
        .columns(['library_key', 'id'])
        .execute();
    },
  },
  '0003_search_index': {
    async up(db: MigrationDb) {
      // The words of each resource, in four fields ranked apart: its label, its
      // identifiers, its description and its mapping targets.
      if (isPostgres(db)) {
        await sql`create table search_documents (
          resource_id integer primary key references resources(id) on delete cascade,
          label text not null,
          identifier text not null,
          description text not null,
          mappings text not null,
          document tsvector generated always as (
            setweight(to_tsvector('simple', label), 'A') ||
            setweight(to_tsvector('simple', identifier), 'B') ||
            setweight(to_tsvector('simple', mappings), 'C') ||
            setweight(to_tsvector('simple', description), 'D')
          ) stored,
          label_document tsvector generated always as (to_tsvector('simple', label)) stored
        )`.execute(db);
        await sql`create index search_documents_document on search_documents using gin (document)`.execute(
          db,
        );
        // Ranking asks which matches are in the label: its own index, not a scan.
        await sql`create index search_documents_label on search_documents using gin (label_document)`.execute(
          db,
        );
      } else {
        await sql`create virtual table search_documents using fts5(
          label, identifier, description, mappings,
          resource_id unindexed,
          tokenize = 'unicode61 remove_diacritics 2',
          prefix = '2 3 4'
        )`.execute(db);
      }
      // Whether search may answer; every instance reads it here (503 while not).
      await db.schema
        .createTable('search_state')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('state', 'varchar(16)', (c) =>
          c.notNull().check(sql.raw("state in ('available', 'rebuilding', 'down')")),
        )
        .addColumn('changed_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await sql`insert into search_state (id, state, changed_at) values (1, 'available', 0)`.execute(
        db,
      );
      await db.schema
        .createIndex('resources_name')
        .on('resources')
        .columns(['name_normalized', 'id'])
        .execute();
    },
  },
  '0004_removed_history_and_replacements': {
    async up(db: MigrationDb) {
      // A deprecated resource names its replacement: found by what replaces it.
      await db.schema
        .createIndex('resources_replaces')
        .on('resources')
        .column('replaces_iri')
        .execute();
      // A value removed with its picklist's update keeps its IRI and its history.
      await db.schema
        .createTable('removed_resources')
        .addColumn('resource_id', 'integer', (c) => c.primaryKey())
        .addColumn('iri', 'varchar(2048)', (c) => c.notNull().unique())
        .addColumn('family', 'varchar(32)', (c) => c.notNull())
        .addColumn('parent_iri', 'varchar(2048)')
        .addColumn('removed_by', 'varchar(255)', (c) => c.notNull())
        .addColumn('removed_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      // Revisions outlive their resource, so they no longer cascade with it.
      if (isPostgres(db)) {
        await sql`alter table revisions drop constraint revisions_resource_id_fkey`.execute(db);
        return;
      }
      // SQLite cannot drop a constraint: the table is rebuilt without it (nothing
      // references revisions, so this is safe with foreign keys on).
      await withIdColumn(db, db.schema.createTable('revisions_next'))
        .addColumn('resource_id', 'integer', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('action', 'varchar(16)', (c) => c.notNull())
        .addColumn('status', 'varchar(24)', (c) => c.notNull())
        .addColumn('actor', 'varchar(255)', (c) => c.notNull())
        .addColumn('justification', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await sql`insert into revisions_next select id, resource_id, version, action, status, actor, justification, body, created_at from revisions`.execute(
        db,
      );
      await db.schema.dropTable('revisions').execute();
      await db.schema.alterTable('revisions_next').renameTo('revisions').execute();
      await db.schema
        .createIndex('revisions_resource')
        .on('revisions')
        .columns(['resource_id', 'id'])
        .execute();
    },
  },
  '0005_fill_in_derived_fields': {
    async up(db: MigrationDb) {
      // What create now stores but older rows may lack: a library's path (the
      // last segment of its IRI) and a picklist value's library (its picklist's).
      const libraries = await db
        .selectFrom('resources')
        .select(['id', 'iri', 'body'])
        .where('family', '=', 'library')
        .execute();
      for (const row of libraries as { id: number; iri: string; body: string }[]) {
        const body = JSON.parse(row.body) as Record<string, unknown>;
        if (body.path !== undefined) continue;
        body.path = row.iri.slice(row.iri.lastIndexOf('/') + 1);
        await db
          .updateTable('resources')
          .set({ body: JSON.stringify(body) })
          .where('id', '=', row.id)
          .execute();
      }
      const values = await db
        .selectFrom('resources as value')
        .innerJoin('resources as picklist', 'picklist.iri', 'value.parent_iri')
        .select(['value.id as id', 'value.body as body', 'picklist.library_key as library'])
        .where('value.family', '=', 'picklist-value')
        .execute();
      for (const row of values as { id: number; body: string; library: string }[]) {
        const body = JSON.parse(row.body) as Record<string, unknown>;
        if (body.ontology !== undefined) continue;
        body.ontology = row.library;
        await db
          .updateTable('resources')
          .set({ body: JSON.stringify(body) })
          .where('id', '=', row.id)
          .execute();
      }
    },
  },
  '0006_browser_sessions': {
    async up(db: MigrationDb) {
      // Browser sessions of the web pages, in the database so every instance sees
      // them. The shape is the platform session store's; it is written out here
      // because a migration must not change when shared code does.
      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'varchar(64)', (c) => c.primaryKey())
        // Whom it is signed in as: the identity provider's subject, or the token's.
        .addColumn('user_id', 'varchar(255)')
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('user_agent', 'varchar(512)', (c) => c.notNull().defaultTo(''))
        .addColumn('ip_address', 'varchar(512)', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull().defaultTo(0))
        .addColumn('last_used_at', TIMESTAMP, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('sessions_expiry').on('sessions').column('expires_at').execute();
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
    },
  },
  '0007_search_change_log': {
    async up(db: MigrationDb) {
      // Each instance holds its search index in memory and follows this log of
      // changed resources. Triggers write it, so that no write path, bulk load or
      // hand-made SQL can change a resource without the indexes hearing of it.
      if (isPostgres(db)) {
        await sql`create table search_changes (
          seq bigserial primary key,
          resource_id integer not null,
          changed_at bigint not null
        )`.execute(db);
        await sql`create function search_changes_record() returns trigger language plpgsql as $$
          begin
            insert into search_changes (resource_id, changed_at)
              values (case when tg_op = 'DELETE' then old.id else new.id end,
                      (extract(epoch from clock_timestamp()) * 1000)::bigint);
            return null;
          end $$`.execute(db);
        await sql`create trigger resources_search_changes after insert or update or delete on resources
          for each row execute function search_changes_record()`.execute(db);
        await sql`drop table search_documents`.execute(db);
      } else {
        await sql`create table search_changes (
          seq integer primary key autoincrement,
          resource_id integer not null,
          changed_at integer not null
        )`.execute(db);
        const now = sql.raw(`cast((julianday('now') - 2440587.5) * 86400000 as integer)`);
        for (const [event, row] of [
          ['insert', 'new'],
          ['update', 'new'],
          ['delete', 'old'],
        ] as const) {
          await sql`create trigger ${sql.raw(`resources_search_${event}`)} after ${sql.raw(event)} on resources
            begin
              insert into search_changes (resource_id, changed_at) values (${sql.raw(row)}.id, ${now});
            end`.execute(db);
        }
        await sql`drop table search_documents`.execute(db);
      }
      await db.schema
        .createIndex('search_changes_age')
        .on('search_changes')
        .column('changed_at')
        .execute();
      // A rebuild asked for from the command line: every instance rebuilds once it sees a later time.
      await db.schema
        .alterTable('search_state')
        .addColumn('rebuild_requested_at', TIMESTAMP, (c) => c.notNull().defaultTo(0))
        .execute();
      // The old rebuild command marked search 'rebuilding' while it ran; one cut
      // short would leave search down for ever, and nothing sets that state now.
      await db
        .updateTable('search_state')
        .set({ state: 'available' })
        .where('state', '=', 'rebuilding')
        .execute();
    },
  },
  '0008_people': {
    async up(db: MigrationDb) {
      // Who an actor is, as their identity provider last said: revisions record the
      // stable subject (`<issuer>#<sub>`), pages show the name and username.
      await db.schema
        .createTable('people')
        .addColumn('subject', 'varchar(1024)', (c) => c.primaryKey())
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('username', 'varchar(255)')
        .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
        .execute();
    },
  },
  '0009_sparql_store_sync': {
    async up(db: MigrationDb) {
      // How far the published view is in an external SPARQL store (docs/sparql.md),
      // and which instance keeps it so for now: a lease, taken and renewed by a
      // conditional update, so that one instance at a time writes to the store.
      await db.schema
        .createTable('sparql_store_sync')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('store', 'varchar(2048)', (c) => c.notNull())
        .addColumn('position', 'bigint', (c) => c.notNull())
        .addColumn('synced_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('holder', 'varchar(255)')
        .addColumn('lease_until', TIMESTAMP, (c) => c.notNull())
        .addColumn('resync_requested_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('resynced_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await sql`insert into sparql_store_sync
        (id, store, position, synced_at, holder, lease_until, resync_requested_at, resynced_at)
        values (1, '', 0, 0, null, 0, 0, 0)`.execute(db);
    },
  },
  '0010_change_events_and_webhooks': {
    async up(db: MigrationDb) {
      // The change feed and the webhooks' outbox (docs/changes.md): one row per
      // revision, written in the same transaction, with what a feed filters on
      // kept as it was then (a Draft may move to another library later); a
      // library's own events carry its IRI, so it is in its own feed, and a
      // value's its aggregate's library.
      // `fanned_out` is 0 until the webhook dispatcher has made its deliveries.
      await withIdColumn(db, db.schema.createTable('change_events'))
        .addColumn('revision_id', 'integer', (c) => c.notNull())
        .addColumn('resource_id', 'integer', (c) => c.notNull())
        .addColumn('iri', 'varchar(2048)', (c) => c.notNull())
        .addColumn('family', 'varchar(32)', (c) => c.notNull())
        .addColumn('library_key', 'varchar(2048)', (c) => c.notNull())
        .addColumn('event', 'varchar(16)', (c) => c.notNull())
        .addColumn('status', 'varchar(24)', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('actor', 'varchar(255)', (c) => c.notNull())
        .addColumn('at', TIMESTAMP, (c) => c.notNull())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('fanned_out', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('change_events_time')
        .on('change_events')
        .columns(['at', 'id'])
        .execute();
      await db.schema
        .createIndex('change_events_library_time')
        .on('change_events')
        .columns(['library_key', 'at', 'id'])
        .execute();
      await db.schema
        .createIndex('change_events_outbox')
        .on('change_events')
        .column('id')
        .where(sql.ref('fanned_out'), '=', 0)
        .execute();
      // The history so far joins the feed; it is not sent to webhooks made later.
      await sql`insert into change_events
          (revision_id, resource_id, iri, family, library_key, event, status, version, actor, at, created_at, fanned_out)
        select r.id, r.resource_id, coalesce(res.iri, rem.iri), coalesce(res.family, rem.family),
          case when res.family = 'library' then res.iri
            when res.parent_iri is not null then coalesce(owner.library_key, res.library_key)
            else coalesce(res.library_key, parent.library_key, '') end,
          case r.action when 'create' then 'created' when 'update' then 'updated'
            when 'submit' then 'submitted' when 'approve' then 'approved'
            when 'reject' then 'rejected' when 'deprecate' then 'deprecated' else 'removed' end,
          r.status, r.version, r.actor, r.created_at,
          (select min(first.created_at) from revisions first where first.resource_id = r.resource_id), 1
        from revisions r
        left join resources res on res.id = r.resource_id
        left join removed_resources rem on rem.resource_id = r.resource_id
        left join resources parent on parent.iri = rem.parent_iri
        left join resources owner on owner.iri = res.parent_iri
        where coalesce(res.iri, rem.iri) is not null
        order by r.id`.execute(db);

      // Webhook subscriptions. The signing secret is not stored: it is derived
      // from `secret_salt` and the service's key file (webhooks/secrets.ts).
      await withIdColumn(db, db.schema.createTable('webhooks'))
        .addColumn('owner', 'varchar(255)', (c) => c.notNull())
        .addColumn('url', 'varchar(2048)', (c) => c.notNull())
        .addColumn('description', 'varchar(255)', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('libraries', 'text', (c) => c.notNull())
        .addColumn('families', 'text', (c) => c.notNull())
        .addColumn('secret_salt', 'varchar(64)', (c) => c.notNull())
        .addColumn('state', 'varchar(16)', (c) =>
          c.notNull().check(sql.raw("state in ('active', 'paused', 'disabled')")),
        )
        .addColumn('disabled_reason', 'text')
        .addColumn('disabled_at', TIMESTAMP)
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhooks_owner')
        .on('webhooks')
        .columns(['owner', 'id'])
        .execute();
      // One delivery per subscription and event; attempts are its log.
      await withIdColumn(db, db.schema.createTable('webhook_deliveries'))
        .addColumn('webhook_id', 'integer', (c) =>
          c.notNull().references('webhooks.id').onDelete('cascade'),
        )
        .addColumn('event_id', 'integer', (c) => c.notNull())
        .addColumn('resource_id', 'integer', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('state', 'varchar(16)', (c) =>
          c.notNull().check(sql.raw("state in ('pending', 'sending', 'delivered', 'failed')")),
        )
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('lease_until', TIMESTAMP, (c) => c.notNull())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('finished_at', TIMESTAMP)
        .addUniqueConstraint('webhook_deliveries_once', ['webhook_id', 'event_id'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['state', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_order')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'resource_id', 'event_id'])
        .execute();
      await withIdColumn(db, db.schema.createTable('webhook_attempts'))
        .addColumn('delivery_id', 'integer', (c) =>
          c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
        )
        .addColumn('attempted_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error', 'text')
        .addColumn('request_headers', 'text', (c) => c.notNull())
        .addColumn('response_excerpt', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_attempts_delivery')
        .on('webhook_attempts')
        .columns(['delivery_id', 'id'])
        .execute();
    },
  },
  '0011_name_scopes': {
    async up(db: MigrationDb) {
      // Names are unique per family and library, and within a name scope a family
      // may set: CFIHOS names a tag class and an equipment class alike ("beam
      // clamp", 818 of them in CFIHOS v2.0), and both are the CFIHOS class family.
      if (isPostgres(db)) {
        await sql`alter table resources add column name_scope varchar(32) not null default ''`.execute(
          db,
        );
        await sql`update resources set name_scope = body::json->>'entityType'
          where family = 'cfihos-entity'`.execute(db);
        await sql`alter table resources drop constraint resources_name_in_library`.execute(db);
        await sql`alter table resources add constraint resources_name_in_library
          unique (family, library_key, name_scope, name_normalized)`.execute(db);
        return;
      }
      // SQLite changes a table's constraints only by building the table anew
      // (its documented procedure): the same definition with the wider
      // constraint, the rows and the id sequence copied, then the indexes and
      // triggers the old table had.
      await sql`alter table resources add column name_scope varchar(32) not null default ''`.execute(
        db,
      );
      await sql`update resources set name_scope = json_extract(body, '$.entityType')
        where family = 'cfihos-entity'`.execute(db);
      const { rows } = await sql<{ type: string; sql: string }>`select type, sql from sqlite_master
        where tbl_name = 'resources' and sql is not null order by type = 'table' desc`.execute(db);
      const [table, ...dependents] = rows;
      const constraint = /unique \("family", "library_key", "name_normalized"\)/i;
      if (!table || !constraint.test(table.sql) || !/^create table "resources"/i.test(table.sql))
        throw new Error('The resources table is not as migration 0001 made it.');
      const rebuilt = table.sql
        .replace(/^create table "resources"/i, 'create table "resources_rebuilt"')
        .replace(constraint, 'unique ("family", "library_key", "name_scope", "name_normalized")');
      await sql.raw(rebuilt).execute(db);
      await sql`insert into resources_rebuilt select * from resources`.execute(db);
      // Ids are never reused after a delete: the sequence goes on where it was.
      await sql`update sqlite_sequence set seq = (select seq from sqlite_sequence where name = 'resources')
        where name = 'resources_rebuilt'`.execute(db);
      await sql`drop table resources`.execute(db);
      await sql`alter table resources_rebuilt rename to resources`.execute(db);
      for (const dependent of dependents) await sql.raw(dependent.sql).execute(db);
    },
  },
  '0012_import_jobs': {
    async up(db: MigrationDb) {
      // Bulk imports (docs/import.md): a job per upload, worked on under a lease
      // by any instance, its files kept with it so that any instance can resume it.
      await withIdColumn(db, db.schema.createTable('import_jobs'))
        .addColumn('library_iri', 'varchar(2048)', (c) => c.notNull())
        .addColumn('owner', 'varchar(255)', (c) => c.notNull())
        .addColumn('dry_run', 'integer', (c) => c.notNull())
        .addColumn('mode', 'varchar(16)', (c) =>
          c.notNull().check(sql.raw("mode in ('all-or-nothing', 'valid-only')")),
        )
        .addColumn('encoding', 'varchar(16)')
        .addColumn('state', 'varchar(16)', (c) =>
          c
            .notNull()
            .check(sql.raw("state in ('queued', 'checking', 'writing', 'done', 'failed')")),
        )
        .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('phase_started_at', TIMESTAMP)
        .addColumn('lease_until', TIMESTAMP, (c) => c.notNull().defaultTo(0))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('files', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('counts', 'text')
        .addColumn('report', 'text')
        // The first refused lines, which a status shows, apart from the whole report.
        .addColumn('refused_lines', 'text')
        .addColumn('written', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'text')
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('finished_at', TIMESTAMP)
        .execute();
      // One job at a time per library: a second is refused until the first ends.
      await db.schema
        .createIndex('import_jobs_one_per_library')
        .on('import_jobs')
        .column('library_iri')
        .unique()
        .where(sql.ref('state'), 'in', sql`('queued', 'checking', 'writing')`)
        .execute();
      await db.schema
        .createIndex('import_jobs_owner')
        .on('import_jobs')
        .columns(['owner', 'id'])
        .execute();
      await withIdColumn(db, db.schema.createTable('import_files'))
        .addColumn('job_id', 'integer', (c) =>
          c.notNull().references('import_jobs.id').onDelete('cascade'),
        )
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('bytes', isPostgres(db) ? 'bytea' : 'blob', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('import_files_job').on('import_files').column('job_id').execute();
    },
  },
  '0013_releases': {
    async up(db: MigrationDb) {
      // A release points each member at its revision by (resource, version): one
      // revision per version, as the store has always written them.
      await db.schema
        .createIndex('revisions_resource_version')
        .on('revisions')
        .columns(['resource_id', 'version'])
        .unique()
        .execute();
      // Library releases (docs/releases.md): immutable, so nothing here is ever
      // updated or deleted once the release's transaction commits.
      await withIdColumn(db, db.schema.createTable('releases'))
        .addColumn('iri', 'varchar(2048)', (c) => c.notNull().unique())
        .addColumn('library_iri', 'varchar(2048)', (c) => c.notNull())
        .addColumn('version', 'varchar(64)', (c) => c.notNull())
        // 1 for a library's first release, then one more each: two releases made at
        // once cannot both follow the same one.
        .addColumn('sequence', 'integer', (c) => c.notNull())
        .addColumn('notes', 'text', (c) => c.notNull())
        .addColumn('released_by', 'varchar(255)', (c) => c.notNull())
        .addColumn('released_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('resource_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('releases_library_version', ['library_iri', 'version'])
        .addUniqueConstraint('releases_library_sequence', ['library_iri', 'sequence'])
        .execute();
      // Each member points at the revision it was released at (revisions are never
      // changed or deleted) and keeps what its row said then that no revision records.
      await db.schema
        .createTable('release_members')
        .addColumn('release_id', 'integer', (c) => c.notNull().references('releases.id'))
        .addColumn('resource_id', 'integer', (c) => c.notNull())
        .addColumn('revision_id', 'integer', (c) => c.notNull().references('revisions.id'))
        .addColumn('iri', 'varchar(2048)', (c) => c.notNull())
        .addColumn('family', 'varchar(64)', (c) => c.notNull())
        .addColumn('library_key', 'varchar(2048)', (c) => c.notNull())
        .addColumn('parent_iri', 'varchar(2048)')
        .addColumn('created_by', 'varchar(255)', (c) => c.notNull())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('replaced_by', 'varchar(2048)')
        .addPrimaryKeyConstraint('release_members_key', ['release_id', 'resource_id'])
        .execute();
      // A release's files, written once when it is made, so that every download
      // is the same bytes and matches its checksum for as long as the release lives.
      await db.schema
        .createTable('release_files')
        .addColumn('release_id', 'integer', (c) => c.notNull().references('releases.id'))
        .addColumn('format', 'varchar(16)', (c) => c.notNull())
        .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
        .addColumn('byte_size', 'integer', (c) => c.notNull())
        // gzip: the file as downloaded is the inflated bytes.
        .addColumn('gzipped', isPostgres(db) ? 'bytea' : 'blob', (c) => c.notNull())
        .addPrimaryKeyConstraint('release_files_key', ['release_id', 'format'])
        .execute();
      // What a release's page shows of the changes from the release before: both
      // never change, so it is worked out once, when the page is first asked for.
      await db.schema
        .createTable('release_changes')
        .addColumn('release_id', 'integer', (c) => c.primaryKey().references('releases.id'))
        .addColumn('summary', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0014_review': {
    async up(db: MigrationDb) {
      // A Rejected resource no longer holds its name: its author may write it
      // again as a new Draft (docs/review.md). Names stay unique among the rest.
      if (isPostgres(db)) {
        await sql`alter table resources drop constraint resources_name_in_library`.execute(db);
        // 'changes-requested', the longest event, has 17 letters (SQLite does not count).
        await sql`alter table change_events alter column event type varchar(32)`.execute(db);
      } else {
        // SQLite drops a table constraint only by building the table anew, as 0011 did.
        const { rows } = await sql<{
          type: string;
          sql: string;
        }>`select type, sql from sqlite_master
          where tbl_name = 'resources' and sql is not null order by type = 'table' desc`.execute(
          db,
        );
        const [table, ...dependents] = rows;
        const constraint =
          /,\s*constraint "resources_name_in_library" unique \("family", "library_key", "name_scope", "name_normalized"\)/i;
        if (!table || !constraint.test(table.sql) || !/^create table "resources"/i.test(table.sql))
          throw new Error('The resources table is not as migration 0011 made it.');
        const rebuilt = table.sql
          .replace(/^create table "resources"/i, 'create table "resources_rebuilt"')
          .replace(constraint, '');
        await sql.raw(rebuilt).execute(db);
        await sql`insert into resources_rebuilt select * from resources`.execute(db);
        await sql`update sqlite_sequence set seq = (select seq from sqlite_sequence where name = 'resources')
          where name = 'resources_rebuilt'`.execute(db);
        await sql`drop table resources`.execute(db);
        await sql`alter table resources_rebuilt rename to resources`.execute(db);
        for (const dependent of dependents) await sql.raw(dependent.sql).execute(db);
      }
      await db.schema
        .createIndex('resources_name_in_library')
        .on('resources')
        .columns(['family', 'library_key', 'name_scope', 'name_normalized'])
        .unique()
        .where(sql.ref('status'), '<>', 'Rejected')
        .execute();
      // Packages: what was submitted together and is reviewed as one. A resource
      // belongs to one package at most, from its first submission on.
      await withIdColumn(db, db.schema.createTable('packages'))
        .addColumn('name', 'varchar(200)', (c) => c.notNull())
        .addColumn('library_key', 'varchar(2048)', (c) => c.notNull())
        .addColumn('submitted_by', 'varchar(255)', (c) => c.notNull())
        .addColumn('submitted_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('package_items')
        .addColumn('resource_id', 'integer', (c) => c.primaryKey().references('resources.id'))
        .addColumn('package_id', 'integer', (c) => c.notNull().references('packages.id'))
        .execute();
      await db.schema
        .createIndex('package_items_package')
        .on('package_items')
        .column('package_id')
        .execute();
      // The discussion of a submission (a resource) or a package.
      await withIdColumn(db, db.schema.createTable('comments'))
        .addColumn('resource_id', 'integer', (c) => c.references('resources.id'))
        .addColumn('package_id', 'integer', (c) => c.references('packages.id'))
        .addColumn('author', 'varchar(1024)', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('edited_at', TIMESTAMP)
        .execute();
      await db.schema
        .createIndex('comments_resource')
        .on('comments')
        .columns(['resource_id', 'id'])
        .execute();
      await db.schema
        .createIndex('comments_package')
        .on('comments')
        .columns(['package_id', 'id'])
        .execute();
      // Each person's inbox, and how they want to hear of each event.
      await withIdColumn(db, db.schema.createTable('notifications'))
        .addColumn('recipient', 'varchar(1024)', (c) => c.notNull())
        .addColumn('event', 'varchar(32)', (c) => c.notNull())
        .addColumn('actor', 'varchar(1024)', (c) => c.notNull())
        .addColumn('iri', 'varchar(2048)')
        .addColumn('package_id', 'integer')
        .addColumn('title', 'varchar(1000)', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('read_at', TIMESTAMP)
        .execute();
      await db.schema
        .createIndex('notifications_recipient')
        .on('notifications')
        .columns(['recipient', 'id'])
        .execute();
      await db.schema
        .createTable('notification_settings')
        .addColumn('subject', 'varchar(1024)', (c) => c.notNull())
        .addColumn('event', 'varchar(32)', (c) => c.notNull())
        .addColumn('inbox', 'integer', (c) => c.notNull())
        .addColumn('email', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('notification_settings_key', ['subject', 'event'])
        .execute();
      // Mails waiting to be sent, written with the notification they tell of.
      await withIdColumn(db, db.schema.createTable('mail_outbox'))
        .addColumn('recipient', 'varchar(320)', (c) => c.notNull())
        .addColumn('subject', 'varchar(1000)', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('state', 'varchar(16)', (c) =>
          c.notNull().check(sql.raw("state in ('pending', 'sent', 'failed')")),
        )
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('due_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('lease_until', TIMESTAMP, (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'text')
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('sent_at', TIMESTAMP)
        .execute();
      await db.schema
        .createIndex('mail_outbox_due')
        .on('mail_outbox')
        .columns(['state', 'due_at'])
        .execute();
      // Who may be told: a person's address and roles, as their identity provider last said.
      await db.schema.alterTable('people').addColumn('email', 'varchar(320)').execute();
      await db.schema
        .alterTable('people')
        .addColumn('roles', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .execute();
    },
  },
  '0015_generalizations': {
    async up(db: MigrationDb) {
      // Each resource's superclasses (`subClassOf`, `superEntity`), one row per
      // link, so the pages' hierarchy finds a class's subclasses by an index
      // rather than by reading every body (docs/web.md).
      await db.schema
        .createTable('generalizations')
        .addColumn('resource_id', 'integer', (c) => c.notNull())
        .addColumn('parent_iri', 'varchar(2048)', (c) => c.notNull())
        .addPrimaryKeyConstraint('generalizations_key', ['resource_id', 'parent_iri'])
        .execute();
      await db.schema
        .createIndex('generalizations_parent')
        .on('generalizations')
        .columns(['parent_iri', 'resource_id'])
        .execute();
      // The extraction is written out: a migration must not change when shared code does.
      const rows = (await db
        .selectFrom('resources')
        .select(['id', 'body'])
        .where((eb) =>
          eb.or([eb('body', 'like', '%"subClassOf"%'), eb('body', 'like', '%"superEntity"%')]),
        )
        .execute()) as { id: number; body: string }[];
      const links: { resource_id: number; parent_iri: string }[] = [];
      for (const row of rows) {
        const body = JSON.parse(row.body) as { subClassOf?: unknown; superEntity?: unknown };
        const parents = [
          ...(Array.isArray(body.subClassOf) ? body.subClassOf : [body.subClassOf]),
          body.superEntity,
        ].filter((iri): iri is string => typeof iri === 'string');
        for (const parent of new Set(parents))
          links.push({ resource_id: row.id, parent_iri: parent });
      }
      for (let start = 0; start < links.length; start += 500)
        await db
          .insertInto('generalizations')
          .values(links.slice(start, start + 500))
          .execute();
    },
  },
  '0016_languages': {
    async up(db: MigrationDb) {
      // The language a resource's name and description are in: its library's
      // declared default (fixed once the library exists), English until now.
      await db.schema
        .alterTable('resources')
        .addColumn('language', 'varchar(35)', (c) => c.notNull().defaultTo('en'))
        .execute();
    },
  },
  '0017_personal_access_tokens': {
    async up(db: MigrationDb) {
      // A person's tokens for the API, made on their account page, as GitLab's
      // personal access tokens: kept only as a hash, with the roles they carry.
      await withIdColumn(db, db.schema.createTable('personal_access_tokens'))
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('subject', 'varchar(255)', (c) => c.notNull())
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('roles', 'varchar(64)', (c) => c.notNull())
        .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
        .addColumn('last_used_at', TIMESTAMP)
        .addColumn('revoked_at', TIMESTAMP)
        .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('personal_access_tokens_subject')
        .on('personal_access_tokens')
        .column('subject')
        .execute();
    },
  },
  '0018_database_identity': {
    async up(db: MigrationDb) {
      // A name of this database, drawn once: what an instance keeps on disk about
      // it (the SPARQL dataset's saved snapshot) is used only with the same database.
      await db.schema
        .createTable('database_identity')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('token', 'varchar(64)', (c) => c.notNull())
        .execute();
      await db.insertInto('database_identity').values({ id: 1, token: randomUUID() }).execute();
    },
  },
  '0019_release_members_by_resource': {
    async up(db: MigrationDb) {
      // A resource's page says which release holds it: members looked up by resource.
      await db.schema
        .createIndex('release_members_resource')
        .on('release_members')
        .column('resource_id')
        .execute();
    },
  },
};
