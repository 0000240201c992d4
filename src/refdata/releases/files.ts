import { createHash } from 'node:crypto';
import { createGzip } from 'node:zlib';
import type { Quad } from 'n3';
import { inStep } from '../../platform/streams/in-step.js';
import type { Refdata } from '../context.js';
import { RDF_FORMATS, type RdfMediaType } from '../rdf/serialize.js';
import { releaseChunks } from './graph.js';
import type { ReleaseFile, ReleaseRow } from './store.js';

/**
 * The formats a release is written in as files, by their short names: one of
 * each kind of syntax (TriG and N-Quads would say the same as Turtle and
 * N-Triples, in the default graph). Its IRI answers every format.
 */
export const FILE_FORMATS: readonly RdfMediaType[] = [
  'text/turtle',
  'application/n-triples',
  'application/rdf+xml',
  'application/ld+json',
];

/** The file extension of each format a file is written in. */
const EXTENSIONS: Record<string, string> = { ttl: 'ttl', nt: 'nt', rdf: 'rdf', jsonld: 'jsonld' };

export function formatOfShortName(shortName: string): RdfMediaType | undefined {
  return FILE_FORMATS.find((mediaType) => RDF_FORMATS[mediaType].shortName === shortName);
}

/** A release's file name: the library's last IRI segment, the version, the extension. */
export function fileName(release: ReleaseRow, shortName: string): string {
  const library = release.library_iri.slice(release.library_iri.lastIndexOf('/') + 1);
  return `${library}-${release.version}.${EXTENSIONS[shortName] ?? shortName}`;
}

/** The short name of the format a file name (as `fileName` makes it) is in. */
export function shortNameOfFile(release: ReleaseRow, name: string): string | undefined {
  return FILE_FORMATS.map((mediaType) => RDF_FORMATS[mediaType].shortName).find(
    (shortName) => fileName(release, shortName) === name,
  );
}

/**
 * Writes a release in one format, as it streams, into its checksum (SHA-256
 * of the bytes as downloaded), its size and its gzipped bytes: what is stored
 * and served for as long as the release lives.
 */
export async function writeFile(
  chunks: AsyncIterable<Quad[]>,
  mediaType: RdfMediaType,
): Promise<ReleaseFile> {
  const format = RDF_FORMATS[mediaType];
  const hash = createHash('sha256');
  const gzip = createGzip({ level: 6 });
  const compressed: Buffer[] = [];
  gzip.on('data', (piece: Buffer) => compressed.push(piece));
  const ended = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
  });
  let byteSize = 0;
  for await (const piece of format.stream(chunks)) {
    const bytes = typeof piece === 'string' ? Buffer.from(piece) : (piece as Buffer);
    hash.update(bytes);
    byteSize += bytes.length;
    if (!gzip.write(bytes)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await ended;
  return {
    format: format.shortName,
    sha256: hash.digest('hex'),
    byteSize,
    gzipped: Buffer.concat(compressed),
  };
}

/**
 * A release's files, writing and storing first any not stored yet: all of
 * them when the release is made, and after a crash between its commit and its
 * files, whichever was not written.
 */
export async function releaseFiles(
  refdata: Refdata,
  release: ReleaseRow,
): Promise<Omit<ReleaseFile, 'gzipped'>[]> {
  const stored = await refdata.releases.fileList(release.id);
  if (stored.length === FILE_FORMATS.length) return stored;
  const have = new Set(stored.map((file) => file.format));
  const missing = FILE_FORMATS.filter((mediaType) => !have.has(RDF_FORMATS[mediaType].shortName));
  // One reading of the members feeds every file, in step.
  const sources = inStep(releaseChunks(refdata, release), missing.length);
  const written = await Promise.all(
    missing.map((mediaType, index) =>
      writeFile(sources[index] as AsyncIterable<Quad[]>, mediaType),
    ),
  );
  for (const file of written) await refdata.releases.addFile(release.id, file);
  return refdata.releases.fileList(release.id);
}
