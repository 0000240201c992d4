import { Type } from '@sinclair/typebox';
import { LINK_IRI_DETAIL } from '../../platform/http/formats.js';
import { owl, rdf } from '../rdf/vocabulary.js';
import { commonRules, familySchema, fieldError, IRI, isAbsoluteIri, slug } from './common.js';
import { defineFamily } from './family.js';

/** The CFIHOS reference-data library, version 2.0, that CFIHOS libraries build on (rule 2). */
export const CFIHOS_RDL_V2_IRI = 'https://posccaesar.org/cfihos/rdl/2.0';

export const library = defineFamily({
  key: 'library',
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
        Type.Array(IRI('A library this one builds on', { families: ['library'], external: true }), {
          maxItems: 100,
        }),
      ),
      cfihosPrefix: Type.Optional(
        Type.String({
          pattern: '^[A-Z][A-Z0-9]{0,15}$',
          title: 'CFIHOS prefix',
          description:
            'Capital letters and digits, starting with a letter, at most 16 (such as PMP); for a library built on the CFIHOS RDL v2.0',
        }),
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
  fixed: { path: 'it is part of the IRI' },
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
    if (body.backupFrequency !== undefined)
      g.about(g.our('backupFrequency'), g.plain(body.backupFrequency));
  },
  async rules(body, context) {
    const errors = await commonRules(body, context, {
      needsOntology: false,
      family: 'library',
      label: 'library',
    });
    for (const [index, iri] of (body.upperOntologies ?? []).entries()) {
      if (!isAbsoluteIri(iri))
        errors.push(fieldError(`/upperOntologies/${index}`, LINK_IRI_DETAIL));
    }
    const hasCfihosRdl = (body.upperOntologies ?? []).includes(CFIHOS_RDL_V2_IRI);
    if (body.cfihosPrefix !== undefined && !hasCfihosRdl) {
      errors.push(
        fieldError(
          '/upperOntologies',
          `must include the CFIHOS RDL v2.0 library (${CFIHOS_RDL_V2_IRI}) when cfihosPrefix is set`,
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
