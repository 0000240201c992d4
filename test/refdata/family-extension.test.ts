import { Parser } from 'n3';
import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import { CHECKLIST, checklist, checklistItem } from './checklist-family.js';
import { GLOSSARY, glossaryTerm } from './glossary-family.js';
import { approve, createLibrary, iriQuery, refdataForTests, uniqueName } from './helpers.js';

describe.each(DATABASE_KINDS)('a family added by its module alone (%s)', (kind) => {
  const service = refdataForTests(kind, {}, { extraFamilies: [glossaryTerm] });

  it('is written, checked, minted, stored, submitted, approved, dereferenced and found', async () => {
    const ontology = await createLibrary(service);
    await approve(service, ontology);
    const base = {
      changeJustification: 'Glossary',
      name: 'Piping and instrumentation diagram',
      description: 'A drawing of a process',
      ontology,
      abbreviation: 'PID',
    };

    const refused = await service.call('POST', '/test/glossary-terms', {
      body: { ...base, usage: 'deprecated' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([
      expect.objectContaining({
        pointer: '#/replaces',
        // The field in words, from the family's schema; the pointer for programs.
        detail: 'Replaces is required for a deprecated term',
      }),
    ]);
    const unknownField = await service.call('POST', '/test/glossary-terms', {
      body: { ...base, usage: 'preferred', subClassOf: ['https://x.example/C'] },
    });
    expect(unknownField.statusCode).toBe(400);
    expect(unknownField.json().errors[0]).toMatchObject({ pointer: '#/subClassOf' });

    const created = await service.call('POST', '/test/glossary-terms', {
      body: { ...base, usage: 'preferred' },
    });
    expect(created.statusCode).toBe(201);
    const term = created.json();
    expect(term).toMatchObject({ family: 'glossary-term', status: 'Draft', abbreviation: 'PID' });
    expect(term.iri).toMatch(/\/glossary\/pid$/);

    // Submitted and approved through the generic lifecycle routes.
    await approve(service, term.iri);

    const turtle = await service.call(
      'GET',
      `/test/glossary-terms?iri=${encodeURIComponent(term.iri)}`,
    );
    expect(turtle.json().status).toBe('Approved');
    const path = new URL(term.iri).pathname;
    const rdf = await service.call('GET', path, { headers: { accept: 'text/turtle' } });
    expect(rdf.statusCode).toBe(200);
    const quads = new Parser().parse(rdf.body);
    expect(quads.some((quad) => quad.object.value === `${GLOSSARY}Term`)).toBe(true);
    expect(
      quads.some(
        (quad) => quad.predicate.value === `${GLOSSARY}abbreviation` && quad.object.value === 'PID',
      ),
    ).toBe(true);

    const found = await service.call('GET', '/search/search-index?q=PID&family=glossary-term', {
      roles: ['Reader'],
    });
    expect(found.statusCode).toBe(200);
    expect(found.json().hits).toEqual([
      expect.objectContaining({
        iri: term.iri,
        family: 'glossary-term',
        types: [`${GLOSSARY}Term`],
      }),
    ]);
  });
});

describe.each(DATABASE_KINDS)('an aggregate family added by its modules alone (%s)', (kind) => {
  const service = refdataForTests(
    kind,
    {},
    { extraFamilies: [glossaryTerm, checklist, checklistItem] },
  );

  const item = (name: string, id?: string) => ({
    ...(id === undefined ? {} : { id }),
    name,
    description: `Check ${name.toLowerCase()}`,
  });

  it('owns its values through writes, reads, revisions, the lifecycle and RDF', async () => {
    const ontology = await createLibrary(service);
    await approve(service, ontology);
    const base = {
      changeJustification: 'Start-up checks',
      name: uniqueName('Start-up'),
      description: 'Before starting the pump',
      ontology,
    };

    // The generic rules: a reference to the wrong family, and two items of one name.
    const wrongTerm = await service.call('POST', '/test/checklists', {
      body: { ...base, glossaryTerm: ontology },
    });
    expect(wrongTerm.statusCode).toBe(400);
    expect(wrongTerm.json().errors).toEqual([
      expect.objectContaining({
        pointer: '#/glossaryTerm',
        detail: 'Glossary term must be the IRI of a glossary term, not of a library',
      }),
    ]);
    const twice = await service.call('POST', '/test/checklists', {
      body: { ...base, items: [item('Valves'), item(' valves ')] },
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().errors).toEqual([
      expect.objectContaining({
        pointer: '#/items/1/name',
        detail: 'Items › 2 › Name is used by another value of this checklist',
      }),
    ]);

    const created = await service.call('POST', '/test/checklists', {
      body: { ...base, items: [item('Valves'), item('Seals')] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const list = created.json();
    expect(list.items).toEqual([
      expect.objectContaining({ name: 'Valves', status: 'Draft' }),
      expect.objectContaining({ name: 'Seals', status: 'Draft' }),
    ]);
    const [valves, seals] = list.items as { id: string }[];
    if (!valves || !seals) throw new Error('two items');

    // An item of another checklist is not this one's to change.
    const other = await service.call('POST', '/test/checklists', {
      body: { ...base, name: uniqueName('Shut-down'), items: [item('Power')] },
    });
    const foreign = other.json().items[0].id as string;
    const url = `/test/checklists?${iriQuery(list.iri)}`;
    const stolen = await service.call('PUT', url, {
      body: { ...base, items: [item('Power', foreign)] },
    });
    expect(stolen.statusCode).toBe(400);
    expect(stolen.json().errors[0]).toMatchObject({
      pointer: '#/items/0/id',
      detail: 'Items › 1 › ID must be the IRI of a value of this checklist',
    });

    // Keep one (renamed), drop one, add one: the dropped item is gone (410).
    const updated = await service.call('PUT', url, {
      body: {
        ...base,
        changeJustification: 'Seals go on another list',
        items: [item('Valves closed', valves.id), item('Drains')],
      },
    });
    expect(updated.statusCode, updated.body).toBe(204);
    const read = (await service.call('GET', url)).json();
    expect(read.items.map((entry: { name: string }) => entry.name)).toEqual([
      'Valves closed',
      'Drains',
    ]);
    expect(read.items[0].id).toBe(valves.id);
    const gone = await service.call('GET', `/test/checklist-items?${iriQuery(seals.id)}`);
    expect(gone.statusCode).toBe(410);

    // Each revision of the aggregate lists its items under its own field.
    const history = (await service.call('GET', `/revisions?${iriQuery(list.iri)}`)).json();
    expect(
      history.map((revision: { body: { items: { name: string }[] } }) =>
        revision.body.items.map((entry) => entry.name),
      ),
    ).toEqual([
      ['Valves', 'Seals'],
      ['Valves closed', 'Drains'],
    ]);

    // An item moves only with its checklist; approving the checklist approves them.
    const alone = await service.call('PUT', `/status/submit?${iriQuery(valves.id)}`);
    expect(alone.statusCode).toBe(409);
    await approve(service, list.iri);
    const approved = (await service.call('GET', url)).json();
    expect(approved.status).toBe('Approved');
    expect(approved.items.map((entry: { status: string }) => entry.status)).toEqual([
      'Approved',
      'Approved',
    ]);

    // Its page lists its items, as a picklist's lists its values.
    const page = await service.call('GET', new URL(list.iri).pathname, {
      roles: [],
      headers: { accept: 'text/html' },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h2>Values (2)</h2>');
    expect(page.body).toContain('<dd>Check drains</dd>');

    // The item dereferences as RDF of its own family.
    const rdf = await service.call('GET', new URL(valves.id).pathname, {
      headers: { accept: 'text/turtle' },
    });
    expect(rdf.statusCode).toBe(200);
    const quads = new Parser().parse(rdf.body);
    expect(
      quads.some(
        (quad) =>
          quad.predicate.value === `${CHECKLIST}onChecklist` && quad.object.value === list.iri,
      ),
    ).toBe(true);
  });
});
