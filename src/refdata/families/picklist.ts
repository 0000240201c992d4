import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { LINK_IRI_DETAIL } from '../../platform/http/formats.js';
import { classTyped } from '../rdf/family-shapes.js';
import { rdf } from '../rdf/vocabulary.js';
import {
  commonRules,
  familySchema,
  fieldError,
  IRI,
  isAbsoluteIri,
  ONTOLOGY_FIELD,
} from './common.js';
import { defineFamily } from './family.js';

export const picklist = defineFamily({
  key: 'picklist',
  route: '/cfihos/picklist',
  label: 'picklist',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      subClassOf: IRI(
        'What the picklist is a kind of',
        { families: ['class', 'cfihos-entity'], external: true },
        'Kind of',
      ),
      picklistValues: Type.Optional(
        Type.Array(
          Type.Object(
            {
              id: Type.Optional(
                Type.String({
                  minLength: 1,
                  maxLength: 2048,
                  format: 'link-iri',
                  description: 'The IRI of an existing value of this picklist',
                  // Forms carry it unseen: it says which value a row is.
                  'x-form': 'hidden',
                }),
              ),
              name: Type.String({ minLength: 1, maxLength: 500 }),
              description: Type.String({ minLength: 1, maxLength: 20000 }),
            },
            { additionalProperties: false },
          ),
          {
            maxItems: 2000,
            description:
              'The complete list: values with an id are updated, without one created, left out removed',
          },
        ),
      ),
    },
    'A CFIHOS picklist with its values, as one aggregate',
  ),
  iriPaths: ['/cfihos/*'],
  mintIri: (_body, context) => `${context.iriBase}/cfihos/propertyPicklist/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  aggregate: {
    valueFamily: 'picklist-value',
    field: 'picklistValues',
    values: (body) => body.picklistValues,
    valueBody: (value, body, iri) => ({
      name: value.name,
      description: value.description,
      picklist: iri,
      ontology: body.ontology,
    }),
  },
  rdf(body, g) {
    classTyped(g, [body.subClassOf]);
    g.about(rdf('type'), g.our('Picklist'));
  },
  async rules(body, context) {
    const errors = await commonRules(body, context, {
      needsOntology: true,
      family: 'picklist',
      label: 'picklist',
    });
    if (!isAbsoluteIri(body.subClassOf)) errors.push(fieldError('/subClassOf', LINK_IRI_DETAIL));
    const names = new Set<string>();
    const ids = new Set<string>();
    for (const [index, value] of (body.picklistValues ?? []).entries()) {
      const key = value.name.trim().toLowerCase();
      if (names.has(key))
        errors.push(
          fieldError(`/picklistValues/${index}/name`, 'is used by another value of this picklist'),
        );
      names.add(key);
      if (value.id === undefined) continue;
      if (ids.has(value.id))
        errors.push(fieldError(`/picklistValues/${index}/id`, 'is listed twice'));
      ids.add(value.id);
      const stored = await context.find(value.id);
      if (stored?.family !== 'picklist-value' || stored.body.picklist !== context.self) {
        errors.push(
          fieldError(`/picklistValues/${index}/id`, 'must be the IRI of a value of this picklist'),
        );
      } else if (stored.status !== 'Draft') {
        errors.push(
          fieldError(`/picklistValues/${index}/id`, 'is no longer a Draft and cannot change'),
        );
      }
    }
    return errors;
  },
});
