import { afterEach, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/connection.js';
import { migrateToLatest } from '../../src/platform/db/migrations.js';
import { refdataMigrations } from '../../src/refdata/db/migrations.js';
import type { RefdataTables } from '../../src/refdata/db/tables.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../harness.js';

/** The migrations up to and including `last`, as a database stopped there had them. */
function migrationsUpTo(last: string) {
  return Object.fromEntries(Object.entries(refdataMigrations).filter(([name]) => name <= last));
}

describe.each(DATABASE_KINDS)('refdata migrations on %s', (kind) => {
  let database: TestDatabase;
  let handle: DatabaseHandle<RefdataTables>;
  afterEach(async () => {
    await handle?.close();
    await database?.drop();
  });

  it('keeps revisions of older rows, and fills in what create now stores', async () => {
    database = await createTestDatabase(kind, 'migrations');
    handle = openDatabase<RefdataTables>(database.config);
    await migrateToLatest(handle, migrationsUpTo('0003_search_index'));
    const row = (iri: string, family: string, body: object, extra: object = {}) => ({
      iri,
      family,
      status: 'Draft' as const,
      name: iri,
      name_normalized: iri,
      library_key: '',
      body: JSON.stringify(body),
      version: 1,
      created_by: 'alice',
      created_at: 1,
      updated_by: 'alice',
      updated_at: 1,
      ...extra,
    });
    const library = 'https://rdl.example.org/ontology/old-pumps';
    const picklist = 'https://rdl.example.org/cfihos/propertyPicklist/p';
    const value = 'https://rdl.example.org/cfihos/propertyPicklistValue/v';
    const inserted = await handle.db
      .insertInto('resources')
      .values([
        row(library, 'library', { name: 'Old pumps', description: 'd' }),
        row(
          picklist,
          'picklist',
          { name: 'Seals', ontology: library, subClassOf: 'http://x.example/seal-kinds' },
          { library_key: library },
        ),
        row(
          value,
          'picklist-value',
          { name: 'Lip', picklist },
          {
            library_key: picklist,
            parent_iri: picklist,
          },
        ),
      ])
      .returning('id')
      .execute();
    await handle.db
      .insertInto('revisions')
      .values(
        inserted.map(({ id }) => ({
          resource_id: id,
          version: 1,
          action: 'create' as const,
          status: 'Draft' as const,
          actor: 'alice',
          justification: 'Old',
          body: '{}',
          created_at: 1,
        })),
      )
      .execute();

    expect(await migrateToLatest(handle, refdataMigrations)).toEqual([
      '0004_removed_history_and_replacements',
      '0005_fill_in_derived_fields',
      '0006_browser_sessions',
      '0007_search_change_log',
      '0008_people',
      '0009_sparql_store_sync',
      '0010_change_events_and_webhooks',
      '0011_name_scopes',
      '0012_import_jobs',
      '0013_releases',
      '0014_review',
      '0015_generalizations',
      '0016_languages',
      '0017_personal_access_tokens',
      '0018_database_identity',
      '0019_release_members_by_resource',
    ]);
    // Superclass links are read from the bodies already stored; labels were English.
    expect(await handle.db.selectFrom('generalizations').select('parent_iri').execute()).toEqual([
      { parent_iri: 'http://x.example/seal-kinds' },
    ]);
    expect(
      new Set(
        (await handle.db.selectFrom('resources').select('language').execute()).map(
          (r) => r.language,
        ),
      ),
    ).toEqual(new Set(['en']));
    // The history so far is in the change feed, each event in its library's
    // feed (a value in its picklist's library's), and none is sent to webhooks.
    const events = await handle.db
      .selectFrom('change_events')
      .select(['iri', 'library_key', 'event', 'fanned_out'])
      .orderBy('id')
      .execute();
    expect(events.map((event) => [event.iri, event.library_key, event.event])).toEqual([
      [library, library, 'created'],
      [picklist, library, 'created'],
      [value, library, 'created'],
    ]);
    expect(events.every((event) => Number(event.fanned_out) === 1)).toBe(true);
    const bodies = new Map(
      (await handle.db.selectFrom('resources').select(['iri', 'body']).execute()).map((r) => [
        r.iri,
        JSON.parse(r.body) as Record<string, unknown>,
      ]),
    );
    expect(bodies.get(library)?.path).toBe('old-pumps');
    expect(bodies.get(value)?.ontology).toBe(library);
    // The revisions table was rebuilt without its cascade; every revision is still there.
    expect(await handle.db.selectFrom('revisions').select('resource_id').execute()).toHaveLength(3);
    // A revision no longer needs its resource: history outlives a removed value.
    await handle.db.deleteFrom('resources').where('iri', '=', value).execute();
    expect(await handle.db.selectFrom('revisions').select('resource_id').execute()).toHaveLength(3);
  });

  it('makes search available again where the old rebuild command was cut short', async () => {
    database = await createTestDatabase(kind, 'migrations');
    handle = openDatabase<RefdataTables>(database.config);
    await migrateToLatest(handle, migrationsUpTo('0006_browser_sessions'));
    await handle.db.updateTable('search_state').set({ state: 'rebuilding' }).execute();
    await migrateToLatest(handle, refdataMigrations);
    const row = await handle.db
      .selectFrom('search_state')
      .select(['state', 'rebuild_requested_at'])
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('available');
    expect(Number(row.rebuild_requested_at)).toBe(0);
  });

  it('scopes CFIHOS class names by entity type, keeping every row, revision, id and trigger', async () => {
    database = await createTestDatabase(kind, 'migrations');
    handle = openDatabase<RefdataTables>(database.config);
    await migrateToLatest(handle, migrationsUpTo('0010_change_events_and_webhooks'));
    const library = 'https://rdl.example.org/ontology/plant';
    const entity = (iri: string, name: string, entityType: string) => ({
      iri,
      family: 'cfihos-entity',
      status: 'Draft' as const,
      name,
      name_normalized: name,
      library_key: library,
      body: JSON.stringify({ name, entityType, ontology: library }),
      version: 1,
      created_by: 'alice',
      created_at: 1,
      updated_by: 'alice',
      updated_at: 1,
    });
    const [clamp, gone] = await handle.db
      .insertInto('resources')
      .values([
        entity('https://rdl.example.org/cfihos/equipmentClass/1', 'beam clamp', 'equipment'),
        entity('https://rdl.example.org/cfihos/equipmentClass/2', 'bicycle', 'equipment'),
      ])
      .returning('id')
      .execute();
    await handle.db
      .insertInto('revisions')
      .values({
        resource_id: Number(clamp?.id),
        version: 1,
        action: 'create',
        status: 'Draft',
        actor: 'alice',
        justification: 'Kept',
        body: '{}',
        created_at: 1,
      })
      .execute();
    // The last id is deleted: a new row must still not get it again.
    await handle.db.deleteFrom('resources').where('id', '=', Number(gone?.id)).execute();
    const tag = entity('https://rdl.example.org/cfihos/tagClass/1', 'beam clamp', 'tag');
    await expect(handle.db.insertInto('resources').values(tag).execute()).rejects.toThrow();

    await migrateToLatest(handle, refdataMigrations);
    const before = await handle.db
      .selectFrom('resources')
      .select(['id', 'name_scope'])
      .executeTakeFirstOrThrow();
    expect(before).toEqual({ id: clamp?.id, name_scope: 'equipment' });
    expect(await handle.db.selectFrom('revisions').select('justification').execute()).toEqual([
      { justification: 'Kept' },
    ]);
    const changesBefore = (await handle.db.selectFrom('search_changes').selectAll().execute())
      .length;
    const inserted = await handle.db
      .insertInto('resources')
      .values({ ...tag, name_scope: 'tag' })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(inserted.id).toBeGreaterThan(Number(gone?.id));
    // The triggers the search log is written by came along.
    expect((await handle.db.selectFrom('search_changes').selectAll().execute()).length).toBe(
      changesBefore + 1,
    );
    // The same name in the same scope is still refused.
    await expect(
      handle.db
        .insertInto('resources')
        .values({
          ...entity('https://rdl.example.org/cfihos/equipmentClass/3', 'beam clamp', 'equipment'),
          name_scope: 'equipment',
        })
        .execute(),
    ).rejects.toThrow();
  });
});
