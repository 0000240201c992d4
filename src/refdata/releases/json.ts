import { Type } from '@sinclair/typebox';
import type { Refdata } from '../context.js';
import { RDF_FORMATS } from '../rdf/serialize.js';
import { FILE_FORMATS, fileName, releaseFiles } from './files.js';
import type { ReleaseRow } from './store.js';
import { releasePath } from './versions.js';

/** A release as JSON: what `POST /releases`, `GET /releases` and its IRI answer. */
export const ReleaseJson = Type.Object({
  iri: Type.String({ description: 'Its IRI (owl:versionIRI)' }),
  library: Type.String(),
  version: Type.String({ description: 'owl:versionInfo' }),
  notes: Type.String(),
  releasedAt: Type.String({ format: 'date-time' }),
  releasedBy: Type.String(),
  resources: Type.Integer({ description: 'The library, its terms and their values' }),
  files: Type.Array(
    Type.Object({
      name: Type.String(),
      mediaType: Type.String(),
      url: Type.String(),
      byteSize: Type.Integer(),
      sha256: Type.String(),
    }),
  ),
  links: Type.Object({
    self: Type.String(),
    dcat: Type.String(),
    latest: Type.String(),
    previous: Type.Union([Type.String(), Type.Null()]),
    changesFromPrevious: Type.Union([Type.String(), Type.Null()]),
  }),
});

/** The public URL of a path of a release. */
function releaseUrl(refdata: Refdata, release: ReleaseRow, rest = ''): string {
  return `${refdata.publicUrl}${releasePath(refdata, release.iri)}${rest}`;
}

/**
 * A release as JSON. `repair` writes a file a crash left unwritten first (a
 * release's own address does; a list only says what is stored).
 */
export async function releaseJson(refdata: Refdata, release: ReleaseRow, repair = false) {
  const [files, previous] = await Promise.all([
    repair ? releaseFiles(refdata, release) : refdata.releases.fileList(release.id),
    refdata.releases.previous(release),
  ]);
  const libraryPath = releasePath(refdata, release.library_iri);
  return {
    iri: release.iri,
    library: release.library_iri,
    version: release.version,
    notes: release.notes,
    releasedAt: new Date(Number(release.released_at)).toISOString(),
    releasedBy: release.released_by,
    resources: release.resource_count,
    files: FILE_FORMATS.flatMap((mediaType) => {
      const format = RDF_FORMATS[mediaType];
      const file = files.find((stored) => stored.format === format.shortName);
      if (!file) return [];
      const name = fileName(release, format.shortName);
      return [
        {
          name,
          mediaType,
          url: releaseUrl(refdata, release, `/files/${encodeURIComponent(name)}`),
          byteSize: file.byteSize,
          sha256: file.sha256,
        },
      ];
    }),
    links: {
      self: releaseUrl(refdata, release),
      dcat: releaseUrl(refdata, release, '/dcat'),
      latest: `${refdata.publicUrl}${libraryPath}/releases/latest`,
      previous: previous ? releaseUrl(refdata, previous) : null,
      changesFromPrevious: previous
        ? `${refdata.publicUrl}/releases/changes?${new URLSearchParams({
            library: release.library_iri,
            from: previous.version,
            to: release.version,
          }).toString()}`
        : null,
    },
  };
}
