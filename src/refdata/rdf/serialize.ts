import { once } from 'node:events';
import { Readable } from 'node:stream';
import { type Quad, StreamWriter, Writer } from 'n3';
import { JsonLdWriter } from './jsonld-writer.js';
import { preparePrefixes, writeAll } from './prefixed-writer.js';
import { RDF_XML_FOOTER, RDF_XML_HEADER, RdfXmlWriter } from './rdfxml.js';
import { PREFIXES } from './vocabulary.js';

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

/** The prefix block and matcher for single documents, built once. */
const PREPARED_PREFIXES = preparePrefixes(PREFIXES);

const N3_FORMATS: Partial<Record<RdfMediaType, string>> = {
  'text/turtle': 'Turtle',
  'application/trig': 'TriG',
  'application/n-triples': 'N-Triples',
  'application/n-quads': 'N-Quads',
};

/**
 * Writes chunks of quads as they come, so a graph of any size is never one string:
 * n3's StreamWriter for Turtle, TriG, N-Triples and N-Quads, and our own writers
 * for JSON-LD and RDF/XML, each chunk placed inside one document.
 */
export function serializeStream(chunks: AsyncIterable<Quad[]>, mediaType: RdfMediaType): Readable {
  const n3Format = N3_FORMATS[mediaType];
  if (n3Format) {
    const lineBased = n3Format === 'N-Triples' || n3Format === 'N-Quads';
    const writer = new StreamWriter({
      format: n3Format,
      ...(lineBased ? {} : { prefixes: PREFIXES }),
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
  // Text, not objects: the stream then holds at most about this much ahead of
  // the socket (one chunk's text), however slowly the client reads.
  const asText = { objectMode: false, highWaterMark: 64 * 1024 };
  if (mediaType === 'application/rdf+xml') {
    return Readable.from(
      (async function* () {
        const writer = new RdfXmlWriter();
        yield RDF_XML_HEADER;
        for await (const chunk of chunks) yield* writer.write(chunk);
        yield RDF_XML_FOOTER;
      })(),
      asText,
    );
  }
  return Readable.from(
    (async function* () {
      const writer = new JsonLdWriter(PREFIXES);
      yield writer.header();
      for await (const chunk of chunks) yield* writer.write(chunk);
      yield writer.footer();
    })(),
    asText,
  );
}

/**
 * One resource's quads as a document, in one piece: for a graph this small a
 * stream costs more than the writing.
 */
export function serializeToString(
  quads: readonly Quad[],
  mediaType: RdfMediaType,
): Promise<string> {
  const n3Format = N3_FORMATS[mediaType];
  if (n3Format === 'Turtle' || n3Format === 'TriG') return PREPARED_PREFIXES.write(quads, n3Format);
  if (n3Format) return writeAll(new Writer({ format: n3Format }), quads);
  if (mediaType === 'application/rdf+xml') {
    return Promise.resolve(
      `${RDF_XML_HEADER}${new RdfXmlWriter().write(quads).join('')}${RDF_XML_FOOTER}`,
    );
  }
  const writer = new JsonLdWriter(PREFIXES);
  return Promise.resolve(`${writer.header()}${writer.write(quads).join('')}${writer.footer()}`);
}
