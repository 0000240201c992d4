import type { FamilyKey } from '../families/family.js';
import { DIRECTIONS } from '../imf/vocabulary.js';
import { checkSvgGeometry } from '../symbols/svg.js';
import type { GraphBuilder } from './graph.js';
import { dcterms, imf, owl, rdf, rdfs, sh, skos, sym, xsd } from './vocabulary.js';

type Body = Record<string, unknown>;
type Mapping = (body: Body, g: GraphBuilder) => void;

interface Reference {
  entityUri: string;
  minCardinality: number;
  maxCardinality?: number;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
const references = (value: unknown): Reference[] =>
  Array.isArray(value) ? (value as Reference[]) : [];

function classTyped(g: GraphBuilder, superclasses: string[]) {
  g.about(rdf('type'), owl('Class'));
  for (const iri of superclasses) g.about(rdfs('subClassOf'), g.iri(iri));
}

/**
 * IMF's shape for an aspect: `sh:property [sh:path imf:hasAspect; sh:hasValue ...]`,
 * and (beyond PCA's shapes) at most one aspect.
 */
function aspectShape(g: GraphBuilder, aspect: string) {
  const shape = g.node();
  g.about(sh('property'), shape);
  g.add(shape, sh('path'), imf('hasAspect'))
    .add(shape, sh('hasValue'), g.iri(aspect))
    .add(shape, sh('maxCount'), g.integer(1))
    .add(shape, sh('nodeKind'), sh('IRI'));
}

/** An attribute reference: `sh:property [sh:path <attribute>; sh:minCount m; sh:maxCount n]`. */
function attributeShapes(g: GraphBuilder, refs: Reference[]) {
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
function qualifiedShapes(g: GraphBuilder, path: 'hasTerminal' | 'hasPart', refs: Reference[]) {
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

function imfTypeCommon(g: GraphBuilder, body: Body, kind: 'TerminalType' | 'BlockType') {
  g.about(rdf('type'), imf(kind))
    .about(rdf('type'), sh('NodeShape'))
    .about(rdf('type'), rdfs('Class'));
  g.about(rdfs('subClassOf'), imf(kind === 'TerminalType' ? 'Terminal' : 'Block'));
  for (const iri of strings(body.classification)) g.about(imf('classifier'), g.iri(iri));
  for (const iri of strings(body.referenceTerms)) g.about(imf('reference'), g.iri(iri));
  aspectShape(g, String(body.aspect));
  attributeShapes(g, references(body.attributeReferences));
}

/** The triples each family adds to the common ones (see docs/rdf.md). */
export const FAMILY_MAPPINGS: Record<FamilyKey, Mapping> = {
  library(body, g) {
    g.about(rdf('type'), owl('Ontology'));
    for (const iri of strings(body.upperOntologies)) g.about(owl('imports'), g.iri(iri));
    if (typeof body.cfihosPrefix === 'string')
      g.about(g.our('cfihosPrefix'), g.plain(body.cfihosPrefix));
    if (typeof body.backupFrequency === 'string')
      g.about(g.our('backupFrequency'), g.plain(body.backupFrequency));
  },
  class(body, g) {
    classTyped(g, strings(body.subClassOf));
  },
  property(body, g) {
    const kind = strings(body.types)[0] ?? '';
    g.about(
      rdf('type'),
      kind === 'controlledText' ? owl('ObjectProperty') : owl('DatatypeProperty'),
    );
    g.about(g.our('valueKind'), g.plain(kind));
    if (kind === 'number') {
      g.about(rdfs('range'), xsd('double'));
      if (typeof body.range === 'string') g.about(g.our('dimension'), g.iri(body.range));
    } else if (kind === 'controlledText') {
      if (typeof body.range === 'string') g.about(rdfs('range'), g.iri(body.range));
    } else {
      g.about(rdfs('range'), kind === 'boolean' ? xsd('boolean') : xsd('string'));
    }
  },
  'cfihos-entity'(body, g) {
    classTyped(g, typeof body.superEntity === 'string' ? [body.superEntity] : []);
    g.about(g.our('entityType'), g.plain(String(body.entityType)));
    for (const flag of [
      'requiresSparePartInformation',
      'installedIndicator',
      'isAbstract',
    ] as const) {
      if (typeof body[flag] === 'boolean') g.about(g.our(flag), g.boolean(body[flag]));
    }
    for (const ref of (body.propertyReferences ?? []) as {
      propertyUri: string;
      minCardinality: number;
      maxCardinality: number;
    }[]) {
      const restriction = g.node();
      g.about(rdfs('subClassOf'), restriction);
      g.add(restriction, rdf('type'), owl('Restriction')).add(
        restriction,
        owl('onProperty'),
        g.iri(ref.propertyUri),
      );
      g.add(restriction, owl('minCardinality'), g.nonNegative(ref.minCardinality));
      g.add(restriction, owl('maxCardinality'), g.nonNegative(ref.maxCardinality));
    }
  },
  picklist(body, g) {
    classTyped(g, typeof body.subClassOf === 'string' ? [body.subClassOf] : []);
    g.about(rdf('type'), g.our('Picklist'));
  },
  'picklist-value'(body, g) {
    g.about(rdf('type'), owl('NamedIndividual'));
    if (typeof body.picklist === 'string') g.about(rdf('type'), g.iri(body.picklist));
  },
  unit(body, g) {
    g.about(rdf('type'), owl('NamedIndividual')).about(rdf('type'), g.our('UnitOfMeasure'));
    g.about(g.our('dimension'), g.iri(String(body.dimensionRef)));
    g.about(g.our('measurementSystem'), g.plain(String(body.measurementSystem)));
    g.about(g.our('symbol'), g.plain(String(body.symbol)));
  },
  dimension(body, g) {
    g.about(rdf('type'), owl('NamedIndividual')).about(rdf('type'), g.our('Dimension'));
    g.about(g.our('dimensionCode'), g.plain(String(body.dimensionCode)));
  },
  'imf-attribute'(body, g) {
    // Attribute types are punned: a datatype property and an IMF attribute type.
    g.about(rdf('type'), imf('AttributeType')).about(rdf('type'), owl('DatatypeProperty'));
    g.about(imf('predicate'), g.iri(String(body.predicate)));
    if (typeof body.uom === 'string') g.about(imf('uom'), g.iri(body.uom));
    if (typeof body.concerns === 'string') g.about(g.our('concerns'), g.iri(body.concerns));
    for (const iri of strings(body.exactMatch)) g.about(skos('exactMatch'), g.iri(iri));
    for (const field of [
      'provenanceQualifier',
      'rangeQualifier',
      'regularityQualifier',
      'scopeQualifier',
    ]) {
      if (typeof body[field] === 'string')
        g.about(imf('hasAttributeQualifier'), g.iri(body[field]));
    }
  },
  'imf-terminal'(body, g) {
    imfTypeCommon(g, body, 'TerminalType');
    const direction = g.node();
    g.about(sh('property'), direction);
    g.add(direction, sh('path'), imf('direction'));
    g.add(
      direction,
      sh('hasValue'),
      g.iri(body.direction === 'output' ? DIRECTIONS.output : DIRECTIONS.input),
    )
      .add(direction, sh('maxCount'), g.integer(1))
      .add(direction, sh('nodeKind'), sh('IRI'));
  },
  'imf-block'(body, g) {
    imfTypeCommon(g, body, 'BlockType');
    qualifiedShapes(g, 'hasTerminal', references(body.terminalReferences));
    qualifiedShapes(g, 'hasPart', references(body.hasPartBlockReferences));
  },
  symbol(body, g) {
    g.about(rdf('type'), sym('Symbol'));
    g.about(dcterms('identifier'), g.plain(String(body.dcIdentifier)));
    g.about(sym('width'), g.integer(Number(body.width))).about(
      sym('height'),
      g.integer(Number(body.height)),
    );
    const shape = g.node();
    g.about(sym('hasShape'), shape);
    const paths = checkSvgGeometry(
      String(body.shape),
      Number(body.width),
      Number(body.height),
    ).paths;
    g.add(shape, sym('hasSerialization'), g.typed(paths.join(' '), sym('svg-path-data')));
    const centre = body.centerOfRotation as { x: number; y: number };
    const point = g.node();
    g.about(sym('hasCenterOfRotation'), point);
    g.add(point, sym('positionX'), g.decimal(centre.x)).add(
      point,
      sym('positionY'),
      g.decimal(centre.y),
    );
    for (const connection of (body.connectionPoints ?? []) as {
      id: string;
      x: number;
      y: number;
      direction: number;
    }[]) {
      const node = g.node();
      g.about(sym('hasConnectionPoint'), node);
      g.add(node, dcterms('identifier'), g.plain(connection.id));
      g.add(node, sym('positionX'), g.decimal(connection.x)).add(
        node,
        sym('positionY'),
        g.decimal(connection.y),
      );
      g.add(node, sym('connectorDirection'), g.integer(connection.direction));
    }
  },
};

/**
 * The standard RDF classes a resource is an instance of, without building its graph
 * (search lists them for every hit); our own `rdl:` classes are left out. A test
 * keeps this equal to the standard `rdf:type` triples of the mappings above.
 */
export function rdfTypesOf(family: FamilyKey, body: Body): string[] {
  const types: Record<FamilyKey, string[]> = {
    library: [owl('Ontology').value],
    class: [owl('Class').value],
    property: [
      (strings(body.types)[0] === 'controlledText'
        ? owl('ObjectProperty')
        : owl('DatatypeProperty')
      ).value,
    ],
    'cfihos-entity': [owl('Class').value],
    picklist: [owl('Class').value],
    'picklist-value': [
      owl('NamedIndividual').value,
      ...(typeof body.picklist === 'string' ? [body.picklist] : []),
    ],
    unit: [owl('NamedIndividual').value],
    dimension: [owl('NamedIndividual').value],
    'imf-attribute': [imf('AttributeType').value, owl('DatatypeProperty').value],
    'imf-terminal': [imf('TerminalType').value, sh('NodeShape').value, rdfs('Class').value],
    'imf-block': [imf('BlockType').value, sh('NodeShape').value, rdfs('Class').value],
    symbol: [sym('Symbol').value],
  };
  return types[family];
}
