import { Type } from '@sinclair/typebox';
import { familySchema, fieldError, ONTOLOGY_FIELD } from '../../src/refdata/families/common.js';
import { defineFamily } from '../../src/refdata/families/family.js';

export const GLOSSARY = 'https://example.org/glossary#';

/**
 * A family that exists only in this test: one module's worth of definition,
 * handed to the service beside the stock ones, and nothing else anywhere.
 */
export const GLOSSARY_FAMILY_KEY = 'glossary-term';

export const glossaryTerm = defineFamily({
  key: GLOSSARY_FAMILY_KEY,
  route: '/test/glossary-terms',
  label: 'glossary term',
  schema: familySchema(
    {
      ...ONTOLOGY_FIELD,
      abbreviation: Type.String({ pattern: '^[A-Z]{2,8}$' }),
      usage: Type.Union([Type.Literal('preferred'), Type.Literal('deprecated')]),
    },
    'A glossary term',
  ),
  iriPaths: ['/glossary/*'],
  mintIri: (body, context) => `${context.iriBase}/glossary/${body.abbreviation.toLowerCase()}`,
  libraryKey: (body) => body.ontology,
  identifiers: (body) => [body.abbreviation],
  rdf(body, g) {
    g.about(g.iri('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'), g.iri(`${GLOSSARY}Term`));
    g.about(g.iri(`${GLOSSARY}abbreviation`), g.plain(body.abbreviation));
  },
  rules: (body) =>
    body.usage === 'deprecated' && body.replaces === undefined
      ? [fieldError('/replaces', 'is required for a deprecated term')]
      : [],
});
