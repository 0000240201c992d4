import { DataFactory, type Quad } from 'n3';
import type { Refdata } from '../context.js';
import { RDF_FORMATS } from '../rdf/serialize.js';
import { dcterms, owl, rdf, xsd } from '../rdf/vocabulary.js';
import { FILE_FORMATS, fileName } from './files.js';
import type { ReleaseFile, ReleaseRow } from './store.js';
import { releasePath } from './versions.js';

const { namedNode, literal, quad, blankNode } = DataFactory;
const DCAT = 'http://www.w3.org/ns/dcat#';
const SPDX = 'http://spdx.org/rdf/terms#';
const dcat = (local: string) => namedNode(`${DCAT}${local}`);
const spdx = (local: string) => namedNode(`${SPDX}${local}`);
/** IANA's registry names media types by IRI, as DCAT-AP asks for `dcat:mediaType`. */
const iana = (mediaType: string) =>
  namedNode(`http://www.iana.org/assignments/media-types/${mediaType}`);

/**
 * A release described with DCAT 3: a `dcat:Dataset` (the release, a version
 * of its library) with a `dcat:Distribution` per file, each with its download
 * URL, media type, size and SHA-256 checksum (SPDX, as DCAT 3 and DCAT-AP use).
 */
export function dcatQuads(
  refdata: Refdata,
  release: ReleaseRow,
  libraryName: string,
  files: readonly Omit<ReleaseFile, 'gzipped'>[],
): Quad[] {
  const dataset = namedNode(release.iri);
  const issued = literal(new Date(Number(release.released_at)).toISOString(), xsd('dateTime'));
  const quads: Quad[] = [
    quad(dataset, rdf('type'), dcat('Dataset')),
    quad(dataset, dcterms('title'), literal(`${libraryName} ${release.version}`, 'en')),
    quad(dataset, dcterms('description'), literal(release.notes, 'en')),
    quad(dataset, dcterms('issued'), issued),
    quad(dataset, dcat('version'), literal(release.version)),
    quad(dataset, owl('versionInfo'), literal(release.version)),
    quad(dataset, dcterms('isVersionOf'), namedNode(release.library_iri)),
    quad(
      dataset,
      dcat('landingPage'),
      namedNode(`${refdata.publicUrl}${releasePath(refdata, release.iri)}`),
    ),
  ];
  for (const mediaType of FILE_FORMATS) {
    const format = RDF_FORMATS[mediaType];
    const file = files.find((stored) => stored.format === format.shortName);
    if (!file) continue;
    const name = fileName(release, format.shortName);
    const url = namedNode(
      `${refdata.publicUrl}${releasePath(refdata, release.iri)}/files/${encodeURIComponent(name)}`,
    );
    const checksum = blankNode();
    quads.push(
      quad(dataset, dcat('distribution'), url),
      quad(url, rdf('type'), dcat('Distribution')),
      quad(
        url,
        dcterms('title'),
        literal(`${libraryName} ${release.version} (${format.label})`, 'en'),
      ),
      quad(url, dcat('downloadURL'), url),
      quad(url, dcat('accessURL'), url),
      quad(url, dcat('mediaType'), iana(mediaType)),
      quad(url, dcat('byteSize'), literal(String(file.byteSize), xsd('nonNegativeInteger'))),
      quad(url, dcterms('issued'), issued),
      quad(url, spdx('checksum'), checksum),
      quad(checksum, rdf('type'), spdx('Checksum')),
      quad(checksum, spdx('algorithm'), spdx('checksumAlgorithm_sha256')),
      quad(checksum, spdx('checksumValue'), literal(file.sha256, xsd('hexBinary'))),
    );
  }
  return quads;
}
