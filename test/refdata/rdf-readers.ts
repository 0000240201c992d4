/**
 * Reading every RDF serialization we write back into triples, each with a parser
 * other than the code that wrote it, and comparing the graphs.
 */
import jsonld from 'jsonld';
import { DataFactory, Parser, type Quad } from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { expect } from 'vitest';

const { quad } = DataFactory;
const BASE = 'http://localhost:8081';

/** Triples of the default graph, as n3 parses them. */
export function fromN3(input: string, format: string): Quad[] {
  return new Parser({ format, baseIRI: `${BASE}/` })
    .parse(input)
    .map((q) => quad(q.subject, q.predicate, q.object));
}

async function fromJsonLd(input: string): Promise<Quad[]> {
  const nquads = (await jsonld.toRDF(JSON.parse(input), {
    format: 'application/n-quads',
    documentLoader: async (url: string) => {
      throw new Error(`tried to fetch ${url}`);
    },
  } as never)) as unknown as string;
  return fromN3(nquads, 'N-Quads');
}

function fromRdfXml(input: string): Promise<Quad[]> {
  return new Promise((resolve, reject) => {
    const quads: Quad[] = [];
    const parser = new RdfXmlParser({ dataFactory: DataFactory as never, baseIRI: `${BASE}/` });
    parser.on('data', (q: Quad) => quads.push(quad(q.subject, q.predicate, q.object)));
    parser.on('error', reject);
    parser.on('end', () => resolve(quads));
    parser.write(input);
    parser.end();
  });
}

export const READERS: Record<string, (text: string) => Quad[] | Promise<Quad[]>> = {
  'text/turtle': (text) => fromN3(text, 'Turtle'),
  'application/trig': (text) => fromN3(text, 'TriG'),
  'application/n-triples': (text) => fromN3(text, 'N-Triples'),
  'application/n-quads': (text) => fromN3(text, 'N-Quads'),
  'application/ld+json': (text) => fromJsonLd(text),
  'application/rdf+xml': (text) => fromRdfXml(text),
};

/** Reads every representation and expects one graph; returns it. */
export async function sameGraphInEveryFormat(
  fetch: (accept: string) => Promise<{ statusCode: number; body: string }>,
  what: string,
): Promise<Quad[]> {
  const graphs: Quad[][] = [];
  for (const [mediaType, read] of Object.entries(READERS)) {
    const response = await fetch(mediaType);
    expect(response.statusCode, `${what} ${mediaType}`).toBe(200);
    graphs.push(await read(response.body));
  }
  const [first, ...rest] = graphs as [Quad[], ...Quad[][]];
  for (const [index, graph] of rest.entries()) {
    const format = Object.keys(READERS)[index + 1];
    expect(graph.length, `${what} ${format}`).toBe(first.length);
    expect(isomorphic(first, graph), `${what} ${format}`).toBe(true);
  }
  return first;
}

const XSD_DATE_TIME = 'http://www.w3.org/2001/XMLSchema#dateTime';

/**
 * Triples with each xsd:dateTime in its canonical form (no trailing zeros in
 * the fraction of a second, none at all when it is zero), as Virtuoso keeps
 * them: the same values, the spelling a store chooses.
 */
export function withCanonicalDateTimes(triples: readonly Quad[]): Quad[] {
  return triples.map((triple) => {
    const object = triple.object;
    if (object.termType !== 'Literal' || object.datatype.value !== XSD_DATE_TIME) return triple;
    const canonical = object.value
      .replace(/(\.\d*?)0+(?=Z|[+-]\d\d:\d\d|$)/, '$1')
      .replace(/\.(?=Z|[+-]|$)/, '');
    return quad(
      triple.subject,
      triple.predicate,
      DataFactory.literal(canonical, object.datatype),
      triple.graph,
    );
  });
}
