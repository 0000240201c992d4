import { afterEach, describe, expect, it } from 'vitest';
import { ResourceStore } from '../../src/refdata/resources/store.js';
import { DATABASE_KINDS } from '../harness.js';
import { type Refdata, startRefdata } from './helpers.js';

const LIBRARY = 'http://example.org/libraries/written';
const CHANGE = { actor: 'alice', justification: 'A test' };

/**
 * A plain create is one statement on PostgreSQL and a transaction on SQLite;
 * both must leave the same rows behind.
 */
describe.each(DATABASE_KINDS)('a create in the resource store on %s', (kind) => {
  let service: Refdata | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  it('stores the resource with its revision, its change event and its generalizations', async () => {
    service = await startRefdata(kind);
    const db = service.db;
    const store = new ResourceStore(db, () => undefined);
    await store.create(
      {
        iri: LIBRARY,
        family: 'library',
        name: 'Written',
        libraryKey: LIBRARY,
        nameScope: '',
        parentIri: null,
        replacesIri: null,
        body: { name: 'Written', description: 'A library', defaultLanguage: 'nb' },
      },
      undefined,
      CHANGE,
    );
    const parents = ['http://example.org/classes/a', 'http://example.org/classes/b'];
    const row = await store.create(
      {
        iri: 'http://example.org/classes/c',
        family: 'class',
        name: '  Centrifugal   pump ',
        libraryKey: LIBRARY,
        nameScope: '',
        parentIri: null,
        replacesIri: null,
        body: { name: 'Centrifugal pump', ontology: LIBRARY, subClassOf: parents },
      },
      undefined,
      CHANGE,
    );
    expect(row).toMatchObject({
      iri: 'http://example.org/classes/c',
      status: 'Draft',
      version: 1,
      name: 'Centrifugal   pump',
      name_normalized: 'centrifugal pump',
      language: 'nb',
      created_by: 'alice',
    });
    expect(await store.findByIri(row.iri)).toEqual(row);

    const revisions = await store.revisions(row.id);
    expect(revisions).toHaveLength(1);
    expect(revisions[0]).toMatchObject({
      version: 1,
      action: 'create',
      status: 'Draft',
      actor: 'alice',
      justification: 'A test',
      body: row.body,
    });
    expect(Number(revisions[0]?.created_at)).toBe(Number(row.updated_at));

    const events = await db
      .selectFrom('change_events')
      .selectAll()
      .where('resource_id', '=', row.id)
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      revision_id: revisions[0]?.id,
      iri: row.iri,
      family: 'class',
      library_key: LIBRARY,
      status: 'Draft',
      version: 1,
      actor: 'alice',
    });
    expect(Number(events[0]?.at)).toBe(Number(row.updated_at));

    const links = await db
      .selectFrom('generalizations')
      .select('parent_iri')
      .where('resource_id', '=', row.id)
      .orderBy('parent_iri')
      .execute();
    expect(links.map((link) => link.parent_iri)).toEqual(parents);
  });

  it('stores nothing of a create that is refused', async () => {
    service = await startRefdata(kind);
    const db = service.db;
    const store = new ResourceStore(db, () => undefined);
    const resource = {
      iri: 'http://example.org/classes/taken',
      family: 'class',
      name: 'Taken',
      libraryKey: LIBRARY,
      nameScope: '',
      parentIri: null,
      replacesIri: null,
      body: { name: 'Taken', subClassOf: ['http://example.org/classes/a'] },
    };
    await store.create(resource, undefined, CHANGE);
    const count = async (table: 'revisions' | 'change_events' | 'generalizations') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('count'))
            .executeTakeFirstOrThrow()
        ).count,
      );
    const before = [
      await count('revisions'),
      await count('change_events'),
      await count('generalizations'),
    ];
    await expect(
      store.create(
        { ...resource, name: 'Another name', body: { ...resource.body, name: 'Another name' } },
        undefined,
        CHANGE,
      ),
    ).rejects.toThrow(/A resource with this IRI already exists/);
    await expect(
      store.create(
        { ...resource, iri: 'http://example.org/classes/other', name: 'taken' },
        undefined,
        CHANGE,
      ),
    ).rejects.toThrow(/with this name already exists/);
    expect([
      await count('revisions'),
      await count('change_events'),
      await count('generalizations'),
    ]).toEqual(before);
  });
});
