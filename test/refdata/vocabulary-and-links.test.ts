import { Parser } from 'n3';
import { describe, expect, it } from 'vitest';
import { RDL_NAMESPACE } from '../../src/refdata/rdf/vocabulary.js';
import { DATABASE_KINDS } from '../harness.js';
import { create, createLibrary, refdataForTests, uniqueName } from './helpers.js';

const BASE = 'https://rdl.example.org';
const OWL = 'http://www.w3.org/2002/07/owl#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

describe.each(DATABASE_KINDS)('refdata vocabulary, tokens and links on %s', (kind) => {
  const service = refdataForTests(kind, { REFDATA_IRI_BASE: BASE });

  const pathOf = (iri: string) => iri.replace(BASE, '');

  describe('9: one published vocabulary', () => {
    it('serves the rdl: vocabulary to anyone, as RDF and as a page', async () => {
      const turtle = await service.app.inject({
        url: '/vocab',
        headers: { accept: 'text/turtle' },
      });
      expect(turtle.statusCode).toBe(200);
      const graph = new Parser().parse(turtle.body);
      const ontology = RDL_NAMESPACE.slice(0, -1);
      expect(
        graph.some(
          (q) =>
            q.subject.value === ontology &&
            q.predicate.value === RDF_TYPE &&
            q.object.value === `${OWL}Ontology`,
        ),
      ).toBe(true);
      const page = await service.app.inject({ url: '/vocab', headers: { accept: 'text/html' } });
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('id="status"');
      expect(page.body).toContain('id="changeJustification"');
      expect(
        (await service.app.inject({ url: '/vocab', headers: { accept: 'image/png' } })).statusCode,
      ).toBe(406);
      const etag = turtle.headers.etag as string;
      expect(etag).toMatch(/^"[0-9a-f]{16}-turtle"$/);
      const cached = await service.app.inject({
        url: '/vocab',
        headers: { accept: 'text/turtle', 'if-none-match': etag },
      });
      expect(cached.statusCode).toBe(304);
    });

    it('defines every rdl: term the resources use, under one namespace for every deployment', async () => {
      const defined = new Set(
        new Parser()
          .parse(
            (await service.app.inject({ url: '/vocab', headers: { accept: 'text/turtle' } })).body,
          )
          .filter((q) => q.predicate.value === RDF_TYPE)
          .map((q) => q.subject.value),
      );
      const ontology = await createLibrary(service, {
        cfihosPrefix: 'ABC',
        upperOntologies: ['https://posccaesar.org/cfihos/rdl/2.0'],
      });
      const dimension = await create(service, '/cfihos/dimension', {
        name: uniqueName('Length'),
        ontology,
        dimensionCode: 'L',
        packageName: 'Units',
        relatedTerms: [
          {
            relationType: 'closeMatch',
            targetLibrary: 'ISO',
            targetIdentifier: 'X',
            targetVersion: '1',
            targetSourceName: 'S',
          },
        ],
      });
      const property = await create(service, '/general/property', {
        name: uniqueName('Width'),
        ontology,
        types: ['number'],
        range: dimension.iri,
      });
      const entity = await create(service, '/cfihos/entity', {
        name: uniqueName('Pump'),
        ontology,
        entityType: 'equipment',
        isAbstract: true,
        installedIndicator: true,
        requiresSparePartInformation: false,
        propertyReferences: [{ propertyUri: property.iri, minCardinality: 0, maxCardinality: 1 }],
      });
      const used = new Set<string>();
      for (const iri of [ontology, dimension.iri, property.iri, entity.iri]) {
        const nt = await service.call('GET', pathOf(iri), {
          roles: ['Reader'],
          headers: { accept: 'application/n-triples' },
        });
        for (const q of new Parser({ format: 'N-Triples' }).parse(nt.body)) {
          for (const term of [q.predicate, q.object]) {
            if (term.value.startsWith(RDL_NAMESPACE)) used.add(term.value);
          }
        }
      }
      expect(used.size).toBeGreaterThan(8);
      for (const term of used) expect(defined, term).toContain(term);
      // The namespace does not follow the deployment's own addresses.
      expect(RDL_NAMESPACE.startsWith(BASE)).toBe(false);
      expect(RDL_NAMESPACE.startsWith(service.config.services.refdata.publicUrl)).toBe(false);
      // Pages link our terms to the published vocabulary.
      const page = await service.call('GET', pathOf(dimension.iri), {
        roles: ['Reader'],
        headers: { accept: 'text/html' },
      });
      expect(page.body).toContain(
        `href="${service.config.services.refdata.publicUrl}/vocab#status"`,
      );
    });
  });

  describe('10: both databases find words among punctuation', () => {
    it.each([
      ['<valve>', 'valve'],
      ['pump/motor', 'motor'],
      ['ops@plant.example', 'plant'],
      ['1.5-inch', 'inch'],
      ['C++ controller', 'controller'],
      ['e-mail gateway', 'mail'],
      ['"quoted" <b>bold</b>', 'bold'],
      ['path/to/file.txt', 'file'],
    ])('finds %s by %s', async (label, word) => {
      const ontology = await createLibrary(service);
      const created = await create(service, '/cfihos/dimension', {
        name: `${label} ${uniqueName('x')}`,
        ontology,
        dimensionCode: 'L',
      });
      const found = await service.call(
        'GET',
        `/search/search-index?q=${encodeURIComponent(word)}&library=${encodeURIComponent(ontology)}`,
        { roles: ['Reader'] },
      );
      expect(found.statusCode, found.body).toBe(200);
      expect(found.json().hits.map((hit: { iri: string }) => hit.iri)).toEqual([created.iri]);
    });
  });

  describe('17: links only to web addresses', () => {
    it.each([
      [
        'definitionSources',
        { definitionSources: [{ sourceIri: 'javascript:alert(1)' }] },
        '/definitionSources/0/sourceIri',
      ],
      [
        'a source URL',
        {
          definitionSources: [
            {
              sourceName: 'S',
              sourceId: '1',
              sourceUrl: 'data:text/html,<script>alert(1)</script>',
            },
          ],
        },
        '/definitionSources/0/sourceUrl',
      ],
      ['upperOntologies', { upperOntologies: ['JavaScript:alert(1)'] }, '/upperOntologies/0'],
      ['a relative reference', { upperOntologies: ['/ontology/x'] }, '/upperOntologies/0'],
    ])('refuses a %s that is not http, https or urn', async (_label, fields, pointer) => {
      const response = await service.call('POST', '/ontologies/domains', {
        body: { changeJustification: 'x', name: uniqueName('Links'), description: 'd', ...fields },
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().errors.map((error: { pointer: string }) => error.pointer)).toContain(
        `#${pointer}`,
      );
    });

    it('accepts urn IRIs, and pages link only http(s) addresses, even for older stored values', async () => {
      const library = await createLibrary(service, {
        upperOntologies: ['urn:iso:std:iso:15926:-4', 'https://example.org/core'],
      });
      const row = await service.db
        .selectFrom('resources')
        .select(['id', 'body'])
        .where('iri', '=', library)
        .executeTakeFirstOrThrow();
      // A value stored before IRIs were checked.
      const body = JSON.parse(row.body);
      body.upperOntologies.push('javascript:alert(document.cookie)');
      await service.db
        .updateTable('resources')
        .set({ body: JSON.stringify(body) })
        .where('id', '=', row.id)
        .execute();
      const page = await service.call('GET', pathOf(library), {
        roles: ['Reader'],
        headers: { accept: 'text/html' },
      });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('href="https://example.org/core"');
      // The data's links (the site's own navigation links to its paths).
      const statements = /<table id="statements">[\s\S]*?<\/table>/.exec(page.body)?.[0] ?? '';
      expect(statements).toContain('href="https://example.org/core"');
      expect(statements).not.toMatch(/<a href="(?!https?:)/i);
      expect(page.body).toContain('urn:iso:std:iso:15926:-4');
    });

    it('serves symbols as SVG under a sandboxing policy', async () => {
      const symbol = await create(service, '/esl/engineeringSymbols', {
        name: uniqueName('Valve'),
        dcIdentifier: `V${Date.now()}`,
        width: 10,
        height: 10,
        shape:
          '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M0 0 L10 10"/></svg>',
        centerOfRotation: { x: 5, y: 5 },
        connectionPoints: [],
      });
      const svg = await service.call('GET', pathOf(symbol.iri), {
        roles: ['Reader'],
        headers: { accept: 'image/svg+xml' },
      });
      expect(svg.statusCode).toBe(200);
      expect(svg.headers['content-security-policy']).toMatch(/(^|; )sandbox($|;)/);
      expect(svg.headers['content-security-policy']).toContain("default-src 'none'");
    });
  });
});
