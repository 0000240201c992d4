/**
 * The search index each instance holds: typo tolerance and facets through the
 * route, a second instance that hears of the first one's writes through the
 * change log, 503 while an instance builds, the log's gaps on PostgreSQL, and
 * bad cursors.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seedInto } from '../../bench/bulk.js';
import { exportCorpus } from '../../bench/refdata-export.js';
import type { HttpApp } from '../../src/platform/http/server.js';
import { ChangeFollower } from '../../src/refdata/replicas/change-log.js';
import { encodeCursor } from '../../src/refdata/search/search.js';
import { DATABASE_KINDS } from '../harness.js';
import { anotherInstance, create, createLibrary, type Refdata, startRefdata } from './helpers.js';

interface Answer {
  total: number;
  hits: {
    iri: string;
    label: string;
    family: string;
    status: string;
    description?: string;
    collection?: { iri: string; label: string };
  }[];
  facets: Record<'family' | 'library' | 'status', Record<string, number>>;
  next?: string;
}

async function ask(
  service: Refdata,
  app: HttpApp,
  query: string,
  headers: Record<string, string> = {},
) {
  return app.inject({
    url: `/search/search-index?${query}`,
    headers: { ...headers, authorization: `Bearer ${await service.token(['Reader'])}` },
  });
}

describe.each(DATABASE_KINDS)('the search index on %s', (kind) => {
  let service: Refdata;
  let pumps: string;
  let valves: string;
  beforeAll(async () => {
    service = await startRefdata(kind);
    pumps = await createLibrary(service, { name: 'Rotating equipment' });
    valves = await createLibrary(service, { name: 'Valves' });
    const klass = (name: string, ontology: string, description = 'Equipment') =>
      create(service, '/rdl/terms/subclass', {
        name,
        description,
        ontology,
        subClassOf: ['http://example.org/E'],
      });
    await klass('Centrifugal pump', pumps);
    await klass('Reciprocating pump', pumps);
    await klass('Impeller', pumps, 'The rotating part of a centrifugal pump');
    await klass('Gate valve', valves);
    await klass('Globe valve', valves, 'Throttles a flow');
    await create(service, '/cfihos/dimension', {
      name: 'Pump head',
      ontology: pumps,
      dimensionCode: 'H',
    });
  });
  afterAll(async () => service?.close());

  const find = async (query: string) => {
    const response = await ask(service, service.app, query);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Answer;
  };

  it('forgives one typo in a longer word, ranking what was typed right first', async () => {
    expect((await find('q=centrifgal')).hits.map((hit) => hit.label)).toEqual([
      'Centrifugal pump',
      'Impeller',
    ]);
    expect((await find('q=impeler')).hits.map((hit) => hit.label)).toEqual(['Impeller']);
    // Short words and codes must be typed right.
    expect((await find('q=pumq')).total).toBe(0);
  });

  it('counts per family, library and status that match the totals of the filtered searches', async () => {
    const all = await find('q=pump');
    expect(all.total).toBe(4);
    expect(all.facets.family).toEqual({ class: 3, dimension: 1 });
    for (const [dimension, counts] of Object.entries(all.facets)) {
      for (const [value, count] of Object.entries(counts)) {
        const filtered = await find(`q=pump&${dimension}=${encodeURIComponent(value)}`);
        expect(filtered.total, `${dimension}=${value}`).toBe(count);
      }
    }
    // A dimension's own filter leaves its counts alone; the others' narrow them.
    const classes = await find(`q=pump&family=class&library=${encodeURIComponent(pumps)}`);
    expect(classes.total).toBe(3);
    expect(classes.facets.family).toEqual({ class: 3, dimension: 1 });
    expect(classes.facets.library).toEqual({ [pumps]: 3 });
    expect(classes.facets.status).toEqual({ Draft: 3 });
  });

  it('shows each hit in its library under the library’s label as it is now', async () => {
    const library = await createLibrary(service, { name: 'Seal library' });
    await create(service, '/rdl/terms/subclass', {
      name: 'Tandem seal arrangement',
      ontology: library,
      subClassOf: ['http://example.org/E'],
    });
    const collection = async () => (await find('q=tandem')).hits[0]?.collection;
    expect(await collection()).toEqual({ iri: library, label: 'Seal library' });
    const renamed = await service.call(
      'PUT',
      `/ontologies/domains?iri=${encodeURIComponent(library)}`,
      {
        body: {
          changeJustification: 'A clearer name',
          name: 'Mechanical seals',
          description: 'A library for tests',
        },
      },
    );
    expect(renamed.statusCode, renamed.body).toBe(204);
    expect(await collection()).toEqual({ iri: library, label: 'Mechanical seals' });
  });

  it('shows a hit as it was last written, label and description', async () => {
    const made = await create(service, '/rdl/terms/subclass', {
      name: 'Labyrinth seal',
      description: 'A seal without contact',
      ontology: pumps,
      subClassOf: ['http://example.org/E'],
    });
    const shown = async (q: string) =>
      (await find(q)).hits.map((hit) => [hit.label, hit.description]);
    expect(await shown('q=labyrinth')).toEqual([['Labyrinth seal', 'A seal without contact']]);
    const changed = await service.call(
      'PUT',
      `/rdl/terms/subclass?iri=${encodeURIComponent(made.iri)}`,
      {
        body: {
          changeJustification: 'Clearer',
          name: 'Labyrinth shaft seal',
          description: 'A non-contacting shaft seal',
          ontology: pumps,
          subClassOf: ['http://example.org/E'],
        },
      },
    );
    expect(changed.statusCode, changed.body).toBe(204);
    expect(await shown('q=labyrinth')).toEqual([
      ['Labyrinth shaft seal', 'A non-contacting shaft seal'],
    ]);
  });

  it('answers bad cursors with 400, naming the parameter', async () => {
    const cursors = [
      encodeCursor({ tier: 3, score: 1, name: 'a', id: 1, generation: 1 }),
      encodeCursor({ tier: 0, score: -1, name: 'a', id: 1, generation: 1 }),
      encodeCursor({ tier: 0, score: 1, name: 'a', id: 1.5, generation: 1 }),
      encodeCursor({ tier: 0, score: 1, name: 'a', id: 1, generation: -1 }),
      Buffer.from('[0,1,"a",1]').toString('base64url'),
      Buffer.from('{"tier":0}').toString('base64url'),
      'x'.repeat(3001),
    ];
    for (const cursor of cursors) {
      const response = await ask(service, service.app, `q=pump&cursor=${cursor}`);
      expect(response.statusCode, cursor).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toContain('cursor');
    }
  });

  it('shows what one instance writes on another, through the change log', async () => {
    const other = await anotherInstance(service);
    try {
      expect((await ask(service, other, 'q=pump')).json().total).toBe(4);
      const written = await create(service, '/rdl/terms/subclass', {
        name: 'Screw pump',
        ontology: pumps,
        subClassOf: ['http://example.org/E'],
      });
      // The writing instance reads its own write at once.
      expect((await find('q=screw')).hits.map((hit) => hit.iri)).toEqual([written.iri]);
      // The other within its poll interval (250 ms by default).
      await vi.waitFor(
        async () => expect((await ask(service, other, 'q=screw')).json().total).toBe(1),
        { timeout: 5000, interval: 50 },
      );
      // Whatever changes a resource is heard of, even SQL by hand.
      await service.db.deleteFrom('resources').where('iri', '=', written.iri).execute();
      await vi.waitFor(
        async () => expect((await ask(service, other, 'q=screw')).json().total).toBe(0),
        { timeout: 5000, interval: 50 },
      );
    } finally {
      await other.close();
    }
  });

  it('gives an answer kept for the same question until the index changes, and afresh when asked to', async () => {
    const gearbox = (name: string) =>
      create(service, '/rdl/terms/subclass', {
        name,
        description: 'A gear train in a housing',
        ontology: pumps,
        subClassOf: ['http://example.org/E'],
      });
    const first = await gearbox('Planetary gearbox');
    const status = (response: { headers: Record<string, unknown> }) =>
      response.headers['cache-status'];
    const asked = await ask(service, service.app, 'q=gearbox&family=class&family=dimension');
    expect(asked.statusCode, asked.body).toBe(200);
    expect(status(asked)).toBe('refdata-search; fwd=miss; stored');
    // The same question in other words: letter case, and the filter's values in another order.
    const again = await ask(service, service.app, 'q=GEARBOX&family=dimension&family=class');
    expect(status(again)).toBe('refdata-search; hit');
    expect(again.json()).toEqual(asked.json());
    // Another page size is another question.
    expect(
      status(await ask(service, service.app, 'q=gearbox&family=class&family=dimension&limit=5')),
    ).toBe('refdata-search; fwd=miss; stored');

    const fresh = await ask(service, service.app, 'q=gearbox&family=class&family=dimension', {
      'cache-control': 'no-cache',
    });
    expect(status(fresh)).toBe('refdata-search; fwd=request; stored');
    expect(fresh.json()).toEqual(asked.json());
    // Afresh with nothing kept is a miss; no-store keeps nothing.
    const unkept = await ask(service, service.app, 'q=gearbox', {
      'cache-control': 'max-age=60, No-Store',
    });
    expect(status(unkept)).toBe('refdata-search; fwd=miss');
    expect(status(await ask(service, service.app, 'q=gearbox'))).toBe(
      'refdata-search; fwd=miss; stored',
    );
    expect(
      status(await ask(service, service.app, 'q=gearbox', { 'cache-control': 'no-store' })),
    ).toBe('refdata-search; fwd=request');

    // A write forgets every answer kept, here and on another instance.
    const other = await anotherInstance(service);
    try {
      expect(status(await ask(service, other, 'q=gearbox'))).toBe(
        'refdata-search; fwd=miss; stored',
      );
      expect(status(await ask(service, other, 'q=gearbox'))).toBe('refdata-search; hit');
      const second = await gearbox('Bevel gearbox');
      const after = await ask(service, service.app, 'q=gearbox&family=class&family=dimension');
      expect(status(after)).toBe('refdata-search; fwd=miss; stored');
      expect((after.json() as Answer).hits.map((hit) => hit.iri).sort()).toEqual(
        [first.iri, second.iri].sort(),
      );
      await vi.waitFor(
        async () => expect((await ask(service, other, 'q=gearbox')).json().total).toBe(2),
        { timeout: 5000, interval: 50 },
      );
    } finally {
      await other.close();
    }

    // With no room for answers, none is kept.
    const uncached = await anotherInstance(service, { REFDATA_SEARCH_CACHE_MIB: '0' });
    try {
      for (let round = 0; round < 2; round += 1)
        expect(status(await ask(service, uncached, 'q=gearbox'))).toBe(
          'refdata-search; fwd=bypass',
        );
    } finally {
      await uncached.close();
    }
  });

  it('answers 503 with Retry-After while an instance builds its index, then everything', async () => {
    const library = await createLibrary(service);
    await seedInto(service.db, exportCorpus(library, 20_000));
    // Neither follower is waited for at start: ready at once, the index still building (a
    // start that waited for the SPARQL dataset gave the index time to finish first).
    const other = await anotherInstance(service, {
      REFDATA_SEARCH_START_WAIT_MS: '0',
      REFDATA_SPARQL_START_WAIT_MS: '0',
    });
    try {
      const building = await ask(service, other, 'q=pump');
      expect(building.statusCode).toBe(503);
      expect(building.headers['retry-after']).toBe('60');
      expect(building.json()).toMatchObject({ status: 503 });
      await vi.waitFor(
        async () =>
          expect(
            (await ask(service, other, `limit=1&library=${encodeURIComponent(library)}`)).json()
              .total,
          ).toBe(20_000),
        { timeout: 60_000, interval: 200 },
      );
    } finally {
      await other.close();
    }
  }, 120_000);

  // SQLite commits one writer at a time, so its numbers come in order with no gap to follow.
  if (kind === 'postgres')
    it('follows a change whose number was taken before one committed earlier', async () => {
      const follower = await ChangeFollower.fromEnd(service.db);
      const library = await createLibrary(service);
      await follower.next(service.db);
      // One transaction takes a number and stays open while another commits a later one.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let slowId = 0;
      const slow = service.db.transaction().execute(async (trx) => {
        const row = await sql<{ id: number }>`insert into resources
          (iri, family, status, name, name_normalized, library_key, body, version,
           created_by, created_at, updated_by, updated_at)
          values (${`${library}/slow`}, 'class', 'Draft', 'Slow', 'slow', ${library}, '{}', 1,
                  't', 0, 't', 0) returning id`.execute(trx);
        slowId = row.rows[0]?.id as number;
        await held;
      });
      await vi.waitFor(() => expect(slowId).toBeGreaterThan(0));
      const quick = await create(service, '/rdl/terms/subclass', {
        name: 'Quick',
        ontology: library,
        subClassOf: ['http://example.org/E'],
      });
      const quickId = (
        await service.db
          .selectFrom('resources')
          .select('id')
          .where('iri', '=', quick.iri)
          .executeTakeFirstOrThrow()
      ).id;
      const first = await follower.next(service.db);
      expect([...first.resourceIds]).toEqual([quickId]);
      expect(follower.openGaps).toBe(1);
      release();
      await slow;
      const second = await follower.next(service.db);
      expect([...second.resourceIds]).toEqual([slowId]);
      expect(follower.openGaps).toBe(0);
    });

  it('starts a gap found at the log’s end on its time only at the first turn (a build may take minutes)', async () => {
    const library = await createLibrary(service);
    const id = (
      await service.db
        .selectFrom('resources')
        .select('id')
        .where('iri', '=', library)
        .executeTakeFirstOrThrow()
    ).id;
    const end = Number(
      (
        await service.db
          .selectFrom('search_changes')
          .select(sql<number>`max(seq)`.as('seq'))
          .executeTakeFirstOrThrow()
      ).seq,
    );
    // A number left open below the end, as a transaction still open leaves it.
    await sql`insert into search_changes (seq, resource_id, changed_at) values (${end + 2}, ${id}, 0)`.execute(
      service.db,
    );
    let now = Date.now();
    const follower = await ChangeFollower.fromEnd(service.db, () => now);
    expect(follower.openGaps).toBe(1);
    expect(follower.safePosition).toBe(end);
    // Ten minutes of building later, the first turn: the gap is asked for, not given up.
    now += 10 * 60_000;
    await follower.next(service.db);
    expect(follower.openGaps).toBe(1);
    await sql`insert into search_changes (seq, resource_id, changed_at) values (${end + 1}, ${id}, 0)`.execute(
      service.db,
    );
    const filled = await follower.next(service.db);
    expect([...filled.resourceIds]).toEqual([id]);
    expect(follower.openGaps).toBe(0);
    expect(follower.safePosition).toBe(end + 2);
  });
});
