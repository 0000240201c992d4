/**
 * A whole library at detailLevel=3, as a consumer takes it into its own tools:
 * every format is the same graph (blank nodes and language tags included), and
 * a client that goes away mid-export leaves nothing open behind it.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import { create, createLibrary, type Refdata, startRefdata } from './helpers.js';
import { sameGraphInEveryFormat } from './rdf-readers.js';

const IMF = 'http://ns.imfid.org/imf#';
const TERMS = 2000;

describe.each(DATABASE_KINDS)('level-3 exports (%s)', (kind) => {
  let service: Refdata;
  let library: string;
  let url: string;

  beforeAll(async () => {
    service = await startRefdata(kind);
    library = await createLibrary(service);
    const ontology = library;
    // Families whose triples hold blank nodes (restrictions, shapes, mappings, sources).
    const dimension = await create(service, '/cfihos/dimension', {
      name: 'Length',
      ontology,
      dimensionCode: 'L',
    });
    const picklist = await create(service, '/cfihos/picklist', {
      name: 'Colours',
      ontology,
      subClassOf: 'https://example.org/Colour',
      picklistValues: [
        { name: 'Red', description: 'Röd' },
        { name: 'Blue', description: 'Blå' },
      ],
    });
    const property = await create(service, '/general/property', {
      name: 'Colour',
      ontology,
      types: ['controlledText'],
      range: picklist.iri,
    });
    await create(service, '/general/property', {
      name: 'Length of it',
      ontology,
      types: ['number'],
      range: dimension.iri,
    });
    await create(service, '/cfihos/entity', {
      name: 'Pump tag',
      ontology,
      entityType: 'tag',
      propertyReferences: [{ propertyUri: property.iri, minCardinality: 0, maxCardinality: 1 }],
    });
    const attribute = await create(service, '/imf/attributetypes', {
      name: 'Flow',
      ontology,
      predicate: 'https://example.org/flow',
    });
    const terminal = await create(service, '/imf/terminaltypes', {
      name: 'Inlet',
      ontology,
      aspect: `${IMF}productAspect`,
      direction: 'input',
      referenceTerms: [],
      attributeReferences: [{ entityUri: attribute.iri, minCardinality: 1 }],
    });
    await create(service, '/imf/blocktypes', {
      name: 'Pump',
      ontology,
      aspect: `${IMF}functionAspect`,
      referenceTerms: [],
      attributeReferences: [],
      terminalReferences: [{ entityUri: terminal.iri, minCardinality: 1, maxCardinality: 2 }],
      hasPartBlockReferences: [],
    });
    const made = 9;
    for (let start = 0; start < TERMS - made; start += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, TERMS - made - start) }, (_, offset) => {
          const n = start + offset;
          return create(service, '/rdl/terms/subclass', {
            name: `Class ${n} “quoted” & <marked>`,
            description: n % 2 === 0 ? `Beskrivning ${n}: æøå` : `Line one\nline two ${n}`,
            ontology,
            subClassOf: ['https://example.org/Thing'],
            ...(n % 3 === 0
              ? {
                  relatedTerms: [
                    {
                      relationType: 'closeMatch',
                      targetLibrary: 'Other',
                      targetIdentifier: `O-${n}`,
                    },
                  ],
                }
              : {}),
            ...(n % 5 === 0
              ? {
                  definitionSources: [
                    {
                      sourceName: 'Handbook',
                      sourceId: `H-${n}`,
                      sourceUrl: 'https://example.org/handbook',
                    },
                  ],
                }
              : {}),
          });
        }),
      );
    }
    await service.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  }, 180_000);
  afterAll(() => service?.close());

  const path = () => new URL(library).pathname;

  it('gives the same graph in every format, blank nodes and language tags included', async () => {
    const graph = await sameGraphInEveryFormat(
      (accept) =>
        service.call('GET', `${path()}?detailLevel=3`, { roles: ['Reader'], headers: { accept } }),
      'the library',
    );
    expect(graph.length).toBeGreaterThan(TERMS * 8);
    expect(graph.some((quad) => quad.subject.termType === 'BlankNode')).toBe(true);
    expect(
      graph.some((quad) => quad.object.termType === 'Literal' && quad.object.language === 'en'),
    ).toBe(true);
  }, 120_000);

  it('stops when the client goes away, leaving no transaction open, and serves on', async () => {
    const token = await service.token(['Reader']);
    for (const accept of ['application/n-triples', 'application/ld+json', 'application/rdf+xml']) {
      const received = await new Promise<number>((resolve, reject) => {
        const outgoing = request(`${url}${path()}?detailLevel=3`, {
          headers: { accept, authorization: `Bearer ${token}` },
        });
        outgoing.on('response', (response) => {
          let bytes = 0;
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            // Gone after the first part, as a client that lost interest.
            if (bytes > 0) {
              outgoing.destroy();
              resolve(bytes);
            }
          });
          response.on('error', () => undefined);
        });
        outgoing.on('error', (error) => {
          if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
        });
        outgoing.end();
      });
      expect(received).toBeGreaterThan(0);
    }
    // Whatever the export was reading is let go of, and no connection lingers.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const connections = await new Promise<number>((resolve, reject) =>
      service.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
    expect(connections).toBe(0);
    if (kind === 'postgres') {
      const open = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
        where datname = current_database() and state like 'idle in transaction%'`.execute(
        service.db,
      );
      expect(Number(open.rows[0]?.n)).toBe(0);
    }
    const after = await service.call('GET', `${path()}?detailLevel=1`, {
      roles: ['Reader'],
      headers: { accept: 'text/turtle' },
    });
    expect(after.statusCode).toBe(200);
  }, 60_000);
});
