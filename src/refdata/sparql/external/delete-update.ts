import type { Quad, Term } from 'n3';

/**
 * How deep a resource's blank nodes nest: a symbol's shape holds points, a
 * block's reference holds its cardinality. A test holds every family to it
 * (test/refdata/sparql-external.test.ts).
 */
export const BLANK_NODE_DEPTH = 4;

/** How deep blank nodes nest below the named subjects of `triples` (0: none). */
export function blankNodeDepth(triples: readonly Quad[]): number {
  const bySubject = new Map<string, Quad[]>();
  for (const triple of triples) {
    if (triple.subject.termType !== 'BlankNode') continue;
    const list = bySubject.get(triple.subject.value) ?? [];
    list.push(triple);
    bySubject.set(triple.subject.value, list);
  }
  const depth = (node: Term, seen: Set<string>): number => {
    if (node.termType !== 'BlankNode' || seen.has(node.value)) return 0;
    const inner = new Set(seen).add(node.value);
    let deepest = 0;
    for (const triple of bySubject.get(node.value) ?? [])
      deepest = Math.max(deepest, depth(triple.object, inner));
    return 1 + deepest;
  };
  let deepest = 0;
  for (const triple of triples)
    if (triple.subject.termType === 'NamedNode')
      deepest = Math.max(deepest, depth(triple.object, new Set()));
  return deepest;
}

/**
 * A SPARQL Update removing every triple about these resources from whatever
 * graph holds them, with the blank nodes they hold: DELETE DATA takes no blank
 * nodes, so each level below a resource is matched by a path of blank nodes
 * from it, the deepest first, then the resource's own triples.
 */
export function deleteResourcesUpdate(iris: readonly string[]): string {
  const values = `VALUES ?s { ${iris.map((iri) => `<${iri}>`).join(' ')} }`;
  const operations: string[] = [];
  for (let level = BLANK_NODE_DEPTH; level >= 1; level -= 1) {
    const path: string[] = [];
    const blank: string[] = [];
    let from = '?s';
    for (let step = 1; step <= level; step += 1) {
      path.push(`${from} ?p${step} ?b${step} .`);
      blank.push(`isBlank(?b${step})`);
      from = `?b${step}`;
    }
    operations.push(
      `DELETE { GRAPH ?g { ${from} ?bp ?bo } } WHERE { ${values} GRAPH ?g { ${path.join(' ')} ${from} ?bp ?bo . FILTER(${blank.join(' && ')}) } }`,
    );
  }
  operations.push(`DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { ${values} GRAPH ?g { ?s ?p ?o } }`);
  return operations.join(' ;\n');
}
