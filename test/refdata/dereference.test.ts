import type { Quad } from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RDL_NAMESPACE } from '../../src/refdata/rdf/vocabulary.js';
import { DATABASE_KINDS } from '../harness.js';
import { create, createLibrary, type Refdata, startRefdata, uniqueName } from './helpers.js';
import { fromN3, READERS, sameGraphInEveryFormat } from './rdf-readers.js';

const IMF = 'http://ns.imfid.org/imf#';

describe.each(DATABASE_KINDS)('dereferencing on %s', (kind) => {
  let service: Refdata;
  const resources: Record<string, string> = {};
  beforeAll(async () => {
    service = await startRefdata(kind);
    const ontology = await createLibrary(service, {
      upperOntologies: ['http://example.org/core'],
      backupFrequency: 'daily',
    });
    resources.library = ontology;
    const related = [
      {
        relationType: 'closeMatch',
        targetLibrary: 'ISO 15926-4',
        targetIdentifier: 'R1',
        targetVersion: '2007',
      },
    ];
    const sources = [
      { sourceIri: 'http://example.org/iso' },
      {
        sourceName: 'ISO 14224',
        sourceId: 'A.2',
        sourceUrl: 'https://www.iso.org/standard/64076.html',
        version: '2016',
      },
    ];
    const dimension = await create(service, '/cfihos/dimension', {
      name: uniqueName('Length'),
      ontology,
      dimensionCode: 'L',
    });
    resources.dimension = dimension.iri;
    resources.class = (
      await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Pump'),
        ontology,
        subClassOf: ['http://example.org/Equipment'],
        relatedTerms: related,
        definitionSources: sources,
      })
    ).iri;
    const property = await create(service, '/general/property', {
      name: uniqueName('Width'),
      ontology,
      types: ['number'],
      range: dimension.iri,
    });
    resources.property = property.iri;
    resources['cfihos-entity'] = (
      await create(service, '/cfihos/entity', {
        name: uniqueName('Centrifugal'),
        ontology,
        entityType: 'equipment',
        isAbstract: false,
        propertyReferences: [{ propertyUri: property.iri, minCardinality: 0, maxCardinality: 1 }],
      })
    ).iri;
    const picklist = await create(service, '/cfihos/picklist', {
      name: uniqueName('Seals'),
      ontology,
      subClassOf: 'http://example.org/Picklist',
      picklistValues: [
        { name: 'Mechanical', description: 'A mechanical seal' },
        { name: 'Lip', description: 'A lip seal' },
      ],
    });
    resources.picklist = picklist.iri;
    resources['picklist-value'] = (picklist.picklistValues as { id: string }[])[0]?.id as string;
    resources.unit = (
      await create(service, '/cfihos/unitofmeasure', {
        name: uniqueName('Metre'),
        ontology,
        dimensionRef: dimension.iri,
        measurementSystem: 'SI',
        symbol: 'm',
      })
    ).iri;
    const attribute = await create(service, '/imf/attributetypes', {
      name: uniqueName('Temperature'),
      ontology,
      predicate: 'http://example.org/temperature',
      rangeQualifier: `${IMF}maximumQualifier`,
      exactMatch: ['http://example.org/t'],
    });
    resources['imf-attribute'] = attribute.iri;
    const terminal = await create(service, '/imf/terminaltypes', {
      name: uniqueName('Out'),
      ontology,
      aspect: `${IMF}productAspect`,
      direction: 'output',
      referenceTerms: ['http://example.org/ref'],
      attributeReferences: [{ entityUri: attribute.iri, minCardinality: 1, maxCardinality: 1 }],
    });
    resources['imf-terminal'] = terminal.iri;
    resources['imf-block'] = (
      await create(service, '/imf/blocktypes', {
        name: uniqueName('Transmitter'),
        ontology,
        aspect: `${IMF}functionAspect`,
        referenceTerms: [],
        attributeReferences: [{ entityUri: attribute.iri, minCardinality: 0 }],
        terminalReferences: [{ entityUri: terminal.iri, minCardinality: 1, maxCardinality: 2 }],
        hasPartBlockReferences: [],
      })
    ).iri;
    resources.symbol = (
      await create(service, '/esl/engineeringSymbols', {
        name: uniqueName('Valve'),
        dcIdentifier: `V${Date.now()}`,
        width: 96,
        height: 48,
        shape:
          '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 48"><path d="M0 0 L96 48 L96 0 L0 48 Z"/></svg>',
        centerOfRotation: { x: 48, y: 24 },
        connectionPoints: [
          { id: 'a', x: 0, y: 24, direction: 180 },
          { id: 'b', x: 96, y: 24, direction: 0 },
        ],
      })
    ).iri;
  });
  afterAll(async () => service?.close());

  const pathOf = (iri: string) => iri.slice(service.config.settings.refdata.iriBase.length);
  const get = (iri: string, accept?: string, headers: Record<string, string> = {}) =>
    service.call('GET', pathOf(iri), {
      roles: ['Reader'],
      headers: { ...(accept ? { accept } : {}), ...headers },
    });

  it.each([
    'library',
    'class',
    'property',
    'cfihos-entity',
    'picklist',
    'picklist-value',
    'unit',
    'dimension',
    'imf-attribute',
    'imf-terminal',
    'imf-block',
    'symbol',
  ])('serializes a %s identically in all seven RDF formats', async (family) => {
    const iri = resources[family] as string;
    for (const mediaType of Object.keys(READERS)) {
      expect((await get(iri, mediaType)).headers['content-type']).toMatch(
        new RegExp(`^${mediaType.replace('+', '\\+')}`),
      );
    }
    const first = await sameGraphInEveryFormat((accept) => get(iri, accept), family);
    expect(
      first.some((q) => q.subject.value === iri && q.predicate.value.endsWith('#prefLabel')),
    ).toBe(true);
    expect(
      first.some((q) => q.subject.value === iri && q.predicate.value.endsWith('/vocab#status')),
    ).toBe(true);
  });

  it('writes cardinalities as xsd:nonNegativeInteger in every format', async () => {
    const graph = await sameGraphInEveryFormat(
      (accept) => get(resources['cfihos-entity'] as string, accept),
      'cfihos-entity',
    );
    const cardinalities = graph.filter((q) => /#(min|max)Cardinality$/.test(q.predicate.value));
    expect(cardinalities).toHaveLength(2);
    for (const q of cardinalities) {
      expect(q.object.termType === 'Literal' && q.object.datatype.value).toBe(
        'http://www.w3.org/2001/XMLSchema#nonNegativeInteger',
      );
    }
  });

  it('gives a library at detailLevel 3 one graph in every format', async () => {
    const graph = await sameGraphInEveryFormat(
      (accept) => get(`${resources.library}?detailLevel=3`, accept),
      'library level 3',
    );
    // Every term is in it, whole.
    for (const family of ['class', 'cfihos-entity', 'imf-block', 'picklist-value']) {
      expect(graph.some((q) => q.subject.value === resources[family])).toBe(true);
    }
  });

  it('keeps JSON-LD self-contained: it expands with no document loader able to fetch', async () => {
    const jsonld = (await import('jsonld')).default;
    const response = await get(resources.class as string, 'application/ld+json');
    const document = response.json();
    expect(typeof document['@context']).toBe('object');
    const expanded = await jsonld.expand(document, {
      documentLoader: async (url: string) => {
        throw new Error(`tried to fetch ${url}`);
      },
    } as never);
    expect(JSON.stringify(expanded)).toContain('http://www.w3.org/2004/02/skos/core#prefLabel');
  });
});

