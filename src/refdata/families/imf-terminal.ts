import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { DIRECTIONS } from '../imf/vocabulary.js';
import { imfTypeTriples } from '../rdf/family-shapes.js';
import { imf, sh } from '../rdf/vocabulary.js';
import { familySchema, ONTOLOGY_FIELD } from './common.js';
import { defineFamily } from './family.js';
import { AspectField, EntityReferences, entityReferenceErrors, IriList } from './imf-common.js';

export const imfTerminal = defineFamily({
  key: 'imf-terminal',
  route: '/imf/terminaltypes',
  label: 'IMF terminal type',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      classification: Type.Optional(
        IriList('A class the terminal type is classified by', {
          families: ['class', 'cfihos-entity'],
          external: true,
          noun: 'class',
        }),
      ),
      aspect: AspectField,
      direction: Type.Union([Type.Literal('input'), Type.Literal('output')]),
      referenceTerms: IriList('A reference term'),
      attributeReferences: EntityReferences('An IMF attribute type', 'imf-attribute'),
    },
    'An IMF terminal type',
  ),
  mintIri: (_body, context) => `${context.iriBase}/imf/terminals/${randomUUID()}`,
  libraryKey: (body) => body.ontology,
  hasShacl: true,
  rdf(body, g) {
    imfTypeTriples(g, body, 'TerminalType');
    const direction = g.node();
    g.about(sh('property'), direction);
    g.add(direction, sh('path'), imf('direction'));
    g.add(direction, sh('hasValue'), g.iri(DIRECTIONS[body.direction]))
      .add(direction, sh('maxCount'), g.integer(1))
      .add(direction, sh('nodeKind'), sh('IRI'));
  },
  rules: (body) => entityReferenceErrors('/attributeReferences', body.attributeReferences),
});
