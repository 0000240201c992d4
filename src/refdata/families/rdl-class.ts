import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FieldError } from '../../platform/http/problem.js';
import { classTyped } from '../rdf/family-shapes.js';
import { familySchema, fieldError, IRI, loopError, ONTOLOGY_FIELD } from './common.js';
import { defineFamily } from './family.js';

export const rdlClass = defineFamily({
  key: 'class',
  route: '/rdl/terms/subclass',
  label: 'reference-data class',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      subClassOf: Type.Array(
        IRI('A superclass', {
          families: ['class', 'cfihos-entity'],
          external: true,
          noun: 'class',
        }),
        { minItems: 1, maxItems: 50, title: 'Superclasses' },
      ),
    },
    'A reference-data class',
  ),
  mintIri: (body) => `${body.ontology}/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  rdf: (body, g) => classTyped(g, body.subClassOf),
  // Superclasses may be classes of this service or of other libraries (by IRI).
  async rules(body, context) {
    const errors: FieldError[] = [];
    for (const [index, iri] of body.subClassOf.entries()) {
      if (iri === context.self)
        errors.push(fieldError(`/subClassOf/${index}`, 'cannot be the class itself'));
      const loop = await loopError(context, `/subClassOf/${index}`, iri);
      if (loop) errors.push(loop);
    }
    return errors;
  },
});