describe.each(DATABASE_KINDS)('dereferencing: negotiation, caching, status on %s', (kind) => {
  let service: Refdata;
  let iri: string;
  beforeAll(async () => {
    service = await startRefdata(kind);
    const ontology = await createLibrary(service);
    iri = (
      await create(service, '/cfihos/dimension', {
        name: uniqueName('Area'),
        ontology,
        dimensionCode: 'A',
      })
    ).iri;
  });
  afterAll(async () => service?.close());

  const get = (
    accept?: string,
    headers: Record<string, string> = {},
    roles: ('Reader' | 'Creator')[] = ['Reader'],
  ) =>
    service.call('GET', iri.slice(service.config.settings.refdata.iriBase.length), {
      roles,
      headers: { ...(accept ? { accept } : {}), ...headers },
    });

  it('answers 406 listing the offered types, with Vary: Accept everywhere', async () => {
    const refused = await get('image/png, text/plain;q=0.5');
    expect(refused.statusCode).toBe(406);
    expect(refused.json().detail).toContain('text/turtle');
    expect(refused.headers.vary).toMatch(/Accept/);
    const json = await get();
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.headers.vary).toMatch(/Accept/);
    expect(json.json()).toMatchObject({ iri, status: 'Draft' });
  });

  it('gives each representation its own ETag and answers If-None-Match with 304', async () => {
    const turtle = await get('text/turtle');
    const etag = turtle.headers.etag as string;
    expect(etag).toBe('"1-ttl"');
    const again = await get('text/turtle', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await get('text/turtle', { 'if-none-match': `W/${etag}, "x"` })).statusCode).toBe(304);
    expect((await get('application/n-triples', { 'if-none-match': etag })).statusCode).toBe(200);
  });

  it('shows Draft, then Submitted (Pending review on the page), in every format', async () => {
    const before = await get('application/n-triples');
    expect(before.body).toContain(`<${iri}> <${RDL_NAMESPACE}status> <${RDL_NAMESPACE}Draft>`);
    expect(
      (await service.call('PUT', `/status/submit?iri=${encodeURIComponent(iri)}`)).statusCode,
    ).toBe(204);
    const vocab = RDL_NAMESPACE;
    for (const [accept, read] of Object.entries(READERS)) {
      const graph = await read((await get(accept)).body);
      const statuses = graph
        .filter((q) => q.subject.value === iri && q.predicate.value === `${vocab}status`)
        .map((q) => q.object.value);
      expect(statuses, accept).toEqual([`${vocab}Submitted`]);
    }
    expect((await get('application/json')).json().status).toBe('Submitted');
    const page = await get('text/html');
    expect(page.body).toContain('>Pending review</span>');
    // The old tag no longer matches after the change.
    expect((await get('text/turtle', { 'if-none-match': '"1-ttl"' })).statusCode).toBe(200);
  });

  it('needs a token and answers unknown IRIs with 404', async () => {
    const anonymous = await service.app.inject({
      url: iri.slice(service.config.settings.refdata.iriBase.length),
    });
    expect(anonymous.statusCode).toBe(401);
    const missing = await service.call(
      'GET',
      '/cfihos/unitOfMeasureDimension/00000000-0000-0000-0000-000000000000',
      { roles: ['Reader'] },
    );
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe.each(DATABASE_KINDS)('library detail levels on %s', (kind) => {
  let service: Refdata;
  let library: string;
  let pump: string;
  let picklist: { iri: string; values: string[] };
  beforeAll(async () => {
    service = await startRefdata(kind);
    library = await createLibrary(service);
    pump = (
      await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Pump'),
        ontology: library,
        subClassOf: ['http://example.org/Equipment'],
      })
    ).iri;
    const created = await create(service, '/cfihos/picklist', {
      name: uniqueName('Seals'),
      ontology: library,
      subClassOf: 'http://example.org/P',
      picklistValues: [{ name: 'Lip', description: 'A lip seal' }],
    });
    picklist = {
      iri: created.iri,
      values: (created.picklistValues as { id: string }[]).map((value) => value.id),
    };
  });
  afterAll(async () => service?.close());

  const read = async (query: string, accept = 'application/n-triples') => {
    const response = await service.call(
      'GET',
      `${library.slice(service.config.settings.refdata.iriBase.length)}${query}`,
      {
        roles: ['Reader'],
        headers: { accept },
      },
    );
    return response;
  };
  const subjects = (body: string) => new Set(fromN3(body, 'N-Triples').map((q) => q.subject.value));
  const DEFINITION = 'http://www.w3.org/2004/02/skos/core#definition';

  it('gives the ontology alone at 1, its terms with labels and relations at 2, everything at 3', async () => {
    const summary = await read('?detailLevel=1');
    expect(summary.statusCode).toBe(200);
    expect([...subjects(summary.body)]).toEqual([library]);

    const relations = await read('');
    expect(relations.body).toBe((await read('?detailLevel=2')).body);
    const level2 = fromN3(relations.body, 'N-Triples');
    // A picklist's values are terms of the library too: named, typed, with their status.
    expect(subjects(relations.body)).toEqual(
      new Set([library, pump, picklist.iri, ...picklist.values]),
    );
    for (const value of picklist.values) {
      const about = level2.filter((q) => q.subject.value === value);
      expect(about.some((q) => q.predicate.value.endsWith('#prefLabel'))).toBe(true);
      expect(about.some((q) => q.predicate.value.endsWith('vocab#status'))).toBe(true);
      expect(about.some((q) => q.object.value === picklist.iri)).toBe(true);
      expect(about.some((q) => q.predicate.value === DEFINITION)).toBe(false);
    }
    expect(
      level2.some((q) => q.subject.value === pump && q.predicate.value.endsWith('#subClassOf')),
    ).toBe(true);
    expect(level2.some((q) => q.subject.value === pump && q.predicate.value === DEFINITION)).toBe(
      false,
    );

    const complete = fromN3((await read('?detailLevel=3')).body, 'N-Triples');
    const completeSubjects = new Set(complete.map((q) => q.subject.value));
    for (const iri of [library, pump, picklist.iri, ...picklist.values])
      expect(completeSubjects.has(iri)).toBe(true);
    expect(complete.some((q) => q.subject.value === pump && q.predicate.value === DEFINITION)).toBe(
      true,
    );
  });

  it('streams level 3 in every RDF format with the same graph', async () => {
    const graphs: Quad[][] = [];
    for (const [accept, parse] of Object.entries(READERS)) {
      const response = await read('?detailLevel=3', accept);
      expect(response.statusCode, accept).toBe(200);
      graphs.push(await parse(response.body));
    }
    const [first, ...rest] = graphs as [Quad[], ...Quad[][]];
    for (const graph of rest) expect(isomorphic(first, graph)).toBe(true);
  });

  it('refuses other detail levels, and changes its ETag when a term changes', async () => {
    for (const query of [
      '?detailLevel=0',
      '?detailLevel=4',
      '?detailLevel=two',
      '?detailLevel=1.5',
      '?other=1',
    ]) {
      const response = await read(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const before = (await read('?detailLevel=2', 'text/turtle')).headers.etag as string;
    expect((await read('?detailLevel=2', 'text/turtle')).headers.etag).toBe(before);
    expect((await read('?detailLevel=3', 'text/turtle')).headers.etag).not.toBe(before);
    await create(service, '/cfihos/dimension', {
      name: uniqueName('Speed'),
      ontology: library,
      dimensionCode: 'V',
    });
    expect((await read('?detailLevel=2', 'text/turtle')).headers.etag).not.toBe(before);
  });
});
