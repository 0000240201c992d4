import type { Principal } from '../auth/tokens.js';
import type { Refdata } from '../context.js';
import { isLibrary } from '../families/family.js';
import { type QualityReport, qualityReport } from '../quality/report.js';
import type { ResourceRow } from '../resources/rows.js';
import { releaseFiles } from './files.js';
import type { ReleaseRow } from './store.js';
import { MAX_NOTES_LENGTH, releaseIri, versionProblem } from './versions.js';

/** Why a release was not made: what the caller sent breaks a rule, field by field. */
export class ReleaseRefused extends Error {
  override readonly name = 'ReleaseRefused';
  constructor(readonly errors: { field: string; detail: string }[]) {
    super(errors.map((error) => `${error.field} ${error.detail}`).join('; '));
  }
}

/** The library's quality report has errors: nothing is released until they are mended. */
export class ReleaseBlocked extends Error {
  override readonly name = 'ReleaseBlocked';
  constructor(readonly report: QualityReport) {
    super(
      `The quality report finds ${report.errors} error${report.errors === 1 ? '' : 's'}; GET /quality?library=${encodeURIComponent(report.subject)} gives it whole.`,
    );
  }
}

/** The caller may not release this library. */
export class ReleaseForbidden extends Error {
  override readonly name = 'ReleaseForbidden';
}

export const RELEASED_BY = 'A library is released by a Reviewer or by the Creator who made it.';

/**
 * Who may release a library: a Reviewer, or the Creator who made it (refdata's
 * roles are service-wide; the library's owner is its author).
 */
export function mayRelease(
  principal: Pick<Principal, 'subject' | 'roles'>,
  library: ResourceRow,
): boolean {
  return (
    principal.roles.includes('Reviewer') ||
    (principal.roles.includes('Creator') && library.created_by === principal.subject)
  );
}

/**
 * Releases a library's published view as `version` with `notes`: checks who
 * asks, the version (it must follow the latest) and the quality report (no
 * errors), stores the release and its members in one transaction, then
 * writes its files.
 */
export async function makeRelease(
  refdata: Refdata,
  ask: {
    library: ResourceRow;
    version: string;
    notes: string;
    principal: Pick<Principal, 'subject' | 'roles'>;
  },
): Promise<ReleaseRow> {
  const { library, version, notes, principal } = ask;
  if (!isLibrary(library))
    throw new ReleaseRefused([{ field: '/library', detail: 'must be the IRI of a library' }]);
  if (!mayRelease(principal, library)) throw new ReleaseForbidden(RELEASED_BY);
  if (notes.length > MAX_NOTES_LENGTH)
    throw new ReleaseRefused([
      { field: '/notes', detail: `must be at most ${MAX_NOTES_LENGTH} characters` },
    ]);
  const latest = await refdata.releases.latest(library.iri);
  const problem = versionProblem(version, latest?.version);
  if (problem !== undefined) throw new ReleaseRefused([{ field: '/version', detail: problem }]);
  const checked = await refdata.releases.changeMarker(library.iri);
  const report = await qualityReport(refdata, { kind: 'release', library });
  if (report.errors > 0) throw new ReleaseBlocked(report);
  const release = await refdata.releases.create({
    iri: releaseIri(library.iri, version),
    libraryIri: library.iri,
    version,
    notes,
    actor: principal.subject,
    at: Date.now(),
    follows: latest,
    checked,
  });
  await releaseFiles(refdata, release);
  return release;
}
