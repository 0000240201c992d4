import type { GraphBuilder } from './graph.js';
import { imf, owl, rdf, rdfs, sh } from './vocabulary.js';

export interface Reference {
  entityUri: string;
  minCardinality: number;
  maxCardinality?: number;
}

/** An OWL class and its superclasses. */
export function classTyped(g: GraphBuilder, superclasses: readonly string[]) {
  g.about(rdf('type'), owl('Class'));
  for (const iri of superclasses) g.about(rdfs('subClassOf'), g.iri(iri));
}

/**
 * IMF's shape for an aspect: `sh:property [sh:path imf:hasAspect; sh:hasValue ...]`,
 * and (beyond PCA's shapes) at most one aspect.
 */
export function aspectShape(g: GraphBuilder, aspect: string) {
  const shape = g.node();
  g.about(sh('property'), shape);
  g.add(shape, sh('path'), imf('hasAspect'))
    .add(shape, sh('hasValue'), g.iri(aspect))
    .add(shape, sh('maxCount'), g.integer(1))
    .add(shape, sh('nodeKind'), sh('IRI'));
}

/** An attribute reference: `sh:property [sh:path <attribute>; sh:minCount m; sh:maxCount n]`. */
export function attributeShapes(g: GraphBuilder, refs: readonly Reference[]) {
  for (const ref of refs) {
    const shape = g.node();
    g.about(sh('property'), shape);
    g.add(shape, sh('path'), g.iri(ref.entityUri)).add(
      shape,
      sh('minCount'),
      g.integer(ref.minCardinality),
    );
    if (ref.maxCardinality !== undefined)
      g.add(shape, sh('maxCount'), g.integer(ref.maxCardinality));
    g.add(shape, sh('nodeKind'), sh('IRIOrLiteral'));
  }
}

/**
 * A terminal or part reference as a qualified value shape on `path`. The
 * `sh:minCount 0` constrains nothing; it is there because the IMF authors' types
 * grammar requires every property shape to state `sh:hasValue` or `sh:minCount`.
 */
export function qualifiedShapes(
  g: GraphBuilder,
  path: 'hasTerminal' | 'hasPart',
  refs: readonly Reference[],
) {
  for (const ref of refs) {
    const shape = g.node();
    const valueShape = g.node();
    g.about(sh('property'), shape);
    g.add(shape, sh('path'), imf(path))
      .add(shape, sh('minCount'), g.integer(0))
      .add(shape, sh('nodeKind'), sh('IRI'));
    g.add(shape, sh('qualifiedValueShape'), valueShape).add(
      valueShape,
      sh('class'),
      g.iri(ref.entityUri),
    );
    g.add(shape, sh('qualifiedMinCount'), g.integer(ref.minCardinality));
    if (ref.maxCardinality !== undefined)
      g.add(shape, sh('qualifiedMaxCount'), g.integer(ref.maxCardinality));
  }
}

/** What IMF terminal and block types share: types, classifiers, aspect, attributes. */
export function imfTypeTriples(
  g: GraphBuilder,
  body: {
    classification?: readonly string[];
    referenceTerms: readonly string[];
    aspect: string;
    attributeReferences: readonly Reference[];
  },
  kind: 'TerminalType' | 'BlockType',
) {
  g.about(rdf('type'), imf(kind))
    .about(rdf('type'), sh('NodeShape'))
    .about(rdf('type'), rdfs('Class'));
  g.about(rdfs('subClassOf'), imf(kind === 'TerminalType' ? 'Terminal' : 'Block'));
  for (const iri of body.classification ?? []) g.about(imf('classifier'), g.iri(iri));
  for (const iri of body.referenceTerms) g.about(imf('reference'), g.iri(iri));
  aspectShape(g, body.aspect);
  attributeShapes(g, body.attributeReferences);
}
