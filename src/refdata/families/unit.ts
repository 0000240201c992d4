import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { owl, rdf } from '../rdf/vocabulary.js';
import { familySchema, IRI, ONTOLOGY_FIELD } from './common.js';
import { defineFamily } from './family.js';
import { mapsToKind } from './mappings.js';

export const unit = defineFamily({
  key: 'unit',
  route: '/cfihos/unitofmeasure',
  label: 'unit of measure',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      dimensionRef: IRI('The dimension this unit measures', { families: ['dimension'] }),
      measurementSystem: Type.String({ minLength: 1, maxLength: 100 }),
      symbol: Type.String({ minLength: 1, maxLength: 50 }),
    },
    'A unit of measure',
  ),
  mintIri: (_body, context) => `${context.iriBase}/cfihos/unitOfMeasure/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  identifiers: (body) => [body.symbol],
  rdf(body, g) {
    g.about(rdf('type'), owl('NamedIndividual')).about(rdf('type'), g.our('UnitOfMeasure'));
    g.about(g.our('dimension'), g.iri(body.dimensionRef));
    g.about(g.our('measurementSystem'), g.plain(body.measurementSystem));
    g.about(g.our('symbol'), g.plain(body.symbol));
  },
  mappings: { ETIM: mapsToKind('ETIM', 'unit') },
});
