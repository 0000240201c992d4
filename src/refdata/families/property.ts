import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FieldError } from '../../platform/http/problem.js';
import { owl, rdf, rdfs, xsd } from '../rdf/vocabulary.js';
import { familySchema, fieldError, IRI, isAbsoluteIri, ONTOLOGY_FIELD } from './common.js';
import { defineFamily, type RuleContext } from './family.js';
import { ETIM_FEATURES } from './mappings.js';

/** Rule 3's value kinds, given in `types`. */
export const VALUE_KINDS = ['number', 'controlledText', 'freeText', 'boolean'] as const;
const XSD = 'http://www.w3.org/2001/XMLSchema#';

export const property = defineFamily({
  key: 'property',
  route: '/general/property',
  label: 'property',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      range: Type.Optional(
        IRI(
          'A dimension (number), a picklist (controlled text), or xsd:string / xsd:boolean',
          { families: ['dimension', 'picklist'], external: true },
          undefined,
          'for a number (its dimension) or controlled text (its picklist)',
        ),
      ),
      types: Type.Array(Type.Union(VALUE_KINDS.map((kind) => Type.Literal(kind))), {
        minItems: 1,
        maxItems: 1,
        description: 'The value kind: number, controlledText, freeText or boolean',
      }),
    },
    'A reference-data or CFIHOS property',
  ),
  async mintIri(body, context) {
    // A property of a CFIHOS library gets a CFIHOS IRI; others live under their library.
    const library = await context.find(body.ontology);
    return library?.body.cfihosPrefix
      ? `${context.iriBase}/cfihos/property/${randomUUID()}`
      : `${body.ontology}/${randomUUID()}`;
  },
  libraryKey: (body) => body.ontology,
  rdf(body, g) {
    const kind = body.types[0];
    g.about(
      rdf('type'),
      kind === 'controlledText' ? owl('ObjectProperty') : owl('DatatypeProperty'),
    );
    g.about(g.our('valueKind'), g.plain(kind ?? ''));
    if (kind === 'number') {
      g.about(rdfs('range'), xsd('double'));
      if (body.range !== undefined) g.about(g.our('dimension'), g.iri(body.range));
    } else if (kind === 'controlledText') {
      if (body.range !== undefined) g.about(rdfs('range'), g.iri(body.range));
    } else {
      g.about(rdfs('range'), kind === 'boolean' ? xsd('boolean') : xsd('string'));
    }
  },
  mappings: { ETIM: ETIM_FEATURES },
  async rules(body, context) {
    const errors: FieldError[] = [];
    const kind = body.types[0];
    if (kind === 'number') {
      if (body.range === undefined)
        errors.push(fieldError('/range', 'is required for a number: the UoM dimension'));
      else errors.push(...(await rangeErrors(context, body.range, 'dimension')));
    } else if (kind === 'controlledText') {
      if (body.range === undefined)
        errors.push(fieldError('/range', 'is required for controlled text: the picklist'));
      else errors.push(...(await rangeErrors(context, body.range, 'picklist')));
    } else if (kind === 'freeText') {
      if (body.range !== undefined && body.range !== `${XSD}string`) {
        errors.push(
          fieldError('/range', `must be left out or be ${XSD}string for free text (no picklist)`),
        );
      }
    } else if (kind === 'boolean') {
      if (body.range !== undefined && body.range !== `${XSD}boolean`) {
        errors.push(
          fieldError('/range', `must be left out or be ${XSD}boolean for a yes/no property`),
        );
      }
    }
    return errors;
  },
});

/**
 * A number's range is a stored dimension, controlled text's a stored picklist.
 * The schema accepts either (and IRIs elsewhere, for xsd types); a stored
 * resource of yet another family is refused by the generic reference check.
 */
async function rangeErrors(
  context: RuleContext,
  range: string,
  family: 'dimension' | 'picklist',
): Promise<FieldError[]> {
  // One that is no IRI at all is refused by the generic check already.
  if (!isAbsoluteIri(range)) return [];
  const found = await context.find(range);
  if (!found)
    return [fieldError('/range', `must be the IRI of an existing ${context.labelOf(family)}`)];
  return found.family === family || !['dimension', 'picklist'].includes(found.family)
    ? []
    : [
        fieldError(
          '/range',
          `must be the IRI of a ${context.labelOf(family)}, not of a ${context.labelOf(found.family)}`,
        ),
      ];
}
