import { DataFactory, type Quad, Writer } from 'n3';
import { isLibrary } from '../families/family.js';
import type { FamilyRegistry } from '../families/registry.js';
import { resourceGraph } from '../rdf/resource-graph.js';
import { factsOf, type RowWithFacts } from '../resources/rows.js';
import { RESOURCE_MARK } from './engine-calls.js';

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

/** One writer for every row: N-Quads and N-Triples have no prefixes or state between lines. */
const NQUADS = new Writer({ format: 'N-Quads' });
const NTRIPLES = new Writer({ format: 'N-Triples' });

/**
 * Each row's triples, exactly those its own RDF gives (`resourceGraph`), and
 * the graph they are in. Blank nodes are the resource's own; a store names
 * them afresh on every load.
 */
function rowTriples(
  context: { families: FamilyRegistry; iriBase: string },
  rows: readonly RowWithFacts[],
): { graph: string; triples: Quad[] }[] {
  const facts = factsOf(rows);
  return rows.map((row) => ({
    graph: graphOf(row, context.iriBase),
    triples: resourceGraph(context, row, [], facts),
  }));
}

/** Each row's quads as N-Quads, in its library's graph, after a comment naming the row. */
function rowQuads(
  context: { families: FamilyRegistry; iriBase: string },
  rows: readonly RowWithFacts[],
): string[] {
  return rowTriples(context, rows).map(({ graph, triples }, at) => {
    const named = namedNode(graph);
    // Marked by its resource, so that a store can load the others when one cannot be read.
    return `${RESOURCE_MARK}${rows[at]?.iri ?? ''}\n${NQUADS.quadsToString(
      triples.map((triple) => quad(triple.subject, triple.predicate, triple.object, named)),
    )}`;
  });
}

/**
 * The published rows' triples as N-Triples, graph by graph: what an external
 * store is sent through the Graph Store Protocol.
 */
export function publishedTriplesByGraph(
  context: { families: FamilyRegistry; iriBase: string },
  rows: readonly RowWithFacts[],
): Map<string, string> {
  const published = rows.filter((row) => PUBLISHED_STATUSES.includes(row.status));
  const byGraph = new Map<string, string>();
  for (const { graph, triples } of rowTriples(context, published))
    byGraph.set(graph, (byGraph.get(graph) ?? '') + NTRIPLES.quadsToString(triples));
  return byGraph;
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
