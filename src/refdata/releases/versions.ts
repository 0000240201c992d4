import semver from 'semver';

export const MAX_VERSION_LENGTH = 64;
export const MAX_NOTES_LENGTH = 20000;

/**
 * What is wrong with a version a release is asked for, or undefined: it must be
 * a semantic version (semver.org 2.0.0) as written, without a leading "v" or
 * build metadata (which orders nothing), and come after `latest`.
 */
export function versionProblem(version: string, latest: string | undefined): string | undefined {
  if (version.length > MAX_VERSION_LENGTH)
    return `must be at most ${MAX_VERSION_LENGTH} characters`;
  if (semver.valid(version) !== version)
    return 'must be a semantic version, such as 1.0.0 or 2.1.0-rc.1 (semver.org)';
  if (latest !== undefined && !semver.gt(version, latest))
    return `must come after the latest release, ${latest}`;
  return undefined;
}

/** A release's IRI: its library's, then `/releases/` and the version (docs/releases.md). */
export function releaseIri(libraryIri: string, version: string): string {
  return `${libraryIri}/releases/${version}`;
}

/** A path on this service for an IRI it mints (under the IRI base). */
export function releasePath(refdata: { iriBase: string }, iri: string): string {
  return iri.startsWith(refdata.iriBase) ? iri.slice(refdata.iriBase.length) : iri;
}
