/**
 * A whole library at detailLevel=3, as a consumer takes it into its own tools:
 * every format is the same graph (blank nodes and language tags included), and
 * a slow client holds the server to its pace, and one that goes away
 * mid-export leaves nothing open behind it.
 */
import { type IncomingMessage, request } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedInto } from '../../bench/bulk.js';
import { exportCorpus } from '../../bench/refdata-export.js';
import { DATABASE_KINDS } from '../harness.js';
import { create, createLibrary, type Refdata, startRefdata } from './helpers.js';
import { sameGraphInEveryFormat } from './rdf-readers.js';

const IMF = 'http://ns.imfid.org/imf#';
const TERMS = 2000;
const THING = 'https://example.org/Thing';

describe.each(DATABASE_KINDS)('level-3 exports (%s)', (kind) => {
  let service: Refdata;
  let library: string;

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
            subClassOf: [THING],
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
});

/** Larger than the sockets' buffers on both sides, so that holding back is visible. */
const SEEDED_TERMS = 30_000;

/** One GET on a connection of its own, closed after it (no keep-alive left open). */
function getOnce(
  address: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(address, { agent: false, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}
const ELSEWHERE = 'https://example.org/another-library';

describe.each(DATABASE_KINDS)('level-3 exports to slow and vanishing readers (%s)', (kind) => {
  let service: Refdata;
  let library: string;
  let url: string;
  const accept = 'application/n-triples';

  beforeAll(async () => {
    service = await startRefdata(kind);
    library = await createLibrary(service);
    await seedInto(service.db, exportCorpus(library, SEEDED_TERMS));
    await service.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  }, 180_000);
  afterAll(() => service?.close());

  const path = () => new URL(library).pathname;

  /** An export whose client has read its first part and then stops reading. */
  async function pausedExport() {
    const token = await service.token(['Reader']);
    const serverSide = new Promise<Socket>((resolve) =>
      service.app.server.once('connection', resolve),
    );
    // A connection of its own (no keep-alive pool), so that it is the one seen arriving.
    const outgoing = request(`${url}${path()}?detailLevel=3`, {
      agent: false,
      headers: { accept, authorization: `Bearer ${token}` },
    });
    outgoing.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') throw error;
    });
    outgoing.end();
    const response = await new Promise<IncomingMessage>((resolve) =>
      outgoing.once('response', resolve),
    );
    const first = await new Promise<Buffer>((resolve) =>
      response.once('data', (chunk: Buffer) => {
        response.pause();
        resolve(chunk);
      }),
    );
    const socket = await serverSide;
    // What the server has sent stops growing once the sockets' buffers are full.
    let sent = -1;
    while (socket.bytesWritten !== sent) {
      sent = socket.bytesWritten;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    return { outgoing, response, first, socket, sent };
  }

  it('answers another client while it reports on the whole library', async () => {
    // A report is one answer, not a stream: no reader's pace lets others in. On SQLite
    // every read answers at once, and the report once held the thread for its whole
    // length; its batches now leave a turn to others between them.
    const token = await service.token(['Reader']);
    let reported = false;
    const report = getOnce(`${url}/quality?library=${encodeURIComponent(library)}&view=working`, {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
    }).then((answer) => {
      reported = true;
      return answer;
    });
    let answeredMeanwhile = 0;
    while (!reported) {
      await getOnce(`${url}/-/health`);
      if (!reported) answeredMeanwhile += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const answer = await report;
    expect(answer.status).toBe(200);
    expect(Array.isArray((JSON.parse(answer.body) as { findings: unknown }).findings)).toBe(true);
    // One may be answered before the report begins; the rest came between its batches.
    expect(answeredMeanwhile).toBeGreaterThanOrEqual(3);
  });

  it('reads the library only as fast as a slow client reads the export', async () => {
    const whole = await service.call('GET', `${path()}?detailLevel=3`, {
      roles: ['Reader'],
      headers: { accept },
    });
    const { response, first, socket, sent } = await pausedExport();
    // The server went no further than the sockets could take, and keeps no more
    // in its own socket buffer.
    expect(sent).toBeLessThan(Buffer.byteLength(whole.body) / 2);
    expect(socket.writableLength).toBeLessThan(256 * 1024);
    // Nor did it read ahead into a buffer of its own: terms taken out of the
    // library while the client waits are not in what the client then receives.
    const middle = await service.db
      .selectFrom('resources')
      .select('id')
      .where('library_key', '=', library)
      .orderBy('id')
      .offset(SEEDED_TERMS / 2)
      .limit(1)
      .executeTakeFirstOrThrow();
    const moveLastHalf = (from: string, to: string) =>
      service.db
        .updateTable('resources')
        .set({ library_key: to })
        .where('library_key', '=', from)
        .where('id', '>=', middle.id)
        .execute();
    await moveLastHalf(library, ELSEWHERE);
    try {
      const parts = [first];
      response.on('data', (chunk: Buffer) => parts.push(chunk));
      response.resume();
      await new Promise((resolve) => response.once('end', resolve));
      const received = Buffer.concat(parts).toString();
      const halved = await service.call('GET', `${path()}?detailLevel=3`, {
        roles: ['Reader'],
        headers: { accept },
      });
      expect(received.length).toBeLessThan(whole.body.length * 0.75);
      expect(received).toBe(halved.body);
    } finally {
      await moveLastHalf(ELSEWHERE, library);
    }
  }, 120_000);

  it('stops when the client goes away, leaving no transaction open, and serves on', async () => {
    const { outgoing, socket, sent } = await pausedExport();
    const closed = new Promise((resolve) => socket.once('close', resolve));
    outgoing.destroy();
    await closed;
    // Nothing more is written once the client is gone, and no connection lingers.
    expect(socket.bytesWritten).toBeLessThan(sent + 256 * 1024);
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
  }, 120_000);
});
