import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { owl, rdf } from '../rdf/vocabulary.js';
import { familySchema, ONTOLOGY_FIELD } from './common.js';
import { defineFamily } from './family.js';

export const dimension = defineFamily({
  key: 'dimension',
  route: '/cfihos/dimension',
  label: 'unit-of-measure dimension',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      dimensionCode: Type.String({ minLength: 1, maxLength: 100 }),
    },
    'A unit-of-measure dimension',
  ),
  mintIri: (_body, context) => `${context.iriBase}/cfihos/unitOfMeasureDimension/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  identifiers: (body) => [body.dimensionCode],
  rdf(body, g) {
    g.about(rdf('type'), owl('NamedIndividual')).about(rdf('type'), g.our('Dimension'));
    g.about(g.our('dimensionCode'), g.plain(body.dimensionCode));
  },
});
