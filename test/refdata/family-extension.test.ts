import { Parser } from 'n3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import { GLOSSARY, glossaryTerm } from './glossary-family.js';
import { approve, createLibrary, type Refdata, startRefdata } from './helpers.js';

describe.each(DATABASE_KINDS)('a family added by its module alone (%s)', (kind) => {
  let service: Refdata;
  beforeAll(async () => {
    service = await startRefdata(kind, {}, { extraFamilies: [glossaryTerm] });
  });
  afterAll(() => service?.close());

  it('is written, checked, minted, stored, submitted, approved, dereferenced and found', async () => {
    const ontology = await createLibrary(service);
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
        detail: 'is required for a deprecated term',
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
