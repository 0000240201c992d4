import { Type } from '@sinclair/typebox';
import type { FieldError } from '../../platform/http/problem.js';
import { ASPECTS } from '../imf/vocabulary.js';
import { countedReferenceErrors, IRI, PAGE_READING, type RefersTo } from './common.js';

const Cardinality = Type.Integer({ minimum: 0, maximum: 1_000_000 });

/** A reference from an IMF type to another: which one, how many times. */
export const EntityReferences = (description: string, family: string) =>
  Type.Array(
    Type.Object(
      {
        entityUri: IRI(description, { families: [family] }),
        minCardinality: Cardinality,
        maxCardinality: Type.Optional(Cardinality),
      },
      { additionalProperties: false },
    ),
    // Its page draws them as the type's structure.
    { maxItems: 500, [PAGE_READING]: 'structure' },
  );

export const AspectField = Type.Union(
  ASPECTS.map((aspect) => Type.Literal(aspect)),
  {
    description:
      'One of the IMF aspects (imf:functionAspect, productAspect, locationAspect, installedAspect)',
  },
);

export const IriList = (description: string, refersTo?: RefersTo) =>
  Type.Array(IRI(description, refersTo), { maxItems: 200 });

export interface EntityReference {
  entityUri: string;
  minCardinality: number;
  maxCardinality?: number;
}

/** Each reference listed once, min ≤ max; a type may refer to itself (a block containing blocks of its own type). */
export function entityReferenceErrors(
  field: string,
  references: readonly EntityReference[],
): FieldError[] {
  return countedReferenceErrors(field, references, (item) => item.entityUri, 'entityUri');
}
