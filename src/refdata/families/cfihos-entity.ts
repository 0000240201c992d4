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
  PAGE_READING,
} from './common.js';
import { defineFamily, type RuleContext } from './family.js';
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
        IRI(
          'The more general equipment or tag class',
          { families: ['cfihos-entity'] },
          // One idea, one name on every family's form (a class's are its superclasses).
          'Superclass',
        ),
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
        // Its page reads them as a table, with those it inherits.
        { maxItems: 500, [PAGE_READING]: 'properties' },
      ),
      equipmentClasses: Type.Optional(
        Type.Array(
          IRI('An equipment class that equipment installed at a tag of this class is of', {
            families: ['cfihos-entity'],
            noun: 'CFIHOS equipment class',
          }),
          { maxItems: 500, description: 'For a tag class: the equipment classes it maps to' },
        ),
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
    for (const equipment of body.equipmentClasses ?? [])
      g.about(g.our('equipmentClass'), g.iri(equipment));
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
    errors.push(...(await equipmentClassErrors(body, context)));
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

/** A tag class's equipment classes: only a tag class has them, each an equipment class, once. */
async function equipmentClassErrors(
  body: { entityType: string; equipmentClasses?: string[] | undefined },
  context: RuleContext,
): Promise<FieldError[]> {
  const listed = body.equipmentClasses ?? [];
  if (listed.length > 0 && body.entityType !== 'tag')
    return [fieldError('/equipmentClasses', 'is only for a tag class')];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const [index, iri] of listed.entries()) {
    const pointer = `/equipmentClasses/${index}`;
    if (seen.has(iri)) errors.push(fieldError(pointer, 'is listed twice'));
    seen.add(iri);
    // Whether it is a stored CFIHOS class at all, the generic reference check says.
    const found = await context.find(iri);
    if (found?.family === 'cfihos-entity' && found.body.entityType !== 'equipment')
      errors.push(fieldError(pointer, 'must be an equipment class, not a tag class'));
  }
  return errors;
}
