import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import {
  familySchema,
  IRI,
  ONTOLOGY_FIELD,
  ownedValues,
} from '../../src/refdata/families/common.js';
import { defineFamily } from '../../src/refdata/families/family.js';
import { GLOSSARY_FAMILY_KEY } from './glossary-family.js';

export const CHECKLIST = 'https://example.org/checklist#';

/**
 * A second aggregate, defined only in this test: a checklist owns its items as a
 * picklist owns its values. Its two modules and their registry lines are all
 * there is; writes, reads, revisions, the lifecycle, RDF and the generic rules
 * must work from them alone.
 */
export const checklistItem = defineFamily({
  key: 'checklist-item',
  route: '/test/checklist-items',
  label: 'checklist item',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      checklist: IRI('The checklist this item belongs to', { families: ['checklist'] }),
    },
    'An item of a checklist',
  ),
  iriPaths: ['/checklists/*'],
  mintIri: (_body, context) => `${context.iriBase}/checklists/items/${randomUUID()}`,
  libraryKey: (body) => body.checklist,
  parentIri: (body) => body.checklist,
  fixed: { checklist: 'an item stays on its checklist' },
  rdf(body, g) {
    g.about(g.iri('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'), g.iri(`${CHECKLIST}Item`));
    g.about(g.iri(`${CHECKLIST}onChecklist`), g.iri(body.checklist));
  },
});

export const checklist = defineFamily({
  key: 'checklist',
  route: '/test/checklists',
  label: 'checklist',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      // A reference the generic rules check with no rule written for it here.
      glossaryTerm: Type.Optional(
        IRI('The glossary term it checks', { families: [GLOSSARY_FAMILY_KEY] }),
      ),
      items: ownedValues('item of this checklist'),
    },
    'A checklist with its items, as one aggregate',
  ),
  mintIri: (_body, context) => `${context.iriBase}/checklists/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  aggregate: {
    valueFamily: 'checklist-item',
    field: 'items',
    valueBody: (item, body, iri) => ({
      name: item.name,
      description: item.description,
      checklist: iri,
      ontology: body.ontology,
    }),
  },
  rdf(_body, g) {
    g.about(g.iri('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'), g.iri(`${CHECKLIST}List`));
  },
});
