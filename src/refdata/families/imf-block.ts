import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { imfTypeTriples, qualifiedShapes } from '../rdf/family-shapes.js';
import { familySchema, ONTOLOGY_FIELD } from './common.js';
import { defineFamily } from './family.js';
import { AspectField, EntityReferences, entityReferenceErrors, IriList } from './imf-common.js';

export const imfBlock = defineFamily({
  key: 'imf-block',
  route: '/imf/blocktypes',
  label: 'IMF block type',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      classification: Type.Optional(
        IriList('A class the block type is classified by', {
          families: ['class', 'cfihos-entity'],
          external: true,
          noun: 'class',
        }),
      ),
      aspect: AspectField,
      referenceTerms: IriList('A reference term'),
      attributeReferences: EntityReferences('An IMF attribute type', 'imf-attribute'),
      terminalReferences: EntityReferences('An IMF terminal type', 'imf-terminal'),
      hasPartBlockReferences: EntityReferences(
        'An IMF block type this one has as a part',
        'imf-block',
      ),
    },
    'An IMF block type',
  ),
  iriPaths: ['/imf/*'],
  mintIri: (_body, context) => `${context.iriBase}/imf/blocks/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  hasShacl: true,
  rdf(body, g) {
    imfTypeTriples(g, body, 'BlockType');
    qualifiedShapes(g, 'hasTerminal', body.terminalReferences);
    qualifiedShapes(g, 'hasPart', body.hasPartBlockReferences);
  },
  rules: (body) => [
    ...entityReferenceErrors('/attributeReferences', body.attributeReferences),
    ...entityReferenceErrors('/terminalReferences', body.terminalReferences),
    ...entityReferenceErrors('/hasPartBlockReferences', body.hasPartBlockReferences),
  ],
});
