import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { type Quad, termToId } from 'n3';
import { matchesIfNoneMatch } from '../../platform/http/conditional.js';
import { HttpError } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { READ_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { HEADERS, JsonLdDocument, noContent, problems } from '../described-responses.js';
import { problem } from '../problem-codes.js';
import { single } from '../rdf/library-graph.js';
import { negotiateOrRefuse } from '../rdf/negotiation.js';
import { type RdfMediaType, serializeStream } from '../rdf/serialize.js';
import { completeShacl } from './assemble.js';

/** Lower-case GUIDs only, as the spec's limits say (no braces, no upper case). */
const LOWERCASE_GUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

/** `text/plain` is Turtle, as the platform serves it for people to read. */
const OFFERED = ['application/ld+json', 'text/turtle', 'application/trig', 'text/plain'] as const;

/** A short hash of a graph's triples in their (stable) order. */
function contentTag(quads: readonly Quad[]): string {
  const hash = createHash('sha256');
  for (const q of quads)
    hash.update(`${termToId(q.subject)} ${termToId(q.predicate)} ${termToId(q.object)}\n`);
  return hash.digest('hex').slice(0, 20);
}

export function registerShaclRoutes(app: HttpApp, refdata: Refdata): void {
  for (const [route, parameter, family, segment, label] of [
    ['/api/blocks/complete-imf-shacl', 'blockId', 'imf-block', 'blocks', 'block'],
    ['/api/terminals/complete-imf-shacl', 'terminalId', 'imf-terminal', 'terminals', 'terminal'],
  ] as const) {
    app.get(route, {
      schema: {
        summary: `Complete IMF SHACL of a ${label} type and everything it references`,
        tags: ['shacl'],
        querystring: Type.Object(
          {
            [parameter]: Type.String({ pattern: LOWERCASE_GUID, description: 'A lower-case GUID' }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'The shapes, in the representation the Accept header prefers',
            headers: { etag: HEADERS.etag },
            content: {
              'application/ld+json': {
                schema: JsonLdDocument,
              },
              'text/turtle': { schema: Type.String() },
              'application/trig': { schema: Type.String() },
              'text/plain': { schema: Type.String({ description: 'The same Turtle' }) },
            },
          },
          304: noContent('The tag in If-None-Match is current'),
          ...problems(400, 401, 403, 404, 406),
        },
      },
      config: { access: { roles: READ_ROLES } },
      handler: async (request, reply) => {
        reply.header('vary', 'Accept');
        const mediaType = negotiateOrRefuse(request.headers.accept, OFFERED, 'The complete SHACL');
        const guid = request.query[parameter] as string;
        const iri = `${refdata.iriBase}/imf/${segment}/${guid}`;
        const row = await refdata.store.findByIri(iri);
        if (row?.family !== family) {
          throw new HttpError(
            problem(404, 'not-found', `No IMF ${label} type has the id ${guid}.`),
          );
        }
        const quads = await completeShacl(refdata, row);
        // The assembly is deterministic, so its triples name its content exactly.
        const etag = `"${contentTag(quads)}-${mediaType.split('/')[1]?.replace(/[^a-z]/g, '')}"`;
        reply.header('etag', etag);
        if (matchesIfNoneMatch(request.headers['if-none-match'], etag))
          return reply.status(304).send();
        const format: RdfMediaType = mediaType === 'text/plain' ? 'text/turtle' : mediaType;
        return reply
          .type(`${mediaType}; charset=utf-8`)
          .send(serializeStream(single(quads), format));
      },
    });
  }
}
