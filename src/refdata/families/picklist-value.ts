import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FieldError } from '../../platform/http/problem.js';
import { owl, rdf } from '../rdf/vocabulary.js';
import { familySchema, fieldError, IRI } from './common.js';
import { defineFamily, isLibrary, LIBRARY_FAMILY } from './family.js';

export const picklistValue = defineFamily({
  key: 'picklist-value',
  route: '/cfihos/picklistvalue',
  label: 'picklist value',
  schema: familySchema(
    {
      ontology: Type.Optional(
        IRI("The library; the picklist's when left out", { families: [LIBRARY_FAMILY] }),
      ),
      picklist: IRI('The picklist this value belongs to', { families: ['picklist'] }),
    },
    'A picklist value (normally managed through its picklist)',
  ),
  mintIri: (_body, context) => `${context.iriBase}/cfihos/propertyPicklistValue/${randomUUID()}`,
  // Value names are unique within their picklist.
  libraryKey: (body) => body.picklist,
  parentIri: (body) => body.picklist,
  rdf(body, g) {
    g.about(rdf('type'), owl('NamedIndividual'));
    g.about(rdf('type'), g.iri(body.picklist));
  },
  fixed: { picklist: 'a value stays in its picklist' },
  // A value lives in its picklist's library.
  async complete(body, context) {
    if (body.ontology !== undefined) return body;
    const parent = await context.find(body.picklist);
    const ontology = parent?.family === 'picklist' ? parent.body.ontology : undefined;
    return typeof ontology === 'string' ? { ...body, ontology } : body;
  },
  async rules(body, context) {
    const errors: FieldError[] = [];
    const found = await context.find(body.picklist);
    const parent = found?.family === 'picklist' ? found : undefined;
    if (parent && parent.status !== 'Draft') {
      errors.push(fieldError('/picklist', 'is no longer a Draft; its values cannot change'));
    }
    // One that is no library at all is told so by the reference check already.
    const library = body.ontology === undefined ? undefined : await context.find(body.ontology);
    if (parent && library && isLibrary(library) && body.ontology !== parent.body.ontology) {
      errors.push(fieldError('/ontology', "must be the picklist's library"));
    }
    return errors;
  },
});
