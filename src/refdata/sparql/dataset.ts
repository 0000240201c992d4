import { DataFactory, type Quad, Writer } from 'n3';
import { isLibrary } from '../families/family.js';
import type { FamilyRegistry } from '../families/registry.js';
import { resourceGraph } from '../rdf/resource-graph.js';
import { factsOf, type RowWithFacts } from '../resources/store.js';

const { namedNode, quad } = DataFactory;

import { PUBLISHED_STATUSES, type View } from '../lifecycle/views.js';

export { PUBLISHED_STATUSES };

/** The graph of the few resources that belong to no library (a symbol may not). */
export function unfiledGraph(iriBase: string): string {
  return `${iriBase}/graphs/without-library`;
}

/**
 * The named graph a resource is in: a library's own graph, named by its IRI,
 * holds the library and every term defined in it (a picklist's values too).
 */
export function graphOf(
  row: Pick<RowWithFacts, 'iri' | 'family' | 'body'>,
  iriBase: string,
): string {
  if (isLibrary(row)) return row.iri;
  const ontology = (JSON.parse(row.body) as { ontology?: unknown }).ontology;
  return typeof ontology === 'string' ? ontology : unfiledGraph(iriBase);
}

/** One writer for every row: N-Quads has no prefixes or state between quads. */
const NQUADS = new Writer({ format: 'N-Quads' });

/**
 * Each row's quads as N-Quads: exactly the triples its own RDF gives
 * (`resourceGraph`), in its library's graph. Blank nodes are the resource's
 * own; the store names them afresh on every load.
 */
function rowQuads(
  context: { families: FamilyRegistry; iriBase: string },
  rows: readonly RowWithFacts[],
): string[] {
  const facts = factsOf(rows);
  return rows.map((row) => {
    const graph = namedNode(graphOf(row, context.iriBase));
    const quads: Quad[] = resourceGraph(context, row, [], facts).map((triple) =>
      quad(triple.subject, triple.predicate, triple.object, graph),
    );
    return NQUADS.quadsToString(quads);
  });
}

/** Resources' quads as N-Quads (see `rowQuads`). */
export function resourceQuads(
  context: { families: FamilyRegistry; iriBase: string },
  rows: readonly RowWithFacts[],
): string {
  return rowQuads(context, rows).join('');
}

/**
 * What each view holds of these rows, as N-Quads: the published ones, and all
 * of them; each row is written once, for both.
 */
export function viewQuads(
  context: { families: FamilyRegistry; iriBase: string },
  rows: readonly RowWithFacts[],
): Record<View, string> {
  const written = rowQuads(context, rows);
  return {
    published: written
      .filter((_text, at) => PUBLISHED_STATUSES.includes(rows[at]?.status ?? 'Draft'))
      .join(''),
    working: written.join(''),
  };
}
