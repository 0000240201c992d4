import { Type } from '@sinclair/typebox';
import { LINK_IRI_DETAIL } from '../../platform/http/formats.js';
import type { FieldError } from '../../platform/http/problem.js';
import { ASPECTS } from '../imf/vocabulary.js';
import { fieldError, IRI, isAbsoluteIri, type RefersTo, reference } from './common.js';
import type { FamilyKey, RuleContext } from './family.js';

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
    { maxItems: 500 },
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

/** Each reference: a stored resource of `family` (cycles allowed), listed once, min ≤ max. */
export async function checkReferences(
  context: RuleContext,
  errors: FieldError[],
  field: string,
  references: readonly EntityReference[],
  family: FamilyKey,
  label: string,
): Promise<void> {
  const seen = new Set<string>();
  for (const [index, item] of references.entries()) {
    const pointer = `${field}/${index}`;
    // A block may contain blocks of its own type, itself included.
    if (item.entityUri !== context.self) {
      await reference(context, errors, `${pointer}/entityUri`, item.entityUri, [family], label);
    }
    if (item.maxCardinality !== undefined && item.minCardinality > item.maxCardinality) {
      errors.push(fieldError(`${pointer}/minCardinality`, 'must not exceed maxCardinality'));
    }
    if (seen.has(item.entityUri))
      errors.push(fieldError(`${pointer}/entityUri`, 'is listed twice'));
    seen.add(item.entityUri);
  }
}

export function checkIris(
  errors: FieldError[],
  field: string,
  iris: readonly string[] | undefined,
) {
  for (const [index, iri] of (iris ?? []).entries()) {
    if (!isAbsoluteIri(iri)) errors.push(fieldError(`${field}/${index}`, LINK_IRI_DETAIL));
  }
}
