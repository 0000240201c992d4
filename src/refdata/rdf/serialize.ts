import { once } from 'node:events';
import { Readable } from 'node:stream';
import jsonld from 'jsonld';
import { type Quad, StreamWriter, Writer } from 'n3';
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

/**
 * RDF/XML through oxigraph (n3 has no RDF/XML writer and would quietly write
 * Turtle). The quads reach oxigraph as N-Triples text in one bulk load, which is
 * many times faster than building its terms one call at a time.
 */
function writeRdfXml(quads: readonly Quad[]): string {
  const store = new oxigraph.Store();
  store.load(new Writer({ format: 'N-Triples' }).quadsToString([...quads]), {
    format: 'application/n-triples',
    no_transaction: true,
  });
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

const RDF_XML_HEADER =
  '<?xml version="1.0" encoding="UTF-8"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:its="http://www.w3.org/2005/11/its">\n';

/** The descriptions inside one oxigraph RDF/XML document, without its wrapper. */
function rdfXmlBody(document: string): string {
  const open = document.indexOf('<rdf:RDF');
  const start = document.indexOf('>', open) + 1;
  const end = document.lastIndexOf('</rdf:RDF>');
  return open < 0 || end < start ? '' : document.slice(start, end);
}

/**
 * Writes chunks of quads as they come, so a graph of any size is never one string:
 * n3's StreamWriter for Turtle, TriG, N-Triples and N-Quads; for JSON-LD and RDF/XML
 * each chunk is written on its own and placed inside one document.
 */
export function serializeStream(
  chunks: AsyncIterable<Quad[]>,
  mediaType: RdfMediaType,
  iriBase: string,
): Readable {
  const n3Format = N3_FORMATS[mediaType];
  if (n3Format) {
    const lineBased = n3Format === 'N-Triples' || n3Format === 'N-Quads';
    const writer = new StreamWriter({
      format: n3Format,
      ...(lineBased ? {} : { prefixes: prefixes(iriBase) }),
    });
    (async () => {
      for await (const chunk of chunks) {
        for (const quad of chunk) {
          if (!writer.write(quad)) await once(writer, 'drain');
        }
      }
      writer.end();
    })().catch((error: unknown) => writer.destroy(error as Error));
    return writer;
  }
  if (mediaType === 'application/rdf+xml') {
    return Readable.from(
      (async function* () {
        yield RDF_XML_HEADER;
        for await (const chunk of chunks) yield rdfXmlBody(writeRdfXml(chunk));
        yield '</rdf:RDF>\n';
      })(),
    );
  }
  return Readable.from(
    (async function* () {
      const context = jsonLdContext(iriBase);
      yield `{\n  "@context": ${JSON.stringify(context)},\n  "@graph": [`;
      let first = true;
      for await (const chunk of chunks) {
        if (chunk.length === 0) continue;
        const compacted = JSON.parse(await writeJsonLd(chunk, iriBase)) as Record<string, unknown>;
        const { '@context': _context, '@graph': graph, ...single } = compacted;
        for (const node of Array.isArray(graph) ? graph : [single]) {
          yield `${first ? '\n' : ',\n'}    ${JSON.stringify(node)}`;
          first = false;
        }
      }
      yield '\n  ]\n}\n';
    })(),
  );
}
