import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { LINK_IRI_DETAIL } from '../../platform/http/formats.js';
import { QUALIFIER_GROUPS, qualifierIris } from '../imf/vocabulary.js';
import {
  commonRules,
  familySchema,
  fieldError,
  IRI,
  isAbsoluteIri,
  ONTOLOGY_FIELD,
} from './common.js';
import { defineFamily } from './family.js';
import { checkIris, IriList } from './imf-common.js';

const QUALIFIER_FIELDS = Object.keys(QUALIFIER_GROUPS) as (keyof typeof QUALIFIER_GROUPS)[];

export const imfAttribute = defineFamily({
  key: 'imf-attribute',
  route: '/imf/attributetypes',
  label: 'IMF attribute type',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      exactMatch: Type.Optional(IriList('An equivalent term elsewhere')),
      predicate: IRI('The property the attribute gives a value for'),
      uom: Type.Optional(IRI('The unit of measure')),
      concerns: Type.Optional(IRI('What the attribute is about')),
      provenanceQualifier: Type.Optional(
        IRI('imf:calculatedQualifier, measuredQualifier or specifiedQualifier'),
      ),
      rangeQualifier: Type.Optional(
        IRI(
          'imf:averageQualifier, maximumQualifier, minimumQualifier, nominalQualifier or normalQualifier',
        ),
      ),
      regularityQualifier: Type.Optional(IRI('imf:absoluteQualifier or continuousQualifier')),
      scopeQualifier: Type.Optional(IRI('imf:designQualifier or operatingQualifier')),
    },
    'An IMF attribute type',
  ),
  mintIri: (_body, context) => `${context.iriBase}/imf/attributes/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  async rules(body, context) {
    const errors = await commonRules(body, context, {
      needsOntology: true,
      family: 'imf-attribute',
      label: 'IMF attribute type',
    });
    if (!isAbsoluteIri(body.predicate)) errors.push(fieldError('/predicate', LINK_IRI_DETAIL));
    checkIris(errors, '/exactMatch', body.exactMatch);
    for (const field of ['uom', 'concerns'] as const) {
      const iri = body[field];
      if (iri === undefined) continue;
      if (!isAbsoluteIri(iri)) errors.push(fieldError(`/${field}`, LINK_IRI_DETAIL));
      // A unit may be one of ours (then it must be a unit) or an external one.
      const stored = field === 'uom' ? await context.find(iri) : undefined;
      if (stored && stored.family !== 'unit')
        errors.push(fieldError('/uom', `must be a unit of measure, not a ${stored.family}`));
    }
    for (const field of QUALIFIER_FIELDS) {
      const value = body[field];
      if (value !== undefined && !qualifierIris(field).includes(value)) {
        errors.push(fieldError(`/${field}`, `must be one of ${qualifierIris(field).join(', ')}`));
      }
    }
    return errors;
  },
});
