import { Type } from '@sinclair/typebox';
import type { FieldError } from '../../platform/http/problem.js';
import { dcterms, owl, rdf } from '../rdf/vocabulary.js';
import { familySchema, fieldError, IRI, LanguageTag, slug } from './common.js';
import { defineFamily, LIBRARY_FAMILY } from './family.js';

/** The CFIHOS reference-data library, version 2.0, that CFIHOS libraries build on (rule 2). */
export const CFIHOS_RDL_V2_IRI = 'https://posccaesar.org/cfihos/rdl/2.0';

export const library = defineFamily({
  key: LIBRARY_FAMILY,
  route: '/ontologies/domains',
  label: 'library',
  schema: familySchema(
    {
      path: Type.Optional(
        Type.String({
          pattern: '^[a-z0-9][a-z0-9-]{0,99}$',
          description: 'Last segment of the IRI; made from the name when left out',
        }),
      ),
      upperOntologies: Type.Optional(
        Type.Array(
          IRI('A library this one builds on', { families: [LIBRARY_FAMILY], external: true }),
          {
            maxItems: 100,
          },
        ),
      ),
      cfihosPrefix: Type.Optional(
        Type.String({
          pattern: '^[A-Z][A-Z0-9]{0,15}$',
          title: 'CFIHOS prefix',
          description: `Capital letters and digits, starting with a letter, at most 16 (such as PMP); for a library built on the CFIHOS RDL v2.0, which its upper ontologies then list (${CFIHOS_RDL_V2_IRI})`,
        }),
      ),
      defaultLanguage: Type.Optional(
        LanguageTag(
          "The language of its terms' name and description (BCP 47); English when left out. Fixed once the library exists",
        ),
      ),
      backupFrequency: Type.Optional(
        Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('monthly')]),
      ),
    },
    'A reference-data library (an OWL ontology)',
  ),
  iriPaths: ['/ontology/*'],
  mintIri: (body, context) =>
    `${context.iriBase}/ontology/${body.path ?? (slug(body.name) || 'library')}`,
  // The path is the IRI's last segment: stored with the library, never changed.
  fixed: {
    path: 'it is part of the IRI',
    defaultLanguage: "its terms' names and definitions are written in it",
  },
  complete: (body, context) => ({
    ...body,
    path:
      body.path ??
      (context.self === undefined
        ? slug(body.name) || 'library'
        : context.self.slice(context.self.lastIndexOf('/') + 1)),
  }),
  libraryKey: () => '',
  identifiers: (body) => [body.cfihosPrefix, body.path],
  rdf(body, g) {
    g.about(rdf('type'), owl('Ontology'));
    for (const iri of body.upperOntologies ?? []) g.about(owl('imports'), g.iri(iri));
    if (body.cfihosPrefix !== undefined) g.about(g.our('cfihosPrefix'), g.plain(body.cfihosPrefix));
    if (body.defaultLanguage !== undefined)
      g.about(dcterms('language'), g.plain(body.defaultLanguage));
    if (body.backupFrequency !== undefined)
      g.about(g.our('backupFrequency'), g.plain(body.backupFrequency));
  },
  rules(body) {
    const errors: FieldError[] = [];
    const hasCfihosRdl = (body.upperOntologies ?? []).includes(CFIHOS_RDL_V2_IRI);
    if (body.cfihosPrefix !== undefined && !hasCfihosRdl) {
      errors.push(
        fieldError(
          '/upperOntologies',
          `must include the CFIHOS RDL v2.0 library (${CFIHOS_RDL_V2_IRI}) when a CFIHOS prefix is set`,
        ),
      );
    }
    if (body.cfihosPrefix === undefined && hasCfihosRdl) {
      errors.push(
        fieldError('/cfihosPrefix', 'is required for a library built on the CFIHOS RDL v2.0'),
      );
    }
    return errors;
  },
});
