import jsonld from 'jsonld';
import { type Quad, Writer } from 'n3';
import * as oxigraph from 'oxigraph';
import { prefixes } from './vocabulary.js';

/** The RDF serializations a resource is offered in, by media type. */
export const RDF_MEDIA_TYPES = [
  'application/ld+json',
  'text/turtle',
  'application/trig',
  'application/n-triples',
  'application/rdf+xml',
  'application/n-quads',
] as const;
export type RdfMediaType = (typeof RDF_MEDIA_TYPES)[number];

const N3_FORMATS: Partial<Record<RdfMediaType, string>> = {
  'text/turtle': 'Turtle',
  'application/trig': 'TriG',
  'application/n-triples': 'N-Triples',
  'application/n-quads': 'N-Quads',
};

/** The JSON-LD context: our prefixes, so compacted output reads like the Turtle. */
export function jsonLdContext(iriBase: string): Record<string, string> {
  return prefixes(iriBase);
}

function writeWithN3(quads: readonly Quad[], format: string, iriBase: string): Promise<string> {
  const lineBased = format === 'N-Triples' || format === 'N-Quads';
  const writer = new Writer({ format, ...(lineBased ? {} : { prefixes: prefixes(iriBase) }) });
  writer.addQuads([...quads]);
  return new Promise((resolve, reject) =>
    writer.end((error, result) => (error ? reject(error) : resolve(result))),
  );
}

function toOxigraph(term: Quad['subject'] | Quad['predicate'] | Quad['object'] | Quad['graph']) {
  switch (term.termType) {
    case 'NamedNode':
      return oxigraph.namedNode(term.value);
    case 'BlankNode':
      return oxigraph.blankNode(term.value);
    case 'Literal':
      return term.language
        ? oxigraph.literal(term.value, term.language)
        : oxigraph.literal(term.value, oxigraph.namedNode(term.datatype.value));
    default:
      return oxigraph.defaultGraph();
  }
}

/** RDF/XML through oxigraph (n3 has no RDF/XML writer and would quietly write Turtle). */
function writeRdfXml(quads: readonly Quad[]): string {
  const store = new oxigraph.Store(
    quads.map((quad) =>
      oxigraph.quad(
        toOxigraph(quad.subject) as oxigraph.NamedNode,
        toOxigraph(quad.predicate) as oxigraph.NamedNode,
        toOxigraph(quad.object) as oxigraph.NamedNode,
      ),
    ),
  );
  return store.dump({ format: 'application/rdf+xml', from_graph_name: oxigraph.defaultGraph() });
}

/** Compacted JSON-LD with the context inline, so it expands without fetching anything. */
async function writeJsonLd(quads: readonly Quad[], iriBase: string): Promise<string> {
  const expanded = await jsonld.fromRDF(quads as never, { useNativeTypes: false });
  const compacted = await jsonld.compact(expanded, jsonLdContext(iriBase), {
    documentLoader: async (url: string) => {
      throw new Error(`refusing to fetch ${url}: contexts are local`);
    },
  } as never);
  return JSON.stringify(compacted, null, 2);
}

export async function serialize(
  quads: readonly Quad[],
  mediaType: RdfMediaType,
  iriBase: string,
): Promise<string> {
  if (mediaType === 'application/ld+json') return writeJsonLd(quads, iriBase);
  if (mediaType === 'application/rdf+xml') return writeRdfXml(quads);
  return writeWithN3(quads, N3_FORMATS[mediaType] as string, iriBase);
}
