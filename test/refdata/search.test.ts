import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { requestSearchRebuild } from '../../src/refdata/search/commands.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';

interface Hit {
  iri: string;
  label: string;
  family: string;
  status: string;
  types: string[];
  collection?: { iri: string; label: string };
  links: { resource: string };
}

describe.each(DATABASE_KINDS)('search on %s', (kind) => {
  let service: Refdata;
  let pumps: string;
  let valves: string;
  beforeAll(async () => {
    service = await startRefdata(kind);
    pumps = await createLibrary(service, { name: 'Pump library' });
    valves = await createLibrary(service, { name: 'Valve library' });
    const klass = (
      name: string,
      ontology: string,
      description = 'A kind of equipment',
      extra: Record<string, unknown> = {},
    ) =>
      create(service, '/rdl/terms/subclass', {
        name,
        description,
        ontology,
        subClassOf: ['http://example.org/E'],
        ...extra,
      });
    await klass('Pump', pumps);
    await klass('Pump casing', pumps);
    await klass('Centrifugal pump', pumps);
    await klass('Impeller', pumps, 'The rotating part of a pump');
    await klass('Ventilé', pumps, 'Accents in the label');
    await klass('Gate valve', valves, 'Stops flow', {
      relatedTerms: [
        { relationType: 'closeMatch', targetLibrary: 'ETIMX', targetIdentifier: 'EC002095' },
      ],
    });
    await create(service, '/cfihos/dimension', {
      name: 'Pumping rate',
      ontology: pumps,
      dimensionCode: 'Q',
    });
  });
  afterAll(async () => service?.close());

  const find = async (query: string, roles: ('Reader' | 'Creator')[] = ['Reader']) => {
    const response = await service.call('GET', `/search/search-index?${query}`, { roles });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { total: number; hits: Hit[]; next?: string; cursor?: string };
  };

  it('ranks an exact label first, then labels that start with the query, then by score: label above identifiers above description', async () => {
    const result = await find('q=pump');
    expect(result.hits.map((hit) => hit.label)).toEqual([
      'Pump',
      // The library's path (an identifier) holds the word too; a completion counts a little less.
      'Pump library',
      'Pump casing',
      'Pumping rate',
      'Centrifugal pump',
      'Impeller',
    ]);
    expect(result.total).toBe(6);
    // Accents count no more in the exact and leading tiers than in the words.
    const accented = await find('q=P%C3%9CMP');
    expect(accented.hits.map((hit) => hit.label)).toEqual(result.hits.map((hit) => hit.label));
    const [first] = result.hits;
    expect(first).toMatchObject({
      label: 'Pump',
      identifier: first?.iri.split('/').pop(),
      family: 'class',
      status: 'Draft',
      description: 'A kind of equipment',
      collection: { iri: pumps, label: 'Pump library' },
    });
    expect(first?.types).toContain('http://www.w3.org/2002/07/owl#Class');
    expect(first?.links.resource).toMatch(/^http:\/\/localhost:8081\/ontology\//);
  });

  it('matches as the user types, across words, in identifiers and mapping targets, ignoring case and accents', async () => {
    expect((await find('q=centri')).hits.map((hit) => hit.label)).toEqual(['Centrifugal pump']);
    expect((await find('q=PUMP%20CEN')).hits.map((hit) => hit.label)).toEqual(['Centrifugal pump']);
    expect((await find('q=ec002095')).hits.map((hit) => hit.label)).toEqual(['Gate valve']);
    expect((await find('q=imp%C3%A9ller')).hits.map((hit) => hit.label)).toEqual(['Impeller']);
    expect((await find('q=ventile')).hits.map((hit) => hit.label)).toEqual(['Ventilé']);
    expect((await find('q=VENTIL%C3%89')).hits.map((hit) => hit.label)).toEqual(['Ventilé']);
    expect((await find('q=%22%2A%29%28')).total).toBe(0);
    const library = (await find('q=valve&family=library')).hits;
    expect(library.map((hit) => hit.iri)).toEqual([valves]);
  });

  it('filters by family, library and status, each with several values', async () => {
    expect((await find('q=pump&family=dimension')).hits.map((hit) => hit.label)).toEqual([
      'Pumping rate',
    ]);
    expect(
      (await find(`family=class&family=dimension&library=${encodeURIComponent(pumps)}`)).total,
    ).toBe(6);
    expect(
      (await find(`library=${encodeURIComponent(pumps)}&library=${encodeURIComponent(valves)}`))
        .total,
    ).toBe(7);
    expect((await find('q=pump&status=Submitted')).total).toBe(0);
  });

  it('shows a new Draft at once, and a submitted one with its new status', async () => {
    const name = uniqueName('Diaphragm');
    const created = await create(service, '/rdl/terms/subclass', {
      name,
      ontology: pumps,
      subClassOf: ['http://example.org/E'],
    });
    expect((await find(`q=${encodeURIComponent(name)}`)).hits[0]).toMatchObject({
      iri: created.iri,
      status: 'Draft',
    });
    await service.call('PUT', `/status/submit?${iriQuery(created.iri)}`);
    expect(
      (await find(`q=${encodeURIComponent(name)}&status=Submitted`)).hits.map((hit) => hit.iri),
    ).toEqual([created.iri]);
    const renamed = uniqueName('Membrane');
    const other = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Bellows'),
      ontology: pumps,
      subClassOf: ['http://example.org/E'],
    });
    await service.call('PUT', `/rdl/terms/subclass?${iriQuery(other.iri)}`, {
      body: {
        changeJustification: 'Rename',
        name: renamed,
        description: 'd',
        ontology: pumps,
        subClassOf: ['http://example.org/E'],
      },
    });
    expect((await find(`q=${encodeURIComponent(renamed)}`)).hits.map((hit) => hit.iri)).toEqual([
      other.iri,
    ]);
    expect((await find('q=bellows')).total).toBe(0);
  });

  it('pages by cursor without gaps or duplicates while resources are written', async () => {
    const library = await createLibrary(service);
    for (let index = 0; index < 7; index += 1) {
      await create(service, '/cfihos/dimension', {
        name: `Paging ${String(index).padStart(2, '0')}`,
        ontology: library,
        dimensionCode: 'P',
      });
    }
    const seen: string[] = [];
    let query = `library=${encodeURIComponent(library)}&limit=3`;
    let writes = 0;
    for (;;) {
      const page = await find(query);
      seen.push(...page.hits.map((hit) => hit.label));
      // Someone writes between pages: before and after the cursor.
      await create(service, '/cfihos/dimension', {
        name: `Paging ${writes === 0 ? 'A' : '00 early'}${writes}`,
        ontology: library,
        dimensionCode: 'P',
      });
      writes += 1;
      if (!page.next) break;
      query = new URL(page.next).search.slice(1);
    }
    const original = Array.from(
      { length: 7 },
      (_, index) => `Paging ${String(index).padStart(2, '0')}`,
    );
    expect(new Set(seen).size).toBe(seen.length);
    for (const name of original) expect(seen).toContain(name);
  });

  it('answers 503 with Retry-After on every instance while search is marked down, and again once up', async () => {
    await service.db
      .updateTable('search_state')
      .set({ state: 'down', changed_at: Date.now() })
      .execute();
    // Each instance reads the state with the change log, within its poll interval.
    const down = await vi.waitFor(async () => {
      const response = await service.call('GET', '/search/search-index?q=pump', {
        roles: ['Reader'],
      });
      expect(response.statusCode).toBe(503);
      return response;
    });
    expect(down.headers['retry-after']).toBe('60');
    expect(down.json()).toMatchObject({ status: 503, title: 'Search unavailable' });
    expect(down.json().traceId).toBeTruthy();
    // Other routes keep working.
    expect(
      (await service.call('GET', `/ontologies/domains?${iriQuery(pumps)}`, { roles: ['Reader'] }))
        .statusCode,
    ).toBe(200);
    await service.db
      .updateTable('search_state')
      .set({ state: 'available', changed_at: Date.now() })
      .execute();
    await requestSearchRebuild(service.db);
    await vi.waitFor(async () => expect((await find('q=pump')).total).toBe(6));
  });

  it('answers bad parameters with 400 and needs a token', async () => {
    for (const query of [
      'family=widget',
      'status=Lost',
      'limit=0',
      'limit=101',
      'limit=ten',
      'cursor=not-a-cursor',
      'sort=name',
      `q=${'x'.repeat(201)}`,
    ]) {
      const response = await service.call('GET', `/search/search-index?${query}`, {
        roles: ['Reader'],
      });
      expect(response.statusCode, query).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect((await service.app.inject({ url: '/search/search-index?q=pump' })).statusCode).toBe(401);
  });
});
