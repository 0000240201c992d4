import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FieldError } from '../../platform/http/problem.js';
import { classTyped } from '../rdf/family-shapes.js';
import { owl, rdf, rdfs } from '../rdf/vocabulary.js';
import {
  countedReferenceErrors,
  familySchema,
  fieldError,
  IRI,
  loopError,
  ONTOLOGY_FIELD,
} from './common.js';
import { defineFamily } from './family.js';
import { mapsToKind, UNSPSC_EQUIPMENT } from './mappings.js';

const Cardinality = Type.Integer({ minimum: 0, maximum: 1_000_000 });

export const cfihosEntity = defineFamily({
  key: 'cfihos-entity',
  route: '/cfihos/entity',
  label: 'CFIHOS equipment or tag class',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      entityType: Type.Union([Type.Literal('equipment'), Type.Literal('tag')]),
      superEntity: Type.Optional(
        IRI('The more general equipment or tag class', { families: ['cfihos-entity'] }),
      ),
      propertyReferences: Type.Array(
        Type.Object(
          {
            propertyUri: IRI('A property', { families: ['property'] }),
            minCardinality: Cardinality,
            maxCardinality: Cardinality,
          },
          { additionalProperties: false },
        ),
        { maxItems: 500 },
      ),
      requiresSparePartInformation: Type.Optional(Type.Boolean()),
      installedIndicator: Type.Optional(Type.Boolean()),
      isAbstract: Type.Optional(Type.Boolean()),
    },
    'A CFIHOS equipment or tag class',
  ),
  mintIri: (body, context) =>
    `${context.iriBase}/cfihos/${body.entityType === 'equipment' ? 'equipmentClass' : 'tagClass'}/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  nameScope: (body) => body.entityType,
  rdf(body, g) {
    classTyped(g, body.superEntity === undefined ? [] : [body.superEntity]);
    g.about(g.our('entityType'), g.plain(body.entityType));
    for (const flag of [
      'requiresSparePartInformation',
      'installedIndicator',
      'isAbstract',
    ] as const) {
      const value = body[flag];
      if (value !== undefined) g.about(g.our(flag), g.boolean(value));
    }
    for (const ref of body.propertyReferences) {
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
  mappings: { ETIM: mapsToKind('ETIM', 'class'), UNSPSC: UNSPSC_EQUIPMENT },
  async rules(body, context) {
    const errors: FieldError[] = [];
    const superEntity = body.superEntity;
    if (superEntity !== undefined && superEntity === context.self) {
      errors.push(fieldError('/superEntity', 'cannot be the class itself'));
    } else if (superEntity !== undefined) {
      // Whether it is a stored CFIHOS class at all, the generic reference check says.
      const parent = await context.find(superEntity);
      if (parent?.family === 'cfihos-entity') {
        if (parent.body.entityType !== body.entityType)
          errors.push(
            fieldError('/superEntity', `must be a ${body.entityType} class like this one`),
          );
        const loop = await loopError(context, '/superEntity', superEntity);
        if (loop) errors.push(loop);
      }
    }
    errors.push(
      ...countedReferenceErrors(
        '/propertyReferences',
        body.propertyReferences,
        (item) => item.propertyUri,
        'propertyUri',
      ),
    );
    return errors;
  },
});
