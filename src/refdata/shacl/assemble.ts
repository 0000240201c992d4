import { DataFactory, type Quad, type Quad_Object, type Quad_Subject } from 'n3';
import type { Refdata } from '../context.js';
import { resourceGraph } from '../rdf/resource-graph.js';
import type { ResourceRow } from '../resources/rows.js';

const { blankNode, quad } = DataFactory;

interface Reference {
  entityUri: string;
}

/** The types a block or terminal type refers to: attribute, terminal and part types. */
function referencesOf(row: ResourceRow): string[] {
  const body = JSON.parse(row.body) as Record<string, unknown>;
  const lists = ['attributeReferences', 'terminalReferences', 'hasPartBlockReferences'];
  return lists.flatMap((field) =>
    ((body[field] ?? []) as Reference[]).map((reference) => reference.entityUri),
  );
}

/**
 * Gives blank nodes labels by order of first appearance, so the same content
 * always serializes to the same bytes.
 */
function stableBlankNodes(quads: readonly Quad[]): Quad[] {
  const labels = new Map<string, string>();
  const label = <T extends Quad_Subject | Quad_Object>(term: T): T => {
    if (term.termType !== 'BlankNode') return term;
    let name = labels.get(term.value);
    if (!name) {
      name = `b${labels.size}`;
      labels.set(term.value, name);
    }
    return blankNode(name) as T;
  };
  return quads.map((q) => quad(label(q.subject), q.predicate, label(q.object)));
}

/**
 * The complete SHACL of an IMF block or terminal type: its own shape, and that of
 * every block, terminal and attribute type it reaches through its references,
 * each once (cycles end there), in IRI order, with status and provenance.
 */
export async function completeShacl(refdata: Refdata, root: ResourceRow): Promise<Quad[]> {
  const found = new Map<string, ResourceRow>([[root.iri, root]]);
  let frontier = [root];
  while (frontier.length > 0) {
    const wanted = [...new Set(frontier.flatMap(referencesOf))].filter((iri) => !found.has(iri));
    const rows =
      wanted.length === 0
        ? []
        : await refdata.db.selectFrom('resources').selectAll().where('iri', 'in', wanted).execute();
    for (const row of rows) found.set(row.iri, row);
    frontier = rows.filter((row) => row.family === 'imf-block' || row.family === 'imf-terminal');
  }
  const rows = [...found.values()].sort((a, b) => (a.iri < b.iri ? -1 : a.iri > b.iri ? 1 : 0));
  const justifications = await refdata.store.graphFacts(rows);
  return stableBlankNodes(rows.flatMap((row) => resourceGraph(refdata, row, [], justifications)));
}
