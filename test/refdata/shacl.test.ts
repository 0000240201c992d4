import { readFileSync } from 'node:fs';
import { Parser, Store } from 'n3';
import SHACLValidator from 'rdf-validate-shacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  create,
  createLibrary,
  guidOf,
  iriQuery,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';

const IMF = 'http://ns.imfid.org/imf#';
const SH = 'http://www.w3.org/ns/shacl#';

function parseTurtle(text: string): Store {
  return new Store(new Parser({ format: 'text/turtle' }).parse(text));
}

describe.each(DATABASE_KINDS)('complete IMF SHACL on %s', (kind) => {
  let service: Refdata;
  let attribute: string;
  let terminal: string;
  let block: string;
  let part: string;
  beforeAll(async () => {
    service = await startRefdata(kind);
    const ontology = await createLibrary(service);
    attribute = (
      await create(service, '/imf/attributetypes', {
        name: uniqueName('Temperature'),
        ontology,
        predicate: 'http://example.org/temperature',
        rangeQualifier: `${IMF}maximumQualifier`,
      })
    ).iri;
    terminal = (
      await create(service, '/imf/terminaltypes', {
        name: uniqueName('Signal out'),
        ontology,
        aspect: `${IMF}productAspect`,
        direction: 'output',
        referenceTerms: [],
        attributeReferences: [{ entityUri: attribute, minCardinality: 0, maxCardinality: 1 }],
      })
    ).iri;
    part = (
      await create(service, '/imf/blocktypes', {
        name: uniqueName('Sensor element'),
        ontology,
        aspect: `${IMF}productAspect`,
        referenceTerms: [],
        attributeReferences: [],
        terminalReferences: [],
        hasPartBlockReferences: [],
      })
    ).iri;
    block = (
      await create(service, '/imf/blocktypes', {
        name: uniqueName('Transmitter'),
        ontology,
        aspect: `${IMF}productAspect`,
        referenceTerms: [],
        attributeReferences: [{ entityUri: attribute, minCardinality: 0, maxCardinality: 1 }],
        terminalReferences: [{ entityUri: terminal, minCardinality: 1, maxCardinality: 2 }],
        hasPartBlockReferences: [{ entityUri: part, minCardinality: 0, maxCardinality: 1 }],
      })
    ).iri;
    // A cycle: the part has the transmitter as a part of its own.
    await service.call('PUT', `/imf/blocktypes?${iriQuery(part)}`, {
      body: {
        changeJustification: 'Cycle',
        name: 'Sensor element cycle',
        description: 'd',
        ontology,
        aspect: `${IMF}productAspect`,
        referenceTerms: [],
        attributeReferences: [],
        terminalReferences: [],
        hasPartBlockReferences: [{ entityUri: block, minCardinality: 0 }],
      },
    });
  });
  afterAll(async () => service?.close());

  const shacl = (route: string, accept = 'text/turtle') =>
    service.call('GET', route, { roles: ['Reader'], headers: { accept } });

  it('assembles the block with everything it reaches, cycles included, byte for byte the same each time', async () => {
    const route = `/api/blocks/complete-imf-shacl?blockId=${guidOf(block)}`;
    const first = await shacl(route);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/turtle/);
    const graph = parseTurtle(first.body);
    for (const iri of [block, part, terminal, attribute]) {
      expect(graph.getQuads(iri, null, null, null).length, iri).toBeGreaterThan(0);
    }
    expect(graph.getQuads(block, `${SH}property`, null, null).length).toBeGreaterThanOrEqual(4);
    expect(first.body).toContain('skos:definition');
    expect(first.body).not.toContain('skos:description');
    expect(first.body).toContain('rdl:status');
    expect((await shacl(route)).body).toBe(first.body);
    expect((await shacl(route, 'text/plain')).body).toBe(first.body);
    expect((await shacl(route, 'application/ld+json')).statusCode).toBe(200);
    expect((await shacl(route, 'application/trig')).statusCode).toBe(200);
    expect((await shacl(route, 'application/rdf+xml')).statusCode).toBe(406);
  });

  it('limits the aspect and the direction to one value, and docs/shacl.md says so', async () => {
    const store = parseTurtle(
      (await shacl(`/api/blocks/complete-imf-shacl?blockId=${guidOf(block)}`)).body,
    );
    const limited = new Set<string>();
    for (const path of [`${IMF}hasAspect`, `${IMF}direction`]) {
      for (const quad of store.getQuads(null, `${SH}path`, path, null)) {
        const max = store.getObjects(quad.subject, `${SH}maxCount`, null)[0]?.value;
        if (max === '1') limited.add(path);
      }
    }
    expect(limited).toEqual(new Set([`${IMF}hasAspect`, `${IMF}direction`]));
    const docs = readFileSync(new URL('../../docs/shacl.md', import.meta.url), 'utf8');
    expect(docs).toMatch(/sh:path imf:hasAspect; sh:hasValue \.\.\.; sh:maxCount 1;/);
    expect(docs).toMatch(/sh:path imf:direction;\s+sh:hasValue [^\]]*sh:maxCount 1;/);
    expect(docs).toContain('**One value only.**');
  });

  it('sends an ETag per content and representation, and answers If-None-Match with 304', async () => {
    const route = `/api/blocks/complete-imf-shacl?blockId=${guidOf(block)}`;
    const first = await shacl(route);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{16,}-[a-z]+"$/);
    expect((await shacl(route)).headers.etag).toBe(etag);
    expect((await shacl(route, 'application/ld+json')).headers.etag).not.toBe(etag);
    const cached = await service.call('GET', route, {
      roles: ['Reader'],
      headers: { accept: 'text/turtle', 'if-none-match': etag },
    });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
  });

  it('refuses GUIDs that are not lower-case, unknown ones, and ones of the other kind', async () => {
    for (const id of [
      guidOf(block).toUpperCase(),
      `{${guidOf(block)}}`,
      guidOf(block).slice(1),
      'x',
    ]) {
      expect(
        (await shacl(`/api/blocks/complete-imf-shacl?blockId=${encodeURIComponent(id)}`))
          .statusCode,
        id,
      ).toBe(400);
    }
    for (const query of [
      '',
      `?blockId=${guidOf(block)}&detail=1`,
      `?terminalId=${guidOf(terminal)}`,
      `?blockId=${guidOf(block)}&blockId=${guidOf(part)}`,
    ]) {
      expect((await shacl(`/api/blocks/complete-imf-shacl${query}`)).statusCode, query).toBe(400);
    }
    expect(
      (await shacl('/api/blocks/complete-imf-shacl?blockId=00000000-0000-0000-0000-000000000000'))
        .statusCode,
    ).toBe(404);
    expect(
      (await shacl(`/api/blocks/complete-imf-shacl?blockId=${guidOf(terminal)}`)).statusCode,
    ).toBe(404);
    expect(
      (await shacl(`/api/terminals/complete-imf-shacl?terminalId=${guidOf(block)}`)).statusCode,
    ).toBe(404);
    expect(
      (await shacl(`/api/terminals/complete-imf-shacl?terminalId=${guidOf(terminal)}`)).statusCode,
    ).toBe(200);
    expect(
      (await service.app.inject({ url: `/api/blocks/complete-imf-shacl?blockId=${guidOf(block)}` }))
        .statusCode,
    ).toBe(401);
  });

  describe('run by a SHACL engine against plant data', () => {
    const instance = (
      changes: {
        terminals?: string;
        aspect?: string;
        direction?: string;
        parts?: string;
        values?: string;
      } = {},
    ) => `
      @prefix imf: <${IMF}> .
      @prefix ex: <http://plant.example/> .
      ex:tt101 a <${block}> ;
        imf:hasAspect ${changes.aspect ?? 'imf:productAspect'} ;
        ${changes.terminals ?? 'imf:hasTerminal ex:out1 ;'}
        ${changes.parts ?? 'imf:hasPart ex:element1 ;'}
        <${attribute}> ${changes.values ?? '"85"'} .
      ex:out1 a <${terminal}> ; imf:hasAspect imf:productAspect ; imf:direction ${changes.direction ?? 'imf:outputDirection'} .
      ex:element1 a <${part}> ; imf:hasAspect imf:productAspect .
      ex:element2 a <${part}> ; imf:hasAspect imf:productAspect .
    `;

    async function validate(data: string) {
      const shapes = parseTurtle(
        (await shacl(`/api/blocks/complete-imf-shacl?blockId=${guidOf(block)}`)).body,
      );
      const report = await new SHACLValidator(shapes).validate(parseTurtle(data));
      return {
        conforms: report.conforms,
        components: report.results.map((result) => result.sourceConstraintComponent?.value),
      };
    }

    it('passes a conforming instance', async () => {
      expect(await validate(instance())).toEqual({ conforms: true, components: [] });
    });

    it.each([
      [
        'a missing required terminal',
        { terminals: '' },
        `${SH}QualifiedMinCountConstraintComponent`,
      ],
      [
        'too many parts',
        { parts: 'imf:hasPart ex:element1, ex:element2 ;' },
        `${SH}QualifiedMaxCountConstraintComponent`,
      ],
      ['a wrong aspect', { aspect: 'imf:functionAspect' }, `${SH}HasValueConstraintComponent`],
      [
        'a wrong terminal direction',
        { direction: 'imf:inputDirection' },
        `${SH}HasValueConstraintComponent`,
      ],
      [
        'a terminal with two directions',
        { direction: 'imf:outputDirection, imf:inputDirection' },
        `${SH}MaxCountConstraintComponent`,
      ],
      [
        'a block with two aspects',
        { aspect: 'imf:productAspect, imf:functionAspect' },
        `${SH}MaxCountConstraintComponent`,
      ],
      [
        'a terminal direction that is a literal',
        { direction: '"output"' },
        `${SH}NodeKindConstraintComponent`,
      ],
      [
        'too many values of an attribute',
        { values: '"85", "90"' },
        `${SH}MaxCountConstraintComponent`,
      ],
    ])('fails %s', async (_label, changes, component) => {
      const result = await validate(instance(changes));
      expect(result.conforms).toBe(false);
      expect(result.components).toContain(component);
    });
  });
});
