import { Type } from '@sinclair/typebox';
import { HttpError, validationProblem } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { READ_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { problems, rdfContent } from '../described-responses.js';
import { isLibrary } from '../families/family.js';
import { problem } from '../problem-codes.js';
import { negotiateOrRefuse } from '../rdf/negotiation.js';
import { RDF_FORMATS, RDF_MEDIA_TYPES } from '../rdf/serialize.js';
import { missing } from '../resources/lookup.js';
import { reportJson, reportQuads } from './answers.js';
import { type QualityScope, qualityReport } from './report.js';

const OFFERED = ['application/json', ...RDF_MEDIA_TYPES] as const;

const IRI_TEXT = { minLength: 1, maxLength: 2048 };

/**
 * `GET /quality`: a library's quality report as a release would see it (its
 * published view, the default), the whole library (`view=working`), or one
 * resource (`iri=`), as JSON or as a SHACL validation report in any RDF format.
 */
export function registerQualityRoutes(app: HttpApp, refdata: Refdata): void {
  app.get('/quality', {
    schema: {
      summary: 'A quality report: a library before release, a whole library, or one resource',
      description: `\`library\` with \`view=published\` (the default: what a release would take) or \`view=working\` (every resource of the library), or \`iri\` for one resource. Each finding: severity, rule, resource, message and where to mend it (docs/releases.md). Content negotiation over ${OFFERED.join(', ')}; RDF is a SHACL validation report.`,
      tags: ['releases'],
      querystring: Type.Object(
        {
          library: Type.Optional(Type.String(IRI_TEXT)),
          iri: Type.Optional(Type.String(IRI_TEXT)),
          view: Type.Optional(Type.Union([Type.Literal('published'), Type.Literal('working')])),
        },
        { additionalProperties: false },
      ),
      response: {
        200: {
          description: 'The report',
          content: {
            'application/json': { schema: Type.Unknown() },
            ...rdfContent(),
          },
        },
        ...problems(400, 401, 403, 404, 406, 410),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request, reply) => {
      const { library, iri, view } = request.query;
      if ((library === undefined) === (iri === undefined))
        throw new HttpError(
          validationProblem([
            { in: 'query', field: 'library', detail: 'or iri is required, and only one of them' },
          ]),
        );
      if (iri !== undefined && view !== undefined)
        throw new HttpError(
          validationProblem([
            { in: 'query', field: 'view', detail: "is a library's; a resource is checked alone" },
          ]),
        );
      let scope: QualityScope;
      if (iri !== undefined) {
        const resource = await refdata.store.findWithFacts(iri);
        if (!resource) throw await missing(refdata, iri);
        scope = { kind: 'resource', resource };
      } else {
        const row = await refdata.store.findByIri(library as string);
        if (!row || !isLibrary(row))
          throw new HttpError(problem(404, 'not-found', `No library has the IRI ${library}.`));
        scope = { kind: view === 'working' ? 'library' : 'release', library: row };
      }
      const mediaType = negotiateOrRefuse(request.headers.accept, OFFERED, 'The report');
      reply.header('vary', 'Accept').header('cache-control', 'no-store');
      const report = await qualityReport(refdata, scope);
      if (mediaType === 'application/json')
        return reply.type('application/json; charset=utf-8').send(reportJson(refdata, report));
      const format = RDF_FORMATS[mediaType];
      return reply.type(format.contentType).send(await format.write(reportQuads(report)));
    },
  });
}
