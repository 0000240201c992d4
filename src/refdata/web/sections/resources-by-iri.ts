import type { Refdata } from '../../context.js';
import type { ResourceRow } from '../../resources/rows.js';

/** Stored resources by IRI, for a section that names what a resource refers to. */
export async function resourcesByIri(
  refdata: Refdata,
  iris: readonly string[],
  visible: readonly string[] | undefined,
): Promise<Map<string, ResourceRow>> {
  const unique = [...new Set(iris)];
  if (unique.length === 0) return new Map();
  const rows = await refdata.db
    .selectFrom('resources')
    .selectAll()
    .where('iri', 'in', unique)
    .execute();
  return new Map(
    rows
      .filter((row) => visible === undefined || visible.includes(row.status))
      .map((row) => [row.iri, row]),
  );
}

/** The last segment of an IRI, for vocabulary terms shown in words (`imf:maximumQualifier`). */
export function localName(iri: string): string {
  return iri.slice(Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/')) + 1);
}
