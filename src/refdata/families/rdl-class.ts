import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { LINK_IRI_DETAIL } from '../../platform/http/formats.js';
import { classTyped } from '../rdf/family-shapes.js';
import {
  commonRules,
  familySchema,
  IRI,
  isAbsoluteIri,
  loopError,
  ONTOLOGY_FIELD,
  reference,
} from './common.js';
import { defineFamily } from './family.js';

export const rdlClass = defineFamily({
  key: 'class',
  route: '/rdl/terms/subclass',
  label: 'reference-data class',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      subClassOf: Type.Array(
        IRI('A superclass', { families: ['class', 'cfihos-entity'], external: true }),
        { minItems: 1, maxItems: 50, title: 'Superclasses' },
      ),
    },
    'A reference-data class',
  ),
  mintIri: (body) => `${body.ontology}/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  rdf: (body, g) => classTyped(g, body.subClassOf),
  async rules(body, context) {
    const errors = await commonRules(body, context, {
      needsOntology: true,
      family: 'class',
      label: 'reference-data class',
    });
    for (const [index, iri] of body.subClassOf.entries()) {
      // Superclasses may be classes of this service or of other libraries (by IRI).
      const stored = await context.find(iri);
      if (stored) {
        await reference(
          context,
          errors,
          `/subClassOf/${index}`,
          iri,
          ['class', 'cfihos-entity'],
          'class',
        );
      } else if (!isAbsoluteIri(iri)) {
        errors.push({
          in: 'body',
          field: `/subClassOf/${index}`,
          detail: LINK_IRI_DETAIL,
        });
      }
      if (iri === context.self)
        errors.push({
          in: 'body',
          field: `/subClassOf/${index}`,
          detail: 'cannot be the class itself',
        });
      const loop = await loopError(context, `/subClassOf/${index}`, iri);
      if (loop) errors.push(loop);
    }
    return errors;
  },
});
