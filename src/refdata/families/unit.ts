import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { commonRules, familySchema, IRI, ONTOLOGY_FIELD, reference } from './common.js';
import { defineFamily } from './family.js';

export const unit = defineFamily({
  key: 'unit',
  route: '/cfihos/unitofmeasure',
  label: 'unit of measure',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      dimensionRef: IRI('The dimension this unit measures'),
      measurementSystem: Type.String({ minLength: 1, maxLength: 100 }),
      symbol: Type.String({ minLength: 1, maxLength: 50 }),
    },
    'A unit of measure',
  ),
  mintIri: (_body, context) => `${context.iriBase}/cfihos/unitOfMeasure/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  async rules(body, context) {
    const errors = await commonRules(body, context, {
      needsOntology: true,
      family: 'unit',
      label: 'unit of measure',
    });
    await reference(
      context,
      errors,
      '/dimensionRef',
      body.dimensionRef,
      ['dimension'],
      'unit-of-measure dimension',
    );
    return errors;
  },
});
