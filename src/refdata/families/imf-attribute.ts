import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { QUALIFIER_GROUPS, qualifierIris } from '../imf/vocabulary.js';
import { imf, owl, rdf, skos } from '../rdf/vocabulary.js';
import { familySchema, IRI, ONTOLOGY_FIELD } from './common.js';
import { defineFamily } from './family.js';
import { IriList } from './imf-common.js';

const QUALIFIER_FIELDS = Object.keys(QUALIFIER_GROUPS) as (keyof typeof QUALIFIER_GROUPS)[];

/** A qualifier field: one of its group's IMF individuals. */
const qualifier = (field: keyof typeof QUALIFIER_GROUPS) =>
  Type.Union(
    qualifierIris(field).map((iri) => Type.Literal(iri)),
    { description: `One of ${qualifierIris(field).join(', ')}` },
  );

export const imfAttribute = defineFamily({
  key: 'imf-attribute',
  route: '/imf/attributetypes',
  label: 'IMF attribute type',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      exactMatch: Type.Optional(IriList('An equivalent term elsewhere')),
      predicate: IRI('The property the attribute gives a value for', {
        families: ['property'],
        external: true,
      }),
      uom: Type.Optional(IRI('The unit of measure', { families: ['unit'], external: true })),
      concerns: Type.Optional(IRI('What the attribute is about')),
      provenanceQualifier: Type.Optional(qualifier('provenanceQualifier')),
      rangeQualifier: Type.Optional(qualifier('rangeQualifier')),
      regularityQualifier: Type.Optional(qualifier('regularityQualifier')),
      scopeQualifier: Type.Optional(qualifier('scopeQualifier')),
    },
    'An IMF attribute type',
  ),
  mintIri: (_body, context) => `${context.iriBase}/imf/attributes/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  rdf(body, g) {
    // Attribute types are punned: a datatype property and an IMF attribute type.
    g.about(rdf('type'), imf('AttributeType')).about(rdf('type'), owl('DatatypeProperty'));
    g.about(imf('predicate'), g.iri(body.predicate));
    if (body.uom !== undefined) g.about(imf('uom'), g.iri(body.uom));
    if (body.concerns !== undefined) g.about(g.our('concerns'), g.iri(body.concerns));
    for (const iri of body.exactMatch ?? []) g.about(skos('exactMatch'), g.iri(iri));
    for (const field of QUALIFIER_FIELDS) {
      const value = body[field];
      if (value !== undefined) g.about(imf('hasAttributeQualifier'), g.iri(value));
    }
  },
});
