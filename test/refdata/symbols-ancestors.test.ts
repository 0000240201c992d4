import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';

const SHAPE =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 48"><path d="M0 0 L96 48"/></svg>';

describe.each(DATABASE_KINDS)(
  'symbol listing, SVG rendering and inherited properties on %s',
  (kind) => {
    let service: Refdata;
    const symbols: string[] = [];
    beforeAll(async () => {
      service = await startRefdata(kind);
      for (let index = 0; index < 3; index += 1) {
        const created = await create(service, '/esl/engineeringSymbols', {
          name: uniqueName('Valve <b>&'),
          dcIdentifier: `LIST${index}x${Date.now()}`,
          width: 96,
          height: 48,
          shape: SHAPE,
          centerOfRotation: { x: 48, y: 24 },
          connectionPoints: [{ id: 'in', x: 0, y: 24, direction: 180 }],
        });
        symbols.push(created.iri);
      }
      await service.call('PUT', `/status/submit?${iriQuery(symbols[2] as string)}`);
    });
    afterAll(async () => service?.close());

    it('lists symbols a page at a time, by status, as JSON, JSON-LD and Turtle', async () => {
      const first = await service.call('GET', '/esl/engineeringSymbols?per_page=2', {
        roles: ['Reader'],
      });
      expect(first.statusCode).toBe(200);
      expect(first.headers['x-total-count']).toBe('3');
      expect(first.headers.link).toContain('rel="next"');
      expect(first.json().map((entry: { iri: string }) => entry.iri)).toEqual(symbols.slice(0, 2));
      const second = await service.call('GET', '/esl/engineeringSymbols?per_page=2&page=2', {
        roles: ['Reader'],
      });
      expect(second.json().map((entry: { iri: string }) => entry.iri)).toEqual(symbols.slice(2));
      const drafts = await service.call('GET', '/esl/engineeringSymbols?status=Draft', {
        roles: ['Reader'],
      });
      expect(drafts.json()).toHaveLength(2);
      const turtle = await service.call('GET', '/esl/engineeringSymbols?status=Submitted', {
        roles: ['Reader'],
        headers: { accept: 'text/turtle' },
      });
      expect(turtle.headers['content-type']).toMatch(/^text\/turtle/);
      expect(turtle.body).toContain('sym:Symbol');
      expect(turtle.body).toContain(symbols[2]);
      const jsonld = await service.call('GET', '/esl/engineeringSymbols', {
        roles: ['Reader'],
        headers: { accept: 'application/ld+json' },
      });
      expect(JSON.parse(jsonld.body)['@graph'].length).toBeGreaterThanOrEqual(3);
      expect(
        (
          await service.call('GET', '/esl/engineeringSymbols', {
            roles: ['Reader'],
            headers: { accept: 'application/rdf+xml' },
          })
        ).statusCode,
      ).toBe(406);
      expect(
        (await service.call('GET', '/esl/engineeringSymbols?status=Lost', { roles: ['Reader'] }))
          .statusCode,
      ).toBe(400);
      expect(
        (await service.call('GET', '/esl/engineeringSymbols?per_page=500', { roles: ['Reader'] }))
          .statusCode,
      ).toBe(400);
      const one = await service.call(
        'GET',
        `/esl/engineeringSymbols?${iriQuery(symbols[0] as string)}`,
        { roles: ['Reader'] },
      );
      expect(one.json().iri).toBe(symbols[0]);
    });

    it('draws a symbol as SVG with its connection points marked', async () => {
      const path = (symbols[0] as string).slice(service.config.settings.refdata.iriBase.length);
      const response = await service.call('GET', path, {
        roles: ['Reader'],
        headers: { accept: 'image/svg+xml' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^image\/svg\+xml/);
      const elements: string[] = [];
      const parser = new SaxesParser({ xmlns: true });
      parser.on('opentag', (node) => elements.push(node.local));
      parser.write(response.body).close();
      expect(elements).toEqual(expect.arrayContaining(['svg', 'path', 'circle', 'line']));
      // The name is text in a title, escaped, never markup.
      expect(response.body).toContain('Valve &#60;b&#62;&#38;');
      // Only symbols offer SVG.
      const library = await createLibrary(service);
      const other = await service.call(
        'GET',
        library.slice(service.config.settings.refdata.iriBase.length),
        { roles: ['Reader'], headers: { accept: 'image/svg+xml' } },
      );
      expect(other.statusCode).toBe(406);
    });

    it('lists the properties a CFIHOS class inherits, nearest first, through a cycle safely', async () => {
      const ontology = await createLibrary(service);
      const property = async (name: string) =>
        (
          await create(service, '/general/property', {
            name: uniqueName(name),
            ontology,
            types: ['freeText'],
          })
        ).iri;
      const weight = await property('Weight');
      const speed = await property('Speed');
      const colour = await property('Colour');
      const root = await create(service, '/cfihos/entity', {
        name: uniqueName('Rotating'),
        ontology,
        entityType: 'equipment',
        propertyReferences: [
          { propertyUri: weight, minCardinality: 0, maxCardinality: 1 },
          { propertyUri: speed, minCardinality: 0, maxCardinality: 1 },
        ],
      });
      const middle = await create(service, '/cfihos/entity', {
        name: uniqueName('Pump'),
        ontology,
        entityType: 'equipment',
        superEntity: root.iri,
        propertyReferences: [{ propertyUri: speed, minCardinality: 1, maxCardinality: 1 }],
      });
      const leaf = await create(service, '/cfihos/entity', {
        name: uniqueName('Centrifugal'),
        ontology,
        entityType: 'equipment',
        superEntity: middle.iri,
        propertyReferences: [{ propertyUri: colour, minCardinality: 0, maxCardinality: 1 }],
      });
      const response = await service.call(
        'GET',
        `/cfihos/ancestors/properties?cfihosUri=${encodeURIComponent(leaf.iri)}`,
        { roles: ['Reader'] },
      );
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.ancestors).toEqual([middle.iri, root.iri]);
      expect(
        body.properties.map(
          (entry: {
            propertyUri: string;
            definedBy: string;
            inherited: boolean;
            minCardinality: number;
          }) => [entry.propertyUri, entry.definedBy, entry.inherited, entry.minCardinality],
        ),
      ).toEqual([
        [colour, leaf.iri, false, 0],
        [speed, middle.iri, true, 1],
        [weight, root.iri, true, 0],
      ]);
      expect(
        (
          await service.call(
            'GET',
            `/cfihos/ancestors/properties?cfihosUri=${encodeURIComponent(ontology)}`,
            { roles: ['Reader'] },
          )
        ).statusCode,
      ).toBe(400);
      expect(
        (
          await service.call(
            'GET',
            `/cfihos/ancestors/properties?cfihosUri=${encodeURIComponent(`${ontology}/none`)}`,
            { roles: ['Reader'] },
          )
        ).statusCode,
      ).toBe(404);
      expect(
        (await service.call('GET', '/cfihos/ancestors/properties', { roles: ['Reader'] }))
          .statusCode,
      ).toBe(400);
      for (const query of [
        `cfihosUri=${'x'.repeat(2100)}`,
        `cfihosUri=${encodeURIComponent(leaf.iri)}&depth=2`,
      ]) {
        const response = await service.call('GET', `/cfihos/ancestors/properties?${query}`, {
          roles: ['Reader'],
        });
        expect(response.statusCode, query).toBe(400);
      }
      const unknown = await service.call('GET', '/esl/engineeringSymbols?colour=red', {
        roles: ['Reader'],
      });
      expect(unknown.statusCode).toBe(400);
    });
  },
);
