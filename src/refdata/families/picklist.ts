import { randomUUID } from 'node:crypto';
import { classTyped } from '../rdf/family-shapes.js';
import { rdf } from '../rdf/vocabulary.js';
import { familySchema, IRI, ONTOLOGY_FIELD, ownedValues } from './common.js';
import { defineFamily } from './family.js';

export const picklist = defineFamily({
  key: 'picklist',
  route: '/cfihos/picklist',
  label: 'picklist',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      subClassOf: IRI(
        'What the picklist is a kind of',
        { families: ['class', 'cfihos-entity'], external: true, noun: 'class' },
        'Superclass',
      ),
      picklistValues: ownedValues('value of this picklist'),
    },
    'A CFIHOS picklist with its values, as one aggregate',
  ),
  iriPaths: ['/cfihos/*'],
  mintIri: (_body, context) => `${context.iriBase}/cfihos/propertyPicklist/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  aggregate: {
    valueFamily: 'picklist-value',
    field: 'picklistValues',
    valueBody: (value, body, iri) => ({
      name: value.name,
      description: value.description,
      ...(value.translations ? { translations: value.translations } : {}),
      ...(value.synonyms ? { synonyms: value.synonyms } : {}),
      picklist: iri,
      ontology: body.ontology,
    }),
  },
  rdf(body, g) {
    classTyped(g, [body.subClassOf]);
    g.about(rdf('type'), g.our('Picklist'));
  },
});
