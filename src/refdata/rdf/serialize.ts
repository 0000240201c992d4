import { once } from 'node:events';
import { Readable } from 'node:stream';
import { type Quad, StreamWriter, Writer } from 'n3';
import { JsonLdWriter } from './jsonld-writer.js';
import { preparePrefixes, writeAll } from './prefixed-writer.js';
import { RDF_XML_FOOTER, RDF_XML_HEADER, RdfXmlWriter } from './rdfxml.js';
import { StableBlankNodes } from './stable-blank-nodes.js';
import { PREFIXES } from './vocabulary.js';

/** The RDF serializations a resource is offered in, by media type, in the order offered. */
export const RDF_MEDIA_TYPES = [
  'application/ld+json',
  'text/turtle',
  'application/trig',
  'application/n-triples',
  'application/rdf+xml',
  'application/n-quads',
] as const;
export type RdfMediaType = (typeof RDF_MEDIA_TYPES)[number];

/**
 * An RDF serialization, whole: how it is named (media type, the short name of
 * download links and ETags, a label), the Content-Type it is sent with, and
 * how it writes: a small graph in one piece (`write`), a graph of any size as it
 * comes (`stream`, never one string). Chosen once per answer.
 */
export interface RdfFormat {
  mediaType: RdfMediaType;
  shortName: string;
  label: string;
  /** The whole header value; RDF/XML declares its encoding in the document instead. */
  contentType: string;
  write(quads: readonly Quad[]): Promise<string>;
  stream(chunks: AsyncIterable<Quad[]>): Readable;
}

/** The prefix block and matcher for single documents, built once. */
const PREPARED_PREFIXES = preparePrefixes(PREFIXES);

/** Text, not objects: a stream then holds at most about this much ahead of the socket. */
const AS_TEXT = { objectMode: false, highWaterMark: 64 * 1024 };

/** Turtle, TriG, N-Triples and N-Quads: n3's writers. */
function n3Format(
  mediaType: RdfMediaType,
  shortName: string,
  format: 'Turtle' | 'TriG' | 'N-Triples' | 'N-Quads',
): RdfFormat {
  const prefixed = format === 'Turtle' || format === 'TriG';
  return {
    mediaType,
    shortName,
    label: format,
    contentType: `${mediaType}; charset=utf-8`,
    write: (quads) =>
      prefixed ? PREPARED_PREFIXES.write(quads, format) : writeAll(new Writer({ format }), quads),
    stream(chunks) {
      const writer = new StreamWriter({ format, ...(prefixed ? { prefixes: PREFIXES } : {}) });
      (async () => {
        for await (const chunk of chunks) {
          for (const quad of chunk) {
            if (!writer.write(quad)) await once(writer, 'drain');
          }
        }
        writer.end();
      })().catch((error: unknown) => writer.destroy(error as Error));
      return writer;
    },
  };
}

/** A writer of our own that places each chunk inside one document. */
interface DocumentWriter {
  header(): string;
  write(quads: readonly Quad[]): Iterable<string>;
  footer(): string;
}

function documentFormat(
  base: Omit<RdfFormat, 'write' | 'stream'>,
  writer: () => DocumentWriter,
): RdfFormat {
  return {
    ...base,
    write(quads) {
      const document = writer();
      return Promise.resolve(
        `${document.header()}${[...document.write(quads)].join('')}${document.footer()}`,
      );
    },
    stream(chunks) {
      return Readable.from(
        (async function* () {
          const document = writer();
          yield document.header();
          for await (const chunk of chunks) yield* document.write(chunk);
          yield document.footer();
        })(),
        AS_TEXT,
      );
    },
  };
}

const rdfXmlDocument = (): DocumentWriter => {
  const writer = new RdfXmlWriter();
  return {
    header: () => RDF_XML_HEADER,
    write: (quads) => writer.write(quads),
    footer: () => RDF_XML_FOOTER,
  };
};

/**
 * A format whose blank nodes are labelled by their order in the document
 * (`StableBlankNodes`), so that the same graph is always the same bytes.
 */
function stable(format: RdfFormat): RdfFormat {
  return {
    ...format,
    write: (quads) => format.write(new StableBlankNodes().relabel(quads)),
    stream(chunks) {
      const labels = new StableBlankNodes();
      return format.stream(
        (async function* () {
          for await (const chunk of chunks) yield labels.relabel(chunk);
        })(),
      );
    },
  };
}

/** Every RDF format, by media type. */
const WRITERS: Readonly<Record<RdfMediaType, RdfFormat>> = {
  'application/ld+json': documentFormat(
    {
      mediaType: 'application/ld+json',
      shortName: 'jsonld',
      label: 'JSON-LD',
      contentType: 'application/ld+json; charset=utf-8',
    },
    () => new JsonLdWriter(PREFIXES),
  ),
  'text/turtle': n3Format('text/turtle', 'ttl', 'Turtle'),
  'application/trig': n3Format('application/trig', 'trig', 'TriG'),
  'application/n-triples': n3Format('application/n-triples', 'nt', 'N-Triples'),
  'application/rdf+xml': documentFormat(
    {
      mediaType: 'application/rdf+xml',
      shortName: 'rdf',
      label: 'RDF/XML',
      contentType: 'application/rdf+xml',
    },
    rdfXmlDocument,
  ),
  'application/n-quads': n3Format('application/n-quads', 'nq', 'N-Quads'),
};

export const RDF_FORMATS: Readonly<Record<RdfMediaType, RdfFormat>> = Object.fromEntries(
  RDF_MEDIA_TYPES.map((mediaType) => [mediaType, stable(WRITERS[mediaType])]),
) as Record<RdfMediaType, RdfFormat>;

/** A graph of any size, written as it comes (see `RdfFormat.stream`). */
export function serializeStream(chunks: AsyncIterable<Quad[]>, mediaType: RdfMediaType): Readable {
  return RDF_FORMATS[mediaType].stream(chunks);
}
