import type { Refdata } from '../../context.js';
import type { ResourceRow } from '../../resources/rows.js';

/** Stored resources by IRI, for a section that names what a resource refers to. */
export function resourcesByIri(
  refdata: Refdata,
  iris: readonly string[],
  visible: readonly string[] | undefined,
): Promise<Map<string, ResourceRow>> {
  return refdata.store.byIri(iris, visible);
}

/** The last segment of an IRI, for vocabulary terms shown in words (`imf:maximumQualifier`). */
export function localName(iri: string): string {
  return iri.slice(Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/')) + 1);
}
