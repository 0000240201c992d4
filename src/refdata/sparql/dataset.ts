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

/**
 * Resources' quads as N-Quads: exactly the triples each one's own RDF gives
 * (`resourceGraph`), in its library's graph. Blank nodes are the resource's own;
 * the store names them afresh on every load.
 */
export function resourceQuads(
  context: { families: FamilyRegistry; iriBase: string },
  rows: readonly RowWithFacts[],
): Promise<string> {
  const quads: Quad[] = [];
  const facts = factsOf(rows);
  for (const row of rows) {
    const graph = namedNode(graphOf(row, context.iriBase));
    for (const triple of resourceGraph(context, row, [], facts))
      quads.push(quad(triple.subject, triple.predicate, triple.object, graph));
  }
  const writer = new Writer({ format: 'N-Quads' });
  writer.addQuads(quads);
  return new Promise((resolve, reject) => {
    writer.end((error, text: string) => (error ? reject(error) : resolve(text)));
  });
}

/** What each view holds of these rows, as N-Quads: the published ones, and all of them. */
export async function viewQuads(
  context: { families: FamilyRegistry; iriBase: string },
  rows: readonly RowWithFacts[],
): Promise<Record<View, string>> {
  const published = rows.filter((row) => PUBLISHED_STATUSES.includes(row.status));
  return {
    published: await resourceQuads(context, published),
    working: await resourceQuads(context, rows),
  };
}
