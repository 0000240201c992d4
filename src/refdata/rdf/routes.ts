import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchesIfNoneMatch } from '../../platform/http/conditional.js';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { READ_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import {
  HEADERS,
  JsonLdDocument,
  noContent,
  problems,
  representationSchema,
} from '../described-responses.js';
import { isLibrary } from '../families/family.js';
import { VIEWS, type View } from '../lifecycle/views.js';
import { missing, representation } from '../resources/lookup.js';
import { factsOf, type RowWithFacts } from '../resources/rows.js';
import { renderSymbol } from '../symbols/render.js';
import { resourcePage } from './html.js';
import { type DetailLevel, libraryChunks } from './library-graph.js';
import { negotiate, notAcceptable } from './negotiation.js';
import { resourceGraph } from './resource-graph.js';
import { RDF_FORMATS, RDF_MEDIA_TYPES, type RdfMediaType } from './serialize.js';

/** Everything a resource is offered as, in the order the service prefers. */
export const OFFERED = ['application/json', ...RDF_MEDIA_TYPES, 'text/html'] as const;
/** Symbols can also be looked at, as SVG. */
const OFFERED_FOR_SYMBOLS = [...OFFERED, 'image/svg+xml'] as const;
export type Offered = (typeof OFFERED_FOR_SYMBOLS)[number];

const DETAIL_QUERY = Type.Object(
  {
    detailLevel: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
    view: Type.Optional(
      Type.Union(
        VIEWS.map((view) => Type.Literal(view)),
        {
          description:
            "A library's terms: `published` (Approved and Deprecated) or `working` (every status, the default with a token)",
        },
      ),
    ),
  },
  { additionalProperties: false },
);

/** Path prefixes of the IRIs the service mints (docs/refdata-model.md). */

/** Each representation's short name (ETags, download links' `format`). */
export const SHORT_NAMES: Record<Offered, string> = {
  'application/json': 'json',
  ...(Object.fromEntries(
    RDF_MEDIA_TYPES.map((mediaType) => [mediaType, RDF_FORMATS[mediaType].shortName]),
  ) as Record<RdfMediaType, string>),
  'text/html': 'html',
  'image/svg+xml': 'svg',
};

/**
 * Answers a resource in the representation its caller prefers, with an ETag per
 * version and representation, 304 for a tag the caller already holds, and 406
 * (listing what there is) when nothing it accepts is offered.
 */
export async function answerResource(
  refdata: Refdata,
  request: FastifyRequest,
  reply: FastifyReply,
  row: RowWithFacts,
  chosen?: Offered,
  /** The view a library's terms are in, unless the request names one it may have. */
  view: View = viewAsked(request) ?? 'working',
): Promise<FastifyReply> {
  reply.header('vary', 'Accept');
  const offered: readonly Offered[] = row.family === 'symbol' ? OFFERED_FOR_SYMBOLS : OFFERED;
  // A download link names its format; otherwise the Accept header chooses.
  const mediaType = chosen ?? negotiate(request.headers.accept, offered);
  if (!mediaType) {
    throw notAcceptable(offered, 'This resource');
  }
  const detailLevel = partValue(request.query, 'detailLevel');
  // Each route offering levels declares and checks `detailLevel` (1 to 3).
  const level = (typeof detailLevel === 'number' ? detailLevel : 2) as DetailLevel;
  // A library's representation depends on the detail level and on its terms.
  const etag = isLibrary(row)
    ? `"${row.version}-${SHORT_NAMES[mediaType]}-${level}-${view}-${await refdata.store.libraryFingerprint(row.iri)}-${(await refdata.releases.latest(row.iri))?.sequence ?? 0}"`
    : `"${row.version}-${SHORT_NAMES[mediaType]}"`;
  reply.header('etag', etag);
  if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return reply.status(304).send();
  const children = refdata.families.byKey(row.family)?.aggregate
    ? await refdata.store.childrenWithFacts(row.iri)
    : [];
  if (mediaType === 'image/svg+xml') {
    // Opened on its own, an SVG is a document: sandboxed, it can run nothing and
    // reach nothing, even if a drawing ever slipped past the geometry check.
    return reply
      .type('image/svg+xml; charset=utf-8')
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox",
      )
      .send(renderSymbol(row));
  }
  if (mediaType === 'application/json') {
    return reply
      .type('application/json; charset=utf-8')
      .send(representation(refdata, row, children, row.replaced_by ?? undefined));
  }
  const quads = resourceGraph(refdata, row, children, factsOf([row, ...children]));
  if (mediaType === 'text/html') {
    return reply
      .type('text/html; charset=utf-8')
      .send(resourcePage(row, quads, refdata.iriBase, refdata.publicUrl));
  }
  // What is left is RDF: its format, chosen once.
  const format = RDF_FORMATS[mediaType];
  reply.type(format.contentType);
  // A library streams its terms; any other resource is one small document.
  return isLibrary(row)
    ? reply.send(format.stream(libraryChunks(refdata, row, level, view)))
    : reply.send(await format.write(quads));
}

/** Every representation a dereferenced resource may come in, for the API description. */
function representations(refdata: Refdata): Record<string, { schema: unknown }> {
  const text = (what: string) => ({ schema: Type.String({ description: what }) });
  return {
    'application/json': {
      schema: Type.Union(refdata.families.all.map((family) => representationSchema(family))),
    },
    ...Object.fromEntries(
      RDF_MEDIA_TYPES.map((mediaType) => [mediaType, text(RDF_FORMATS[mediaType].label)]),
    ),
    'application/ld+json': { schema: JsonLdDocument },
    'text/html': text("The resource's page"),
    'image/svg+xml': text("A symbol's drawing (symbols only)"),
  };
}

/** `GET` on the path of any IRI the service mints dereferences it. */
export function registerDereferenceRoutes(app: HttpApp, refdata: Refdata): void {
  const content = representations(refdata);
  for (const path of refdata.families.iriPaths) {
    app.get(path, {
      schema: {
        summary: `Dereference a resource whose IRI is under ${path.replace('/*', '/')}`,
        description: `Content negotiation over ${OFFERED.join(', ')}.`,
        tags: ['dereferencing'],
        querystring: DETAIL_QUERY,
        response: {
          200: {
            description: 'The resource in the representation the Accept header prefers',
            headers: { etag: HEADERS.etag, vary: { type: 'string', const: 'Accept' } },
            content,
          },
          304: noContent('The representation the If-None-Match tag names is current'),
          ...problems(400, 401, 403, 404, 406, 410),
        },
      },
      config: { access: { roles: READ_ROLES } },
      handler: async (request, reply) => {
        const iri = `${refdata.iriBase}${request.url.split('?')[0]}`;
        const row = await refdata.store.findWithFacts(iri);
        if (!row) throw await missing(refdata, iri);
        return answerResource(refdata, request, reply, row);
      },
    });
  }
}

/** The view a request names (`view=`), when its route declares one. */
export function viewAsked(request: FastifyRequest): View | undefined {
  const view = partValue(request.query, 'view');
  return view === 'published' || view === 'working' ? view : undefined;
}
