import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { classTyped } from '../rdf/family-shapes.js';
import { owl, rdf, rdfs } from '../rdf/vocabulary.js';
import {
  commonRules,
  familySchema,
  fieldError,
  IRI,
  loopError,
  ONTOLOGY_FIELD,
  reference,
} from './common.js';
import { defineFamily } from './family.js';

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
  async rules(body, context) {
    const errors = await commonRules(body, context, {
      needsOntology: true,
      family: 'cfihos-entity',
      label: 'CFIHOS equipment or tag class',
    });
    if (body.superEntity === context.self && body.superEntity !== undefined) {
      errors.push(fieldError('/superEntity', 'cannot be the class itself'));
    } else {
      const parent = await reference(
        context,
        errors,
        '/superEntity',
        body.superEntity,
        ['cfihos-entity'],
        'CFIHOS equipment or tag class',
      );
      if (parent && parent.body.entityType !== body.entityType) {
        errors.push(fieldError('/superEntity', `must be a ${body.entityType} class like this one`));
      }
      const loop = parent && (await loopError(context, '/superEntity', body.superEntity));
      if (loop) errors.push(loop);
    }
    const seen = new Set<string>();
    for (const [index, item] of body.propertyReferences.entries()) {
      const pointer = `/propertyReferences/${index}`;
      await reference(
        context,
        errors,
        `${pointer}/propertyUri`,
        item.propertyUri,
        ['property'],
        'property',
      );
      if (item.minCardinality > item.maxCardinality) {
        errors.push(fieldError(`${pointer}/minCardinality`, 'must not exceed maxCardinality'));
      }
      if (seen.has(item.propertyUri))
        errors.push(fieldError(`${pointer}/propertyUri`, 'is listed twice'));
      seen.add(item.propertyUri);
    }
    return errors;
  },
});
